// Event topics through the developer API (contract 13 §7): scoped to the caller's environment
// and project scope (a topic lives in a folder). Every change is published on the notifier, so
// the run-time caches (schema checks, retention) drop the topic at once.
import type { ServiceContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import type { Db, EventTopicRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { findFolderInScope, folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import { findHomeFolder } from '../folders/folders.store.ts';
import {
  findTopic,
  insertTopic,
  listTopics as listRows,
  markTopicDeleted,
  nameKey,
  purgeTopicRow,
  topicToApi,
  updateTopicRow,
  type TopicApi,
  type TopicSort,
} from './event_streams.store.ts';
import { checkTopicSchema } from './topic-schema.ts';

/** 168 hours, the vendor's default (13 §8). */
export const DEFAULT_RETENTION_SECONDS = 604_800;
/** Retention bounds (P): one minute to ten years. */
export const RETENTION_LIMITS = { min: 60, max: 315_360_000 };

export interface TopicInput {
  name?: string;
  description?: string | null;
  schema?: unknown;
  retention?: number;
  folder_id?: number;
}

export async function listTopics(
  ctx: ServiceContext,
  auth: AuthContext,
  query: { name?: string; sort: TopicSort; includeSchema: boolean },
  page: { offset: number; perPage: number },
): Promise<TopicApi[]> {
  const folderIds = auth.allFolders
    ? undefined
    : await folderIdsUnderProjects(ctx.db, auth.environmentId, auth.folderIds);
  const rows = await listRows(
    ctx.db,
    auth.environmentId,
    { ...(query.name !== undefined ? { name: query.name } : {}), ...(folderIds ? { folderIds } : {}) },
    query.sort,
    page,
  );
  return rows.map((row) => topicToApi(row, query.includeSchema));
}

export async function getTopic(ctx: ServiceContext, auth: AuthContext, id: number): Promise<TopicApi> {
  return topicToApi(await visibleTopic(ctx.db, auth, id), true);
}

export async function createTopic(ctx: ServiceContext, auth: AuthContext, input: TopicInput): Promise<TopicApi> {
  const errors: FieldErrors = {};
  const name = input.name?.trim() ?? '';
  if (name === '') errors.name = ["can't be blank"];
  const schema = input.schema === undefined || input.schema === null ? null : schemaText(input.schema, errors);
  const retention = input.retention === undefined ? DEFAULT_RETENTION_SECONDS : checkRetention(input.retention, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const now = toStored(ctx.clock.now());
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const folderId = await resolveFolder(trx, auth, input.folder_id);
      const row = await insertTopic(trx, {
        workspace_id: auth.workspaceId,
        environment_id: auth.environmentId,
        folder_id: folderId,
        name,
        name_key: nameKey(name),
        description: input.description ?? null,
        schema,
        retention_seconds: retention as number,
        created_at: now,
        updated_at: now,
      });
      return topicToApi(row, true);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
    throw error;
  }
}

/** Name, description, retention, folder and schema; a new schema applies to messages published from now on. */
export async function updateTopic(
  ctx: ServiceContext,
  auth: AuthContext,
  id: number,
  input: TopicInput,
): Promise<TopicApi> {
  const errors: FieldErrors = {};
  const name = input.name?.trim();
  if (name === '') errors.name = ["can't be blank"];
  const schema =
    input.schema === undefined ? undefined : input.schema === null ? null : schemaText(input.schema, errors);
  const retention = input.retention === undefined ? undefined : checkRetention(input.retention, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  let result: TopicApi;
  try {
    result = await ctx.db.transaction().execute(async (trx) => {
      await visibleTopic(trx, auth, id);
      const folderId = input.folder_id === undefined ? undefined : await resolveFolder(trx, auth, input.folder_id);
      await updateTopicRow(trx, id, {
        ...(name !== undefined ? { name, name_key: nameKey(name) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(schema !== undefined ? { schema } : {}),
        ...(retention !== undefined ? { retention_seconds: retention } : {}),
        ...(folderId !== undefined ? { folder_id: folderId } : {}),
        updated_at: toStored(ctx.clock.now()),
      });
      return topicToApi(assertFound(await findTopic(trx, auth.environmentId, id)), true);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
    throw error;
  }
  ctx.notifier.publish('event_topic.changed', { topicId: id });
  return result;
}

/** Every message published so far disappears for consumers at once; the topic and its ids go on. */
export async function purgeTopic(ctx: ServiceContext, auth: AuthContext, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await visibleTopic(trx, auth, id);
    await purgeTopicRow(trx, id, toStored(ctx.clock.now()));
  });
  ctx.notifier.publish('event_topic.changed', { topicId: id });
}

/** The topic is gone at once; its messages are deleted by the retention sweep in bounded batches. */
export async function deleteTopic(ctx: ServiceContext, auth: AuthContext, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await visibleTopic(trx, auth, id);
    await markTopicDeleted(trx, id, toStored(ctx.clock.now()));
  });
  ctx.notifier.publish('event_topic.changed', { topicId: id });
}

async function visibleTopic(db: Db, auth: AuthContext, id: number): Promise<EventTopicRow> {
  const topic = assertFound(await findTopic(db, auth.environmentId, id), 'topic_not_found');
  if (!auth.allFolders && (await findFolderInScope(db, auth.environmentId, auth, topic.folder_id)) === undefined)
    throw new AppError('topic_not_found');
  return topic;
}

/** The folder asked for (in the environment and the caller's scope), else the Home folder. */
async function resolveFolder(db: Db, auth: AuthContext, folderId: number | undefined): Promise<number> {
  if (folderId === undefined) {
    if (!auth.allFolders) throw invalid({ folder_id: ['is required for a client limited to some projects'] });
    return assertFound(await findHomeFolder(db, auth.environmentId)).id;
  }
  const folder = await findFolderInScope(db, auth.environmentId, auth, folderId);
  if (!folder) throw invalid({ folder_id: ['is not a folder of this environment'] });
  return folder.id;
}

function schemaText(input: unknown, errors: FieldErrors): string | null {
  const checked = checkTopicSchema(input);
  if ('errors' in checked) {
    Object.assign(errors, checked.errors);
    return null;
  }
  return JSON.stringify(checked.fields);
}

function checkRetention(value: number, errors: FieldErrors): number | undefined {
  const seconds = Math.floor(value);
  if (!Number.isFinite(value) || seconds < RETENTION_LIMITS.min || seconds > RETENTION_LIMITS.max) {
    errors.retention = [`must be between ${RETENTION_LIMITS.min} and ${RETENTION_LIMITS.max} seconds`];
    return undefined;
  }
  return seconds;
}
