// Adapts node:sqlite (built into Node, no native addon) to the database interface that
// Kysely's SqliteDialect expects from better-sqlite3.
import { constants, type DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
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
export function adaptNodeSqlite(
  database: DatabaseSync,
  options: { onCommit?: () => void; onError?: (error: unknown) => void } = {},
): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  const onError = options.onError;
  // Which statements write, told by SQLite itself while it compiles them (its authorizer sees
  // every action a statement will take): a writer that leaves the connection outside a
  // transaction has committed (autocommit, COMMIT, RELEASE of the outermost savepoint).
  const onCommit = options.onCommit;
  let compiling: { writes: boolean } | undefined;
  if (onCommit) {
    database.setAuthorizer((action) => {
      if (compiling && !READ_ACTIONS.has(action)) compiling.writes = true;
      return constants.SQLITE_OK;
    });
  }
  const compile = (sql: string): SqliteStatement => {
    // A full disk, an I/O error or SQLITE_FULL of the page limit may make SQLite roll the whole
    // transaction back itself; the rollback that follows (Kysely's, or the group commit's) then
    // has nothing to undo and must not replace the error that explains what happened.
    if (sql === 'rollback') return rollbackIfOpen(database, onError);
    if (!onCommit) return adaptStatement(database.prepare(sql), undefined, onError);
    compiling = { writes: false };
    try {
      const prepared = database.prepare(sql);
      return adaptStatement(
        prepared,
        compiling.writes
          ? () => {
              if (!database.isTransaction) onCommit();
            }
          : undefined,
        onError,
      );
    } finally {
      compiling = undefined;
    }
  };
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
      let statement: SqliteStatement;
      try {
        statement = compile(sql);
      } catch (error) {
        onError?.(error);
        throw error;
      }
      if (sql.length <= MAX_CACHED_SQL_LENGTH) {
        cache.set(sql, statement);
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      }
      return statement;
    },
  };
}

/** Authorizer actions that only read; any other (insert, update, delete, transaction, savepoint, DDL, pragma) may write. */
const READ_ACTIONS: ReadonlySet<number> = new Set([
  constants.SQLITE_READ,
  constants.SQLITE_SELECT,
  constants.SQLITE_FUNCTION,
  constants.SQLITE_RECURSIVE,
]);

/** ROLLBACK of the open transaction; nothing when SQLite has already rolled it back itself. */
function rollbackIfOpen(database: DatabaseSync, onError?: (error: unknown) => void): SqliteStatement {
  const rollback = adaptStatement(database.prepare('rollback'), undefined, onError);
  // Skipped only when the connection says it is outside a transaction.
  const run = (parameters: ReadonlyArray<unknown>) =>
    database.isTransaction === false ? { changes: 0, lastInsertRowid: 0 } : rollback.run(parameters);
  return {
    reader: false,
    run,
    all: (parameters) => {
      run(parameters);
      return [];
    },
    iterate: (parameters) => {
      run(parameters);
      return [][Symbol.iterator]();
    },
  };
}

function adaptStatement(
  statement: StatementSync,
  afterWrite?: () => void,
  onError?: (error: unknown) => void,
): SqliteStatement {
  const adapted = adaptRuns(statement, afterWrite);
  if (!onError) return adapted;
  const watch =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return run(...args);
      } catch (error) {
        onError(error);
        throw error;
      }
    };
  return { reader: adapted.reader, all: watch(adapted.all), run: watch(adapted.run), iterate: watch(adapted.iterate) };
}

function adaptRuns(statement: StatementSync, afterWrite?: () => void): SqliteStatement {
  const params = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
  // A statement that yields columns (SELECT, or anything with RETURNING) is a reader.
  const reader = statement.columns().length > 0;
  if (!afterWrite) {
    return {
      reader,
      all: (parameters) => statement.all(...params(parameters)),
      run: (parameters) => statement.run(...params(parameters)),
      iterate: (parameters) => statement.iterate(...params(parameters)),
    };
  }
  return {
    reader,
    all: (parameters) => {
      const rows = statement.all(...params(parameters));
      afterWrite();
      return rows;
    },
    run: (parameters) => {
      const result = statement.run(...params(parameters));
      afterWrite();
      return result;
    },
    iterate: (parameters) => {
      const rows = statement.iterate(...params(parameters));
      afterWrite();
      return rows;
    },
  };
}

function toSqliteValue(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}
