// PostgreSQL through `pg` (node-postgres) and a pool of connections (docs/adr/0012). Opened by
// createDb when DATABASE_URL is set. The stores see the same rows as on SQLite: integers (ids,
// counts: int8 and numeric) come back as numbers, booleans are stored as 0/1 integers and times
// as ISO text by the stores themselves. Every statement's failure is shown to the storage health
// (storage-health.ts), so that a database that stopped answering makes GET /ready not ready and
// writes answer 503 until it answers again; the pool opens new connections by itself then.
import type pg from 'pg';
import { loadPg } from './pg-driver.ts';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { DatabaseUnreachableError } from './dialect.ts';
import { createStorageHealth, type StorageHealth } from './storage-health.ts';
import type { Database } from './types.ts';

export interface PostgresSettings {
  url: string;
  poolMax: number;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  /** Run on every new connection before it is used (tests: `set search_path`). */
  onConnect?: string;
}

/** PostgreSQL's type ids of the values parsed here instead of handed over as strings. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * int8 (ids of identity columns, count(*), sum()) and numeric arrive as strings, because they may
 * exceed a JavaScript number. Ours never approach 2^53 (ids, counters, sizes), and the stores and
 * the API deal in numbers, as on SQLite.
 */
export const postgresTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && (oid === INT8_OID || oid === NUMERIC_OID)) return (value: string) => Number(value);
    return loadPg().types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface OpenedPostgres {
  db: Kysely<Database>;
  storage: StorageHealth;
  pool: pg.Pool;
}

/** A database on PostgreSQL; nothing is connected until the first query. */
export function openPostgres(
  settings: PostgresSettings,
  probe: (db: Kysely<Database>) => Promise<void>,
): OpenedPostgres {
  const pool = new (loadPg().Pool)({
    connectionString: settings.url,
    max: settings.poolMax,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: settings.idleTimeoutMs,
    types: postgresTypes,
    // A connection is never left waiting on a dead peer for the system's TCP timeout.
    keepAlive: true,
    // Idle connections alone never keep a process alive (a command-line run ends when it is done).
    allowExitOnIdle: true,
    application_name: 'switchboard',
  });
  const storage = createStorageHealth(() => probe(db));
  // A pooled connection that fails while idle (the server stopped) is reported here; without a
  // listener the process would exit. The pool drops it and opens another on the next query.
  pool.on('error', (error) => storage.observe(toUnreachable(error)));
  if (settings.onConnect !== undefined) {
    const statement = settings.onConnect;
    pool.on('connect', (client) => {
      client.query(statement).catch((error: unknown) => storage.observe(toUnreachable(error)));
    });
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: watchedPool(pool, storage) }) });
  return { db, storage, pool };
}

/**
 * Named (server-side prepared) statements. Kysely sends every statement unnamed, which PostgreSQL
 * parses and plans on every run; a statement text seen often is given a name instead, and each
 * connection then parses it once and binds only the values afterwards (node-postgres keeps track of
 * the names each connection has prepared). Names go to short texts seen a few times, and to a
 * bounded number of them, so that the server's memory for them stays small on every connection;
 * other statements stay unnamed. A statement whose prepared form no longer fits the schema (a
 * migration by a newer node changed a table under it: SQLSTATE 0A000) runs unnamed from then on.
 */
export class StatementNames {
  readonly #seen = new Map<string, number>();
  readonly #names = new Map<string, string>();
  readonly #unnamed = new Set<string>();
  readonly #prefix: string;

  constructor(prefix = 'sb') {
    this.#prefix = prefix;
  }

  /** The name a statement text runs under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined {
    const named = this.#names.get(text);
    if (
      named !== undefined ||
      text.length > MAX_NAMED_TEXT ||
      this.#unnamed.has(text) ||
      this.#names.size >= MAX_NAMED_STATEMENTS
    )
      return named;
    const seen = (this.#seen.get(text) ?? 0) + 1;
    if (seen < RUNS_BEFORE_NAMING) {
      // The texts seen too rarely to name are forgotten now and then, so counting them stays bounded.
      if (this.#seen.size >= MAX_COUNTED_TEXTS) this.#seen.clear();
      this.#seen.set(text, seen);
      return undefined;
    }
    this.#seen.delete(text);
    const name = `${this.#prefix}_${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }

  /** Run this text unnamed from now on. */
  forget(text: string): void {
    this.#names.delete(text);
    this.#unnamed.add(text);
  }
}

/** Statements named at most (each connection may prepare every one of them). */
const MAX_NAMED_STATEMENTS = 500;
/** Longer texts (multi-row inserts of many sizes) stay unnamed. */
const MAX_NAMED_TEXT = 8_000;
/** A text is named at its third run: statements run once (migrations, set-up) are never named. */
const RUNS_BEFORE_NAMING = 3;
const MAX_COUNTED_TEXTS = 10_000;
/** PostgreSQL: cached plan must not change result type (the table under a prepared statement changed). */
const FEATURE_NOT_SUPPORTED = '0A000';

/** The pool as Kysely uses it, each failure of a connection or a statement shown to `storage` first. */
function watchedPool(pool: pg.Pool, storage: StorageHealth): PostgresPool {
  const names = new StatementNames();
  const fail = (error: unknown): never => {
    const reported = toUnreachable(error);
    storage.observe(reported);
    throw reported;
  };
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect().catch(fail);
      // A connection cut while in use (the server stopped or restarted) fails its query, and also
      // emits 'error', which would end the process without a listener.
      const onError = (error: unknown) => storage.observe(toUnreachable(error));
      client.on('error', onError);
      return {
        query: ((...args: Parameters<pg.PoolClient['query']>) => {
          const [text, values] = args as unknown[];
          const name = typeof text === 'string' && args.length <= 2 ? names.nameOf(text) : undefined;
          if (name !== undefined) {
            const run = () => client.query({ name, text: text as string, values: values as unknown[] });
            return run().catch((error: unknown) => {
              if (!(error instanceof loadPg().DatabaseError) || error.code !== FEATURE_NOT_SUPPORTED)
                return fail(error);
              names.forget(text as string);
              return client.query(text as string, values as unknown[]).catch(fail);
            });
          }
          const result = (client.query as (...a: unknown[]) => unknown)(...args);
          // A cursor (streamed query) is returned as is; a promise is watched.
          return result instanceof Promise ? result.catch(fail) : result;
        }) as PostgresPoolClient['query'],
        release: () => {
          client.off('error', onError);
          client.release();
        },
      };
    },
    end: () => pool.end(),
  };
}

/**
 * An error that is not PostgreSQL's answer to a statement (it carries no SQLSTATE): the connection
 * could not be opened, was refused, timed out or was cut. It becomes a DatabaseUnreachableError,
 * which storageFailureOf tells apart (HTTP 503) by its class, never by the message.
 */
function toUnreachable(error: unknown): unknown {
  if (error instanceof loadPg().DatabaseError || error instanceof DatabaseUnreachableError) return error;
  if (error instanceof TypeError || error instanceof RangeError) return error;
  return new DatabaseUnreachableError(error);
}
