// Which database the tests run on. Unset TEST_DATABASE_URL: SQLite (in memory for test apps, a file
// under the data directory for real servers). Set (`npm run test:postgres`): a PostgreSQL server's
// maintenance database (postgres://user@host:port/postgres); every test app and every data
// directory a test starts a server on gets a database of its own, copied from a template that
// holds every migration (made once per set of migrations, by whichever test process comes first),
// and dropped when the test file ends.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
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
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  hash.update(fs.readFileSync(path.resolve(import.meta.dirname, '../src/db/migrate.ts')));
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

/**
 * A new database holding every migration: its connection string, and how to drop it (the caller
 * does when the test file ends). Only with TEST_DATABASE_URL.
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
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
  const drop = async () => {
    await admin((client) => client.query(`drop database if exists ${name} with (force)`));
  };
  return { url: withDatabase(base, name), drop };
}

/** Pool settings of a test's connection to its database. */
export const TEST_POOL_SETTINGS = POOL;
