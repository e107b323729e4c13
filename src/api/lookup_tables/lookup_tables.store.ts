// Lookup tables and their rows. Cells live by position in col1..col10; every lookup and filter
// is led by the index (table_id, colN) of one given column, so its cost does not grow with the
// table. Labels (what clients see) are mapped to positions by the service.
// Stored form (migration 0009): an empty cell of one of the table's columns is '' (the API shows
// null), a position beyond the table's columns is null; the column indexes are partial
// (`colN IS NOT NULL`), so a table pays only for the indexes of the columns it has.
import { sql, type Expression, type ExpressionBuilder, type SqlBool, type SelectQueryBuilder } from 'kysely';
import { lockedForUpdate, lookupCellEquals, textListRows } from '../../db/dialect.ts';
import { prepareQuery } from '../../db/prepared.ts';
import type { Database, Db, LookupRowRecord, LookupTableRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export const CELL_COLUMNS = ['col1', 'col2', 'col3', 'col4', 'col5', 'col6', 'col7', 'col8', 'col9', 'col10'] as const;
export type CellColumn = (typeof CELL_COLUMNS)[number];
/** Cell values by position, as the service sees them: null (or absent on insert) is an empty cell. */
export type Cells = Partial<Record<CellColumn, string | null>>;

/** Equality on one cell; null matches an empty cell. */
export interface CellFilter {
  column: CellColumn;
  value: string | null;
}

/** Who is asking: tables are assets of the caller's environment, some scoped to a project. */
export interface TableScope {
  workspaceId: number;
  environmentId: number;
  allFolders: boolean;
  folderIds: readonly number[];
}

export type VisibleTable = LookupTableRow & { project_folder_id: number | null };

export interface LookupTableApi {
  id: number;
  name: string;
  schema: string;
  created_at: string;
  updated_at: string;
  project_id: string | null;
}

export interface LookupRowApi {
  id: number;
  data: Record<string, string | null>;
  created_at: string;
  updated_at: string;
}

export function labelsOf(table: Pick<LookupTableRow, 'columns'>): string[] {
  const parsed: unknown = JSON.parse(table.columns);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** The vendor's shape: `schema` is a JSON string of column definitions (contract 11 §1.1-1.2). */
export function tableToApi(table: LookupTableRow): LookupTableApi {
  const schema = labelsOf(table).map((label, i) => ({
    control_type: 'text',
    label,
    name: `col${i + 1}`,
    type: 'string',
    sticky: true,
  }));
  return {
    id: table.id,
    name: table.name,
    schema: JSON.stringify(schema),
    created_at: toApiTimestamp(table.created_at),
    updated_at: toApiTimestamp(table.updated_at),
    project_id: table.project_id === null ? null : String(table.project_id),
  };
}

export function rowToApi(row: LookupRowRecord, labels: readonly string[]): LookupRowApi {
  const data: Record<string, string | null> = {};
  labels.forEach((label, i) => {
    const value = row[CELL_COLUMNS[i] as CellColumn];
    data[label] = value === '' ? null : value;
  });
  return { id: row.id, data, created_at: toApiTimestamp(row.created_at), updated_at: toApiTimestamp(row.updated_at) };
}

// ---- tables ----

function visibleTables(db: Db, scope: TableScope) {
  let query = db
    .selectFrom('lookup_tables as t')
    .leftJoin('projects as p', 'p.id', 't.project_id')
    .selectAll('t')
    .select('p.folder_id as project_folder_id')
    .where('t.workspace_id', '=', scope.workspaceId)
    .where('t.environment_id', '=', scope.environmentId)
    .where('t.deleted_at', 'is', null);
  // A client limited to some projects sees only the tables of those projects (not the global ones).
  if (!scope.allFolders)
    query =
      scope.folderIds.length === 0
        ? query.where(sql<boolean>`1 = 0`)
        : query.where('p.folder_id', 'in', [...scope.folderIds]);
  return query;
}

/**
 * One table by id (every row write and lookup reads it first, so it is prepared once): the query
 * is visibleTables' without the project condition, which is then applied to the one record
 * found, by the same rule (a client limited to some projects sees only their tables).
 */
const tableById = prepareQuery<{ id: number; workspaceId: number; environmentId: number }, VisibleTable>((db, param) =>
  db
    .selectFrom('lookup_tables as t')
    .leftJoin('projects as p', 'p.id', 't.project_id')
    .selectAll('t')
    .select('p.folder_id as project_folder_id')
    .where('t.id', '=', param('id'))
    .where('t.workspace_id', '=', param('workspaceId'))
    .where('t.environment_id', '=', param('environmentId'))
    .where('t.deleted_at', 'is', null),
);

export async function findTable(db: Db, scope: TableScope, id: number): Promise<VisibleTable | undefined> {
  const [table] = (
    await tableById.execute(db, { id, workspaceId: scope.workspaceId, environmentId: scope.environmentId })
  ).rows;
  if (!table) return undefined;
  if (!scope.allFolders && (table.project_folder_id === null || !scope.folderIds.includes(table.project_folder_id)))
    return undefined;
  return table;
}

export async function listTables(
  db: Db,
  scope: TableScope,
  page: { offset: number; perPage: number },
): Promise<VisibleTable[]> {
  return visibleTables(db, scope).orderBy('t.id').limit(page.perPage).offset(page.offset).execute();
}

/** A table by name; names are unique per environment ignoring case (`name_key`). */
export async function findTableByName(db: Db, scope: TableScope, name: string): Promise<VisibleTable | undefined> {
  return visibleTables(db, scope).where('t.name_key', '=', name.trim().toLowerCase()).executeTakeFirst();
}

/** Which of these ids are visible tables, locked until the transaction ends (a batch delete checks, then marks them). */
export async function findVisibleTableIds(db: Db, scope: TableScope, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await lockedForUpdate(db, visibleTables(db, scope).where('t.id', 'in', [...ids]), 't').execute();
  return rows.map((r) => r.id);
}

export async function insertTable(
  db: Db,
  values: {
    workspace_id: number;
    environment_id: number;
    project_id: number | null;
    name: string;
    name_key: string;
    labels: readonly string[];
    now: string;
  },
): Promise<LookupTableRow> {
  return db
    .insertInto('lookup_tables')
    .values({
      workspace_id: values.workspace_id,
      environment_id: values.environment_id,
      project_id: values.project_id,
      name: values.name,
      name_key: values.name_key,
      columns: JSON.stringify(values.labels),
      row_count: 0,
      deleted_at: null,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Mark the tables deleted (for the API at once, the name freed; the rows go later, see
 * purgeDeletedRows); the ids it marked. A table a concurrent transaction deleted first is
 * not among them: the update waits for that transaction's row lock, then finds it deleted.
 */
export async function markTablesDeleted(db: Db, ids: readonly number[], now: string): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('lookup_tables')
    .set({ deleted_at: now, name_key: null })
    .where('id', 'in', [...ids])
    .where('deleted_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function findDeletedTableIds(db: Db, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('lookup_tables')
    .select('id')
    .where('deleted_at', 'is not', null)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Delete up to `limit` rows of a table; small chunks keep the connection free for requests. */
export async function deleteRowsChunk(db: Db, tableId: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('lookup_table_rows')
    .where('id', 'in', (eb) =>
      eb.selectFrom('lookup_table_rows').select('id').where('table_id', '=', tableId).orderBy('id').limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function removeDeletedTable(db: Db, tableId: number): Promise<void> {
  await db.deleteFrom('lookup_tables').where('id', '=', tableId).where('deleted_at', 'is not', null).execute();
}

/**
 * Count one more row against the limit and touch the table, if it is live and not full; one
 * conditional statement, so concurrent adds can never pass the limit together.
 */
export async function reserveRowSlot(db: Db, tableId: number, maxRows: number, now: string): Promise<boolean> {
  const result = await reserveSlot.execute(db, { tableId, maxRows, now });
  return Number(result.numAffectedRows ?? 0) > 0;
}

const reserveSlot = prepareQuery<{ tableId: number; maxRows: number; now: string }, never>((db, param) =>
  db
    .updateTable('lookup_tables')
    .set((eb) => ({ row_count: eb('row_count', '+', 1), updated_at: param('now') }))
    .where('id', '=', param('tableId'))
    .where('deleted_at', 'is', null)
    .where('row_count', '<', param('maxRows')),
);

/** Record a row change on a live table (rowDelta -1 for a delete); false if the table is gone. */
export async function touchTable(db: Db, tableId: number, now: string, rowDelta: 0 | -1 = 0): Promise<boolean> {
  const result = await db
    .updateTable('lookup_tables')
    .set((eb) => ({ row_count: eb('row_count', '+', rowDelta), updated_at: now }))
    .where('id', '=', tableId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function findTableRowCount(
  db: Db,
  tableId: number,
): Promise<{ row_count: number; deleted_at: string | null } | undefined> {
  return db
    .selectFrom('lookup_tables')
    .select(['row_count', 'deleted_at'])
    .where('id', '=', tableId)
    .executeTakeFirst();
}

// ---- rows ----

/**
 * A row of a table of `width` columns. The stored values are those given (text as is), so only
 * the new id is read back.
 */
export async function insertRow(
  db: Db,
  tableId: number,
  width: number,
  cells: Cells,
  now: string,
): Promise<LookupRowRecord> {
  const record = { ...storedCells(width, cells), table_id: tableId, created_at: now, updated_at: now };
  const [inserted] = (await insertOneRow.execute(db, record)).rows;
  if (!inserted) throw new Error('insert into lookup_table_rows returned no id');
  return { id: inserted.id, ...record };
}

const insertOneRow = prepareQuery<Omit<LookupRowRecord, 'id'>, { id: number }>((db, param) =>
  db
    .insertInto('lookup_table_rows')
    .values({
      table_id: param('table_id'),
      ...Object.fromEntries(CELL_COLUMNS.map((column) => [column, param(column)])),
      created_at: param('created_at'),
      updated_at: param('updated_at'),
    })
    .returning('id'),
);

/**
 * Append many rows at once (imports, benchmarks): multi-row inserts, and the row count raised by
 * the number written. Run it in a transaction; the caller checks the row limit.
 */
export async function insertRows(
  db: Db,
  tableId: number,
  width: number,
  rows: readonly Cells[],
  now: string,
): Promise<void> {
  // 13 values a row; SQLite accepts 32,766 bound values a statement.
  const perStatement = 2000;
  for (let i = 0; i < rows.length; i += perStatement) {
    const values = rows
      .slice(i, i + perStatement)
      .map((cells) => ({ ...storedCells(width, cells), table_id: tableId, created_at: now, updated_at: now }));
    await db.insertInto('lookup_table_rows').values(values).execute();
  }
  await db
    .updateTable('lookup_tables')
    .set((eb) => ({ row_count: eb('row_count', '+', rows.length), updated_at: now }))
    .where('id', '=', tableId)
    .execute();
}

export async function findRow(db: Db, tableId: number, rowId: number): Promise<LookupRowRecord | undefined> {
  return db
    .selectFrom('lookup_table_rows')
    .selectAll()
    .where('table_id', '=', tableId)
    .where('id', '=', rowId)
    .executeTakeFirst();
}

/** One statement: concurrent updates of a row each land whole, never interleaved cell by cell. */
export async function updateRowCells(
  db: Db,
  tableId: number,
  rowId: number,
  cells: Cells,
  now: string,
): Promise<LookupRowRecord | undefined> {
  return db
    .updateTable('lookup_table_rows')
    .set({
      ...Object.fromEntries(Object.entries(cells).map(([column, value]) => [column, value ?? ''])),
      updated_at: now,
    })
    .where('table_id', '=', tableId)
    .where('id', '=', rowId)
    .returningAll()
    .executeTakeFirst();
}

/** Delete every row of a live table and reset its count; false if the table is gone. */
export async function deleteAllRows(db: Db, tableId: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('lookup_tables')
    .set({ row_count: 0, updated_at: now })
    .where('id', '=', tableId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await db.deleteFrom('lookup_table_rows').where('table_id', '=', tableId).execute();
  return true;
}

export async function deleteRow(db: Db, tableId: number, rowId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('lookup_table_rows')
    .where('table_id', '=', tableId)
    .where('id', '=', rowId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The first rows (by id) matching every filter; all rows of the table without filters. */
export async function findRows(
  db: Db,
  tableId: number,
  filters: readonly CellFilter[],
  page: { offset: number; perPage: number },
): Promise<LookupRowRecord[]> {
  const planned = await planFilters(db, tableId, filters);
  if (planned === null) return [];
  return rowsQuery(db, tableId, planned).limit(page.perPage).offset(page.offset).execute();
}

export async function findFirstRow(
  db: Db,
  tableId: number,
  filters: readonly CellFilter[],
): Promise<LookupRowRecord | undefined> {
  const planned = await planFilters(db, tableId, filters);
  if (planned === null) return undefined;
  return rowsQuery(db, tableId, planned).limit(1).executeTakeFirst();
}

/**
 * The query for rows matching the filters, the first filter leading. Only the leading filter is
 * written so that an index can serve it (`colN = ?` on (table_id, colN)); the others are written
 * as expressions, which no index serves, so the planner cannot pick a worse index for them. Rows
 * come in id order straight from the index (equal keys are stored in id order): no sort.
 */
export function rowsQuery(
  db: Db,
  tableId: number,
  filters: readonly CellFilter[],
): SelectQueryBuilder<Database, 'lookup_table_rows', LookupRowRecord> {
  let query = db.selectFrom('lookup_table_rows').selectAll().where('table_id', '=', tableId);
  const [leading, ...others] = filters;
  if (leading) query = query.where(lookupCellEquals(db, leading.column, leading.value ?? ''));
  for (const filter of others) {
    query = query.where((eb) => eb(eb.fn.coalesce(filter.column, eb.val('')), '=', filter.value ?? ''));
  }
  return query.orderBy('id');
}

// ---- lookups in a remembered table (lookup_tables.cache.ts) ----

/** What a remembered table is checked against in the statement that reads its rows. */
export type RememberedTable = Pick<VisibleTable, 'id' | 'name_key' | 'project_id' | 'columns'>;

/**
 * The table is still as remembered: not deleted, with the same name, columns and project (its
 * tenancy never changes, nor does a project's folder). Compared field by field rather than by a
 * version, so no writer of lookup_tables can forget to move one.
 */
function isUnchanged(eb: ExpressionBuilder<Database, 'lookup_tables'>, table: RememberedTable): Expression<SqlBool> {
  return eb.and([
    eb('lookup_tables.id', '=', table.id),
    eb('lookup_tables.deleted_at', 'is', null),
    eb('lookup_tables.name_key', '=', table.name_key ?? ''),
    eb('lookup_tables.columns', '=', table.columns),
    eb(eb.fn.coalesce('lookup_tables.project_id', sql.lit(0)), '=', table.project_id ?? 0),
  ]);
}

/**
 * The id of the first row matching every filter, as one scalar expression. With several filters
 * the rarest value leads (see planFilters): each value's matches are counted up to PROBE_CAP
 * through its own index, and a CASE runs only the query led by the fewest.
 */
function firstMatchingId(db: Db, tableId: number, filters: readonly CellFilter[]): Expression<number | null> {
  const ledBy = (i: number) => {
    const lead = filters[i] as CellFilter;
    return rowsQuery(db, tableId, [lead, ...filters.filter((_, j) => j !== i)])
      .clearSelect()
      .select('id')
      .limit(1);
  };
  if (filters.length < 2) return sql<number | null>`(${ledBy(0)})`;
  const counts = filters.map((filter, i) => sql`select ${sql.lit(i)} as k, (${matchCount(db, tableId, filter)}) as n`);
  const rarest = sql`(select k from (${sql.join(counts, sql` union all `)}) as counts order by n, k limit 1)`;
  return sql<number | null>`case ${rarest} ${sql.join(
    filters.map((_, i) => sql`when ${sql.lit(i)} then (${ledBy(i)})`),
    sql` `,
  )} end`;
}

function matchCount(db: Db, tableId: number, filter: CellFilter) {
  const matches = db
    .selectFrom('lookup_table_rows')
    .select(sql.lit(1).as('one'))
    .where('table_id', '=', tableId)
    .where(lookupCellEquals(db, filter.column, filter.value ?? ''));
  return db.selectFrom(matches.limit(PROBE_CAP).as('m')).select((e) => e.fn.countAll<number>().as('n'));
}

/** A row's columns, joined as `r`. */
const ROW_OF_R = [
  'r.id',
  'r.table_id',
  ...CELL_COLUMNS.map((c) => `r.${c}` as const),
  'r.created_at',
  'r.updated_at',
] as const;

/**
 * The first row (lowest id) matching the filters in a remembered table, in one statement that
 * also proves the table unchanged: the table's record joined with the row found (or with none).
 * 'changed': the table is deleted or no longer as remembered (read it again).
 */
export async function findFirstRowOfRemembered(
  db: Db,
  table: RememberedTable,
  filters: readonly CellFilter[],
): Promise<LookupRowRecord | undefined | 'changed'> {
  const found = await db
    .selectFrom('lookup_tables')
    .leftJoin('lookup_table_rows as r', (join) =>
      join.on('r.table_id', '=', table.id).on('r.id', '=', firstMatchingId(db, table.id, filters)),
    )
    .select(['lookup_tables.id as live_table_id', ...ROW_OF_R])
    .where((eb) => isUnchanged(eb, table))
    .executeTakeFirst();
  if (!found) return 'changed';
  const { live_table_id: _live, ...row } = found;
  return row.id === null ? undefined : (row as LookupRowRecord);
}

/**
 * findFirstRowOfRemembered for many values of one column at once (the lookups of concurrent jobs:
 * lookup_tables.batch.ts), in one statement that also proves the table unchanged: the table's
 * record joined with each value and the first row (lowest id) holding it, or none. The rows in the
 * order of the values; 'changed' as findFirstRowOfRemembered.
 */
export async function findFirstRowsOfRemembered(
  db: Db,
  table: RememberedTable,
  column: CellColumn,
  values: readonly string[],
): Promise<Array<LookupRowRecord | undefined> | 'changed'> {
  const firstHolding = db
    .selectFrom('lookup_table_rows as x')
    .select('x.id')
    .where('x.table_id', '=', table.id)
    .where(lookupCellEquals(db, `x.${column}`, sql<string>`v.val`))
    .orderBy('x.id')
    .limit(1);
  const found = await db
    .selectFrom('lookup_tables')
    .innerJoin(textListRows(db, values).as('v'), (join) => join.onTrue())
    .leftJoin('lookup_table_rows as r', (join) => join.on('r.table_id', '=', table.id).on('r.id', '=', firstHolding))
    .select(['lookup_tables.id as live_table_id', 'v.k', ...ROW_OF_R])
    .where((eb) => isUnchanged(eb, table))
    .execute();
  if (found.length === 0) return 'changed';
  const rows: Array<LookupRowRecord | undefined> = values.map(() => undefined);
  for (const { live_table_id: _live, k, ...row } of found) if (row.id !== null) rows[k - 1] = row as LookupRowRecord;
  return rows;
}

/**
 * findRows in a remembered table, only while it is unchanged: an empty answer may also mean that
 * it changed (the caller then reads the table again to tell).
 */
export async function findRowsOfRemembered(
  db: Db,
  table: RememberedTable,
  filters: readonly CellFilter[],
  page: { offset: number; perPage: number },
): Promise<LookupRowRecord[]> {
  const planned = await planFilters(db, table.id, filters);
  if (planned === null) return [];
  return rowsQuery(db, table.id, planned)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('lookup_tables')
          .select(sql.lit(1).as('one'))
          .where((t) => isUnchanged(t, table)),
      ),
    )
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}

/** Rows counted per filter are capped: enough to tell a rare value from a common one, never a long walk. */
const PROBE_CAP = 64;

/**
 * Order the filters so that the rarest value leads: with several columns, the cost of a lookup
 * is the number of rows matching the leading column, so lead with the one that matches fewest.
 * One statement counts, for each filter, its matches up to PROBE_CAP, each through its own index.
 * null: a filter matches no row at all, so nothing can match.
 */
export async function planFilters(
  db: Db,
  tableId: number,
  filters: readonly CellFilter[],
): Promise<CellFilter[] | null> {
  if (filters.length < 2) return [...filters];
  const counts = (await probeQuery(db, tableId, filters).executeTakeFirstOrThrow()) as Record<string, unknown>;
  const withCounts = filters.map((filter, i) => ({ filter, n: Number(counts[`c${i}`]) }));
  if (withCounts.some((f) => f.n === 0)) return null;
  return withCounts.sort((a, b) => a.n - b.n).map((f) => f.filter);
}

/** For each filter, the number of matching rows up to PROBE_CAP, as columns c0, c1, ... */
export function probeQuery(db: Db, tableId: number, filters: readonly CellFilter[]) {
  return db.selectNoFrom((eb) =>
    filters.map((filter, i) => {
      let matches = eb.selectFrom('lookup_table_rows').select(sql.lit(1).as('one')).where('table_id', '=', tableId);
      matches = matches.where(lookupCellEquals(db, filter.column, filter.value ?? ''));
      return eb
        .selectFrom(matches.limit(PROBE_CAP).as('m'))
        .select((e) => e.fn.countAll<number>().as('n'))
        .as(`c${i}`);
    }),
  );
}

/** All ten positions as stored: the table's columns hold their value or '' when empty, the rest null. */
function storedCells(width: number, cells: Cells): Record<CellColumn, string | null> {
  const stored = {} as Record<CellColumn, string | null>;
  CELL_COLUMNS.forEach((column, i) => {
    stored[column] = i < width ? (cells[column] ?? '') : null;
  });
  return stored;
}
