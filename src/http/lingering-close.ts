// A reply sent before the request body has been read (413 over the body limit, 415, a parser's
// refusal) makes Fastify ask for `Connection: close`, and Node then closes the socket while the
// client is still sending: the client meets a reset (EPIPE, ECONNRESET) instead of reading the
// reply. As web servers do (nginx's lingering close), the rest of the body is read and thrown
// away instead, within a bound of bytes and time, and the connection stays usable afterwards.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface LingerLimits {
  /** Bytes read and thrown away after the reply; a client that sends more is cut off. */
  maxBytes: number;
  /** Time the rest of the body may take to arrive; then the connection is cut off. */
  maxMs: number;
}

export const DEFAULT_LINGER_LIMITS: LingerLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 10_000 };

export function registerLingeringClose(app: FastifyInstance, limits: LingerLimits = DEFAULT_LINGER_LIMITS): void {
  // An onError hook: it runs only for replies that carry an error, which is where Fastify asks
  // for `Connection: close` before the body was read; successful replies pay nothing.
  app.addHook('onError', (request, reply, _error, done) => {
    const raw = request.raw;
    if (!raw.complete && !raw.readableEnded && String(reply.getHeader('connection') ?? '').toLowerCase() === 'close') {
      // Without `Connection: close`, Node keeps the socket once the reply is written; the body
      // left over is read below, so the connection can serve the client's next request.
      reply.removeHeader('connection');
      discardRestOfBody(raw, limits);
    }
    done();
  });
}

function discardRestOfBody(request: IncomingMessage, limits: LingerLimits): void {
  let discarded = 0;
  const cutOff = () => {
    clearTimeout(timer);
    request.socket.destroy();
  };
  const timer = setTimeout(cutOff, limits.maxMs);
  timer.unref();
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) cutOff();
  });
  request.once('end', () => clearTimeout(timer));
  request.once('close', () => clearTimeout(timer));
  request.resume();
}
