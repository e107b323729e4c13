// No reply leaves the server before every commit made so far is on disk (src/db/log-sync.ts,
// docs/adr/0007): a write is acknowledged only once it is durable, and a read never shows a write
// that a power loss could still undo. When nothing is waiting for the disk, a reply goes at once.
import type { FastifyInstance } from 'fastify';
import type { LogSync } from '../db/log-sync.ts';
import { ERROR_CATALOG, storageUnavailable } from '../errors.ts';

export function registerDurableReplies(app: FastifyInstance, logSync: LogSync): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!logSync.pending()) {
      done(null, payload);
      return;
    }
    logSync.flushed().then(
      () => done(null, payload),
      (error: unknown) => {
        // The disk refused the sync: what was committed may not survive a power loss, so the
        // client is not told it succeeded. Replaced here, not thrown: the error reply would wait
        // for the same disk. A full or read-only disk is a 503 the client may retry.
        request.log.error({ err: error }, 'the write-ahead log could not be synced');
        if (payload && typeof (payload as { destroy?: unknown }).destroy === 'function')
          (payload as { destroy: () => void }).destroy();
        reply.header('content-type', 'application/json; charset=utf-8');
        const unavailable = storageUnavailable(error);
        if (unavailable) {
          reply.code(unavailable.status).header('retry-after', String(unavailable.retryAfterSeconds));
          done(null, JSON.stringify({ message: unavailable.message }));
          return;
        }
        reply.code(500);
        done(null, JSON.stringify({ message: ERROR_CATALOG.server_error.message, id: String(request.id) }));
      },
    );
  });
}
