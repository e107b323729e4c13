// Custom OAuth profiles (contract 05 §1). Envelope: { result: ... }.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.ts';
import {
  CreateProfileBody,
  ProfileDeleteResult,
  ProfileListQuery,
  ProfileListResult,
  ProfileResult,
  UpdateProfileBody,
} from './custom_oauth_profiles.schemas.ts';
import {
  createProfile,
  getProfile,
  listProfiles,
  removeProfile,
  updateProfile,
} from './custom_oauth_profiles.service.ts';

const tags = ['Custom OAuth profiles'];

export function customOauthProfilesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/custom_oauth_profiles',
    {
      config: { privilege: 'custom_oauth_profiles:read' },
      schema: {
        tags,
        summary: 'List custom OAuth profiles',
        querystring: ProfileListQuery,
        response: { 200: ProfileListResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ result: await listProfiles(ctx, scopeOf(request), parsePage(request.query)) }),
  );

  app.get(
    '/api/custom_oauth_profiles/:id',
    {
      config: { privilege: 'custom_oauth_profiles:read' },
      schema: {
        tags,
        summary: 'Get a custom OAuth profile',
        params: IdParams,
        response: { 200: ProfileResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ result: await getProfile(ctx, scopeOf(request), request.params.id) }),
  );

  app.post(
    '/api/custom_oauth_profiles',
    {
      config: { privilege: 'custom_oauth_profiles:write' },
      schema: {
        tags,
        summary: 'Create a custom OAuth profile (the client secret is stored encrypted)',
        body: CreateProfileBody,
        response: { 200: ProfileResult, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => ({ result: await createProfile(ctx, scopeOf(request), request.body) }),
  );

  app.put(
    '/api/custom_oauth_profiles/:id',
    {
      config: { privilege: 'custom_oauth_profiles:write' },
      schema: {
        tags,
        summary: 'Update a custom OAuth profile; an omitted client secret is kept',
        params: IdParams,
        body: UpdateProfileBody,
        response: { 200: ProfileResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => ({ result: await updateProfile(ctx, scopeOf(request), request.params.id, request.body ?? {}) }),
  );

  app.delete(
    '/api/custom_oauth_profiles/:id',
    {
      config: { privilege: 'custom_oauth_profiles:write' },
      schema: {
        tags,
        summary: 'Delete a custom OAuth profile (refused while connections use it)',
        params: IdParams,
        response: { 200: ProfileDeleteResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await removeProfile(ctx, scopeOf(request), request.params.id);
      return { result: { success: true } };
    },
  );
}

function scopeOf(request: FastifyRequest) {
  const auth = authOf(request);
  return { workspaceId: auth.workspaceId, environmentId: auth.environmentId };
}
