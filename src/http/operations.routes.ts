// Operations endpoints outside /api: liveness, readiness and metrics. No token needed.
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { pingDb } from '../db/index.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { storageFailureOf, type DialectName } from '../db/dialect.ts';
import { STORAGE_FAILURE_TEXT, type StorageHealth } from '../db/storage-health.ts';
import type { ServiceContext } from '../context.ts';

const Status = Type.Object({ status: Type.String(), message: Type.Optional(Type.String()) });
const tags = ['Operations'];
/**
 * The probes' replies are written by JSON.stringify: the handlers build them whole (a status and a
 * message, both strings, in the schema's order), so the text is what the schema's serializer would
 * write, and an idle server that is only probed never loads the serializer compiler
 * (src/http/serialization.ts). The schemas stay for the OpenAPI document.
 */
const probeSerializer = () => (data: unknown) => JSON.stringify(data);

export function operationsRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  deps: { dialect: DialectName; metrics: Registry; storage?: StorageHealth | undefined },
): void {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: { tags, summary: 'Liveness: the process answers', response: { 200: Status } },
      serializerCompiler: probeSerializer,
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/ready',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Readiness: the database answers, every migration is applied, and the storage takes writes',
        response: { 200: Status, 503: Status },
      },
      serializerCompiler: probeSerializer,
    },
    async (request, reply) => {
      try {
        await pingDb(ctx.db);
        const pending = await pendingMigrations(ctx.db, deps.dialect);
        if (pending.length > 0)
          return reply
            .status(503)
            .send({ status: 'not_ready', message: `${pending.length} migration(s) pending: ${pending.join(', ')}` });
        // After a write failed for want of space or of a writable disk: a write of its own says whether that is over.
        const problem = await deps.storage?.recheck();
        if (problem) {
          return reply.status(503).send({
            status: 'not_ready',
            message: `storage unavailable since ${problem.since.toISOString()}: ${STORAGE_FAILURE_TEXT[problem.failure]}; writes answer 503, reads go on`,
          });
        }
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        const failure = storageFailureOf(error);
        return reply.status(503).send({
          status: 'not_ready',
          message:
            failure === undefined ? 'database unavailable' : `database unavailable: ${STORAGE_FAILURE_TEXT[failure]}`,
        });
      }
    },
  );

  app.get(
    '/metrics',
    {
      config: { public: true },
      schema: { tags, summary: 'Prometheus metrics (text exposition format)' },
    },
    async (_request, reply) => {
      const body = await deps.metrics.metrics();
      return reply.header('content-type', deps.metrics.contentType).send(body);
    },
  );
}
