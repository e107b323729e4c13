// Tags (contract 23 §3): list, create, update, delete, and attaching them to recipes and
// connections (POST /api/tags_assignments). Tags belong to the caller's environment; titles are
// unique there whatever their case. Every change is recorded in the activity log in its own
// transaction.
import type { ServiceContext } from '../../context.ts';
import type { Db, TagRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, type FieldErrors } from '../../errors.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import type { Page } from '../../http/pagination.ts';
import { toStored } from '../../time.ts';
import { recordActivity, type Actor } from '../activity_logs/activity.ts';
import type { FolderScope } from '../folders/folder-scope.store.ts';
import { folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import {
  attachTags,
  connectionFoldersOf,
  countTagAttachments,
  deleteTag as deleteTagRow,
  detachTags,
  findTagByHandle,
  findTagsByHandles,
  insertTag,
  listTags as listTagRows,
  newTagHandle,
  recipeFoldersOf,
  tagToApi,
  updateTag as updateTagRow,
  type TagApi,
  type TaggedKind,
} from './tags.store.ts';

/** The caller: who it is for the activity log, and its project scope for assets. */
export type TagCaller = Actor & FolderScope;

export const MAX_TITLE = 100;
export const MAX_DESCRIPTION = 1000;
const COLOR = /^[A-Za-z0-9#_-]{1,32}$/;
// Letters, digits and punctuation; no control characters (a title shows in lists and terminals).
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface TagFields {
  title?: unknown;
  description?: unknown;
  color?: unknown;
}

export async function listTags(
  ctx: ServiceContext,
  caller: { environmentId: number },
  q: string | undefined,
  page: Page,
): Promise<{ data: { tags: TagApi[] } }> {
  const rows = await listTagRows(ctx.db, caller.environmentId, q, page);
  return { data: { tags: rows.map(tagToApi) } };
}

/** These tags of the caller's environment, by handle (for pages that show titles). */
export async function tagsByHandle(
  ctx: ServiceContext,
  caller: { environmentId: number },
  handles: readonly string[],
): Promise<Map<string, TagApi>> {
  const unique = [...new Set(handles)];
  const out = new Map<string, TagApi>();
  for (let start = 0; start < unique.length; start += 1000)
    for (const row of await findTagsByHandles(ctx.db, caller.environmentId, unique.slice(start, start + 1000)))
      out.set(row.handle, tagToApi(row));
  return out;
}

export async function createTag(ctx: ServiceContext, caller: TagCaller, body: TagFields): Promise<TagApi> {
  const errors: FieldErrors = {};
  const title = checkTitle(body.title, errors);
  const description = checkDescription(body.description, errors);
  const color = checkColor(body.color, errors);
  if (title === undefined && errors.title === undefined) errors.title = ["can't be blank"];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return ctx.db.transaction().execute(async (trx) => {
    const now = toStored(ctx.clock.now());
    const row = await titleUnique(() =>
      insertTag(trx, {
        workspace_id: caller.workspaceId,
        environment_id: caller.environmentId,
        handle: newTagHandle(),
        title: title as string,
        description: description ?? null,
        color: color ?? null,
        created_at: now,
        updated_at: now,
      }),
    );
    await recordActivity(trx, ctx.clock, caller, {
      eventType: 'tag_created',
      resourceType: 'tag',
      resourceId: row.handle,
      resourceName: row.title,
      details: { handle: row.handle, title: row.title, description: row.description, color: row.color },
    });
    return tagToApi(row);
  });
}

export async function updateTag(
  ctx: ServiceContext,
  caller: TagCaller,
  handle: string,
  body: TagFields,
): Promise<TagApi> {
  if (body.title === undefined && body.description === undefined && body.color === undefined)
    throw new AppError('nothing_to_update', {
      errors: { body: ['must contain at least one of title, description, color'] },
    });
  const errors: FieldErrors = {};
  const title = body.title === undefined ? undefined : checkTitle(body.title, errors);
  if (body.title !== undefined && title === undefined && errors.title === undefined) errors.title = ["can't be blank"];
  const description = checkDescription(body.description, errors);
  const color = checkColor(body.color, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return ctx.db.transaction().execute(async (trx) => {
    const current = assertFound(await findTagByHandle(trx, caller.environmentId, handle), 'tag_not_found');
    const changes = {
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(color !== undefined ? { color } : {}),
    };
    const now = toStored(ctx.clock.now());
    await titleUnique(() => updateTagRow(trx, current.id, { ...changes, updated_at: now }));
    const updated: TagRow = { ...current, ...changes, updated_at: now };
    await recordActivity(trx, ctx.clock, caller, {
      eventType: 'tag_updated',
      resourceType: 'tag',
      resourceId: current.handle,
      resourceName: updated.title,
      details: { handle: current.handle, changes },
    });
    return tagToApi(updated);
  });
}

/** Delete a tag; the recipes and connections that carried it lose it. */
export async function deleteTag(ctx: ServiceContext, caller: TagCaller, handle: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const current = assertFound(await findTagByHandle(trx, caller.environmentId, handle), 'tag_not_found');
    const carried = await countTagAttachments(trx, current.id);
    await deleteTagRow(trx, current.id);
    await recordActivity(trx, ctx.clock, caller, {
      eventType: 'tag_deleted',
      resourceType: 'tag',
      resourceId: current.handle,
      resourceName: current.title,
      details: { handle: current.handle, title: current.title, detached_from: carried },
    });
  });
}

export interface AssignmentBody {
  add_tags?: unknown;
  remove_tags?: unknown;
  recipe_ids?: unknown;
  connection_ids?: unknown;
}

/** At most this many handles, and ids of each kind, a call. */
export const MAX_ASSIGNMENT_HANDLES = 100;
export const MAX_ASSIGNMENT_IDS = 1000;

/**
 * Attach (`add_tags`) and detach (`remove_tags`) tags on recipes and connections, all or nothing:
 * an unknown handle or an asset outside the caller's environment or scope is a 404 and nothing
 * changes. Attaching what is attached, or detaching what is not, is not an error.
 */
export async function assignTags(
  ctx: ServiceContext,
  caller: TagCaller,
  body: AssignmentBody,
): Promise<{ success: true; added: number; removed: number }> {
  const errors: FieldErrors = {};
  const add = handleList(body.add_tags, 'add_tags', errors);
  const remove = handleList(body.remove_tags, 'remove_tags', errors);
  const recipeIds = idList(body.recipe_ids, 'recipe_ids', errors);
  const connectionIds = idList(body.connection_ids, 'connection_ids', errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  if (add.length === 0 && remove.length === 0) throw invalid({ add_tags: ['or remove_tags must name a tag'] });
  if (recipeIds.length === 0 && connectionIds.length === 0)
    throw invalid({ recipe_ids: ['or connection_ids must name a recipe or a connection'] });
  const both = add.filter((h) => remove.includes(h));
  if (both.length > 0) throw invalid({ remove_tags: [`names tags that add_tags also names: ${both.join(', ')}`] });

  return ctx.db.transaction().execute(async (trx) => {
    const handles = [...add, ...remove];
    const tags = await findTagsByHandles(trx, caller.environmentId, handles);
    const byHandle = new Map(tags.map((t) => [t.handle, t]));
    const unknown = handles.filter((h) => !byHandle.has(h));
    if (unknown.length > 0)
      throw new AppError('tags_not_found', {
        params: { handles: listed(unknown) },
        errors: { [unknown.some((h) => add.includes(h)) ? 'add_tags' : 'remove_tags']: ['names unknown tags'] },
      });
    await assertAssetsVisible(trx, caller, 'recipe', recipeIds);
    await assertAssetsVisible(trx, caller, 'connection', connectionIds);
    const now = toStored(ctx.clock.now());
    const addIds = add.map((h) => (byHandle.get(h) as TagRow).id);
    const removeIds = remove.map((h) => (byHandle.get(h) as TagRow).id);
    const added =
      (await attachTags(trx, 'recipe', addIds, recipeIds, now)) +
      (await attachTags(trx, 'connection', addIds, connectionIds, now));
    const removed =
      (await detachTags(trx, 'recipe', removeIds, recipeIds)) +
      (await detachTags(trx, 'connection', removeIds, connectionIds));
    if (added + removed > 0)
      await recordActivity(trx, ctx.clock, caller, {
        eventType: add.length > 0 ? 'tags_assigned' : 'tags_removed',
        resourceType: 'tag',
        resourceId: handles.length === 1 ? handles[0] : null,
        resourceName: handles.length === 1 ? (byHandle.get(handles[0] as string) as TagRow).title : null,
        details: {
          add_tags: add,
          remove_tags: remove,
          recipe_ids: recipeIds,
          connection_ids: connectionIds,
          added,
          removed,
        },
      });
    return { success: true as const, added, removed };
  });
}

async function assertAssetsVisible(db: Db, caller: TagCaller, kind: TaggedKind, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const found =
    kind === 'recipe'
      ? await recipeFoldersOf(db, caller.environmentId, ids)
      : await connectionFoldersOf(db, caller.environmentId, ids);
  let visible = found;
  if (!caller.allFolders) {
    const allowed = new Set(await folderIdsUnderProjects(db, caller.environmentId, caller.folderIds));
    visible = found.filter((row) => allowed.has(row.folder_id));
  }
  const seen = new Set(visible.map((r) => r.id));
  const missing = ids.filter((id) => !seen.has(id));
  if (missing.length > 0)
    throw new AppError('assets_not_found', {
      params: { kind: kind === 'recipe' ? 'Recipes' : 'Connections', ids: listed(missing.map(String)) },
      errors: { [`${kind}_ids`]: ['names ids that are not visible in this environment'] },
    });
}

/** A write whose title uniqueness the database decides; a clash is a 422 naming title. */
async function titleUnique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('tag_title_taken', { errors: { title: ['has already been taken'] } });
    throw error;
  }
}

function listed(values: readonly string[]): string {
  return values.length > 20 ? `${values.slice(0, 20).join(', ')}, ...` : values.join(', ');
}

function checkTitle(value: unknown, errors: FieldErrors): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    errors.title = ['must be a string'];
    return undefined;
  }
  const title = value.trim();
  if (title === '') errors.title = ["can't be blank"];
  else if (title.length > MAX_TITLE) errors.title = [`is too long (maximum is ${MAX_TITLE} characters)`];
  else if (CONTROL.test(title)) errors.title = ['must not contain control characters'];
  else return title;
  return undefined;
}

/** undefined: not sent; null: cleared (an empty string clears too). */
function checkDescription(value: unknown, errors: FieldErrors): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string') {
    errors.description = ['must be a string or null'];
    return undefined;
  }
  if (value.length > MAX_DESCRIPTION) {
    errors.description = [`is too long (maximum is ${MAX_DESCRIPTION} characters)`];
    return undefined;
  }
  return value;
}

function checkColor(value: unknown, errors: FieldErrors): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || !COLOR.test(value)) {
    errors.color = ['must be a color name or a hex code such as #2f80ed (letters, digits, #, _ and -, at most 32)'];
    return undefined;
  }
  return value;
}

function handleList(value: unknown, field: string, errors: FieldErrors): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 100)) {
    errors[field] = ['must be a list of tag handles'];
    return [];
  }
  if (value.length > MAX_ASSIGNMENT_HANDLES) {
    errors[field] = [`holds ${value.length} handles; at most ${MAX_ASSIGNMENT_HANDLES} a call`];
    return [];
  }
  return [...new Set(value as string[])];
}

function idList(value: unknown, field: string, errors: FieldErrors): number[] {
  if (value === undefined || value === null) return [];
  const valid =
    Array.isArray(value) &&
    value.every(
      (v) =>
        (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) ||
        (typeof v === 'string' && /^[1-9][0-9]{0,14}$/.test(v)),
    );
  if (!valid) {
    errors[field] = ['must be a list of ids (integers or their decimal strings)'];
    return [];
  }
  if ((value as unknown[]).length > MAX_ASSIGNMENT_IDS) {
    errors[field] = [`holds ${(value as unknown[]).length} ids; at most ${MAX_ASSIGNMENT_IDS} a call`];
    return [];
  }
  return [...new Set((value as Array<number | string>).map(Number))];
}
