// Developer API clients (contract 02 §2.1-2.6). Envelope: { result: ... }.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, toId } from '../../http/schemas.ts';
import {
  ClientListResult,
  ClientResult,
  CreateClientBody,
  DeleteResult,
  ListQuery,
  UpdateClientBody,
} from './developer_api_clients.schemas.ts';
import {
  createClient,
  deleteClient,
  getClient,
  listClients,
  regenerateToken,
  updateClient,
  type ClientInput,
} from './developer_api_clients.service.ts';

const tags = ['Developer API clients'];

export function developerApiClientsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/developer_api_clients',
    {
      config: { privilege: 'developer_api_clients:read' },
      schema: {
        tags,
        summary: 'List developer API clients',
        querystring: ListQuery,
        response: { 200: ClientListResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return { result: await listClients(ctx, auth.workspaceId, parsePage(request.query)) };
    },
  );

  app.post(
    '/api/developer_api_clients',
    {
      config: { privilege: 'developer_api_clients:write' },
      schema: {
        tags,
        summary: 'Create a developer API client (the token is shown once)',
        body: CreateClientBody,
        response: { 200: ClientResult, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return { result: await createClient(ctx, auth, auth.workspaceId, toClientInput(request.body)) };
    },
  );

  app.get(
    '/api/developer_api_clients/:id',
    {
      config: { privilege: 'developer_api_clients:read' },
      schema: {
        tags,
        summary: 'Get a developer API client',
        params: IdParams,
        response: { 200: ClientResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { result: await getClient(ctx, authOf(request).workspaceId, id) };
    },
  );

  app.put(
    '/api/developer_api_clients/:id',
    {
      config: { privilege: 'developer_api_clients:write' },
      schema: {
        tags,
        summary: 'Update a developer API client (the token is kept)',
        params: IdParams,
        body: UpdateClientBody,
        response: { 200: ClientResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { result: await updateClient(ctx, authOf(request), id, toClientInput(request.body ?? {})) };
    },
  );

  app.delete(
    '/api/developer_api_clients/:id',
    {
      config: { privilege: 'developer_api_clients:write' },
      schema: {
        tags,
        summary: 'Delete a developer API client; its token stops working at once',
        params: IdParams,
        response: { 200: DeleteResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      await deleteClient(ctx, authOf(request), id);
      return { result: { success: true } };
    },
  );

  app.post(
    '/api/developer_api_clients/:id/regenerate',
    {
      config: { privilege: 'developer_api_clients:write' },
      schema: {
        tags,
        summary: 'Issue a new token; the old one stops working at once',
        params: IdParams,
        response: { 200: ClientResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { result: await regenerateToken(ctx, authOf(request), id) };
    },
  );
}

function toClientInput(body: Partial<CreateClientBody>): ClientInput {
  const { api_privilege_group_id, folder_ids, ...rest } = body;
  return {
    ...rest,
    ...(api_privilege_group_id !== undefined ? { api_privilege_group_id: toId(api_privilege_group_id) } : {}),
    ...(folder_ids !== undefined ? { folder_ids: folder_ids.map(toId) } : {}),
  };
}
