// Inbound webhooks (20 §10.3): /webhooks/rest/<recipe key>/<event name>. A call is answered
// 200 {"status":"ok"} only once its job is stored; a key with no running webhook recipe is 404;
// a recipe or workspace whose backlog of pending jobs is full answers 429 with Retry-After and
// stores nothing (`backlog_full`). For a recipe this node knows, that refusal is given before the
// body is read, so a flood of calls beyond the backlog costs a map lookup each, not a parse.
// Own Fastify context: any content type is accepted and parsed here, errors are {"error": ...}.
import { registerPlainErrorHandler, sendPlainError } from '../http/plain-errors.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecipeEngine } from './engine.ts';
import type { WebhookRequest } from './connectors/types.ts';
import { WEBHOOK_ERRORS, type WebhookErrorCode } from './webhook-errors.ts';
import { fromPlain, MAX_EVENT_DEPTH, newHash, type Hash, type Value } from '../recipe/formula/values.ts';
import { jsonShape, MAX_EVENT_CONTAINERS } from '../json-shape.ts';
import { BACKLOG_RETRY_AFTER_SECONDS } from './backlog.ts';

export interface WebhookDeps {
  engine: RecipeEngine;
  maxBodyBytes: number;
}

/** A reply from the catalog; `status` keeps the framework's own 4xx for an unreadable request. */
function fail(reply: FastifyReply, code: WebhookErrorCode, status?: number) {
  return sendPlainError(reply, WEBHOOK_ERRORS, code, status);
}

function refuse(reply: FastifyReply, retryAfterSeconds: number) {
  return fail(reply.header('retry-after', String(retryAfterSeconds)), 'backlog_full');
}

function payloadOf(request: FastifyRequest): Value | { invalid: WebhookErrorCode } {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const query = fromPlain(request.query ?? {});
  if (body.length === 0) return request.method === 'GET' ? query : newHash();
  const type =
    String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? '';
  const text = body.toString('utf8');
  if (type === 'application/json' || type.endsWith('+json')) {
    const shape = jsonShape(text);
    if (shape.depth > MAX_EVENT_DEPTH) return { invalid: 'payload_too_deep' };
    if (shape.containers > MAX_EVENT_CONTAINERS) return { invalid: 'payload_too_complex' };
    try {
      return fromPlain(JSON.parse(text));
    } catch {
      return { invalid: 'malformed_json' };
    }
  }
  if (type === 'application/x-www-form-urlencoded') return newHash([...new URLSearchParams(text).entries()]);
  return text;
}

/** The request as a connector's webhook trigger reads it (its signature over the raw body). */
function webhookRequestOf(request: FastifyRequest, payload: Value): WebhookRequest {
  return {
    method: request.method,
    headers: Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
    ),
    query: Object.fromEntries(
      Object.entries((request.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    ),
    payload,
    raw: Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '',
  };
}

export function webhooksRoutes(deps: WebhookDeps) {
  return async function webhooksPlugin(app: FastifyInstance): Promise<void> {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxBodyBytes }, (_request, body, done) =>
      done(null, body),
    );
    registerPlainErrorHandler(app, WEBHOOK_ERRORS, 'webhook call failed');
    app.route<{ Params: { key: string; event: string } }>({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/webhooks/rest/:key/:event',
      config: { public: true },
      schema: { hide: true },
      onRequest: (request, reply, done) => {
        if (deps.engine.refusesWebhook(request.params.key)) refuse(reply, BACKLOG_RETRY_AFTER_SECONDS);
        else done();
      },
      handler: async (request, reply) => {
        const payload = payloadOf(request);
        if (
          typeof payload === 'object' &&
          payload !== null &&
          'invalid' in payload &&
          typeof payload.invalid === 'string'
        )
          return fail(reply, payload.invalid as WebhookErrorCode);
        const headers: Hash = newHash(
          Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? null)]),
        );
        const event = newHash([
          ['method', request.method],
          ['event_name', request.params.event],
          ['headers', headers],
          ['query_params', fromPlain(request.query ?? {})],
          ['payload', payload as Value],
        ]);
        const call = webhookRequestOf(request, payload as Value);
        const outcome = await deps.engine.receiveWebhook(request.params.key, event, call);
        if (outcome.status === 404) return fail(reply, 'not_found');
        if (outcome.status === 400)
          return reply.status(400).type('application/json; charset=utf-8').send({ error: outcome.message });
        if (outcome.status === 429) return refuse(reply, outcome.retryAfterSeconds);
        if (outcome.reply) return reply.status(outcome.reply.status).send(outcome.reply.body);
        return reply.status(200).type('application/json; charset=utf-8').send({ status: 'ok' });
      },
    });
    // A custom connector's static webhook (`webhook_keys`): one URL per connector.
    app.route<{ Params: { id: string } }>({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/webhooks/connectors/:id/event',
      config: { public: true },
      schema: { hide: true },
      handler: async (request, reply) => {
        if (!/^[1-9][0-9]{0,14}$/.test(request.params.id)) return fail(reply, 'not_found');
        const payload = payloadOf(request);
        if (
          typeof payload === 'object' &&
          payload !== null &&
          'invalid' in payload &&
          typeof payload.invalid === 'string'
        )
          return fail(reply, payload.invalid as WebhookErrorCode);
        const outcome = await deps.engine.receiveStaticWebhook(
          Number(request.params.id),
          webhookRequestOf(request, payload as Value),
        );
        if (outcome.status === 404) return fail(reply, 'not_found');
        if (outcome.status === 400)
          return reply.status(400).type('application/json; charset=utf-8').send({ error: outcome.message });
        if (outcome.status === 429) return refuse(reply, outcome.retryAfterSeconds);
        return reply.status(200).type('application/json; charset=utf-8').send({ status: 'ok' });
      },
    });
  };
}
