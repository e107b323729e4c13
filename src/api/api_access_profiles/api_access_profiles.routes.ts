// Access profiles v1 (contract 03 §5), at the real routes and at the spellings of the
// specification (README overrides): enable/disable without the /api prefix, update with the id in the body.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, toId } from '../../http/schemas.ts';
import {
  AccessProfile,
  CreateProfileBody,
  ProfileListQuery,
  ResultSuccess,
  UpdateProfileBody,
  UpdateProfileBodyWithId,
} from './api_access_profiles.schemas.ts';
import {
  createProfile,
  listProfiles,
  refreshSecret,
  setProfileActive,
  updateProfileById,
  type ProfileInput,
} from './api_access_profiles.service.ts';

const tags = ['API platform'];

export function apiAccessProfilesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/api_access_profiles',
    {
      config: { privilege: 'api_platform_clients:read' },
      schema: {
        tags,
        summary: 'List access profiles, optionally of one API client',
        querystring: ProfileListQuery,
        response: { 200: Type.Array(AccessProfile), ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listProfiles(ctx, authOf(request), request.query.api_client_id, parsePage(request.query)),
  );

  app.post(
    '/api/api_access_profiles',
    {
      config: { privilege: 'api_platform_clients:write' },
      schema: {
        tags,
        summary: 'Create an access profile; its secret is shown once',
        body: CreateProfileBody,
        response: { 200: AccessProfile, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => createProfile(ctx, authOf(request), toProfileInput(request.body)),
  );

  app.put(
    '/api/api_access_profiles/:id',
    {
      config: { privilege: 'api_platform_clients:write' },
      schema: {
        tags,
        summary: 'Update an access profile (changing auth_type issues new credentials)',
        params: IdParams,
        body: UpdateProfileBody,
        response: { 200: AccessProfile, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => updateProfileById(ctx, authOf(request), request.params.id, toProfileInput(request.body ?? {})),
  );

  app.put(
    '/api/api_access_profiles',
    {
      config: { privilege: 'api_platform_clients:write' },
      schema: {
        tags,
        summary: "Update an access profile named by `id` in the body (the specification's spelling)",
        body: UpdateProfileBodyWithId,
        response: { 200: AccessProfile, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const { id, ...rest } = (request.body ?? {}) as Static<typeof UpdateProfileBodyWithId>;
      if (id === undefined) throw new AppError('id_required', { errors: { id: ['is required'] } });
      return updateProfileById(ctx, authOf(request), toId(id), toProfileInput(rest));
    },
  );

  const stateRoute = (path: string, active: boolean) =>
    app.put(
      path,
      {
        config: { privilege: 'api_platform_clients:write' },
        schema: {
          tags,
          summary: `${active ? 'Enable' : 'Disable'} an access profile`,
          params: IdParams,
          response: { 200: ResultSuccess, ...errorResponses(...AUTH_ERRORS, 404) },
        },
      },
      async (request) => {
        await setProfileActive(ctx, authOf(request), (request.params as { id: number }).id, active);
        return { result: 'success' as const };
      },
    );
  stateRoute('/api/api_access_profiles/:id/enable', true);
  stateRoute('/api/api_access_profiles/:id/disable', false);
  stateRoute('/api_access_profiles/:id/enable', true);
  stateRoute('/api_access_profiles/:id/disable', false);

  app.put(
    '/api/api_access_profiles/:id/refresh_secret',
    {
      config: { privilege: 'api_platform_clients:write' },
      schema: {
        tags,
        summary: 'Issue a new secret; the old one and every token issued with it stop working at once',
        params: IdParams,
        response: { 200: AccessProfile, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => refreshSecret(ctx, authOf(request), request.params.id),
  );
}

function toProfileInput(body: Static<typeof UpdateProfileBody>): ProfileInput {
  const { api_client_id, api_collection_ids, publish_topic_ids, consume_topic_ids, api_policy_id, ...rest } = body;
  return {
    ...rest,
    ...(api_client_id !== undefined ? { api_client_id: toId(api_client_id) } : {}),
    ...(api_collection_ids !== undefined ? { api_collection_ids: api_collection_ids.map(toId) } : {}),
    ...(publish_topic_ids !== undefined ? { publish_topic_ids: publish_topic_ids.map(toId) } : {}),
    ...(consume_topic_ids !== undefined ? { consume_topic_ids: consume_topic_ids.map(toId) } : {}),
    ...(api_policy_id !== undefined ? { api_policy_id: api_policy_id === null ? null : toId(api_policy_id) } : {}),
  };
}
