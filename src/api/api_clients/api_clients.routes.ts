// API clients v1 (contract 03 §4): bare array and object.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, toId } from '../../http/schemas.ts';
import { ApiClient, ApiClientListQuery, CreateApiClientBody } from './api_clients.schemas.ts';
import { createApiClient, listApiClients } from './api_clients.service.ts';

const tags = ['API platform'];

export function apiClientsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/api_clients',
    {
      config: { privilege: 'api_platform_clients:read' },
      schema: {
        tags,
        summary: 'List API clients',
        querystring: ApiClientListQuery,
        response: { 200: Type.Array(ApiClient), ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listApiClients(ctx, authOf(request), request.query.project_id, parsePage(request.query)),
  );

  app.post(
    '/api/api_clients',
    {
      config: { privilege: 'api_platform_clients:write' },
      schema: {
        tags,
        summary: 'Create an API client',
        body: CreateApiClientBody,
        response: { 200: ApiClient, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const { project_id, api_policy_id, ...rest } = request.body;
      return createApiClient(ctx, authOf(request), {
        ...rest,
        ...(project_id !== undefined ? { project_id: toId(project_id) } : {}),
        ...(api_policy_id !== undefined ? { api_policy_id: toId(api_policy_id) } : {}),
      });
    },
  );
}
