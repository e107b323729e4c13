// Smart lists (workato_smart_list): the lists of an environment and their rows. No HTTP routes:
// recipes reach them through the connector (src/engine/connectors/workato_smart_list.ts).
import type { Db, SmartListRow } from '../../db/types.ts';

export async function findSmartList(db: Db, environmentId: number, name: string): Promise<SmartListRow | undefined> {
  return db
    .selectFrom('smart_lists')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** The lists of an environment among these names. */
export async function findSmartLists(db: Db, environmentId: number, names: string[]): Promise<SmartListRow[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('smart_lists')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name', 'in', names)
    .execute();
}

export async function insertSmartList(db: Db, values: Omit<SmartListRow, 'id'>): Promise<number> {
  const row = await db.insertInto('smart_lists').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteSmartList(db: Db, id: number): Promise<void> {
  await db.deleteFrom('smart_list_rows').where('list_id', '=', id).execute();
  await db.deleteFrom('smart_lists').where('id', '=', id).execute();
}

export async function updateSmartList(
  db: Db,
  id: number,
  values: Pick<SmartListRow, 'columns' | 'row_count' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('smart_lists').set(values).where('id', '=', id).execute();
}

/** Append rows numbered from `firstSeq`, in batches. */
export async function insertSmartListRows(db: Db, listId: number, firstSeq: number, rows: string[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('smart_list_rows')
      .values(rows.slice(i, i + 500).map((data, j) => ({ list_id: listId, seq: firstSeq + i + j, data })))
      .execute();
  }
}

export async function smartListRows(db: Db, listId: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('smart_list_rows')
    .select('data')
    .where('list_id', '=', listId)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => r.data);
}
