// A route whose JSON body is optional (clients POST build or deploy with no body at all): an
// absent body is validated as `{}`, so the schema still checks whatever a client does send.
import type { FastifyRequest } from 'fastify';

export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
