// Data tables and their records. A record's values are one JSON object keyed by column UUID, and
// each value has an index entry (column, value text) kept with every write: an equality search
// reads the records of one value; other searches read a table's records in id order, a chunk at
// a time.
import { sql } from 'kysely';
import type { DataTableRecordRow, DataTableRow, Db } from '../../db/types.ts';
import type { Stored } from './columns.ts';

/** The text a value is indexed by (and looked up by). */
export function valueKey(value: Exclude<Stored, null>): string {
  return String(value).slice(0, 200);
}

async function indexValues(db: Db, tableId: number, recordPk: number, values: Record<string, Stored>): Promise<void> {
  const rows = Object.entries(values)
    .filter((entry): entry is [string, Exclude<Stored, null>] => entry[1] !== null && entry[1] !== undefined)
    .map(([fieldId, value]) => ({
      table_id: tableId,
      field_id: fieldId,
      value_key: valueKey(value),
      record_pk: recordPk,
    }));
  if (rows.length > 0) await db.insertInto('data_table_values').values(rows).execute();
}

/** Who is asking: tables are assets of the caller's environment, in a folder of a project or outside projects. */
export interface TableScope {
  workspaceId: number;
  environmentId: number;
  allFolders: boolean;
  folderIds: readonly number[];
}

export type VisibleTable = DataTableRow & { project_folder_id: number | null; project_id: number | null };

function visibleTables(db: Db, scope: TableScope) {
  let query = db
    .selectFrom('data_tables as t')
    .innerJoin('folders as f', 'f.id', 't.folder_id')
    .leftJoin('projects as p', 'p.id', 'f.project_id')
    .selectAll('t')
    .select(['p.folder_id as project_folder_id', 'f.project_id as project_id'])
    .where('t.workspace_id', '=', scope.workspaceId)
    .where('t.environment_id', '=', scope.environmentId);
  // A client limited to some projects sees only the tables in the folders of those projects.
  if (!scope.allFolders)
    query =
      scope.folderIds.length === 0
        ? query.where(sql<boolean>`1 = 0`)
        : query.where('p.folder_id', 'in', [...scope.folderIds]);
  return query;
}

export async function findTable(db: Db, scope: TableScope, id: number): Promise<VisibleTable | undefined> {
  return visibleTables(db, scope).where('t.id', '=', id).executeTakeFirst();
}

/** A table by name; names are unique per environment ignoring case. */
export async function findTableByName(db: Db, scope: TableScope, name: string): Promise<VisibleTable | undefined> {
  return visibleTables(db, scope).where('t.name_key', '=', name.trim().toLowerCase()).executeTakeFirst();
}

export async function listTables(
  db: Db,
  scope: TableScope,
  page: { offset: number; perPage: number },
): Promise<VisibleTable[]> {
  return visibleTables(db, scope).orderBy('t.id').limit(page.perPage).offset(page.offset).execute();
}

export async function insertTable(
  db: Db,
  values: {
    workspace_id: number;
    environment_id: number;
    folder_id: number;
    name: string;
    columns: string;
    now: string;
  },
): Promise<number> {
  const row = await db
    .insertInto('data_tables')
    .values({
      workspace_id: values.workspace_id,
      environment_id: values.environment_id,
      folder_id: values.folder_id,
      name: values.name,
      name_key: values.name.toLowerCase(),
      columns: values.columns,
      record_count: 0,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateTableDefinition(
  db: Db,
  id: number,
  values: { name?: string; columns?: string; now: string },
): Promise<void> {
  await db
    .updateTable('data_tables')
    .set({
      ...(values.name === undefined ? {} : { name: values.name, name_key: values.name.toLowerCase() }),
      ...(values.columns === undefined ? {} : { columns: values.columns }),
      updated_at: values.now,
    })
    .where('id', '=', id)
    .execute();
}

/** The table and its records (cascade). */
export async function deleteTable(db: Db, id: number): Promise<boolean> {
  await db.deleteFrom('data_table_values').where('table_id', '=', id).execute();
  const result = await db.deleteFrom('data_tables').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Take a record's place under the limit; false when the table is full (or gone). */
export async function reserveRecordSlots(
  db: Db,
  tableId: number,
  count: number,
  max: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('data_tables')
    .set({ record_count: sql<number>`record_count + ${count}`, updated_at: now })
    .where('id', '=', tableId)
    .where('record_count', '<=', max - count)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseRecordSlots(db: Db, tableId: number, count: number, now: string): Promise<void> {
  await db
    .updateTable('data_tables')
    .set({ record_count: sql<number>`record_count - ${count}`, updated_at: now })
    .where('id', '=', tableId)
    .execute();
}

export async function touchTable(db: Db, tableId: number, now: string): Promise<void> {
  await db.updateTable('data_tables').set({ updated_at: now }).where('id', '=', tableId).execute();
}

export async function insertRecord(
  db: Db,
  values: { table_id: number; record_id: string; values: Record<string, Stored>; now: string },
): Promise<DataTableRecordRow> {
  const row = await db
    .insertInto('data_table_records')
    .values({
      table_id: values.table_id,
      record_id: values.record_id,
      data: JSON.stringify(values.values),
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await indexValues(db, values.table_id, row.id, values.values);
  return row;
}

/**
 * Records of a table after a polling trigger's cursor, settled (written before `before`): new ones
 * by id, or changed ones by `updated_at` then id.
 */
export async function recordsAfter(
  db: Db,
  tableId: number,
  order: 'created' | 'updated',
  after: { at: string; id: number },
  before: string,
  limit: number,
): Promise<DataTableRecordRow[]> {
  let query = db.selectFrom('data_table_records').selectAll().where('table_id', '=', tableId);
  if (order === 'created')
    return query.where('id', '>', after.id).where('created_at', '<', before).orderBy('id').limit(limit).execute();
  query = query
    .where('updated_at', '<', before)
    .where((eb) =>
      eb.or([eb('updated_at', '>', after.at), eb.and([eb('updated_at', '=', after.at), eb('id', '>', after.id)])]),
    );
  return query.orderBy('updated_at').orderBy('id').limit(limit).execute();
}

/** The highest id of a table's records created before a time (0 when none): where a polling cursor starts. */
export async function maxRecordIdBefore(db: Db, tableId: number, before: string): Promise<number> {
  const row = await db
    .selectFrom('data_table_records')
    .select((eb) => eb.fn.max('id').as('max'))
    .where('table_id', '=', tableId)
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

export async function findRecord(db: Db, tableId: number, recordId: string): Promise<DataTableRecordRow | undefined> {
  return db
    .selectFrom('data_table_records')
    .selectAll()
    .where('record_id', '=', recordId)
    .where('table_id', '=', tableId)
    .executeTakeFirst();
}

export async function updateRecordData(
  db: Db,
  id: number,
  values: Record<string, Stored>,
  now: string,
): Promise<DataTableRecordRow | undefined> {
  const row = await db
    .updateTable('data_table_records')
    .set({ data: JSON.stringify(values), updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) return undefined;
  await db.deleteFrom('data_table_values').where('record_pk', '=', id).execute();
  await indexValues(db, row.table_id, id, values);
  return row;
}

export async function deleteRecordRow(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('data_table_records').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every record of a table; the count starts again from zero. */
export async function deleteAllRecords(db: Db, tableId: number, now: string): Promise<number> {
  await db.deleteFrom('data_table_values').where('table_id', '=', tableId).execute();
  const result = await db.deleteFrom('data_table_records').where('table_id', '=', tableId).executeTakeFirst();
  await db.updateTable('data_tables').set({ record_count: 0, updated_at: now }).where('id', '=', tableId).execute();
  return Number(result.numDeletedRows);
}

/** The records with a value of a column, after an internal id, in id order (an equality search). */
export async function findRecordsWithValue(
  db: Db,
  tableId: number,
  fieldId: string,
  key: string,
  afterId: number,
  limit: number,
): Promise<DataTableRecordRow[]> {
  return db
    .selectFrom('data_table_values as v')
    .innerJoin('data_table_records as r', 'r.id', 'v.record_pk')
    .selectAll('r')
    .where('v.table_id', '=', tableId)
    .where('v.field_id', '=', fieldId)
    .where('v.value_key', '=', key)
    .where('v.record_pk', '>', afterId)
    .orderBy('v.record_pk')
    .limit(limit)
    .execute();
}

/** Records after an internal id, in id order (a search reads a table this way, a chunk at a time). */
export async function findRecordsAfter(
  db: Db,
  tableId: number,
  afterId: number,
  limit: number,
): Promise<DataTableRecordRow[]> {
  return db
    .selectFrom('data_table_records')
    .selectAll()
    .where('table_id', '=', tableId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}
