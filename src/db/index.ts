// createDb: the one place that opens a database. SQLite (node:sqlite, one file under DATA_DIR)
// by default; PostgreSQL (postgres.ts) when DATABASE_URL is set.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Config } from '../config.ts';
import { adaptNodeSqlite } from './sqlite-adapter.ts';
import { startBackgroundCheckpoints, type BackgroundCheckpoints, type CheckpointOptions } from './checkpoints.ts';
import { createLogSync, type LogSync, type SyncFile } from './log-sync.ts';
import type { DialectName } from './dialect.ts';
import { openPostgres } from './postgres.ts';
import { createStorageHealth, type StorageHealth } from './storage-health.ts';
import type { Database } from './types.ts';

export interface DbHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** Where the data lives, for logs: a file path, never a password. */
  readonly location: string;
  /**
   * Syncs of the write-ahead log off the event loop (src/db/log-sync.ts): the app holds each
   * reply until it says the commits made so far are on disk. Absent when a commit is durable
   * (or never will be: memory, SQLITE_SYNCHRONOUS=NORMAL) the moment it returns.
   */
  readonly logSync?: LogSync | undefined;
  /** Whether the storage takes writes (a full disk, a read-only directory): GET /ready reports it. */
  readonly storage?: StorageHealth | undefined;
}

export class DatabaseConfigError extends Error {
  override name = 'DatabaseConfigError';
}

export const SQLITE_FILENAME = 'switchboard.sqlite';

export type DbSettings = Pick<
  Config,
  | 'dataDir'
  | 'databaseUrl'
  | 'sqliteSynchronous'
  | 'databasePoolMax'
  | 'databaseConnectTimeoutMs'
  | 'databaseIdleTimeoutMs'
>;

export function createDb(config: DbSettings): DbHandle {
  if (config.databaseUrl !== undefined) return openPostgresUrl(config.databaseUrl, config);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.accessSync(config.dataDir, fs.constants.W_OK);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'EROFS'
        ? 'it is on a read-only file system'
        : 'the server may not write there';
    throw new DatabaseConfigError(`DATA_DIR ${config.dataDir} is not writable (${reason}); the database lives there`);
  }
  const file = path.join(config.dataDir, SQLITE_FILENAME);
  return { ...openSqliteFile(file, config.sqliteSynchronous), dialect: 'sqlite', location: file };
}

/**
 * PostgreSQL at `url`. A commit PostgreSQL returned is durable (synchronous_commit on, its
 * default), so replies wait for nothing more (no logSync). `onConnect` runs on each new connection.
 */
export function openPostgresUrl(
  url: string,
  config: Pick<DbSettings, 'databasePoolMax' | 'databaseConnectTimeoutMs' | 'databaseIdleTimeoutMs'>,
  onConnect?: string,
): DbHandle {
  const { db, storage } = openPostgres(
    {
      url,
      poolMax: config.databasePoolMax,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      idleTimeoutMs: config.databaseIdleTimeoutMs,
      ...(onConnect === undefined ? {} : { onConnect }),
    },
    (opened) => writeProbe(opened, undefined),
  );
  return { db, dialect: 'postgres', location: postgresLocation(url), storage };
}

/** host:port/database of a connection string, for logs: never the user or the password. */
export function postgresLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres';
  }
}

/** An SQLite database in a file, or in memory with ':memory:' (tests). */
export function openSqlite(file: string, synchronous: 'FULL' | 'NORMAL' = 'FULL'): Kysely<Database> {
  return openSqliteFile(file, synchronous).db;
}

/**
 * The database and, for a file under SQLITE_SYNCHRONOUS=FULL, the syncs of its log that the
 * replies wait for. `syncFile` replaces fdatasync (tests hold a sync back with it).
 */
export function openSqliteFile(
  file: string,
  synchronous: 'FULL' | 'NORMAL' = 'FULL',
  options: { syncFile?: SyncFile; checkpoints?: CheckpointOptions } = {},
): { db: Kysely<Database>; logSync?: LogSync; storage: StorageHealth; checkpoints?: BackgroundCheckpoints } {
  const database = new DatabaseSync(file);
  // Told of every failed statement and sync; the probe that clears it is defined below, once `db` exists.
  const storage = createStorageHealth(() => writeProbe(db, logSync));
  // WAL: readers never block the writer. busy_timeout: wait for another process's lock (CLI
  // beside a running server) instead of failing. foreign_keys: SQLite leaves them off otherwise.
  const mode = (database.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode?: string } | undefined)
    ?.journal_mode;
  // FULL in a write-ahead log: the log is synced off the event loop after each commit (log-sync.ts)
  // rather than inside it, so the connection itself needs only NORMAL.
  const logSync =
    synchronous === 'FULL' && mode === 'wal'
      ? createLogSync(`${file}-wal`, {
          onError: storage.observe,
          ...(options.syncFile ? { syncFile: options.syncFile } : {}),
        })
      : undefined;
  database.exec(
    `PRAGMA synchronous = ${logSync ? 'NORMAL' : synchronous}; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;`,
  );
  // A file database checkpoints its write-ahead log in a worker thread, off the event loop, while
  // it is written (the commits start the worker).
  const checkpoints =
    file === ':memory:' || mode !== 'wal' ? undefined : startBackgroundCheckpoints(database, file, options.checkpoints);
  const onCommit =
    logSync && checkpoints
      ? () => {
          logSync.committed();
          checkpoints.committed();
        }
      : logSync
        ? () => logSync.committed()
        : checkpoints
          ? () => checkpoints.committed()
          : undefined;
  const adapted = adaptNodeSqlite(database, { onError: storage.observe, ...(onCommit ? { onCommit } : {}) });
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({
      database: {
        ...adapted,
        close: () => {
          checkpoints?.stop();
          logSync?.close();
          adapted.close();
        },
      },
    }),
  });
  return { db, storage, ...(logSync ? { logSync } : {}), ...(checkpoints ? { checkpoints } : {}) };
}

/** 64 KiB: a write of more pages than most requests make, so that a database it fits in takes them again. */
const PROBE_FILLER = 'x'.repeat(64 * 1024);

/**
 * A write that needs new space, committed and synced, then deleted: the storage takes writes again.
 * Two commits: pages added and freed in one transaction would never reach the log.
 */
async function writeProbe(db: Kysely<Database>, logSync: LogSync | undefined): Promise<void> {
  await db
    .insertInto('storage_checks')
    .values({ checked_at: new Date().toISOString(), filler: PROBE_FILLER })
    .execute();
  await logSync?.flushed();
  await db.deleteFrom('storage_checks').execute();
}

/** Liveness of the database connection, for GET /ready. */
export async function pingDb(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
