// API collections (contract 03 §2, §3.4): bare arrays and objects.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, toId } from '../../http/schemas.ts';
import { Endpoint } from '../api_endpoints/api_endpoints.schemas.ts';
import {
  Collection,
  CollectionListQuery,
  CreateCollectionBody,
  CreatedCollection,
  CreateEndpointBody,
  DeleteResult,
  UpdateCollectionBody,
} from './api_collections.schemas.ts';
import {
  addEndpoint,
  createCollection,
  deleteCollection,
  listCollections,
  updateCollection,
} from './api_collections.service.ts';
import { Type } from 'typebox';

const tags = ['API platform'];

export function apiCollectionsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/api_collections',
    {
      config: { privilege: 'api_platform_collections:read' },
      schema: {
        tags,
        summary: 'List API collections',
        querystring: CollectionListQuery,
        response: { 200: Type.Array(Collection), ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listCollections(ctx, authOf(request), parsePage(request.query)),
  );

  app.post(
    '/api/api_collections',
    {
      config: { privilege: 'api_platform_collections:write' },
      schema: {
        tags,
        summary: 'Create an API collection, optionally with endpoints from an OpenAPI document',
        body: CreateCollectionBody,
        response: { 200: CreatedCollection, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => {
      const { project_id, proxy_connection_id, ...rest } = request.body;
      return createCollection(ctx, authOf(request), {
        ...rest,
        ...(project_id !== undefined ? { project_id: toId(project_id) } : {}),
        ...(proxy_connection_id !== undefined
          ? { proxy_connection_id: proxy_connection_id === null ? null : toId(proxy_connection_id) }
          : {}),
      });
    },
  );

  app.put(
    '/api/api_collections/:id',
    {
      config: { privilege: 'api_platform_collections:write' },
      schema: {
        tags,
        summary: 'Update a collection: name, proxy_connection_id, public_access',
        params: IdParams,
        body: UpdateCollectionBody,
        response: { 200: Collection, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const { proxy_connection_id, ...rest } = request.body ?? {};
      return updateCollection(ctx, authOf(request), request.params.id, {
        ...rest,
        ...(proxy_connection_id !== undefined
          ? { proxy_connection_id: proxy_connection_id === null ? null : toId(proxy_connection_id) }
          : {}),
      });
    },
  );

  app.delete(
    '/api/api_collections/:id',
    {
      config: { privilege: 'api_platform_collections:write' },
      schema: {
        tags,
        summary: 'Delete a collection and its endpoints',
        params: IdParams,
        response: { 200: DeleteResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteCollection(ctx, authOf(request), request.params.id);
      return { result: { success: true } };
    },
  );

  app.post(
    '/api/api_collections/:id/api_endpoints',
    {
      config: { privilege: 'api_platform_collections:write' },
      schema: {
        tags,
        summary: 'Add an endpoint to a collection',
        params: IdParams,
        body: CreateEndpointBody,
        response: { 200: Endpoint, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const { flow_id, ...rest } = request.body;
      return addEndpoint(ctx, authOf(request), request.params.id, {
        ...rest,
        ...(flow_id !== undefined ? { flow_id: toId(flow_id) } : {}),
      });
    },
  );
}
