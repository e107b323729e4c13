// API clients v2 and their API keys (contract 03 §7): `{data: ...}` envelopes. The same clients
// and keys are the v1 API clients and access profiles (api_clients.routes.ts, src/api/api_access_profiles/).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, toId } from '../../http/schemas.ts';
import {
  ApiClientV2Data,
  ApiClientV2List,
  ApiClientV2ListQuery,
  ApiKeyData,
  ApiKeyList,
  ClientParams,
  CreateApiClientV2Body,
  CreateApiKeyBody,
  DataSuccess,
  KeyListQuery,
  KeyParams,
  ResultSuccess,
  UpdateApiClientV2Body,
  UpdateApiKeyBody,
} from './api_clients_v2.schemas.ts';
import {
  createApiClientV2,
  createApiKey,
  deleteApiClientV2,
  deleteApiKey,
  getApiClientV2,
  listApiClientsV2,
  listApiKeys,
  refreshApiKey,
  setApiKeyActive,
  updateApiClientV2,
  updateApiKey,
  type ApiClientV2Input,
} from './api_clients_v2.service.ts';

const tags = ['API platform'];
const read = { privilege: 'api_platform_clients:read' } as const;
const write = { privilege: 'api_platform_clients:write' } as const;

export function apiClientsV2Routes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/v2/api_clients',
    {
      config: read,
      schema: {
        tags,
        summary: 'List API clients (v2), v1 clients included (is_legacy)',
        querystring: ApiClientV2ListQuery,
        response: { 200: ApiClientV2List, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const q = request.query;
      const bundles = [q['cert_bundle_ids[]'] ?? [], q.cert_bundle_ids ?? []].flat();
      return listApiClientsV2(
        ctx,
        authOf(request),
        {
          ...(q.project_id !== undefined ? { projectId: q.project_id } : {}),
          ...(bundles.length > 0 ? { certBundleIds: bundles } : {}),
        },
        parsePage(q),
      );
    },
  );

  app.post(
    '/api/v2/api_clients',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an API client (v2) with its collections and auth type; API keys are added apart',
        body: CreateApiClientV2Body,
        response: { 200: ApiClientV2Data, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ data: await createApiClientV2(ctx, authOf(request), toClientInput(request.body)) }),
  );

  app.get(
    '/api/v2/api_clients/:api_client_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'An API client (v2) with its API keys (tokens masked)',
        params: ClientParams,
        response: { 200: ApiClientV2Data, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await getApiClientV2(ctx, authOf(request), request.params.api_client_id) }),
  );

  app.put(
    '/api/v2/api_clients/:api_client_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an API client (v2); collections and JWT/OIDC settings apply to its keys at once',
        params: ClientParams,
        body: UpdateApiClientV2Body,
        response: { 200: ApiClientV2Data, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await updateApiClientV2(
        ctx,
        authOf(request),
        request.params.api_client_id,
        toClientInput(request.body ?? {}),
      ),
    }),
  );

  app.delete(
    '/api/v2/api_clients/:api_client_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an API client and its API keys; their credentials stop working at once',
        params: ClientParams,
        response: { 200: DataSuccess, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteApiClientV2(ctx, authOf(request), request.params.api_client_id);
      return { data: { success: true } };
    },
  );

  app.get(
    '/api/v2/api_clients/:api_client_id/api_keys',
    {
      config: read,
      schema: {
        tags,
        summary: 'List the API keys of a client (tokens masked)',
        params: ClientParams,
        querystring: KeyListQuery,
        response: { 200: ApiKeyList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => listApiKeys(ctx, authOf(request), request.params.api_client_id, parsePage(request.query)),
  );

  app.post(
    '/api/v2/api_clients/:api_client_id/api_keys',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an API key (at most 20 a client); its token is shown this once',
        params: ClientParams,
        body: CreateApiKeyBody,
        response: { 200: ApiKeyData, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => ({ data: await createApiKey(ctx, authOf(request), request.params.api_client_id, request.body) }),
  );

  app.put(
    '/api/v2/api_clients/:api_client_id/api_keys/:api_key_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an API key: name, active, IP lists',
        params: KeyParams,
        body: UpdateApiKeyBody,
        response: { 200: ApiKeyData, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await updateApiKey(
        ctx,
        authOf(request),
        request.params.api_client_id,
        request.params.api_key_id,
        request.body ?? {},
      ),
    }),
  );

  for (const [verb, active] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.put(
      `/api/v2/api_clients/:api_client_id/api_keys/:api_key_id/${verb}`,
      {
        config: write,
        schema: {
          tags,
          summary: `${active ? 'Enable' : 'Disable'} an API key${active ? '' : '; its credentials are refused at the next request'}`,
          params: KeyParams,
          response: { 200: ResultSuccess, ...errorResponses(...AUTH_ERRORS, 404) },
        },
      },
      async (request) => {
        const { api_client_id, api_key_id } = request.params as Static<typeof KeyParams>;
        await setApiKeyActive(ctx, authOf(request), api_client_id, api_key_id, active);
        return { result: 'success' as const };
      },
    );
  }

  app.put(
    '/api/v2/api_clients/:api_client_id/api_keys/:api_key_id/refresh_secret',
    {
      config: write,
      schema: {
        tags,
        summary: 'Issue a new token for an API key; the old one, and every token issued with it, stop working at once',
        params: KeyParams,
        response: { 200: ApiKeyData, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await refreshApiKey(ctx, authOf(request), request.params.api_client_id, request.params.api_key_id),
    }),
  );

  app.delete(
    '/api/v2/api_clients/:api_client_id/api_keys/:api_key_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an API key; its credentials are refused at the next request',
        params: KeyParams,
        response: { 200: DataSuccess, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteApiKey(ctx, authOf(request), request.params.api_client_id, request.params.api_key_id);
      return { data: { success: true } };
    },
  );
}

function toClientInput(body: Static<typeof UpdateApiClientV2Body>): ApiClientV2Input {
  const { api_collection_ids, project_id, api_portal_id, api_policy_id, cert_bundle_ids, ...rest } = body;
  return {
    ...rest,
    ...(api_collection_ids !== undefined ? { api_collection_ids: api_collection_ids.map(toId) } : {}),
    ...(project_id !== undefined ? { project_id: toId(project_id) } : {}),
    ...(api_portal_id !== undefined ? { api_portal_id: api_portal_id === null ? null : toId(api_portal_id) } : {}),
    ...(api_policy_id !== undefined ? { api_policy_id: api_policy_id === null ? null : toId(api_policy_id) } : {}),
    ...(cert_bundle_ids !== undefined ? { cert_bundle_ids: cert_bundle_ids.map(toId) } : {}),
  };
}
