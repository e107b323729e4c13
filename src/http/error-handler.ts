// The one place that turns an error into a reply in the contract's shape (00 §8):
// { message, errors? } for 4xx, { message: "Server error", id } for 5xx (details only in the log).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOG, storageUnavailable, type FieldErrors, type PlainErrorCode } from '../errors.ts';
import { textRefusedForNul } from '../db/dialect.ts';
import { fieldErrors } from './validation.ts';

/** Errors the framework raises while reading a request, as catalog codes. */
const FASTIFY_CODES: Record<string, PlainErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'content_length_mismatch',
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) return sendError(reply, error);

    if (error.validation) {
      const errors = fieldErrors(error.validation, error.validationContext);
      const [field, problems] = Object.entries(errors)[0] ?? ['request', ['is invalid']];
      const code =
        error.validationContext === 'querystring'
          ? 'query_parameter_invalid'
          : error.validationContext === 'params'
            ? 'path_parameter_invalid'
            : 'body_invalid';
      return sendError(reply, new AppError(code, { params: { field, problem: problems[0] ?? 'is invalid' }, errors }));
    }

    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return sendError(
        reply,
        new AppError('unsupported_media_type', { params: { content_type: contentTypeOf(request) } }),
      );
    const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (mapped) return sendError(reply, new AppError(mapped));
    if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400)
      return sendError(reply, new AppError('malformed_json'));

    // A NUL in a text PostgreSQL was given (SQLite stores it): the statement failed, nothing was written by it.
    if (textRefusedForNul(error)) return sendError(reply, new AppError('text_has_nul'));

    const unavailable = storageUnavailable(error);
    if (unavailable) {
      request.log.warn({ err: error }, 'storage unavailable');
      return sendError(reply, unavailable);
    }

    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    // Any other 4xx the framework raises (such as a body stream that broke off) keeps its status;
    // the text is the catalog's, like every other error a client reads.
    if (status >= 400 && status < 500) return send(reply, status, ERROR_CATALOG.bad_request.message);

    request.log.error({ err: error }, 'request failed');
    return reply
      .status(status >= 500 && status < 600 ? status : 500)
      .send({ message: ERROR_CATALOG.server_error.message, id: String(request.id) });
  });

  app.setNotFoundHandler((_request, reply) => sendError(reply, new AppError('not_found')));
}

/**
 * Errors the router raises before any hook runs (a path segment that is not valid percent-encoding,
 * or one longer than the router's limit): the same `{ message }` shape as every other error.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendError(
    reply,
    new AppError(error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'path_segment_too_long' : 'url_invalid'),
  );
}

function sendError(reply: FastifyReply, error: AppError) {
  if (error.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  return send(reply, error.status, error.message, error.errors);
}

function send(reply: FastifyReply, status: number, message: string, errors?: FieldErrors) {
  return reply.status(status).send(errors ? { message, errors } : { message });
}

/** The media type the request named, for the 415's message. */
function contentTypeOf(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  return type ? `${type.split(';')[0]?.trim().slice(0, 100)}` : 'missing';
}
