// Every difference between SQLite and PostgreSQL lives here, one named function each.
// The areas never ask which database runs.
import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** An auto-incrementing integer primary key named `id`. */
export function addIdColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigint', (c: ColumnDefinitionBuilder) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
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
  if (e.code === 'ERR_SQLITE_ERROR') return e.errcode === SQLITE_CONSTRAINT_UNIQUE || e.errcode === SQLITE_CONSTRAINT_PRIMARYKEY;
  // pg: SQLSTATE 23505 unique_violation.
  return e.code === '23505';
}

const SQLITE_CONSTRAINT_UNIQUE = 2067;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
