// Adapts node:sqlite (built into Node, no native addon) to the database interface that
// Kysely's SqliteDialect expects from better-sqlite3.
import type { DatabaseSync, StatementSync, SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function adaptNodeSqlite(database: DatabaseSync): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare: (sql: string) => adaptStatement(database.prepare(sql)),
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
