// Connections (contract 04 part 1). Replies are bare objects and arrays; every reply has a body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { actorOf } from '../activity_logs/activity_logs.routes.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody, toId } from '../../http/schemas.ts';
import {
  Connection,
  ConnectionIdParams,
  ConnectionList,
  CreateConnectionBody,
  DisconnectBody,
  DisconnectResult,
  ListConnectionsQuery,
  PickListBody,
  PickListResult,
  UpdateConnectionBody,
} from './connections.schemas.ts';
import {
  createConnection,
  deleteConnection,
  disconnectConnection,
  getConnection,
  listConnections,
  updateConnection,
  type ConnectionCaller,
  type ConnectionInputFields,
} from './connections.service.ts';
import { connectionPickList } from './connection-pick-list.ts';

const tags = ['Connections'];

export function connectionsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/connections',
    {
      config: { privilege: 'connections:read' },
      schema: {
        tags,
        summary: 'List connections (not paged unless page or per_page is sent)',
        querystring: ListConnectionsQuery,
        response: { 200: ConnectionList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const q = request.query;
      const paged = q.page !== undefined || q.per_page !== undefined;
      return listConnections(
        ctx,
        callerOf(request),
        {
          ...(q.folder_id !== undefined ? { folderId: q.folder_id } : {}),
          ...(q.parent_id !== undefined ? { parentId: q.parent_id } : {}),
          ...(q.external_id !== undefined ? { externalId: q.external_id } : {}),
          ...(q.provider !== undefined ? { provider: q.provider } : {}),
          includeRuntime: q.include_runtime_connections === true,
        },
        paged ? parsePage(q) : undefined,
      );
    },
  );

  app.get(
    '/api/connections/:id',
    {
      config: { privilege: 'connections:read' },
      schema: {
        tags,
        summary: 'Get a connection',
        params: ConnectionIdParams,
        response: { 200: Connection, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getConnection(ctx, callerOf(request), connectionId(request.params.id)),
  );

  app.post(
    '/api/connections',
    {
      config: { privilege: 'connections:write', activity: 'in_service' },
      schema: {
        tags,
        summary: 'Create a connection; credentials are stored encrypted and never returned',
        body: CreateConnectionBody,
        response: { 200: Connection, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => createConnection(ctx, callerOf(request), toInput(request.body), actorOf(request)),
  );

  const update = {
    config: { privilege: 'connections:write' as const, activity: 'in_service' as const },
    schema: {
      tags,
      summary: 'Update a connection; input is merged into the stored fields',
      params: ConnectionIdParams,
      body: UpdateConnectionBody,
      response: { 200: Connection, ...errorResponses(...AUTH_ERRORS, 404) },
    },
  };
  const handleUpdate = async (request: FastifyRequest<{ Params: { id: string }; Body: UpdateConnectionBody }>) =>
    updateConnection(
      ctx,
      callerOf(request),
      connectionId(request.params.id),
      toInput(request.body ?? {}),
      actorOf(request),
    );
  app.put('/api/connections/:id', update, handleUpdate);
  // The vendor's permission list names POST for the same update (contract 04 §1.5).
  app.post(
    '/api/connections/:id',
    { ...update, schema: { ...update.schema, summary: 'Update a connection (POST form of PUT)' } },
    handleUpdate,
  );

  app.post(
    '/api/connections/:id/disconnect',
    {
      config: { privilege: 'connections:write', activity: 'in_service' },
      // Clients send no body at all (contract 04 §1.6): validate an empty one.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Disconnect: drop the stored credentials and the authorization',
        params: ConnectionIdParams,
        body: DisconnectBody,
        response: { 200: DisconnectResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await disconnectConnection(ctx, callerOf(request), connectionId(request.params.id), actorOf(request));
      return { success: true, status: 'disconnected' };
    },
  );

  app.post(
    '/api/connections/:id/pick_list',
    {
      config: { privilege: 'connections:read' },
      schema: {
        tags,
        summary: "Read a pick list of the connection's connector through the connection",
        params: ConnectionIdParams,
        body: PickListBody,
        response: { 200: PickListResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => ({
      data: await connectionPickList(
        ctx,
        callerOf(request),
        connectionId(request.params.id),
        request.body.pick_list_name,
        request.body.pick_list_params ?? {},
      ),
    }),
  );

  app.delete(
    '/api/connections/:id',
    {
      config: { privilege: 'connections:write', activity: 'in_service' },
      schema: {
        tags,
        summary: 'Delete a connection (refused while child connections use it)',
        params: ConnectionIdParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await deleteConnection(ctx, callerOf(request), connectionId(request.params.id), actorOf(request));
      return { success: true };
    },
  );
}

type UpdateConnectionBody = Static<typeof UpdateConnectionBody>;

function callerOf(request: FastifyRequest): ConnectionCaller {
  const auth = authOf(request);
  return {
    workspaceId: auth.workspaceId,
    environmentId: auth.environmentId,
    allFolders: auth.allFolders,
    folderIds: auth.folderIds,
  };
}

function connectionId(text: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new AppError('not_found');
  return Number(text);
}

function toInput(body: UpdateConnectionBody): ConnectionInputFields {
  const { folder_id, parent_id, custom_oauth_profile_id, ...rest } = body;
  return {
    ...rest,
    ...(folder_id !== undefined ? { folder_id: toId(folder_id) } : {}),
    ...(parent_id !== undefined ? { parent_id: parent_id === null ? null : toId(parent_id) } : {}),
    ...(custom_oauth_profile_id !== undefined
      ? { custom_oauth_profile_id: custom_oauth_profile_id === null ? null : toId(custom_oauth_profile_id) }
      : {}),
  };
}
