// Tags and their attachments to recipes and connections: rows, the questions the service and the
// recipe, connection and package areas ask, and the one mapper to the API shape.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, TagRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export type TaggedKind = 'recipe' | 'connection';

const HANDLE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `tag-` + 8 + `-` + 6 characters, as the vendor's handles look (`tag-Kq4Ax2Lm-9TzWcB`). */
export function newTagHandle(): string {
  const chars = [...randomBytes(14)].map((b) => HANDLE_ALPHABET[b % HANDLE_ALPHABET.length]).join('');
  return `tag-${chars.slice(0, 8)}-${chars.slice(8)}`;
}

/** The title as it is compared: trimmed, lower-cased. */
export function titleKey(title: string): string {
  return title.trim().toLowerCase();
}

export interface TagApi {
  handle: string;
  title: string;
  description: string | null;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export function tagToApi(row: TagRow): TagApi {
  return {
    handle: row.handle,
    title: row.title,
    description: row.description,
    color: row.color,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertTag(db: Db, tag: Omit<TagRow, 'id' | 'title_key'>): Promise<TagRow> {
  const id = await db
    .insertInto('tags')
    .values({ ...tag, title_key: titleKey(tag.title) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { ...tag, id: id.id, title_key: titleKey(tag.title) };
}

export async function findTagByHandle(db: Db, environmentId: number, handle: string): Promise<TagRow | undefined> {
  return db
    .selectFrom('tags')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('handle', '=', handle)
    .executeTakeFirst();
}

export async function findTagsByHandles(db: Db, environmentId: number, handles: readonly string[]): Promise<TagRow[]> {
  if (handles.length === 0) return [];
  return db
    .selectFrom('tags')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('handle', 'in', handles)
    .execute();
}

export async function findTagByTitle(db: Db, environmentId: number, title: string): Promise<TagRow | undefined> {
  return db
    .selectFrom('tags')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('title_key', '=', titleKey(title))
    .executeTakeFirst();
}

/** An environment's tags by title; `q` keeps those whose title holds it (any case). */
export async function listTags(
  db: Db,
  environmentId: number,
  q: string | undefined,
  page: { offset: number; perPage: number },
): Promise<TagRow[]> {
  let query = db.selectFrom('tags').selectAll().where('environment_id', '=', environmentId);
  if (q !== undefined && q.trim() !== '') {
    const pattern = `%${titleKey(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`title_key like ${pattern} escape '\\'`);
  }
  return query.orderBy('title_key').orderBy('id').limit(page.perPage).offset(page.offset).execute();
}

export async function updateTag(
  db: Db,
  id: number,
  fields: Partial<Pick<TagRow, 'title' | 'description' | 'color'>> & { updated_at: string },
): Promise<void> {
  await db
    .updateTable('tags')
    .set({ ...fields, ...(fields.title !== undefined ? { title_key: titleKey(fields.title) } : {}) })
    .where('id', '=', id)
    .execute();
}

export async function deleteTag(db: Db, id: number): Promise<void> {
  await db.deleteFrom('tags').where('id', '=', id).execute();
}

/** How many assets carry the tag, by kind. */
export async function countTagAttachments(db: Db, tagId: number): Promise<{ recipes: number; connections: number }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('recipe_tags').select(eb.fn.countAll<number>().as('n')).where('tag_id', '=', tagId).as('recipes'),
      eb
        .selectFrom('connection_tags')
        .select(eb.fn.countAll<number>().as('n'))
        .where('tag_id', '=', tagId)
        .as('connections'),
    ])
    .executeTakeFirstOrThrow();
  return { recipes: Number(row.recipes ?? 0), connections: Number(row.connections ?? 0) };
}

/** Of these recipes, those of the environment, with their folders (for the caller's project scope). */
export async function recipeFoldersOf(
  db: Db,
  environmentId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; folder_id: number }>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('recipes')
    .select(['id', 'folder_id'])
    .where('environment_id', '=', environmentId)
    .where('id', 'in', ids)
    .execute();
}

/** Of these connections, those of the environment, with their folders. */
export async function connectionFoldersOf(
  db: Db,
  environmentId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; folder_id: number }>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('connections')
    .select(['id', 'folder_id'])
    .where('environment_id', '=', environmentId)
    .where('id', 'in', ids)
    .execute();
}

/** Attach every tag to every asset; attachments that exist stay as they are. Returns how many were new. */
export async function attachTags(
  db: Db,
  kind: TaggedKind,
  tagIds: readonly number[],
  assetIds: readonly number[],
  now: string,
): Promise<number> {
  if (tagIds.length === 0 || assetIds.length === 0) return 0;
  const existing = new Set((await attachmentsOf(db, kind, assetIds)).map((a) => `${a.assetId}:${a.tagId}`));
  const fresh = assetIds.flatMap((assetId) =>
    tagIds.filter((tagId) => !existing.has(`${assetId}:${tagId}`)).map((tagId) => ({ assetId, tagId })),
  );
  if (fresh.length === 0) return 0;
  if (kind === 'recipe')
    await db
      .insertInto('recipe_tags')
      .values(fresh.map((f) => ({ tag_id: f.tagId, recipe_id: f.assetId, created_at: now })))
      .execute();
  else
    await db
      .insertInto('connection_tags')
      .values(fresh.map((f) => ({ tag_id: f.tagId, connection_id: f.assetId, created_at: now })))
      .execute();
  return fresh.length;
}

/** Detach every tag from every asset. Returns how many attachments went. */
export async function detachTags(
  db: Db,
  kind: TaggedKind,
  tagIds: readonly number[],
  assetIds: readonly number[],
): Promise<number> {
  if (tagIds.length === 0 || assetIds.length === 0) return 0;
  const result =
    kind === 'recipe'
      ? await db
          .deleteFrom('recipe_tags')
          .where('tag_id', 'in', tagIds)
          .where('recipe_id', 'in', assetIds)
          .executeTakeFirst()
      : await db
          .deleteFrom('connection_tags')
          .where('tag_id', 'in', tagIds)
          .where('connection_id', 'in', assetIds)
          .executeTakeFirst();
  return Number(result.numDeletedRows);
}

async function attachmentsOf(
  db: Db,
  kind: TaggedKind,
  assetIds: readonly number[],
): Promise<Array<{ assetId: number; tagId: number }>> {
  if (assetIds.length === 0) return [];
  const rows =
    kind === 'recipe'
      ? await db
          .selectFrom('recipe_tags')
          .select(['recipe_id as assetId', 'tag_id as tagId'])
          .where('recipe_id', 'in', assetIds)
          .execute()
      : await db
          .selectFrom('connection_tags')
          .select(['connection_id as assetId', 'tag_id as tagId'])
          .where('connection_id', 'in', assetIds)
          .execute();
  return rows;
}

/** Ids per `in (...)` list: far below either database's limit on parameters. */
const IDS_PER_STATEMENT = 1000;

/** The tags of each asset, by title: handles and titles, for replies, packages and the console. */
export async function tagsOfAssets(
  db: Db,
  kind: TaggedKind,
  assetIds: readonly number[],
): Promise<Map<number, TagRow[]>> {
  const out = new Map<number, TagRow[]>();
  for (let start = 0; start < assetIds.length; start += IDS_PER_STATEMENT) {
    const ids = assetIds.slice(start, start + IDS_PER_STATEMENT);
    const rows =
      kind === 'recipe'
        ? await db
            .selectFrom('recipe_tags as a')
            .innerJoin('tags as t', 't.id', 'a.tag_id')
            .selectAll('t')
            .select('a.recipe_id as asset_id')
            .where('a.recipe_id', 'in', ids)
            .orderBy('t.title_key')
            .execute()
        : await db
            .selectFrom('connection_tags as a')
            .innerJoin('tags as t', 't.id', 'a.tag_id')
            .selectAll('t')
            .select('a.connection_id as asset_id')
            .where('a.connection_id', 'in', ids)
            .orderBy('t.title_key')
            .execute();
    for (const { asset_id, ...tag } of rows) {
      const list = out.get(asset_id) ?? [];
      list.push(tag);
      out.set(asset_id, list);
    }
  }
  return out;
}
