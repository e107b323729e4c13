// Adapts node:sqlite (built into Node, no native addon) to the database interface that
// Kysely's SqliteDialect expects from better-sqlite3.
import type { DatabaseSync, StatementSync, SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Prepared statements kept for reuse, most recently used last. */
const STATEMENT_CACHE_SIZE = 500;
/** Longer statements (large multi-row inserts) are rare and would crowd the cache out. */
const MAX_CACHED_SQL_LENGTH = 10_000;

/**
 * Kysely asks for a new prepared statement on every query; compiling the SQL costs more than
 * running most of ours, so statements are kept and reused by their text. Reuse is safe because
 * the one connection is serialised: a statement never runs for two queries at once.
 */
export function adaptNodeSqlite(database: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare: (sql: string) => {
      const cached = cache.get(sql);
      if (cached) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = adaptStatement(database.prepare(sql));
      if (sql.length <= MAX_CACHED_SQL_LENGTH) {
        cache.set(sql, statement);
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      }
      return statement;
    },
  };
}

function adaptStatement(statement: StatementSync): SqliteStatement {
  const params = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
  return {
    // A statement that yields columns (SELECT, or anything with RETURNING) is a reader.
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...params(parameters)),
    run: (parameters) => statement.run(...params(parameters)),
    iterate: (parameters) => statement.iterate(...params(parameters)),
  };
}

function toSqliteValue(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}
