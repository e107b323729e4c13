// API endpoints (contract 03 §3): list, enable, disable.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, SuccessBody } from '../../http/schemas.ts';
import { Endpoint, EndpointListQuery } from './api_endpoints.schemas.ts';
import { listEndpoints, setEndpointState } from './api_endpoints.service.ts';

const tags = ['API platform'];

export function apiEndpointsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/api_endpoints',
    {
      config: { privilege: 'api_platform_collections:read' },
      schema: {
        tags,
        summary: 'List API endpoints, optionally of one collection',
        querystring: EndpointListQuery,
        response: { 200: Type.Array(Endpoint), ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listEndpoints(ctx, authOf(request), request.query.api_collection_id, parsePage(request.query)),
  );

  const stateRoute = (path: '/api/api_endpoints/:id/enable' | '/api/api_endpoints/:id/disable', active: boolean) =>
    app.put(
      path,
      {
        config: { privilege: 'api_platform_collections:write' },
        schema: {
          tags,
          summary: `${active ? 'Enable' : 'Disable'} an API endpoint`,
          params: IdParams,
          response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404, 422) },
        },
      },
      async (request) => {
        await setEndpointState(ctx, authOf(request), request.params.id, active);
        return { success: true };
      },
    );
  stateRoute('/api/api_endpoints/:id/enable', true);
  stateRoute('/api/api_endpoints/:id/disable', false);
}
