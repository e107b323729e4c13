// What every command that opens the database does first: the secret key, the database, its
// migrations and the first workspace with its admin credential. Apart from the server (src/server.ts)
// so that the command line's other commands start without loading the HTTP app.
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createSecretBox, loadOrCreateSecretKey, type SecretBox } from './crypto/secret-box.ts';
import { createDb, type DbHandle } from './db/index.ts';
import { migrateToLatest } from './db/migrate.ts';
import { ADVISORY_LOCKS, whileHoldingLock } from './db/dialect.ts';
import { createLogger } from './logger.ts';
import { createServiceContext } from './context.ts';
import type { SecretResolver } from './api/secrets_management/secret-resolver.ts';
import { prepareFirstWorkspace, type FirstStart, type NewWorkspace } from './workspaces/workspaces.service.ts';

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
