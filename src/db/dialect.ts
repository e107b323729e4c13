// Every difference between SQLite and PostgreSQL lives here, one named function each.
// The areas never ask which database runs.
import {
  PostgresAdapter,
  sql,
  type ColumnDefinitionBuilder,
  type CompiledQuery,
  type CreateIndexBuilder,
  type CreateTableBuilder,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import { pgArray } from './pg-arrays.ts';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Whether rows become visible in the order of their ids: true on SQLite (one writer, commits in
 * order); on PostgreSQL a row with a lower id may commit after one with a higher id, so a reader
 * that walks ids (a polling trigger's cursor) must leave the most recent rows for its next pass.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function commitsInIdOrder(db: Kysely<any>): boolean {
  return dialectOf(db) === 'sqlite';
}

/** Which database a handle (or a transaction) talks to, told by Kysely's adapter. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Rows a transaction reads in order to change them, locked until it ends, so that a concurrent
 * transaction that read them first is waited for and its change seen (PostgreSQL: FOR UPDATE OF
 * `table`, whose WHERE is checked again on the row as that transaction left it). SQLite needs
 * nothing: its transactions run one at a time on the one connection.
 */
export function lockedForUpdate<DB, TB extends keyof DB, O>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  db: Kysely<any>,
  query: SelectQueryBuilder<DB, TB, O>,
  table: TB & string,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate(table as never) : query;
}

/**
 * A text column in byte order, as SQLite compares text: PostgreSQL otherwise sorts by the
 * database's collation (en_US.UTF-8 ignores punctuation and mixes cases), which would order
 * folders and names differently from one database to the other.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function inByteOrder(db: Kysely<any>, column: string): RawBuilder<string> {
  return dialectOf(db) === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;
}

/**
 * `column = value` for a lookup-table cell, written so that the cell's index serves it. A cell
 * holds up to 10 KB; a PostgreSQL B-tree entry at most about 2.7 KB, so there the index holds
 * md5(cell) (migration 0009, lookupCellIndexExpression) and the lookup compares the digests, then
 * the cells themselves.
 */
export function lookupCellEquals(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  db: Kysely<any>,
  column: string,
  value: string | Expression<string>,
): Expression<SqlBool> {
  return dialectOf(db) === 'postgres'
    ? sql<SqlBool>`(md5(${sql.ref(column)}) = md5(${value}) and ${sql.ref(column)} = ${value})`
    : sql<SqlBool>`${sql.ref(column)} = ${value}`;
}

/** The keys of the index of a lookup-table cell column: table_id, then the cell (see lookupCellEquals), in id order. */
export function lookupCellIndexKeys(
  index: CreateIndexBuilder,
  dialect: DialectName,
  column: string,
): CreateIndexBuilder {
  // id last: rows of one value come out of the index in id order, as SQLite's (whose index
  // entries end with the rowid) do, so a page deep in a common value needs no sort.
  return dialect === 'postgres'
    ? index.expression(sql`table_id, md5(${sql.ref(column)}), id`)
    : index.columns(['table_id', column]);
}

/** An auto-incrementing integer primary key named `id`. */
export function addIdColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigint', (c: ColumnDefinitionBuilder) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}

/**
 * Whether other nodes may share this database. SQLite: one process owns the file, so what a
 * previous run left is its own. PostgreSQL: several nodes, so claims lock rows and expire.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function isSharedByNodes(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * The rows a select returns, locked for this transaction, skipping rows another transaction holds
 * (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so nodes claiming at once take different rows without
 * waiting). SQLite has no row locks and needs none: its one writer serialises the claims.
 */
export function lockedSkippingLocked<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  db: Kysely<any>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/**
 * Whether independent writes (ones that update no row other writes update) should share the
 * group commit's transaction (group-commit.ts). SQLite: yes; it has one writer, and a commit (a
 * sync of its log) is what limits it. PostgreSQL: no; it takes writes of many connections at once
 * and groups concurrent commits into one flush of its log itself, so they run in parallel
 * transactions from the pool, none waiting for another's round trips.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function sharesCommits(db: Kysely<any>): boolean {
  return dialectOf(db) !== 'postgres';
}

/**
 * Whether independent inserts that arrive together (the job rows of concurrent webhooks) are
 * written by one multi-row statement outside any transaction (insert-batcher.ts). PostgreSQL: yes;
 * a statement is its own transaction, so one round trip commits them all, where a transaction
 * each costs three (BEGIN, INSERT, COMMIT) and holds a pooled connection through them. SQLite: no;
 * they share the group commit's transaction (sharesCommits), and a statement there is a call in
 * the process, not a round trip.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function insertsInOneStatement(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Whether statements that write (insert, update) may stand in a WITH clause of another, so that
 * several writes go to the database as one statement: PostgreSQL yes (one round trip instead of
 * one each); SQLite no (and a statement there is a call in the process, not a round trip).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function writesInWithClause(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Whether the database runs the functions some migrations create for the hottest writes
 * (PostgreSQL: PL/pgSQL, one round trip for what would be several statements, each with a
 * snapshot of its own; docs/adr/0018). SQLite has none, and needs none: a statement there is a
 * call in the process, not a round trip.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function runsStoredFunctions(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * Whether a job's lines are kept to existing jobs by the statements that insert them rather than
 * by a foreign key (migration 0024). PostgreSQL: yes; a foreign key checks each inserted row
 * with a query of its own, and a job writes a dozen lines or more, so the insert locks the jobs
 * once and a trigger deletes the lines of deleted jobs. SQLite: no; its check is a call in the
 * process.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function jobLinesCheckedByStatements(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * One statement inserting any number of rows, each column's values bound as one array, where the
 * database takes arrays (PostgreSQL: `insert … select * from unnest($1::bigint[], …)`, one round
 * trip and four bound values for a thousand rows, and one statement text whatever their number);
 * undefined where it does not (SQLite: the caller inserts with multi-row VALUES, a call in the
 * process each). `returning`: columns of the inserted rows to return (in no promised order).
 */
export function insertFromColumnArrays(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  db: Kysely<any>,
  table: string,
  columns: ReadonlyArray<{ name: string; type: 'bigint' | 'integer' | 'text' }>,
  values: ReadonlyArray<readonly unknown[]>,
  returning: readonly string[] = [],
): CompiledQuery | undefined {
  if (dialectOf(db) !== 'postgres') return undefined;
  const arrays = columns.map((column, i) => sql`${pgArray(values[i] ?? [])}::${sql.raw(column.type)}[]`);
  const returned = returning.length === 0 ? sql`` : sql` returning ${sql.join(returning.map((name) => sql.ref(name)))}`;
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.name)))}) select * from unnest(${sql.join(arrays)})${returned}`.compile(
    db,
  );
}

/**
 * Whether reads that arrive together should be gathered into one statement (the lookups of
 * concurrent jobs in one table: lookup_tables.batch.ts). PostgreSQL: yes; each statement is a
 * round trip, and the statements of many jobs at once wait for each other's answers on a busy
 * node. SQLite: no; a statement there is a call in the process, and waiting a turn to gather
 * others would only delay it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function readsShareStatements(db: Kysely<any>): boolean {
  return dialectOf(db) === 'postgres';
}

/**
 * A list of texts as a subquery of rows `(k, val)`, `k` the 1-based position, bound as one value
 * (so the statement's text is the same whatever the number): PostgreSQL `unnest` of a text array
 * with its ordinality, SQLite `json_each` of a JSON array. The caller names it with `.as(...)`.
 */
export function textListRows(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  db: Kysely<any>,
  values: readonly string[],
): RawBuilder<{ k: number; val: string }> {
  return dialectOf(db) === 'postgres'
    ? sql`(select u.k, u.val from unnest(${pgArray(values)}::text[]) with ordinality as u(val, k))`
    : sql`(select cast(key as integer) + 1 as k, value as val from json_each(${JSON.stringify(values)}))`;
}

/** Namespaces of advisory locks (the first key of the two-key form). */
export const ADVISORY_LOCKS = { recipeClaims: 1, startUp: 2, jobCountsFold: 3 } as const;

/**
 * Run `work` while holding the lock (`space`, `key`) for this process, waiting for any other
 * holder first: what nodes starting together must do one at a time (the migrations, the first
 * workspace). PostgreSQL: a session-level advisory lock (`pg_advisory_lock`) held by a connection
 * of its own for as long as `work` runs (`work` uses the pool's other connections); a node that
 * dies holding it releases it with its connection. SQLite: one process owns the file, so `work`
 * runs at once.
 */
export async function whileHoldingLock<T>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  db: Kysely<any>,
  space: number,
  key: number,
  work: () => Promise<T>,
): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work();
  return db.connection().execute(async (holder) => {
    await sql`select pg_advisory_lock(${space}::int, ${key}::int)`.execute(holder);
    const unlock = () => sql`select pg_advisory_unlock(${space}::int, ${key}::int)`.execute(holder);
    let result: T;
    try {
      result = await work();
    } catch (error) {
      // The work's error is the one to report; the pool closes with the process that fails.
      await unlock().catch(() => undefined);
      throw error;
    }
    await unlock();
    return result;
  });
}

/**
 * Take a lock for the rest of the transaction on (`space`, `key`) if no other transaction holds
 * it; false at once otherwise. PostgreSQL: `pg_try_advisory_xact_lock`, which conflicts with
 * nothing but itself (not with updates of any row). SQLite: always true, its one writer
 * serialises transactions already.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export async function tryTransactionLock(db: Kysely<any>, space: number, key: number): Promise<boolean> {
  if (dialectOf(db) !== 'postgres') return true;
  const { rows } = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(${space}::int, ${key}::int) as locked`.execute(db);
  return rows[0]?.locked === true;
}

/** A column of bytes. */
export function blobType(dialect: DialectName): 'blob' | 'bytea' {
  return dialect === 'postgres' ? 'bytea' : 'blob';
}

/** True when the driver reports a UNIQUE constraint violation (by error code, never by message). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; errcode?: unknown; errstr?: unknown };
  // node:sqlite: code 'ERR_SQLITE_ERROR' with the extended result code in `errcode`.
  if (e.code === 'ERR_SQLITE_ERROR')
    return e.errcode === SQLITE_CONSTRAINT_UNIQUE || e.errcode === SQLITE_CONSTRAINT_PRIMARYKEY;
  // pg: SQLSTATE 23505 unique_violation.
  return e.code === '23505';
}

/**
 * True when the database gave up a transaction because of other transactions, and the same
 * transaction run again may succeed: PostgreSQL's deadlock (SQLSTATE 40P01, one transaction of a
 * cycle of row locks is cancelled) and serialization failure (40001). Never on SQLite: its one
 * connection runs one transaction at a time.
 */
export function isRetryableConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '40P01' || code === '40001';
}

const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;

/**
 * What went wrong with the storage itself, as opposed to the request: the disk (or the
 * database's page limit) is full, the file or its directory is read-only, the disk failed a read
 * or a write, or the database file cannot be opened.
 */
export type StorageFailure = 'full' | 'read_only' | 'io_error' | 'cannot_open' | 'unreachable';

/**
 * A database server (PostgreSQL) that cannot be reached: a connection refused, timed out or cut,
 * told by the driver raising something other than the server's answer to a statement.
 */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
  /** The system's error code of the failure, when there is one (ECONNREFUSED, ETIMEDOUT...). */
  readonly code: string | undefined;
  constructor(failure: unknown) {
    // The driver's own text (not kept as `cause`, which loggers would print a second time).
    super(
      failure instanceof Error && failure.message !== '' ? failure.message : 'the connection to the database failed',
    );
    const code = typeof failure === 'object' && failure !== null ? (failure as { code?: unknown }).code : undefined;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/**
 * The storage failure an error reports, or undefined for any other error. Told by the driver's
 * result code (node:sqlite: `errcode`, whose low byte is SQLite's primary code; pg: the SQLSTATE)
 * or, for a sync of the log file, the system's error code; never by the message.
 */
export function storageFailureOf(error: unknown): StorageFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (error instanceof DatabaseUnreachableError) return 'unreachable';
  const e = error as { code?: unknown; errcode?: unknown };
  if (e.code === 'ERR_SQLITE_ERROR') {
    if (typeof e.errcode !== 'number' || e.errcode === SQLITE_IOERR_NOMEM) return undefined;
    return SQLITE_STORAGE_FAILURES.get(e.errcode & 0xff);
  }
  return typeof e.code === 'string' ? OTHER_STORAGE_FAILURES.get(e.code) : undefined;
}

/**
 * PostgreSQL refused a text holding NUL (U+0000): as a parameter (22021, an invalid byte sequence:
 * the only one a JavaScript string can make, as it is sent as UTF-8 with lone surrogates replaced)
 * or read from JSON into text (22P05, `\u0000`). SQLite stores any text, so never on SQLite.
 */
export function textRefusedForNul(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '22021' || code === '22P05';
}

/** SQLite's primary result codes: SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN. */
const SQLITE_STORAGE_FAILURES: ReadonlyMap<number, StorageFailure> = new Map([
  [8, 'read_only'],
  [10, 'io_error'],
  [13, 'full'],
  [14, 'cannot_open'],
]);
/** An SQLITE_IOERR that is memory running out, not the disk. */
const SQLITE_IOERR_NOMEM = 3082;
/** The system's (a failed fdatasync of the log) and PostgreSQL's SQLSTATEs of the same failures. */
const OTHER_STORAGE_FAILURES: ReadonlyMap<string, StorageFailure> = new Map([
  ['ENOSPC', 'full'],
  ['EDQUOT', 'full'],
  ['EROFS', 'read_only'],
  ['EIO', 'io_error'],
  ['53100', 'full'],
  ['25006', 'read_only'],
  ['58030', 'io_error'],
  // The server shutting down, starting up, out of connections, or the connection lost.
  ['57P01', 'unreachable'],
  ['57P02', 'unreachable'],
  ['57P03', 'unreachable'],
  ['53300', 'unreachable'],
  // Refused at login: a wrong password, no such role or database.
  ['28000', 'unreachable'],
  ['28P01', 'unreachable'],
  ['3D000', 'unreachable'],
  ['08000', 'unreachable'],
  ['08001', 'unreachable'],
  ['08003', 'unreachable'],
  ['08004', 'unreachable'],
  ['08006', 'unreachable'],
]);
