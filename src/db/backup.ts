// Backup and restore of the embedded SQLite database (switchboard backup / restore). A backup is
// SQLite's online backup of the live file, read in one step: one read transaction, so a consistent
// snapshot, taken beside a running server (a reader never blocks the server's writes in WAL mode).
// A restore needs the server stopped: it takes the database's exclusive lock first, which any
// open connection (an idle server included) holds back.
import fs from 'node:fs';
import path from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import type { Config } from '../config.ts';
import { createSecretBox, KEY_FILE, parseSecretKey } from '../crypto/secret-box.ts';
import { SQLITE_FILENAME } from './index.ts';
import { knownMigrationNames } from './migrate.ts';

/** A backup or restore that cannot be done: said plainly, no stack trace. */
export class BackupError extends Error {
  override name = 'BackupError';
}

type Settings = Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey'>;

/** sqlite3_backup_step copies at most this many pages per step: more than any database has, so one step. */
const ALL_PAGES = 2 ** 31 - 1;
/** SQLite's migration bookkeeping table (Kysely's default name). */
const MIGRATION_TABLE = 'kysely_migration';
const SQLITE_BUSY = 5;

export interface BackupResult {
  file: string;
  bytes: number;
  migrations: number;
}

export interface RestoreResult {
  file: string;
  /** Where the database that was in place now is, if there was one. */
  previous: string | undefined;
  migrations: number;
  /** Migrations of this code that the restored database lacks: the server applies them on start. */
  pending: string[];
  /**
   * Whether the data directory's secret key opens the restored credentials: tried on one of
   * them; undefined when there is no key yet or the backup holds no credential.
   */
  keyOpensCredentials: boolean | undefined;
}

/** Copy the data directory's database to `target` while a server may be running on it. */
export async function backupDatabase(
  settings: Settings,
  target: string,
  options: { force: boolean },
): Promise<BackupResult> {
  refusePostgres(settings, 'back up');
  const source = path.join(settings.dataDir, SQLITE_FILENAME);
  const file = path.resolve(target);
  if (!fs.existsSync(source)) throw new BackupError(`no database at ${source} (is DATA_DIR right?)`);
  if (file === path.resolve(source)) throw new BackupError('the backup file cannot be the database itself');
  if (fs.existsSync(file) && !options.force)
    throw new BackupError(`${file} already exists; choose another name or add --force to overwrite it`);
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) throw new BackupError(`cannot write ${file}: the directory ${dir} does not exist`);
  // Written beside the target under another name, then renamed: the target is never half a file.
  const partial = `${file}.partial-${process.pid}`;
  const database = openSqlite(source);
  try {
    database.exec('PRAGMA busy_timeout = 5000');
    await backup(database, partial, { rate: ALL_PAGES });
  } catch (error) {
    removeQuietly(partial);
    throw new BackupError(`cannot write ${file}: ${reason(error)}`);
  } finally {
    database.close();
  }
  try {
    const copy = openSqlite(partial);
    let migrations: number;
    try {
      migrations = checkSwitchboardDatabase(copy, source).applied.length;
    } finally {
      copy.close();
    }
    syncFile(partial);
    fs.renameSync(partial, file);
    return { file, bytes: fs.statSync(file).size, migrations };
  } catch (error) {
    removeQuietly(partial);
    if (error instanceof BackupError) throw error;
    throw new BackupError(`cannot write ${file}: ${reason(error)}`);
  }
}

/**
 * Put a backup in place as the data directory's database. Refused while anything has that
 * database open; the database in place is kept beside it as `<name>.before-restore-<time>`.
 */
export async function restoreDatabase(
  settings: Settings,
  backupFile: string,
  now: Date = new Date(),
): Promise<RestoreResult> {
  refusePostgres(settings, 'restore');
  const from = path.resolve(backupFile);
  if (!fs.existsSync(from) || !fs.statSync(from).isFile()) throw new BackupError(`no backup file at ${from}`);
  fs.mkdirSync(settings.dataDir, { recursive: true });
  const target = path.join(settings.dataDir, SQLITE_FILENAME);
  if (from === path.resolve(target)) throw new BackupError('the backup file is the database itself');
  // Checked on a copy in the data directory, so the backup file itself is never touched (opening
  // an SQLite file can create files beside it) and the rename below stays on one file system.
  const incoming = `${target}.restoring-${process.pid}`;
  let check: { applied: string[]; pending: string[] };
  let sealed: string | undefined;
  try {
    fs.copyFileSync(from, incoming);
    const copy = openSqlite(incoming);
    try {
      check = checkSwitchboardDatabase(copy, from);
      sealed = oneSealedValue(copy);
    } finally {
      copy.close();
    }
    syncFile(incoming);
  } catch (error) {
    removeQuietly(incoming);
    if (error instanceof BackupError) throw error;
    throw new BackupError(`cannot read ${from}: ${reason(error)}`);
  }
  try {
    const previous = fs.existsSync(target) ? setAside(target, now) : undefined;
    // A write-ahead log left beside the path belongs to the old database: replayed into the
    // restored one, it would corrupt it.
    for (const suffix of ['-wal', '-shm', '-journal']) removeQuietly(target + suffix);
    fs.renameSync(incoming, target);
    return {
      file: target,
      previous,
      migrations: check.applied.length,
      pending: check.pending,
      keyOpensCredentials: keyOpens(settings, sealed),
    };
  } catch (error) {
    removeQuietly(incoming);
    if (error instanceof BackupError) throw error;
    throw new BackupError(`cannot restore into ${settings.dataDir}: ${reason(error)}`);
  }
}

/** Where the key that opens the credentials in this data directory's database comes from. */
export function secretKeyLocation(settings: Settings): { description: string; present: boolean } {
  if (settings.secretKey !== undefined)
    return { description: 'SWITCHBOARD_SECRET_KEY (set in this environment)', present: true };
  const file = path.join(settings.dataDir, KEY_FILE);
  return { description: file, present: fs.existsSync(file) };
}

/** One credential sealed by the secret box, from any table: every such column is named `*_sealed`. */
function oneSealedValue(database: DatabaseSync): string | undefined {
  const columns = database
    .prepare(
      "select m.name as tbl, c.name as col from sqlite_master m join pragma_table_info(m.name) c where m.type = 'table' and c.name like '%\\_sealed' escape '\\' order by m.name, c.name",
    )
    .all() as Array<{ tbl: string; col: string }>;
  for (const { tbl, col } of columns) {
    const row = database.prepare(`select "${col}" as value from "${tbl}" where "${col}" is not null limit 1`).get() as
      { value?: unknown } | undefined;
    if (typeof row?.value === 'string') return row.value;
  }
  return undefined;
}

function keyOpens(settings: Settings, sealed: string | undefined): boolean | undefined {
  if (sealed === undefined) return undefined;
  const file = path.join(settings.dataDir, KEY_FILE);
  if (settings.secretKey === undefined && !fs.existsSync(file)) return undefined;
  try {
    const key = parseSecretKey(settings.secretKey ?? fs.readFileSync(file, 'utf8'));
    createSecretBox(key).open(sealed);
    return true;
  } catch {
    return false;
  }
}

function refusePostgres(settings: Settings, verb: string): void {
  if (settings.databaseUrl === undefined) return;
  throw new BackupError(
    `DATABASE_URL is set: ${verb} PostgreSQL with its own tools (pg_dump, pg_restore); switchboard backup and restore handle the embedded SQLite database only`,
  );
}

/**
 * Takes the exclusive lock of the database in place (refused while a server or any other process
 * has it open: in WAL mode every open connection holds a shared lock), and closes it as the only
 * connection, which folds its write-ahead log into the file. Then moves it aside, with any log
 * SQLite could not fold, so the copy is complete.
 */
function setAside(target: string, now: Date): string {
  const database = openSqlite(target);
  try {
    database.exec('PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE');
    database.exec('BEGIN EXCLUSIVE');
    database.exec('COMMIT');
  } catch (error) {
    database.close();
    if ((error as { errcode?: number }).errcode === SQLITE_BUSY) {
      throw new BackupError(
        `the database in ${path.dirname(target)} is in use: stop the server (and any other switchboard command) on this DATA_DIR before restoring`,
      );
    }
    throw new BackupError(`cannot open the database in place (${target}): ${reason(error)}`);
  }
  database.close();
  const aside = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
  fs.renameSync(target, aside);
  for (const suffix of ['-wal', '-shm']) {
    if (fs.existsSync(target + suffix)) fs.renameSync(target + suffix, aside + suffix);
  }
  return aside;
}

/**
 * An SQLite database with Switchboard's migrations, none of them unknown to this code. The copy
 * is left self-contained: no write-ahead log beside it (the server turns it back on when it opens it).
 */
function checkSwitchboardDatabase(database: DatabaseSync, label: string): { applied: string[]; pending: string[] } {
  let applied: string[];
  try {
    database.exec('PRAGMA journal_mode = DELETE');
    const integrity = database.prepare('PRAGMA quick_check').get() as { quick_check?: string } | undefined;
    if (integrity?.quick_check !== 'ok')
      throw new BackupError(`${label} is damaged (SQLite quick_check: ${integrity?.quick_check ?? 'no answer'})`);
    const table = database
      .prepare("select name from sqlite_master where type = 'table' and name = ?")
      .get(MIGRATION_TABLE);
    if (!table) throw new BackupError(`${label} is not a Switchboard database (it has no migration table)`);
    applied = (
      database.prepare(`select name from ${MIGRATION_TABLE} order by name`).all() as Array<{ name: string }>
    ).map((r) => r.name);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${label} is not a Switchboard database (${reason(error)})`);
  }
  const known = knownMigrationNames();
  if (!applied.includes(known[0]!))
    throw new BackupError(`${label} is not a Switchboard database (its migrations are not Switchboard's)`);
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new BackupError(
      `${label} comes from a newer Switchboard (migrations this version does not know: ${unknown.join(', ')}); restore it with that version`,
    );
  return { applied, pending: known.filter((name) => !applied.includes(name)) };
}

function openSqlite(file: string): DatabaseSync {
  try {
    return new DatabaseSync(file);
  } catch (error) {
    throw new BackupError(`cannot open ${file}: ${reason(error)}`);
  }
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function removeQuietly(file: string): void {
  fs.rmSync(file, { force: true });
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
