// Tags (contract 23 §3): the list is `{"data": {"tags": [...]}}`; create and update answer the bare tag.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { actorOf } from '../activity_logs/activity_logs.routes.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody } from '../../http/schemas.ts';
import { CreateTagBody, Tag, TagHandleParams, TagList, TagListQuery, UpdateTagBody } from './tags.schemas.ts';
import { createTag, deleteTag, listTags, updateTag, type TagCaller } from './tags.service.ts';
import type { FastifyRequest } from 'fastify';

const tags = ['Tags'];

/** The caller of a tag route: who it is for the activity log, and its project scope. */
export function tagCallerOf(request: FastifyRequest): TagCaller {
  const auth = authOf(request);
  return { ...actorOf(request), allFolders: auth.allFolders, folderIds: auth.folderIds };
}

export function tagsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/tags',
    {
      config: { privilege: 'tags:read' },
      schema: {
        tags,
        summary: "The environment's tags by title; q searches the titles",
        querystring: TagListQuery,
        response: { 200: TagList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listTags(ctx, authOf(request), request.query.q, parsePage(request.query)),
  );

  app.post(
    '/api/tags',
    {
      config: { privilege: 'tags:write', activity: 'in_service' },
      schema: {
        tags,
        summary: 'Create a tag',
        body: CreateTagBody,
        response: { 200: Tag, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => createTag(ctx, tagCallerOf(request), request.body),
  );

  app.put(
    '/api/tags/:handle',
    {
      config: { privilege: 'tags:write', activity: 'in_service' },
      schema: {
        tags,
        summary: "Change a tag's title, description or color",
        params: TagHandleParams,
        body: UpdateTagBody,
        response: { 200: Tag, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => updateTag(ctx, tagCallerOf(request), request.params.handle, request.body ?? {}),
  );

  app.delete(
    '/api/tags/:handle',
    {
      config: { privilege: 'tags:write', activity: 'in_service' },
      schema: {
        tags,
        summary: 'Delete a tag; the recipes and connections that carry it lose it',
        params: TagHandleParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteTag(ctx, tagCallerOf(request), request.params.handle);
      return { success: true };
    },
  );
}
