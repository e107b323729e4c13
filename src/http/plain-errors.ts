// Errors as `{ "error": "<text>" }`: the shape of the doors that answer outside the management API
// (published APIs, inbound webhooks), each with its catalog (gateway-errors.ts, webhook-errors.ts).
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { storageFailureOf } from '../db/dialect.ts';
import { STORAGE_RETRY_AFTER_SECONDS } from '../errors.ts';

/** A catalog of `{ "error" }` replies; the four codes the shared handler answers are in every one. */
export type PlainCatalog = Record<
  'bad_request' | 'payload_too_large' | 'storage_unavailable' | 'internal_error' | (string & {}),
  { status: number; error: string }
>;

/** A reply from the catalog; `status` keeps the framework's own 4xx for an unreadable request. */
export function sendPlainError<C extends PlainCatalog>(
  reply: FastifyReply,
  catalog: C,
  code: keyof C & string,
  status: number = catalog[code]!.status,
) {
  return reply.status(status).type('application/json; charset=utf-8').send({ error: catalog[code]!.error });
}

/**
 * One error handler for a context that answers `{ "error" }`: a body too large is 413, another
 * framework 4xx keeps its status as `bad_request`, a storage failure is 503 with Retry-After, and
 * anything else is 500 with the details only in the log (as `failed`, e.g. "gateway call failed").
 */
export function registerPlainErrorHandler(app: FastifyInstance, catalog: PlainCatalog, failed: string): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendPlainError(reply, catalog, 'payload_too_large');
    if (typeof error.statusCode === 'number' && error.statusCode < 500)
      return sendPlainError(reply, catalog, 'bad_request', error.statusCode);
    if (storageFailureOf(error) !== undefined) {
      request.log.warn({ err: error }, 'storage unavailable');
      return sendPlainError(
        reply.header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS)),
        catalog,
        'storage_unavailable',
      );
    }
    request.log.error({ err: error }, failed);
    return sendPlainError(reply, catalog, 'internal_error');
  });
}
