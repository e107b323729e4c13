// The event streams API (contract 13 §3-6): publish, batch publish and consume at the paths of
// the catalog, and the legacy /api/pubsub/... aliases. Served on PUBLIC_EVENT_STREAMS_URL (its own
// host is routed in src/http/hosts.ts), on the EVENT_STREAMS_PORT listener when there is one, and,
// like every address, on the main port.
// Static routes: the gateway's catch-all (/*) never shadows them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { EventStreamsCaller, TopicAccess, TopicRight } from './topic-access.ts';
import type { TopicState } from './topic-cache.ts';
import { BatchBody, BatchResult, ConsumeBody, ConsumeResult, PublishResult, TopicParams } from './topics.schemas.ts';
import { consumeMessages, publishBatch, publishMessage, type EventStreamsRuntime } from './topics.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    eventStreamsCaller: EventStreamsCaller | null;
  }
}

/** Largest message, and largest batch body (13 §4, §5). */
export const EVENT_STREAMS_BODY_LIMIT = 1024 * 1024;

const tags = ['Event streams'];
const ERRORS = errorResponses(400, 401, 403, 404, 413, 415, 429);
const security = [{ bearerAuth: [] }];

export function topicsRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: EventStreamsRuntime & { access: TopicAccess },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.decorateRequest('eventStreamsCaller', null);

  // Authentication before the body is read: 401 (and a developer token's missing privilege, 403) first.
  const authenticate = async (request: FastifyRequest) => {
    request.eventStreamsCaller = await runtime.access.authenticate(
      request,
      request.routeOptions.config.eventStreams as TopicRight,
    );
  };

  async function topicFor(request: FastifyRequest, right: TopicRight): Promise<TopicState> {
    const caller = request.eventStreamsCaller;
    if (caller === null) throw new AppError('unauthorized');
    const topic = await runtime.topics.get((request.params as Static<typeof TopicParams>).topic_id);
    if (!topic) throw new AppError('topic_not_found');
    await runtime.access.authorize(caller, topic, right);
    return topic;
  }

  const publishRoute = (url: string, summary: string) =>
    app.post(
      url,
      {
        config: { eventStreams: 'publish' },
        bodyLimit: EVENT_STREAMS_BODY_LIMIT,
        onRequest: authenticate,
        schema: {
          tags,
          summary,
          description:
            'The body is the message itself: a JSON object that complies with the topic schema (fields it does not name are dropped). At most 1 MB.',
          security,
          params: TopicParams,
          response: { 200: PublishResult, ...ERRORS },
        },
      },
      async (request) => publishMessage(runtime, await topicFor(request, 'publish'), request.body),
    );
  publishRoute('/api/v1/topics/:topic_id/publish', 'Publish one message to a topic');
  publishRoute('/api/pubsub/topics/:topic_id/publish', 'Publish one message to a topic (legacy path)');

  app.post(
    '/api/v1/batch/topics/:topic_id/publish',
    {
      config: { eventStreams: 'publish' },
      bodyLimit: EVENT_STREAMS_BODY_LIMIT,
      onRequest: authenticate,
      schema: {
        tags,
        summary: 'Publish up to 100 messages to a topic; valid ones are stored even when others are refused',
        security,
        params: TopicParams,
        body: BatchBody,
        response: { 200: BatchResult, ...ERRORS },
      },
    },
    async (request) => publishBatch(runtime, await topicFor(request, 'publish'), request.body.payloads),
  );

  const consumeRoute = (url: string, summary: string) =>
    app.post(
      url,
      {
        config: { eventStreams: 'consume' },
        bodyLimit: EVENT_STREAMS_BODY_LIMIT,
        onRequest: authenticate,
        // The body may be empty or absent: then every default applies.
        preValidation: async (request) => {
          if (request.body === undefined || request.body === null) request.body = {};
        },
        schema: {
          tags,
          summary,
          security,
          params: TopicParams,
          body: ConsumeBody,
          response: { 200: ConsumeResult, ...ERRORS },
        },
      },
      async (request, reply) => {
        const topic = await topicFor(request, 'consume');
        const json = await consumeMessages(ctx, runtime, topic, request.body, connectionControl(reply));
        // Already JSON text (stored payloads are not parsed and serialised again): sent as is.
        return reply.type('application/json; charset=utf-8').send(json as unknown as Static<typeof ConsumeResult>);
      },
    );
  consumeRoute('/api/v1/topics/:topic_id/consume', 'Read messages after a cursor, long-polling up to timeout_secs');
  consumeRoute('/api/pubsub/topics/:topic_id/consume', 'Read messages after a cursor (legacy path)');
}

/** A long poll ends when its connection closes: the waiter is released at once. */
function connectionControl(reply: FastifyReply) {
  let closed = false;
  let cancel: (() => void) | null = null;
  reply.raw.once('close', () => {
    closed = true;
    cancel?.();
  });
  return {
    closed: () => closed,
    onWait(fn: () => void) {
      cancel = fn;
      if (closed) fn();
    },
  };
}
