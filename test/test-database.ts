// Which database the tests run on. Unset TEST_DATABASE_URL: SQLite (in memory for test apps, a file
// under the data directory for real servers). Set (`npm run test:postgres`): a PostgreSQL server's
// maintenance database (postgres://user@host:port/postgres); every test app and every data
// directory a test starts a server on gets a database of its own, copied from a template that
// holds every migration (made once per set of migrations, by whichever test process comes first),
// and dropped when the test process ends (once its event loop is empty: after every hook, every
// app closed), so that no test's own `after` finds its database gone.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { dialectOf } from '../src/db/dialect.ts';
import type { Database } from '../src/db/types.ts';
import { openPostgresUrl } from '../src/db/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

/** The PostgreSQL server the tests run on, or undefined for SQLite. */
export const TEST_DATABASE_URL: string | undefined = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** Whether the tests run on PostgreSQL (a test that only means something on SQLite skips with a reason). */
export const onPostgres = TEST_DATABASE_URL !== undefined;

/** Skip reason for a test of SQLite's own machinery, or false on SQLite. */
export function sqliteOnly(reason: string): string | false {
  return onPostgres ? `SQLite only: ${reason}` : false;
}

/** Skip reason for a test of PostgreSQL's own machinery, or false on PostgreSQL. */
export function postgresOnly(reason: string): string | false {
  return onPostgres ? false : `PostgreSQL only (TEST_DATABASE_URL unset): ${reason}`;
}

const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../src/db/migrations');
/** Any advisory lock number, the same in every test process: one of them builds the template. */
const TEMPLATE_LOCK = 7_190_419;
const POOL = { databasePoolMax: 10, databaseConnectTimeoutMs: 5_000, databaseIdleTimeoutMs: 30_000 };

let counter = 0;

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** The template's name follows the migrations' source, so a changed migration makes a new one. */
function templateName(): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort())
    hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  for (const file of ['migrate.ts', 'dialect.ts'])
    hash.update(fs.readFileSync(path.resolve(import.meta.dirname, '../src/db', file)));
  return `sb_template_${hash.digest('hex').slice(0, 16)}`;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Databases made by this process, dropped before it exits. */
const made: string[] = [];
let dropping = false;

function dropAtExit(): void {
  if (dropping || made.length === 0) return;
  dropping = true;
  void admin(async (client) => {
    for (const name of made.splice(0)) await client.query(`drop database if exists ${name} with (force)`);
  }).catch((error: unknown) => process.stderr.write(`could not drop the test databases: ${String(error)}\n`));
}

/** A new database holding every migration: its connection string. Only with TEST_DATABASE_URL. */
export async function freshPostgresDatabase(): Promise<string> {
  const base = TEST_DATABASE_URL;
  if (base === undefined) throw new Error('freshPostgresDatabase needs TEST_DATABASE_URL');
  const template = templateName();
  counter += 1;
  const name = `sb_test_${process.pid}_${counter}_${Date.now().toString(36)}`;
  await admin(async (client) => {
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [template]);
      if (exists.rowCount === 0) {
        const building = `${template}_building`;
        await client.query(`drop database if exists ${building}`);
        await client.query(`create database ${building}`);
        const handle = openPostgresUrl(withDatabase(base, building), POOL);
        try {
          await migrateToLatest(handle.db, 'postgres');
        } finally {
          await handle.db.destroy();
        }
        await client.query(`alter database ${building} rename to ${template}`);
      }
      // Serialised with the lock: a template may not be copied while another copy connects to it.
      await client.query(`create database ${name} template ${template}`);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  if (made.length === 0) process.on('beforeExit', dropAtExit);
  made.push(name);
  return withDatabase(base, name);
}

/** A new database with nothing in it (no migration applied), as a new install finds: its connection string. */
export async function emptyPostgresDatabase(): Promise<string> {
  const base = TEST_DATABASE_URL;
  if (base === undefined) throw new Error('emptyPostgresDatabase needs TEST_DATABASE_URL');
  counter += 1;
  const name = `sb_test_${process.pid}_${counter}_${Date.now().toString(36)}`;
  await admin((client) => client.query(`create database ${name}`));
  if (made.length === 0) process.on('beforeExit', dropAtExit);
  made.push(name);
  return withDatabase(base, name);
}

/** Pool settings of a test's connection to its database. */
export const TEST_POOL_SETTINGS = POOL;

/**
 * Make the test app's database refuse every write until allowWrites, as a read-only disk or a
 * standby would (SQLite: PRAGMA query_only; PostgreSQL: read-only transactions by default, on every
 * connection: the others are cut, and the pool opens new ones, read-only).
 */
export async function refuseWrites(db: Kysely<Database>): Promise<void> {
  await setReadOnly(db, true);
}

export async function allowWrites(db: Kysely<Database>): Promise<void> {
  await setReadOnly(db, false);
}

/**
 * A connection reads the database's default when it starts, and shows in pg_stat_activity only a
 * little later; one that is cut stays listed until its process exits. So the connections started
 * before the change are cut again and again, until none has been listed for this long: none of them
 * is left, not even one that started unlisted, and each has closed its socket, which the pool sees.
 */
const QUIET_AFTER_CUT_MS = 200;
/** A connection that outlives this many seconds of cuts is a fault of the set-up, said as such. */
const CUT_GIVE_UP_MS = 10_000;

async function setReadOnly(db: Kysely<Database>, on: boolean): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    await sql.raw(`PRAGMA query_only = ${on ? 'ON' : 'OFF'}`).execute(db);
    return;
  }
  await db.connection().execute(async (conn) => {
    const name = (await sql<{ name: string }>`select current_database() as name`.execute(conn)).rows[0]!.name;
    // This connection may be read-only already: it turns writable first, and read-only last.
    await sql.raw('set default_transaction_read_only = off').execute(conn);
    await sql
      .raw(
        `alter database "${name}" ${on ? 'set default_transaction_read_only = on' : 'reset default_transaction_read_only'}`,
      )
      .execute(conn);
    const changedAt = (await sql<{ at: string }>`select clock_timestamp()::text as at`.execute(conn)).rows[0]!.at;
    if (on) await sql.raw('set default_transaction_read_only = on').execute(conn);
    const giveUpAt = Date.now() + CUT_GIVE_UP_MS;
    for (let quietSince = Date.now(); Date.now() - quietSince < QUIET_AFTER_CUT_MS;) {
      if (Date.now() > giveUpAt)
        throw new Error(
          `connections started before the switch to read-${on ? 'only' : 'write'} outlived ${CUT_GIVE_UP_MS} ms of cuts`,
        );
      const cut = await sql<{ pid: number }>`with started_before as materialized (select pid from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_start <= ${changedAt}::timestamptz)
        select pid, pg_terminate_backend(pid) from started_before`.execute(conn);
      if (cut.rows.length > 0) quietSince = Date.now();
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
}
