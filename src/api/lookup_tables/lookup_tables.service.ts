// Lookup tables (contract 11 and the README's "Lookup tables" decision): tables of up to ten
// string columns in the caller's environment, their rows, and lookups by column values.
import type { ServiceContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import { AppError, assertFound, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { findProject } from '../projects/projects.store.ts';
import { projectInScope } from '../../auth/credentials.ts';
import {
  deleteAllRows,
  deleteRow as deleteRowRecord,
  deleteRowsChunk,
  findDeletedTableIds,
  findFirstRow,
  findFirstRowOfRemembered,
  findRow,
  findRows,
  findRowsOfRemembered,
  findTable,
  findTableByName,
  findTableRowCount,
  findVisibleTableIds,
  insertRow,
  insertTable,
  labelsOf,
  listTables as listTableRecords,
  markTablesDeleted,
  removeDeletedTable,
  reserveRowSlot,
  rowToApi,
  tableToApi,
  touchTable,
  updateRowCells,
  type CellFilter,
  type LookupRowApi,
  type LookupTableApi,
  type TableScope,
  type VisibleTable,
} from './lookup_tables.store.ts';
import { factsOf, visibleTo, type TableFacts } from './lookup_tables.cache.ts';
import { parseFilters, parseCells, checkTableName, checkSchema } from './lookup_tables.input.ts';

export interface CreateTableInput {
  name?: string;
  project_id?: number | null;
  /** Column definitions `[{label}]`, or the same array JSON-encoded (as tables are returned). */
  schema?: unknown;
}

export async function listTables(
  ctx: ServiceContext,
  scope: TableScope,
  page: { offset: number; perPage: number },
): Promise<LookupTableApi[]> {
  return (await listTableRecords(ctx.db, scope, page)).map(tableToApi);
}

export async function getTable(ctx: ServiceContext, scope: TableScope, id: number): Promise<LookupTableApi> {
  return tableToApi(assertFound(await findTable(ctx.db, scope, id)));
}

export async function createTable(
  ctx: ServiceContext,
  scope: TableScope,
  input: CreateTableInput,
): Promise<LookupTableApi> {
  const errors: FieldErrors = {};
  const name = checkTableName(input.name, errors);
  const labels = checkSchema(input.schema, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  let projectId: number | null = null;
  if (input.project_id !== undefined && input.project_id !== null) {
    const project = await findProject(ctx.db, scope.environmentId, input.project_id);
    // A project outside the caller's scope is as unknown as one that does not exist.
    if (!project || !projectInScope(scope, project.folder_id)) {
      throw new AppError('project_id_not_found', {
        params: { project_id: input.project_id },
        errors: { project_id: ['does not exist'] },
      });
    }
    projectId = project.id;
  } else if (!scope.allFolders) {
    throw new AppError('lookup_table_needs_project_in_scope');
  }

  try {
    const table = await insertTable(ctx.db, {
      workspace_id: scope.workspaceId,
      environment_id: scope.environmentId,
      project_id: projectId,
      name: name as string,
      name_key: (name as string).toLowerCase(),
      labels: labels as string[],
      now: toStored(ctx.clock.now()),
    });
    ctx.notifier.publish('lookup_tables.changed', { environmentId: scope.environmentId });
    return tableToApi(table);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
    throw error;
  }
}

/**
 * All or nothing (contract README, "Lookup tables"): an id the caller cannot see is a 404 naming
 * it, and no table is deleted. The tables are gone for the API when this returns; their rows are
 * purged afterwards in small chunks, so that a table of a million rows does not hold up the server.
 */
export async function deleteTables(
  ctx: ServiceContext,
  scope: TableScope,
  ids: readonly number[],
  field: string,
): Promise<{ deleted_ids: number[]; failed_ids: number[] }> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw invalid({ [field]: ['must list at least one lookup table id'] });
  await ctx.db.transaction().execute(async (trx) => {
    const found = new Set(await findVisibleTableIds(trx, scope, unique));
    throwUnknownTables(
      unique.filter((id) => !found.has(id)),
      field,
    );
    // The update marks only tables still not deleted: should a concurrent batch have deleted
    // one since it was read, it is unknown too, and this batch deletes nothing.
    const marked = new Set(await markTablesDeleted(trx, unique, toStored(ctx.clock.now())));
    throwUnknownTables(
      unique.filter((id) => !marked.has(id)),
      field,
    );
  });
  ctx.notifier.publish('lookup_tables.changed', { environmentId: scope.environmentId });
  startPurge(ctx);
  return { deleted_ids: unique, failed_ids: [] };
}

function throwUnknownTables(unknown: readonly number[], field: string): void {
  if (unknown.length === 0) return;
  const list = unknown.slice(0, 20).join(', ') + (unknown.length > 20 ? ', ...' : '');
  throw new AppError(unknown.length > 1 ? 'lookup_tables_not_found' : 'lookup_table_not_found', {
    params: { ids: list },
    errors: { [field]: [`unknown: ${list}`] },
  });
}

/** Purge the rows of deleted tables in the background; also called at start for a purge cut short. */
export function startPurge(ctx: Pick<ServiceContext, 'db' | 'log'>): void {
  purgeDeletedTables(ctx).catch((error: unknown) => {
    ctx.log.warn(
      { err: error },
      'purging the rows of deleted lookup tables stopped; it resumes at the next start or batch delete',
    );
  });
}

/** Rows deleted per statement while purging: a few milliseconds each, so requests interleave. */
const PURGE_CHUNK = 500;

export async function purgeDeletedTables(ctx: Pick<ServiceContext, 'db'>): Promise<void> {
  for (;;) {
    const ids = await findDeletedTableIds(ctx.db, 10);
    if (ids.length === 0) return;
    for (const id of ids) {
      while ((await deleteRowsChunk(ctx.db, id, PURGE_CHUNK)) > 0)
        await new Promise((resolve) => setImmediate(resolve));
      await removeDeletedTable(ctx.db, id);
    }
  }
}

export async function listRows(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  query: Record<string, unknown>,
  page: { offset: number; perPage: number },
): Promise<LookupRowApi[]> {
  return listRowsOf(ctx, await visibleTable(ctx, scope, tableId), query, page);
}

/** listRows of a table the caller has read already (the recipe engine's steps, which name it). */
export async function listRowsOf(
  ctx: ServiceContext,
  table: VisibleTable,
  query: Record<string, unknown>,
  page: { offset: number; perPage: number },
): Promise<LookupRowApi[]> {
  const labels = labelsOf(table);
  const filters = parseFilters(labels, query);
  return (await findRows(ctx.db, table.id, filters, page)).map((row) => rowToApi(row, labels));
}

/** The first row (lowest id) matching every `by[column]` filter; 404 when none does. */
export async function lookupRow(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  query: Record<string, unknown>,
): Promise<LookupRowApi> {
  const found = await findFirstMatchingRowByRef(ctx, (fresh) => tableFactsById(ctx, scope, tableId, fresh), query);
  if (!found) throw new AppError('not_found');
  if (!found.row) throw new AppError('lookup_row_not_found');
  return found.row;
}

/** How a caller finds its table: from memory, or read (`fresh`); undefined when it cannot see it. */
export type TableFinder = (fresh: boolean) => Promise<TableFacts | undefined>;

/** Lookups that find their table changed this many times in a row read it as rows are listed (one more statement). */
const MAX_LOOKUP_ATTEMPTS = 3;

/**
 * The table `find` finds (read again when `fresh`) and the `by[column]` filters on its columns;
 * 'again' when the filters do not fit a remembered table's columns (read it again to be sure).
 */
async function tableAndFilters(
  find: TableFinder,
  query: Record<string, unknown>,
  fresh: boolean,
): Promise<{ table: TableFacts; filters: CellFilter[] } | undefined | 'again'> {
  const table = await find(fresh);
  if (!table) return undefined;
  try {
    return { table, filters: parseFilters(table.labels, query) };
  } catch (error) {
    if (fresh) throw error;
    return 'again';
  }
}

/**
 * The table `find` finds and the first row (lowest id) matching the `by[column]` filters, null when
 * none does; undefined when there is no such table. A remembered table costs no read: the row's
 * statement proves the table unchanged (findFirstRowOfRemembered), and when it has changed, or the
 * filters do not fit its remembered columns, the table is read again and the lookup repeated.
 */
export async function findFirstMatchingRowByRef(
  ctx: ServiceContext,
  find: TableFinder,
  query: Record<string, unknown>,
): Promise<{ table: TableFacts; row: LookupRowApi | null } | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    const found = await tableAndFilters(find, query, attempt > 0);
    if (found === 'again') continue;
    if (!found) return undefined;
    const { table, filters } = found;
    if (filters.length === 0)
      throw new AppError('lookup_needs_filter', {
        errors: { by: ['give at least one column value, e.g. by[code]=CZ'] },
      });
    if (attempt >= MAX_LOOKUP_ATTEMPTS) {
      const row = await findFirstRow(ctx.db, table.id, filters);
      return { table, row: row ? rowToApi(row, table.labels) : null };
    }
    const [only] = filters;
    const row =
      filters.length === 1 && only
        ? await ctx.lookupRows.find(ctx.db, table, only.column, only.value ?? '')
        : await findFirstRowOfRemembered(ctx.db, table, filters);
    if (row !== 'changed') return { table, row: row ? rowToApi(row, table.labels) : null };
    ctx.lookupTables.forget(table.id);
  }
}

/**
 * The rows of the table `find` finds matching the `by[column]` filters (listRows for the recipe
 * engine); undefined when there is no such table. As findFirstMatchingRowByRef, a remembered table
 * costs no read; an empty answer from one is confirmed by reading the table again.
 */
export async function listRowsByRef(
  ctx: ServiceContext,
  find: TableFinder,
  query: Record<string, unknown>,
  page: { offset: number; perPage: number },
): Promise<{ table: TableFacts; rows: LookupRowApi[] } | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    const fresh = attempt > 0;
    const found = await tableAndFilters(find, query, fresh);
    if (found === 'again') continue;
    if (!found) return undefined;
    const { table, filters } = found;
    const rows = fresh
      ? await findRows(ctx.db, table.id, filters, page)
      : await findRowsOfRemembered(ctx.db, table, filters, page);
    if (rows.length > 0 || fresh) return { table, rows: rows.map((row) => rowToApi(row, table.labels)) };
    ctx.lookupTables.forget(table.id);
  }
}

/** A table by id, from memory when remembered (the caller's scope checked on it), else read and remembered. */
export async function tableFactsById(
  ctx: ServiceContext,
  scope: TableScope,
  id: number,
  fresh = false,
): Promise<TableFacts | undefined> {
  const known = fresh ? undefined : ctx.lookupTables.byId(id);
  // A table the caller may not see is read again: what it remembers may be older than a move.
  if (known && visibleTo(known, scope)) return known;
  const generation = ctx.lookupTables.generation;
  return remembered(ctx, await findTable(ctx.db, scope, id), generation);
}

async function tableFactsByName(
  ctx: ServiceContext,
  scope: TableScope,
  name: string,
  fresh: boolean,
): Promise<TableFacts | undefined> {
  const key = name.trim().toLowerCase();
  const known = fresh ? undefined : ctx.lookupTables.byName(scope.environmentId, key);
  if (known && visibleTo(known, scope)) return known;
  const generation = ctx.lookupTables.generation;
  return remembered(ctx, await findTableByName(ctx.db, scope, name), generation);
}

function remembered(ctx: ServiceContext, table: VisibleTable | undefined, generation: number): TableFacts | undefined {
  if (!table) return undefined;
  const facts = factsOf(table);
  ctx.lookupTables.remember(facts, generation);
  return facts;
}

/**
 * A table by id or by name (names ignore case, as their uniqueness does). `preferName`: a name
 * made of digits is tried as a name before as an id. undefined when the caller cannot see it.
 * From memory when remembered (see findFirstMatchingRowByRef for how it is kept current); `fresh`
 * reads it.
 */
export async function findTableByRef(
  ctx: ServiceContext,
  scope: TableScope,
  ref: string | number,
  preferName: boolean,
  fresh = false,
): Promise<TableFacts | undefined> {
  const text = String(ref).trim();
  const asId = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : null;
  const byName = () => (text === '' ? Promise.resolve(undefined) : tableFactsByName(ctx, scope, text, fresh));
  if (asId !== null && !preferName) return (await tableFactsById(ctx, scope, asId, fresh)) ?? byName();
  const found = await byName();
  if (found || asId === null) return found;
  return tableFactsById(ctx, scope, asId, fresh);
}

/** Delete every row of a table (the engine's `truncate`); the row count is reset with them. */
export async function truncateRows(ctx: ServiceContext, scope: TableScope, tableId: number): Promise<void> {
  const table = await visibleTable(ctx, scope, tableId);
  const now = toStored(ctx.clock.now());
  await ctx.groupCommit.run(async (trx) => {
    if (!(await deleteAllRows(trx, table.id, now))) throw new AppError('not_found');
  });
}

export async function getRow(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  rowId: number,
): Promise<LookupRowApi> {
  const table = await visibleTable(ctx, scope, tableId);
  return rowToApi(assertFound(await findRow(ctx.db, table.id, rowId)), labelsOf(table));
}

export async function addRow(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  data: unknown,
): Promise<LookupRowApi> {
  const table = await tableForWrite(ctx, scope, tableId);
  const cells = await checkForWrite(ctx, scope, table, () => parseCells(table.labels, data));
  const now = toStored(ctx.clock.now());
  const maxRows = ctx.config.lookupTableMaxRows;
  // A refusal is returned, not thrown, from the shared transaction: the slot reservation that
  // refused changed nothing, and a throw would make the whole batch run again (group-commit.ts).
  const row = await ctx.groupCommit.run(async (trx) => {
    if (await reserveRowSlot(trx, table.id, maxRows, now))
      return insertRow(trx, table.id, table.labels.length, cells, now);
    const current = await findTableRowCount(trx, table.id);
    return !current || current.deleted_at !== null ? 'gone' : 'full';
  });
  if (row === 'gone') throw new AppError('not_found');
  if (row === 'full')
    throw new AppError('lookup_table_full', {
      params: { max: maxRows },
      errors: { data: [`the table already holds ${maxRows} rows`] },
    });
  return rowToApi(row, table.labels);
}

/** Partial: only the columns given change; null or '' empties a cell. */
export async function updateRow(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  rowId: number,
  data: unknown,
): Promise<LookupRowApi> {
  const table = await tableForWrite(ctx, scope, tableId);
  const cells = await checkForWrite(ctx, scope, table, () => {
    const parsed = parseCells(table.labels, data);
    if (Object.keys(parsed).length === 0)
      throw new AppError('nothing_to_update', { errors: { data: ['must name at least one column to change'] } });
    return parsed;
  });
  const now = toStored(ctx.clock.now());
  const row = await ctx.groupCommit.run(async (trx) => {
    // An unknown row changes nothing: answered without a throw (which would run the batch again).
    const updated = await updateRowCells(trx, table.id, rowId, cells, now);
    if (!updated) return undefined;
    if (!(await touchTable(trx, table.id, now))) throw new AppError('not_found');
    return updated;
  });
  return rowToApi(assertFound(row), table.labels);
}

export async function deleteRow(ctx: ServiceContext, scope: TableScope, tableId: number, rowId: number): Promise<void> {
  const table = await tableForWrite(ctx, scope, tableId);
  const now = toStored(ctx.clock.now());
  const deleted = await ctx.groupCommit.run(async (trx) => {
    if (!(await deleteRowRecord(trx, table.id, rowId))) return false;
    if (!(await touchTable(trx, table.id, now, -1))) throw new AppError('not_found');
    return true;
  });
  if (!deleted) throw new AppError('not_found');
}

async function visibleTable(ctx: ServiceContext, scope: TableScope, tableId: number): Promise<VisibleTable> {
  return assertFound(await findTable(ctx.db, scope, tableId));
}

/**
 * What a row write needs of its table (tenancy, project folder, columns), from memory when
 * remembered (lookup_tables.cache.ts, kept current through the notifier), which spares every write
 * a read. Row writes check in their own transaction that the table is still there
 * (reserveRowSlot, touchTable), so a table deleted since is refused there.
 */
interface WriteTable extends TableFacts {
  /** From memory: not read in this request. */
  remembered: boolean;
}

async function tableForWrite(ctx: ServiceContext, scope: TableScope, tableId: number): Promise<WriteTable> {
  const known = ctx.lookupTables.byId(tableId);
  if (known && visibleTo(known, scope)) return { ...known, remembered: true };
  return { ...assertFound(await tableFactsById(ctx, scope, tableId, true)), remembered: false };
}

/** A write's input check; bad input for a table deleted meanwhile is a 404 (not found comes first, as when the table is read). */
async function checkForWrite<T>(ctx: ServiceContext, scope: TableScope, table: WriteTable, check: () => T): Promise<T> {
  try {
    return check();
  } catch (error) {
    if (table.remembered) await visibleTable(ctx, scope, table.id);
    throw error;
  }
}
