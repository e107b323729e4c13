// The one place that turns an error into a reply in the contract's shape (00 §8):
// { message, errors? } for 4xx, { message: "Server error", id } for 5xx (details only in the log).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CATALOG, type ErrorCode, type FieldErrors } from '../errors.ts';
import { fieldErrors } from './validation.ts';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
      return send(reply, error.status, error.message, error.errors);
    }

    if (error.validation) {
      const errors = fieldErrors(error.validation, error.validationContext);
      const [field, problems] = Object.entries(errors)[0] ?? ['request', ['is invalid']];
      const where = error.validationContext === 'querystring' ? 'query parameter ' : error.validationContext === 'params' ? 'path parameter ' : '';
      return send(reply, 400, `Validation failed: ${where}${field} ${problems[0]}`, errors);
    }

    const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (mapped) {
      const detail = mapped === 'unsupported_media_type' ? `${ERROR_CATALOG[mapped].message}: ${describeContentType(request)}` : ERROR_CATALOG[mapped].message;
      return send(reply, ERROR_CATALOG[mapped].status, detail);
    }
    if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
      return send(reply, 400, ERROR_CATALOG.malformed_json.message);
    }

    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) return send(reply, status, error.message || 'Bad request');

    request.log.error({ err: error }, 'request failed');
    return reply.status(status >= 500 && status < 600 ? status : 500).send({ message: ERROR_CATALOG.server_error.message, id: String(request.id) });
  });

  app.setNotFoundHandler((_request, reply) => send(reply, 404, ERROR_CATALOG.not_found.message));
}

/**
 * Errors the router raises before any hook runs (a path segment that is not valid percent-encoding,
 * or one longer than the router's limit): the same `{ message }` shape as every other error.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'Bad request: a path segment is too long' : 'Bad request: the URL is not valid';
  void send(reply, ERROR_CATALOG.bad_request.status, message);
}

function send(reply: FastifyReply, status: number, message: string, errors?: FieldErrors) {
  return reply.status(status).send(errors ? { message, errors } : { message });
}

function describeContentType(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  return type ? `${type.split(';')[0]?.trim().slice(0, 100)}; send application/json` : 'missing; send application/json';
}
