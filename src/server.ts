// The running server: loadConfig -> createDb -> migrate -> first start -> buildApp -> listen (PORT,
// and EVENT_STREAMS_PORT when set), and a graceful shutdown on SIGTERM/SIGINT (stop accepting on
// both, finish in-flight requests and running jobs within SHUTDOWN_TIMEOUT_MS, record the jobs,
// then close the database).
import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { notifierFor } from './db/pg-notifier.ts';
import { createLogger } from './logger.ts';
import { createEventStreamsListener, type EventStreamsListener } from './http/event-streams-listener.ts';
import { outboundPolicyFor } from './context.ts';
import { startPurge } from './api/lookup_tables/lookup_tables.service.ts';
import { idleMemory } from './idle-memory.ts';
import { prepare, printAdminToken } from './prepare.ts';

/** A port that cannot be bound at start (in use, not permitted, no such address): said plainly, no stack trace. */
export class ListenError extends Error {
  override name = 'ListenError';
}

export async function startServer(config: Config, options: { out?: Writable } = {}): Promise<FastifyInstance> {
  const logger = createLogger(config.logLevel);
  const { database, secretBox, secrets, firstStart } = await prepare(config, logger);
  // Several nodes on PostgreSQL: change notifications between them (LISTEN/NOTIFY).
  const notifications = notifierFor(config, logger);
  try {
    await notifications.start();
  } catch (error) {
    await database.db.destroy();
    throw error;
  }
  // Requests made for users never reach this server itself: the ports it listens on are refused.
  const outbound = outboundPolicyFor(config);
  const app = await buildApp({
    config,
    database,
    secretBox,
    secrets,
    logger,
    notifier: notifications.notifier,
    outbound,
  });
  const shutdown = { closing: false };
  // Replies sent while shutting down close their connection, so keep-alive clients let go.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (shutdown.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // The database (and the notifier's connection) close after the app: once its requests are
  // answered and its running jobs recorded (buildApp's close hooks), never under them.
  // Start-up's garbage and the heap a busy period grew are given back once the server is at rest.
  const memory = idleMemory();
  const closeAll = async () => {
    memory.stop();
    await app.close();
    await notifications.close();
    await database.db.destroy();
  };
  const eventStreams =
    config.eventStreamsPort === undefined
      ? undefined
      : createEventStreamsListener(app, { host: config.host, port: config.eventStreamsPort });
  await listenOrExplain(closeAll, 'PORT', config.port, config.host, () =>
    app.listen({ port: config.port, host: config.host }),
  );
  if (eventStreams) {
    const urls = await listenOrExplain(closeAll, 'EVENT_STREAMS_PORT', eventStreams.port, config.host, () =>
      eventStreams.listen(),
    );
    for (const url of urls) logger.info(`Event streams listening at ${url}`);
  }
  // PORT=0 listens on a port chosen now (EVENT_STREAMS_PORT is always a number of the settings).
  const address = app.server.address();
  if (address !== null && typeof address === 'object') outbound.addOwnPort(address.port);
  logger.info(
    { database: database.dialect, location: database.location, data_dir: config.dataDir },
    'switchboard is ready',
  );
  if (firstStart.printableToken) printAdminToken(options.out ?? process.stdout, firstStart.printableToken, config);
  // Rows of lookup tables deleted before a restart, if their purge was cut short.
  startPurge({ db: database.db, log: logger });
  memory.start();
  installShutdown(app, closeAll, config, logger, shutdown, eventStreams);
  return app;
}

/** Runs a listen; a port that cannot be bound closes the app (and the database) and becomes a ListenError. */
async function listenOrExplain<T>(
  closeAll: () => Promise<void>,
  setting: string,
  port: number,
  host: string,
  listen: () => Promise<T>,
): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${port} is already in use on ${host}`
        : code === 'EACCES'
          ? `not permitted to listen on port ${port} (ports below 1024 need privileges)`
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? `HOST ${host} is not an address of this machine`
            : undefined;
    await closeAll();
    if (reason === undefined) throw error;
    throw new ListenError(`cannot listen (${setting}): ${reason}`);
  }
}

function installShutdown(
  app: FastifyInstance,
  closeAll: () => Promise<void>,
  config: Config,
  logger: Logger,
  state: { closing: boolean },
  eventStreams: EventStreamsListener | undefined,
): void {
  const shutdown = (signal: string) => {
    if (state.closing) return;
    state.closing = true;
    logger.info({ signal }, 'shutting down: no new requests or jobs, finishing those in flight');
    const force = setTimeout(() => {
      logger.warn('shutdown timeout reached: closing remaining connections');
      app.server.closeAllConnections();
      eventStreams?.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    closeAll().then(
      () => {
        logger.info('shutdown complete');
        process.exitCode = 0;
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
