// The running server: loadConfig -> createDb -> migrate -> first start -> buildApp -> listen (PORT,
// and EVENT_STREAMS_PORT when set), and a graceful shutdown on SIGTERM/SIGINT (stop accepting on
// both, finish in-flight requests and running jobs within SHUTDOWN_TIMEOUT_MS, record the jobs,
// then close the database).
import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { createSecretBox, loadOrCreateSecretKey, type SecretBox } from './crypto/secret-box.ts';
import { createDb, type DbHandle } from './db/index.ts';
import { notifierFor } from './db/pg-notifier.ts';
import { migrateToLatest } from './db/migrate.ts';
import { ADVISORY_LOCKS, whileHoldingLock } from './db/dialect.ts';
import { createLogger } from './logger.ts';
import { createEventStreamsListener, type EventStreamsListener } from './http/event-streams-listener.ts';
import { createServiceContext, outboundPolicyFor } from './context.ts';
import type { SecretResolver } from './api/secrets_management/secret-resolver.ts';
import { startPurge } from './api/lookup_tables/lookup_tables.service.ts';
import { prepareFirstWorkspace, type FirstStart, type NewWorkspace } from './workspaces/workspaces.service.ts';
import { idleMemory } from './idle-memory.ts';

export interface Prepared {
  database: DbHandle;
  secretBox: SecretBox;
  secrets: SecretResolver;
  logger: Logger;
  firstStart: FirstStart;
  applied: string[];
}

/** Open the database, apply migrations and make sure a workspace with an admin credential exists. */
export async function prepare(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  workspace?: NewWorkspace,
): Promise<Prepared> {
  const secret = loadOrCreateSecretKey(config);
  if (secret.source === 'generated')
    logger.info({ file: secret.file }, 'generated a new secret key for credentials at rest; back it up with the data');
  const database = createDb(config);
  try {
    const secretBox = createSecretBox(secret.key);
    const ctx = createServiceContext({ db: database.db, config, secretBox, log: logger });
    const secrets = ctx.secrets;
    // Nodes started together on one PostgreSQL database take turns: the first migrates and makes
    // the workspace (and the admin client), the others find them made.
    const { applied, firstStart } = await whileHoldingLock(database.db, ADVISORY_LOCKS.startUp, 0, async () => ({
      applied: await migrateToLatest(database.db, database.dialect),
      firstStart: await prepareFirstWorkspace(ctx, {
        adminToken: config.adminToken,
        ...(workspace ? { workspace } : {}),
      }),
    }));
    if (applied.length > 0) logger.info({ migrations: applied }, 'applied migrations');
    if (firstStart.created)
      logger.info(
        { workspace_id: firstStart.workspace.id },
        'created the first workspace with environments dev, test and prod',
      );
    return { database, secretBox, secrets, logger, firstStart, applied };
  } catch (error) {
    await database.db.destroy();
    throw error;
  }
}

/** A port that cannot be bound at start (in use, not permitted, no such address): said plainly, no stack trace. */
export class ListenError extends Error {
  override name = 'ListenError';
}

export function printAdminToken(out: Writable, token: string, config: Config): void {
  const line = '='.repeat(78);
  out.write(
    `\n${line}\n` +
      '  SWITCHBOARD ADMIN API TOKEN (shown once: store it now, it cannot be read again)\n\n' +
      `  ${token}\n\n` +
      `  curl -H "Authorization: Bearer ${token}" ${config.publicBaseUrl}/api/users/me\n` +
      `${line}\n\n`,
  );
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
