// Event topics through the developer API (contract 13 §7). Envelope: { data: ... } (C-met).
// Publishing and consuming live in src/api/topics/ (the event streams host).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, SuccessBody, toId } from '../../http/schemas.ts';
import {
  CreateTopicBody,
  TopicListQuery,
  TopicListResult,
  TopicResult,
  UpdateTopicBody,
} from './event_streams.schemas.ts';
import {
  createTopic,
  deleteTopic,
  getTopic,
  listTopics,
  purgeTopic,
  updateTopic,
  type TopicInput,
} from './event_streams.service.ts';

const tags = ['Event streams'];

export function eventStreamsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/event_streams/topics',
    {
      config: { privilege: 'event_streams:read' },
      schema: {
        tags,
        summary: 'List event topics',
        querystring: TopicListQuery,
        response: { 200: TopicListResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const { name, sort, include_schema } = request.query;
      const data = await listTopics(
        ctx,
        authOf(request),
        { ...(name !== undefined ? { name } : {}), sort: sort ?? 'id', includeSchema: include_schema ?? false },
        parsePage(request.query),
      );
      return { data };
    },
  );

  app.post(
    '/api/event_streams/topics',
    {
      config: { privilege: 'event_streams:write' },
      schema: {
        tags,
        summary: 'Create an event topic',
        body: CreateTopicBody,
        response: { 200: TopicResult, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => ({ data: await createTopic(ctx, authOf(request), toTopicInput(request.body)) }),
  );

  app.get(
    '/api/event_streams/topics/:id',
    {
      config: { privilege: 'event_streams:read' },
      schema: {
        tags,
        summary: 'Get an event topic with its schema',
        params: IdParams,
        response: { 200: TopicResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ data: await getTopic(ctx, authOf(request), request.params.id) }),
  );

  app.put(
    '/api/event_streams/topics/:id',
    {
      config: { privilege: 'event_streams:write' },
      schema: {
        tags,
        summary: 'Update an event topic (a new schema applies to messages published from now on)',
        params: IdParams,
        body: UpdateTopicBody,
        response: { 200: TopicResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => ({
      data: await updateTopic(ctx, authOf(request), request.params.id, toTopicInput(request.body ?? {})),
    }),
  );

  app.put(
    '/api/event_streams/topics/:id/purge',
    {
      config: { privilege: 'event_streams:write' },
      schema: {
        tags,
        summary: 'Delete every message of a topic and keep the topic',
        params: IdParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await purgeTopic(ctx, authOf(request), request.params.id);
      return { success: true };
    },
  );

  app.delete(
    '/api/event_streams/topics/:id',
    {
      config: { privilege: 'event_streams:write' },
      schema: {
        tags,
        summary: 'Delete an event topic and its messages',
        params: IdParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteTopic(ctx, authOf(request), request.params.id);
      return { success: true };
    },
  );
}

function toTopicInput(body: Partial<Static<typeof CreateTopicBody>>): TopicInput {
  const { folder_id, ...rest } = body;
  return { ...rest, ...(folder_id !== undefined ? { folder_id: toId(folder_id) } : {}) };
}
