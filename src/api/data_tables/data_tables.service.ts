// Data tables (the vendor's `workato_db_table`): tables of typed columns in a folder of the
// caller's environment, and their records. The management API and the recipe engine's connector
// both call these functions; record writes tell the engine's real-time triggers (RecordListener)
// inside their transaction, so a write and the jobs it starts commit together.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { DataTableRecordRow, Db } from '../../db/types.ts';
import { AppError, assertFound, invalid, uniqueOr422, type FieldErrors } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import { findFolder, findHomeFolder } from '../folders/folders.store.ts';
import {
  CREATED_AT_FIELD,
  FILTER_OPERATORS,
  RECORD_ID_FIELD,
  SYSTEM_FIELDS,
  UPDATED_AT_FIELD,
  coerce,
  columnByKey,
  compareStored,
  fieldIdOf,
  matches,
  parseColumns,
  type Column,
  type Filter,
  type FilterOperator,
  type Stored,
} from './columns.ts';
import {
  deleteAllRecords,
  deleteRecordRow,
  deleteTable as deleteTableRecord,
  findRecord,
  findRecordsAfter,
  findRecordsWithValue,
  findTable,
  findTableByName,
  insertRecord,
  insertTable,
  listTables as listTableRecords,
  releaseRecordSlots,
  reserveRecordSlots,
  touchTable,
  updateRecordData,
  updateTableDefinition,
  valueKey,
  type TableScope,
  type VisibleTable,
} from './data_tables.store.ts';
import { checkName, checkSchema, parseValues, compact, requireColumns } from './data_tables.input.ts';

export type { TableScope, VisibleTable };

export interface DataTableApi {
  id: number;
  name: string;
  folder_id: number;
  project_id: string | null;
  schema: Column[];
  record_count: number;
  created_at: string;
  updated_at: string;
}

/** A record as the database holds it, values keyed by column UUID. */
export interface StoredRecord {
  id: number;
  record_id: string;
  created_at: string;
  updated_at: string;
  values: Record<string, Stored>;
}

export interface DataRecordApi {
  record_id: string;
  created_at: string;
  updated_at: string;
  data: Record<string, Stored>;
}

/** A record written: the new state and, for an update, the state before. */
export interface RecordChange {
  record: StoredRecord;
  old: StoredRecord | null;
}

/**
 * Told of every record created or updated, inside the write's transaction (the engine stores the
 * jobs of real-time triggers there). Returns what to do once the transaction has committed.
 */
export interface RecordListener {
  changed(trx: Db, table: VisibleTable, changes: readonly RecordChange[]): Promise<(() => void) | null>;
}

export interface CreateTableInput {
  name?: unknown;
  folder_id?: number | null;
  schema?: unknown;
}

export interface UpdateTableInput {
  name?: unknown;
  schema?: unknown;
}

/** Records a search returns at most in one call. */
export const MAX_SEARCH_LIMIT = 1000;
/** Records read per statement while searching. */
const SCAN_CHUNK = 1000;

export function columnsOf(table: Pick<VisibleTable, 'columns'>): Column[] {
  return parseColumns(table.columns);
}

export function tableToApi(table: VisibleTable): DataTableApi {
  return {
    id: table.id,
    name: table.name,
    folder_id: table.folder_id,
    project_id: table.project_id === null ? null : String(table.project_id),
    schema: columnsOf(table),
    record_count: table.record_count,
    created_at: toApiTimestamp(table.created_at),
    updated_at: toApiTimestamp(table.updated_at),
  };
}

export function storedRecord(row: DataTableRecordRow): StoredRecord {
  const parsed: unknown = JSON.parse(row.data);
  const values = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, Stored>;
  return { id: row.id, record_id: row.record_id, created_at: row.created_at, updated_at: row.updated_at, values };
}

/** A record for the API: values by column name, every column present (null when empty). */
export function recordToApi(record: StoredRecord, columns: readonly Column[]): DataRecordApi {
  const data: Record<string, Stored> = {};
  for (const column of columns) data[column.name] = record.values[column.field_id] ?? null;
  return {
    record_id: record.record_id,
    created_at: toApiTimestamp(record.created_at),
    updated_at: toApiTimestamp(record.updated_at),
    data,
  };
}

/** A value of a system field of a record. */
export function systemValue(record: StoredRecord, fieldId: string): Stored | undefined {
  if (fieldId === RECORD_ID_FIELD) return record.record_id;
  if (fieldId === CREATED_AT_FIELD) return toApiTimestamp(record.created_at);
  if (fieldId === UPDATED_AT_FIELD) return toApiTimestamp(record.updated_at);
  return undefined;
}

// ---- tables ----

export async function listTables(
  ctx: ServiceContext,
  scope: TableScope,
  page: { offset: number; perPage: number },
): Promise<DataTableApi[]> {
  return (await listTableRecords(ctx.db, scope, page)).map(tableToApi);
}

export async function getTable(ctx: ServiceContext, scope: TableScope, id: number): Promise<DataTableApi> {
  return tableToApi(await visibleTable(ctx.db, scope, id));
}

async function visibleTable(db: Db, scope: TableScope, id: number): Promise<VisibleTable> {
  return assertFound(await findTable(db, scope, id));
}

/**
 * A table by id or by name (names ignore case). `preferName`: a name made of digits is tried as a
 * name before as an id. undefined when the caller cannot see it.
 */
export async function findTableByRef(
  ctx: Pick<ServiceContext, 'db'>,
  scope: TableScope,
  ref: string | number,
  preferName = false,
): Promise<VisibleTable | undefined> {
  const text = String(ref).trim();
  const asId = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : null;
  if (asId !== null && !preferName)
    return (await findTable(ctx.db, scope, asId)) ?? findTableByName(ctx.db, scope, text);
  const byName = text === '' ? undefined : await findTableByName(ctx.db, scope, text);
  if (byName || asId === null) return byName;
  return findTable(ctx.db, scope, asId);
}

export async function createTable(
  ctx: ServiceContext,
  scope: TableScope,
  input: CreateTableInput,
): Promise<DataTableApi> {
  const errors: FieldErrors = {};
  const name = checkName(input.name, errors);
  const columns = checkSchema(input.schema, errors, null);
  if (Object.keys(errors).length > 0 || !name || !columns) throw invalid(errors);
  const folderId = await folderFor(ctx, scope, input.folder_id ?? null);
  const now = toStored(ctx.clock.now());
  const id = await uniqueOr422(() =>
    insertTable(ctx.db, {
      workspace_id: scope.workspaceId,
      environment_id: scope.environmentId,
      folder_id: folderId,
      name,
      columns: JSON.stringify(columns),
      now,
    }),
  );
  return getTable(ctx, scope, id);
}

/** The folder a new table goes in: one the caller can see, or Home for a client of all projects. */
async function folderFor(ctx: ServiceContext, scope: TableScope, folderId: number | null): Promise<number> {
  if (folderId === null) {
    if (!scope.allFolders) throw new AppError('data_table_needs_folder_in_scope');
    const home = await findHomeFolder(ctx.db, scope.environmentId);
    return assertFound(home).id;
  }
  const folder = await findFolder(ctx.db, scope.environmentId, folderId);
  const visible =
    folder &&
    (scope.allFolders || (folder.project_folder_id !== null && scope.folderIds.includes(folder.project_folder_id)));
  if (!folder || !visible)
    throw new AppError('folder_not_found', {
      errors: { folder_id: ['is not a folder of this environment that you can see'] },
    });
  return folder.id;
}

export async function updateTable(
  ctx: ServiceContext,
  scope: TableScope,
  id: number,
  input: UpdateTableInput,
): Promise<DataTableApi> {
  const table = await visibleTable(ctx.db, scope, id);
  if (input.name === undefined && input.schema === undefined) throw new AppError('nothing_to_update');
  const errors: FieldErrors = {};
  const name = input.name === undefined ? undefined : checkName(input.name, errors);
  const columns = input.schema === undefined ? undefined : checkSchema(input.schema, errors, columnsOf(table));
  if (Object.keys(errors).length > 0) throw invalid(errors);
  await uniqueOr422(() =>
    updateTableDefinition(ctx.db, table.id, {
      ...(name === undefined ? {} : { name }),
      ...(columns === undefined ? {} : { columns: JSON.stringify(columns) }),
      now: toStored(ctx.clock.now()),
    }),
  );
  return getTable(ctx, scope, id);
}

export async function deleteTable(ctx: ServiceContext, scope: TableScope, id: number): Promise<void> {
  const table = await visibleTable(ctx.db, scope, id);
  await deleteTableRecord(ctx.db, table.id);
}

export async function truncateTable(ctx: ServiceContext, scope: TableScope, id: number): Promise<number> {
  const table = await visibleTable(ctx.db, scope, id);
  return ctx.groupCommit.run((trx) => deleteAllRecords(trx, table.id, toStored(ctx.clock.now())));
}

async function notify(
  listener: RecordListener | null,
  trx: Db,
  table: VisibleTable,
  changes: RecordChange[],
): Promise<(() => void) | null> {
  return listener && changes.length > 0 ? listener.changed(trx, table, changes) : null;
}

export async function getRecord(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  recordId: string,
): Promise<DataRecordApi> {
  const table = await visibleTable(ctx.db, scope, tableId);
  const row = assertFound(await findRecord(ctx.db, table.id, recordId));
  return recordToApi(storedRecord(row), columnsOf(table));
}

export interface AddOptions {
  listener?: RecordListener | null;
  field?: string;
}

/** Add records (one transaction; all or none): values checked, defaults applied, the record limit kept. */
export async function addRecords(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  list: readonly unknown[],
  options: AddOptions = {},
): Promise<{ table: VisibleTable; records: StoredRecord[] }> {
  const table = await visibleTable(ctx.db, scope, tableId);
  const columns = columnsOf(table);
  const field = options.field ?? 'data';
  const prepared = list.map((data, i) => {
    const values = parseValues(columns, data, list.length > 1 ? `${field}[${i}]` : field);
    for (const column of columns)
      if (!(column.field_id in values) && column.default_value !== null) values[column.field_id] = column.default_value;
    requireColumns(columns, values, list.length > 1 ? `${field}[${i}]` : field);
    return compact(columns, values);
  });
  const max = ctx.config.dataTableMaxRecords;
  const { records, after } = await ctx.groupCommit.run(async (trx) => {
    const now = toStored(ctx.clock.now());
    if (!(await reserveRecordSlots(trx, table.id, prepared.length, max, now))) {
      if (!(await findTable(trx, scope, table.id))) throw new AppError('not_found');
      throw new AppError('data_table_full', { params: { max } });
    }
    const out: StoredRecord[] = [];
    for (const values of prepared)
      out.push(storedRecord(await insertRecord(trx, { table_id: table.id, record_id: randomUUID(), values, now })));
    const after = await notify(
      options.listener ?? null,
      trx,
      table,
      out.map((record) => ({ record, old: null })),
    );
    return { records: out, after };
  });
  after?.();
  return { table, records };
}

export async function addRecord(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  data: unknown,
  listener: RecordListener | null = null,
): Promise<DataRecordApi> {
  const { table, records } = await addRecords(ctx, scope, tableId, [data], { listener });
  return recordToApi(records[0] as StoredRecord, columnsOf(table));
}

/**
 * Change some values of a record (the others stay). `remove`: column UUIDs whose values are
 * removed. Answers the record after and before.
 */
export async function changeRecord(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  recordId: string,
  change: { data?: unknown; remove?: readonly string[] },
  listener: RecordListener | null = null,
): Promise<{ table: VisibleTable; change: RecordChange }> {
  const table = await visibleTable(ctx.db, scope, tableId);
  const columns = columnsOf(table);
  const values = change.data === undefined ? {} : parseValues(columns, change.data, 'data');
  for (const fieldId of change.remove ?? []) values[fieldId] = null;
  if (change.data !== undefined && Object.keys(values).length === 0 && (change.remove ?? []).length === 0)
    throw new AppError('nothing_to_update');
  const { result, after } = await ctx.groupCommit.run(async (trx) => {
    const row = await findRecord(trx, table.id, recordId);
    if (!row) throw new AppError('not_found');
    const old = storedRecord(row);
    const merged = { ...old.values, ...values };
    requireColumns(columns, merged, 'data');
    const now = toStored(ctx.clock.now());
    const updated = assertFound(await updateRecordData(trx, row.id, compact(columns, merged), now));
    await touchTable(trx, table.id, now);
    const result: RecordChange = { record: storedRecord(updated), old };
    return { result, after: await notify(listener, trx, table, [result]) };
  });
  after?.();
  return { table, change: result };
}

export async function updateRecord(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  recordId: string,
  data: unknown,
  listener: RecordListener | null = null,
): Promise<DataRecordApi> {
  const { table, change } = await changeRecord(ctx, scope, tableId, recordId, { data }, listener);
  return recordToApi(change.record, columnsOf(table));
}

export async function deleteRecord(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  recordId: string,
): Promise<void> {
  const table = await visibleTable(ctx.db, scope, tableId);
  await ctx.groupCommit.run(async (trx) => {
    const row = await findRecord(trx, table.id, recordId);
    if (!row || !(await deleteRecordRow(trx, row.id))) throw new AppError('not_found');
    await releaseRecordSlots(trx, table.id, 1, toStored(ctx.clock.now()));
  });
}

/**
 * Update the first record whose `primary` column equals the given value, or add one. Answers
 * the record and whether it was created. The search and the write share one transaction, so two
 * upserts of the same value never both add.
 */
export async function upsertRecord(
  ctx: ServiceContext,
  scope: TableScope,
  tableId: number,
  primaryKey: string,
  data: unknown,
  listener: RecordListener | null = null,
): Promise<{ table: VisibleTable; record: StoredRecord; created: boolean }> {
  const table = await visibleTable(ctx.db, scope, tableId);
  const columns = columnsOf(table);
  const primary = columnByKey(columns, primaryKey);
  if (!primary) throw invalid({ primary_field_id: [`is not a column of this table (${primaryKey.slice(0, 100)})`] });
  const values = parseValues(columns, data, 'data');
  const key = values[primary.field_id];
  if (key === undefined || key === null)
    throw invalid({ [`data.${primary.name}`]: ['is required: the value that finds the record to update'] });
  const withDefaults = { ...values };
  for (const column of columns)
    if (!(column.field_id in withDefaults) && column.default_value !== null)
      withDefaults[column.field_id] = column.default_value;
  const max = ctx.config.dataTableMaxRecords;
  const { result, after } = await ctx.groupCommit.run(async (trx) => {
    const now = toStored(ctx.clock.now());
    let existing: StoredRecord | undefined;
    for (let afterId = 0; !existing;) {
      const rows = await findRecordsWithValue(trx, table.id, primary.field_id, valueKey(key), afterId, SCAN_CHUNK);
      existing = rows.map(storedRecord).find((r) => {
        const v = r.values[primary.field_id];
        return v !== undefined && v !== null && compareStored(v, key) === 0;
      });
      if (rows.length < SCAN_CHUNK) break;
      afterId = (rows[rows.length - 1] as DataTableRecordRow).id;
    }
    let change: RecordChange;
    if (existing) {
      const merged = { ...existing.values, ...values };
      requireColumns(columns, merged, 'data');
      const updated = assertFound(await updateRecordData(trx, existing.id, compact(columns, merged), now));
      await touchTable(trx, table.id, now);
      change = { record: storedRecord(updated), old: existing };
    } else {
      requireColumns(columns, withDefaults, 'data');
      if (!(await reserveRecordSlots(trx, table.id, 1, max, now))) {
        if (!(await findTable(trx, scope, table.id))) throw new AppError('not_found');
        throw new AppError('data_table_full', { params: { max } });
      }
      change = {
        record: storedRecord(
          await insertRecord(trx, {
            table_id: table.id,
            record_id: randomUUID(),
            values: compact(columns, withDefaults),
            now,
          }),
        ),
        old: null,
      };
    }
    return { result: change, after: await notify(listener, trx, table, [change]) };
  });
  after?.();
  return { table, record: result.record, created: result.old === null };
}

// ---- search ----

export interface SearchQuery {
  filters: readonly Filter[];
  limit: number;
  offset?: number;
  orderBy?: { fieldId: string; direction: 'asc' | 'desc' };
}

function valueOf(record: StoredRecord, fieldId: string): Stored {
  return systemValue(record, fieldId) ?? record.values[fieldId] ?? null;
}

/**
 * Records matching every filter, in id order (or the given order), from `offset`, at most `limit`.
 * Reads the table a chunk at a time; without an order it stops as soon as it has enough.
 * `next`: the offset of the following page, null when there is none.
 */
export async function searchRecords(
  ctx: Pick<ServiceContext, 'db'>,
  scope: TableScope,
  tableId: number,
  query: SearchQuery,
): Promise<{ table: VisibleTable; records: StoredRecord[]; next: number | null }> {
  const table = await visibleTable(ctx.db, scope, tableId);
  const offset = query.offset ?? 0;
  const wanted = offset + query.limit + 1;
  const found: StoredRecord[] = [];
  // An equality on a value leads: only the records holding it are read.
  const lead = query.filters.find(
    (f) => f.op === 'eq' && f.type !== 'id' && f.values[0] !== null && f.values[0] !== undefined,
  );
  const read = lead
    ? (after: number) =>
        findRecordsWithValue(
          ctx.db,
          table.id,
          lead.fieldId,
          valueKey(lead.values[0] as Exclude<Stored, null>),
          after,
          SCAN_CHUNK,
        )
    : (after: number) => findRecordsAfter(ctx.db, table.id, after, SCAN_CHUNK);
  let after = 0;
  for (;;) {
    const rows = await read(after);
    for (const row of rows) {
      const record = storedRecord(row);
      if (query.filters.every((f) => matches(f, valueOf(record, f.fieldId)))) found.push(record);
    }
    if (rows.length < SCAN_CHUNK || (!query.orderBy && found.length >= wanted)) break;
    after = (rows[rows.length - 1] as DataTableRecordRow).id;
  }
  if (query.orderBy) {
    const { fieldId, direction } = query.orderBy;
    const sign = direction === 'desc' ? -1 : 1;
    found.sort((a, b) => {
      const x = valueOf(a, fieldId);
      const y = valueOf(b, fieldId);
      if (x === null || y === null) return x === y ? a.id - b.id : x === null ? 1 : -1;
      return sign * compareStored(x, y) || a.id - b.id;
    });
  }
  const records = found.slice(offset, offset + query.limit);
  return { table, records, next: found.length > offset + query.limit ? offset + query.limit : null };
}

/** A filter on a column (or a system field) named by UUID or name, its value(s) coerced to the column's type. */
export function filterFor(
  columns: readonly Column[],
  key: string,
  op: string,
  raw: unknown,
): Filter | { problem: string } {
  if (!(FILTER_OPERATORS as readonly string[]).includes(op))
    return { problem: `operator ${JSON.stringify(op)} is not one of ${FILTER_OPERATORS.join(', ')}` };
  const system = SYSTEM_FIELDS.find(
    (f) => f.field_id === fieldIdOf(key) || f.name.toLowerCase() === key.trim().toLowerCase(),
  );
  const column = system ? undefined : columnByKey(columns, key);
  if (!system && !column) return { problem: `${key.slice(0, 100)} is not a column of this table` };
  const type = column ? column.type : system?.field_id === RECORD_ID_FIELD ? ('id' as const) : ('date_time' as const);
  const fieldId = column ? column.field_id : (system?.field_id as string);
  const operator = op as FilterOperator;
  if (['isnull', 'isnotnull', 'istrue', 'isfalse'].includes(operator)) {
    if ((operator === 'istrue' || operator === 'isfalse') && type !== 'boolean')
      return { problem: `${operator} applies to a boolean column; ${column?.name ?? key} is ${type}` };
    return { fieldId, type, op: operator, values: [] };
  }
  const list =
    operator === 'in'
      ? Array.isArray(raw)
        ? raw
        : String(raw ?? '')
            .split(',')
            .map((v) => v.trim())
      : [raw];
  const values: Stored[] = [];
  for (const item of list) {
    if (type === 'id') {
      values.push(item === null || item === undefined || item === '' ? null : String(item));
      continue;
    }
    const coerced = coerce(type, item);
    if ('problem' in coerced) return { problem: `${column?.name ?? key} ${coerced.problem}` };
    values.push(coerced.value);
  }
  return { fieldId, type, op: operator, values };
}
