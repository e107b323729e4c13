// Custom connectors (contract 04 part 2). List/search: { result: [...] }; the others: { data: ... }.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.ts';
import {
  ConnectorCodeResult,
  ConnectorDataResult,
  ConnectorListQuery,
  ConnectorListResult,
  CreateConnectorBody,
  UpdateConnectorBody,
} from './custom_connectors.schemas.ts';
import {
  connectorCode,
  createConnector,
  listConnectors,
  releaseConnector,
  updateConnectorCode,
} from './custom_connectors.service.ts';

const tags = ['Custom connectors'];

export function customConnectorsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const list = {
    config: { privilege: 'connector_sdks:read' as const },
    schema: {
      tags,
      summary: 'List custom connectors (filters: title, oem_shared)',
      querystring: ConnectorListQuery,
      response: { 200: ConnectorListResult, ...errorResponses(...AUTH_ERRORS) },
    },
  };
  const handleList = async (request: FastifyRequest<{ Querystring: { title?: string; oem_shared?: boolean } }>) => ({
    result: await listConnectors(ctx, scopeOf(request), {
      ...(request.query.title !== undefined ? { title: request.query.title } : {}),
      ...(request.query.oem_shared !== undefined ? { oemShared: request.query.oem_shared } : {}),
    }),
  });
  app.get('/api/custom_connectors', list, handleList);
  // The newer documented path of the same search (contract 04 §2.2).
  app.get(
    '/api/custom_connectors/search',
    { ...list, schema: { ...list.schema, summary: 'Search custom connectors (same as the list)' } },
    handleList,
  );

  app.post(
    '/api/custom_connectors',
    {
      config: { privilege: 'connector_sdks:write' },
      schema: {
        tags,
        summary: 'Create a custom connector with its first (unreleased) version',
        body: CreateConnectorBody,
        response: { 200: ConnectorDataResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ data: await createConnector(ctx, scopeOf(request), request.body) }),
  );

  app.put(
    '/api/custom_connectors/:id',
    {
      config: { privilege: 'connector_sdks:write' },
      schema: {
        tags,
        summary: 'Update a custom connector: new code makes a new unreleased version',
        params: IdParams,
        body: UpdateConnectorBody,
        response: { 200: ConnectorDataResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await updateConnectorCode(ctx, scopeOf(request), request.params.id, request.body ?? {}),
    }),
  );

  app.post(
    '/api/custom_connectors/:id/release',
    {
      config: { privilege: 'connector_sdks:write' },
      schema: {
        tags,
        summary: 'Release the latest version',
        params: IdParams,
        response: { 200: ConnectorDataResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await releaseConnector(ctx, scopeOf(request), request.params.id) }),
  );

  app.get(
    '/api/custom_connectors/:id/code',
    {
      config: { privilege: 'connector_sdks:read' },
      schema: {
        tags,
        summary: 'Source of the latest version',
        params: IdParams,
        response: { 200: ConnectorCodeResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: { code: await connectorCode(ctx, scopeOf(request), request.params.id) } }),
  );
}

function scopeOf(request: FastifyRequest) {
  const auth = authOf(request);
  return { workspaceId: auth.workspaceId, environmentId: auth.environmentId };
}
