// Event topics: rows and the one mapper to the API shape. A deleted topic keeps its row (with
// deleted_at set and its name freed) until the retention sweep has removed its messages; every
// reader here sees only live topics.
import { sql } from 'kysely';
import type { Db, EventTopicRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import { inByteOrder } from '../../db/dialect.ts';

export interface TopicApi {
  id: number;
  name: string;
  description: string | null;
  retention: number;
  folder_id: number;
  schema?: unknown[] | null;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
}

export type TopicSort = 'id' | 'name' | 'activity';

export function topicToApi(row: EventTopicRow, includeSchema: boolean): TopicApi {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    retention: row.retention_seconds,
    folder_id: row.folder_id,
    ...(includeSchema ? { schema: row.schema === null ? null : (JSON.parse(row.schema) as unknown[]) } : {}),
    last_message_at: toApiTimestamp(row.last_message_at),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

export async function insertTopic(
  db: Db,
  values: Pick<
    EventTopicRow,
    | 'workspace_id'
    | 'environment_id'
    | 'folder_id'
    | 'name'
    | 'name_key'
    | 'description'
    | 'schema'
    | 'retention_seconds'
    | 'created_at'
    | 'updated_at'
  >,
): Promise<EventTopicRow> {
  return db
    .insertInto('event_topics')
    .values({ ...values, last_message_at: null, deleted_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A live topic of the environment. */
export async function findTopic(db: Db, environmentId: number, id: number): Promise<EventTopicRow | undefined> {
  return db
    .selectFrom('event_topics')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A live topic, whatever its environment (the run-time API checks the caller's environment itself). */
export async function findTopicById(db: Db, id: number): Promise<EventTopicRow | undefined> {
  return db
    .selectFrom('event_topics')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The id of a topic of the environment that is not deleted, named by id or by name key. */
export async function findLiveTopicId(
  db: Db,
  environmentId: number,
  by: { id: number } | { nameKey: string },
): Promise<number | undefined> {
  let query = db
    .selectFrom('event_topics')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null);
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('name_key', '=', by.nameKey);
  return (await query.executeTakeFirst())?.id;
}

/** Which of these ids are live topics of the environment. */
export async function findTopicIds(
  db: Db,
  environmentId: number,
  ids: readonly number[],
): Promise<Array<Pick<EventTopicRow, 'id' | 'folder_id'>>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('event_topics')
    .select(['id', 'folder_id'])
    .where('environment_id', '=', environmentId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function listTopics(
  db: Db,
  environmentId: number,
  filter: { name?: string; folderIds?: readonly number[] },
  sort: TopicSort,
  page: { offset: number; perPage: number },
): Promise<EventTopicRow[]> {
  let query = db
    .selectFrom('event_topics')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('deleted_at', 'is', null);
  if (filter.folderIds !== undefined) {
    if (filter.folderIds.length === 0) return [];
    query = query.where('folder_id', 'in', filter.folderIds);
  }
  if (sort === 'name') query = query.orderBy(inByteOrder(db, 'name')).orderBy('id');
  // Most recent activity first (a topic without messages counts from its creation).
  else if (sort === 'activity')
    query = query.orderBy(sql`coalesce(last_message_at, created_at)`, 'desc').orderBy('id', 'desc');
  else query = query.orderBy('id');
  const needle = filter.name;
  if (needle === undefined || needle === '') return query.limit(page.perPage).offset(page.offset).execute();
  // The match is case-sensitive (13 §7). LIKE narrows the rows on every database (on SQLite it
  // ignores ASCII case, on PostgreSQL it does not); the exact check and the paging follow here.
  const rows = await query.where(sql<boolean>`name like ${`%${escapeLike(needle)}%`} escape '\\'`).execute();
  return rows.filter((row) => row.name.includes(needle)).slice(page.offset, page.offset + page.perPage);
}

export async function updateTopicRow(
  db: Db,
  id: number,
  values: Partial<
    Pick<
      EventTopicRow,
      'name' | 'name_key' | 'description' | 'schema' | 'retention_seconds' | 'folder_id' | 'updated_at'
    >
  >,
): Promise<void> {
  await db.updateTable('event_topics').set(values).where('id', '=', id).execute();
}

/** Every message published so far is gone for consumers; the sweep deletes the rows. */
export async function purgeTopicRow(db: Db, id: number, now: string): Promise<void> {
  await db
    .updateTable('event_topics')
    .set({ purged_seq: sql`last_seq`, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function markTopicDeleted(db: Db, id: number, now: string): Promise<void> {
  await db
    .updateTable('event_topics')
    .set({ deleted_at: now, name_key: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
