// Recipes and their versions: rows, queries, and the one mapper to the API shape (contract 14 §1).
import { folderTreeIds } from '../folders/folders.store.ts';
import { sql } from 'kysely';
import type { Db, RecipeRow, RecipeUpdate, RecipeVersionRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import * as jobCounts from './job-counts.store.ts';

/** A recipe with its project and its current version's author and comment (null only when that version row is missing). */
export type RecipeWithProject = RecipeRow & { project_id: number | null } & jobCounts.PendingCounts & {
    version_comment: string | null;
    version_author_name: string | null;
    version_author_email: string | null;
  };

export interface RecipeApi {
  id: number;
  user_id: number;
  name: string;
  created_at: string;
  updated_at: string;
  copy_count: number;
  trigger_application?: string;
  action_applications: string[];
  applications: string[];
  description: string;
  parameters_schema: unknown[];
  parameters: Record<string, unknown>;
  webhook_url: string | null;
  folder_id: number;
  project_id: number | null;
  running: boolean;
  job_succeeded_count: number;
  job_failed_count: number;
  lifetime_task_count: number;
  last_run_at?: string;
  stopped_at?: string;
  version_no: number;
  stop_cause: string | null;
  config: ConfigApi[];
  trigger_closure: Record<string, unknown> | null;
  code: string;
  author_name: string;
  version_author_name: string;
  version_author_email: string;
  version_comment: string | null;
  tags?: string[];
}

export function webhookUrl(
  publicBaseUrl: string,
  row: Pick<RecipeRow, 'webhook_key' | 'webhook_event' | 'trigger_application'>,
): string | null {
  if (row.trigger_application !== 'workato_webhooks') return null;
  return `${publicBaseUrl}/webhooks/rest/${row.webhook_key}/${row.webhook_event ?? 'event'}`;
}

function parseList(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export interface ConfigApi {
  keyword: string;
  name: string;
  provider: string;
  skip_validation: boolean;
  account_id: number | null;
  [key: string]: unknown;
}

/** config[].account_id leaves as an integer or null, never a reference object (14 §1 strictness). */
function configToApi(text: string): ConfigApi[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    .map((e) => {
      const provider = typeof e.provider === 'string' ? e.provider : '';
      return {
        ...e,
        keyword: 'application',
        name: typeof e.name === 'string' ? e.name : provider,
        provider,
        skip_validation: e.skip_validation === true,
        account_id: typeof e.account_id === 'number' ? e.account_id : null,
      };
    });
}

export function recipeToApi(
  row: RecipeWithProject,
  options: { publicBaseUrl: string; withTags: boolean; excludeCode: boolean },
): RecipeApi {
  const actions = parseList(row.action_applications);
  const applications = [
    ...(row.trigger_application ? [row.trigger_application] : []),
    ...actions.filter((a) => a !== row.trigger_application),
  ];
  let closure: Record<string, unknown> | null = null;
  if (row.trigger_closure !== null) {
    try {
      const parsed: unknown = JSON.parse(row.trigger_closure);
      closure =
        typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : null;
    } catch {
      closure = null;
    }
  }
  const out: RecipeApi = {
    id: row.id,
    user_id: row.workspace_id,
    name: row.name,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    copy_count: row.copy_count,
    ...(row.trigger_application ? { trigger_application: row.trigger_application } : {}),
    action_applications: actions,
    applications,
    description: row.description,
    parameters_schema: [],
    parameters: {},
    webhook_url: webhookUrl(options.publicBaseUrl, row),
    folder_id: row.folder_id,
    project_id: row.project_id,
    running: row.running === 1,
    ...jobCounts.jobCountsToApi(row),
    ...(row.stopped_at ? { stopped_at: toApiTimestamp(row.stopped_at) } : {}),
    version_no: row.version_no,
    stop_cause: row.stop_cause,
    config: configToApi(row.config),
    trigger_closure: closure,
    code: options.excludeCode ? '' : row.code,
    author_name: row.author_name,
    version_author_name: row.version_author_name ?? row.author_name,
    version_author_email: row.version_author_email ?? row.author_email,
    version_comment: row.version_comment,
  };
  if (options.withTags) out.tags = [];
  return out;
}

function selectRecipes(db: Db) {
  return db
    .selectFrom('recipes as r')
    .innerJoin('folders as f', 'f.id', 'r.folder_id')
    .leftJoin('recipe_versions as v', (join) =>
      join.onRef('v.recipe_id', '=', 'r.id').onRef('v.version_no', '=', 'r.version_no'),
    )
    .leftJoin(jobCounts.pendingJobCounts(db).as('c'), 'c.recipe_id', 'r.id')
    .selectAll('r')
    .select(jobCounts.PENDING_COUNT_COLUMNS)
    .select([
      'f.project_id as project_id',
      'v.comment as version_comment',
      'v.author_name as version_author_name',
      'v.author_email as version_author_email',
    ]);
}

export async function insertRecipe(db: Db, values: Omit<RecipeRow, 'id'>): Promise<number> {
  const row = await db.insertInto('recipes').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function findRecipe(db: Db, environmentId: number, id: number): Promise<RecipeWithProject | undefined> {
  return selectRecipes(db).where('r.environment_id', '=', environmentId).where('r.id', '=', id).executeTakeFirst();
}

/** For the engine, which works outside any caller's environment. */
export async function findRecipeById(db: Db, id: number): Promise<RecipeRow | undefined> {
  return db.selectFrom('recipes').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findRecipeByWebhookKey(db: Db, key: string): Promise<RecipeRow | undefined> {
  return db.selectFrom('recipes').selectAll().where('webhook_key', '=', key).executeTakeFirst();
}

export async function listRunningRecipeIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('recipes').select('id').where('running', '=', 1).orderBy('id').execute();
  return rows.map((r) => r.id);
}

export async function listRunningRecipesAfter(db: Db, afterId: number, limit: number): Promise<RecipeRow[]> {
  const after = db.selectFrom('recipes').selectAll().where('running', '=', 1).where('id', '>', afterId);
  return after.orderBy('id').limit(limit).execute();
}

/** A recipe of an environment, as the engine reads it (a `flow_id` given by id). */
export async function findRecipeInEnvironment(
  db: Db,
  environmentId: number,
  id: number,
): Promise<RecipeRow | undefined> {
  return db
    .selectFrom('recipes')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The recipes of an environment with this name, oldest first (a `flow_id` given by reference). */
export async function findRecipesByName(db: Db, environmentId: number, name: string): Promise<RecipeRow[]> {
  return db
    .selectFrom('recipes')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('name', '=', name)
    .orderBy('id')
    .execute();
}

/** The trigger's stored state and whether the recipe runs, read fresh (the topic cursor's guard). */
export async function findTriggerClosure(
  db: Db,
  id: number,
): Promise<Pick<RecipeRow, 'trigger_closure' | 'running'> | undefined> {
  return db.selectFrom('recipes').select(['trigger_closure', 'running']).where('id', '=', id).executeTakeFirst();
}

/** Move the trigger's state of a running recipe from `guard` to `next`; false when it was stopped or moved meanwhile. */
export async function moveRunningTriggerClosure(db: Db, id: number, guard: string, next: string): Promise<boolean> {
  const moved = await db
    .updateTable('recipes')
    .set({ trigger_closure: next })
    .where('id', '=', id)
    .where('running', '=', 1)
    .where('trigger_closure', '=', guard)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Move the trigger's state of a running recipe from `previous` (null: none yet) to `next`; false when it was stopped or moved meanwhile. */
export async function moveRunningTriggerClosureFrom(
  db: Db,
  id: number,
  previous: string | null,
  next: string,
): Promise<boolean> {
  let update = db.updateTable('recipes').set({ trigger_closure: next }).where('id', '=', id).where('running', '=', 1);
  update =
    previous === null ? update.where('trigger_closure', 'is', null) : update.where('trigger_closure', '=', previous);
  const done = await update.executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Set the trigger's state from `previous` (null: none yet) to `next`; false when it changed meanwhile. */
export async function replaceTriggerClosure(
  db: Db,
  id: number,
  previous: string | null,
  next: string,
): Promise<boolean> {
  let update = db.updateTable('recipes').set({ trigger_closure: next }).where('id', '=', id);
  update =
    previous === null ? update.where('trigger_closure', 'is', null) : update.where('trigger_closure', '=', previous);
  const done = await update.executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/**
 * Record a schedule's firing on a running recipe, from the state read (`previous`, null: never
 * fired) to `next`; false when the recipe stopped or another node recorded a firing meanwhile
 * (the update waits for that node's transaction, then finds the state moved).
 */
export async function recordScheduleFiring(
  db: Db,
  id: number,
  previous: string | null,
  next: string,
): Promise<boolean> {
  let update = db.updateTable('recipes').set({ trigger_closure: next }).where('id', '=', id).where('running', '=', 1);
  update =
    previous === null ? update.where('trigger_closure', 'is', null) : update.where('trigger_closure', '=', previous);
  const done = await update.executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** One more failed job on the recipe's counter (a job that failed without running: trigger error, interrupted). */
export async function countFailedJob(db: Db, id: number, jobs = 1): Promise<void> {
  await db
    .updateTable('recipes')
    .set((eb) => ({ job_failed_count: eb('job_failed_count', '+', jobs) }))
    .where('id', '=', id)
    .execute();
}

/** Mark a stopped recipe running; false when it was running already. */
/** The recipes in the folder or anywhere below it. */
export async function recipeIdsUnder(db: Db, folderId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('recipes')
    .select('id')
    .where('folder_id', 'in', folderTreeIds(db, folderId))
    .execute();
  return rows.map((row) => Number(row.id));
}

/** Whether a running recipe lies in the folder or anywhere below it. */
export async function hasRunningRecipeUnder(db: Db, folderId: number): Promise<boolean> {
  const row = await db
    .selectFrom('recipes')
    .select('recipes.id')
    .where('recipes.folder_id', 'in', folderTreeIds(db, folderId))
    .where('recipes.running', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function markRecipeRunning(db: Db, id: number): Promise<boolean> {
  const started = await db
    .updateTable('recipes')
    .set({ running: 1, stop_cause: null })
    .where('id', '=', id)
    .where('running', '=', 0)
    .executeTakeFirst();
  return Number(started.numUpdatedRows) !== 0;
}

/**
 * Why a release (a deployment or an import with restart_recipes) left a recipe that was running
 * stopped: its new version could not start. The next release starts it again (a rollback).
 */
export const RELEASE_STOP_CAUSE = 'release_start_failed';

/** A stopped recipe that a release could not start again: remembered for the next release. */
export async function markRecipeReleaseStopped(db: Db, id: number): Promise<void> {
  await db
    .updateTable('recipes')
    .set({ stop_cause: RELEASE_STOP_CAUSE })
    .where('id', '=', id)
    .where('running', '=', 0)
    .execute();
}

/** Mark a running recipe stopped; false when it was stopped already. */
export async function markRecipeStopped(db: Db, id: number, stoppedAt: string): Promise<boolean> {
  const stopped = await db
    .updateTable('recipes')
    .set({ running: 0, stopped_at: stoppedAt, stop_cause: null })
    .where('id', '=', id)
    .where('running', '=', 1)
    .executeTakeFirst();
  return Number(stopped.numUpdatedRows) !== 0;
}

export interface RecipeListFilters {
  folderId?: number;
  folderIds?: number[];
  running?: boolean;
  sinceId?: number;
  stoppedAfter?: string;
  stopCause?: string;
  updatedAfter?: string;
  adapterNamesAll?: string[];
  adapterNamesAny?: string[];
  /** Lower case; matched inside the application names. */
  applicationContains?: string;
  /** Part of the name, in any case (the console's search). */
  nameContains?: string;
  order: 'default' | 'activity';
}

export async function listRecipes(
  db: Db,
  environmentId: number,
  filters: RecipeListFilters,
  page: { offset: number; perPage: number },
): Promise<RecipeWithProject[]> {
  let q = selectRecipes(db).where('r.environment_id', '=', environmentId);
  if (filters.folderId !== undefined) q = q.where('r.folder_id', '=', filters.folderId);
  if (filters.folderIds !== undefined)
    q = filters.folderIds.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where('r.folder_id', 'in', filters.folderIds);
  if (filters.running !== undefined) q = q.where('r.running', '=', filters.running ? 1 : 0);
  if (filters.sinceId !== undefined) q = q.where('r.id', '<', filters.sinceId);
  if (filters.stoppedAfter !== undefined)
    q = q.where((eb) =>
      eb.or([eb('r.stopped_at', 'is', null), eb('r.stopped_at', '<=', filters.stoppedAfter as string)]),
    );
  if (filters.stopCause !== undefined) q = q.where('r.stop_cause', '=', filters.stopCause);
  if (filters.updatedAfter !== undefined) q = q.where('r.updated_at', '>', filters.updatedAfter);
  // Adapter filters match the derived application lists (JSON text with quoted names).
  for (const name of filters.adapterNamesAll ?? []) {
    q = q.where((eb) =>
      eb.or([eb('r.trigger_application', '=', name), eb('r.action_applications', 'like', `%${JSON.stringify(name)}%`)]),
    );
  }
  if (filters.adapterNamesAny && filters.adapterNamesAny.length > 0) {
    const names = filters.adapterNamesAny;
    q = q.where((eb) =>
      eb.or(
        names.flatMap((name) => [
          eb('r.trigger_application', '=', name),
          eb('r.action_applications', 'like', `%${JSON.stringify(name)}%`),
        ]),
      ),
    );
  }
  if (filters.applicationContains !== undefined) {
    const pattern = `%${filters.applicationContains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(
      sql<boolean>`(lower(coalesce(r.trigger_application, '')) like ${pattern} escape '\\' or lower(r.action_applications) like ${pattern} escape '\\')`,
    );
  }
  if (filters.nameContains !== undefined && filters.nameContains !== '') {
    const pattern = `%${filters.nameContains.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`lower(r.name) like ${pattern} escape '\\'`);
  }
  const lastRun = jobCounts.lastRunAtOf('r.last_run_at', 'c.last_run_at');
  if (filters.order === 'activity')
    q = q.orderBy(sql`case when ${lastRun} is null then 1 else 0 end`).orderBy(lastRun, 'desc');
  return q.orderBy('r.id', 'desc').limit(page.perPage).offset(page.offset).execute();
}

export async function updateRecipe(db: Db, id: number, values: RecipeUpdate): Promise<void> {
  await db.updateTable('recipes').set(values).where('id', '=', id).execute();
}

export async function deleteRecipe(db: Db, id: number): Promise<void> {
  await db.deleteFrom('recipes').where('id', '=', id).execute();
}

export async function incrementCopyCount(db: Db, id: number): Promise<void> {
  await db
    .updateTable('recipes')
    .set((eb) => ({ copy_count: eb('copy_count', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

export async function insertVersion(db: Db, values: Omit<RecipeVersionRow, 'id'>): Promise<void> {
  await db.insertInto('recipe_versions').values(values).execute();
}

/** A version without its content: what a list of versions shows. */
export type RecipeVersionSummaryRow = Omit<RecipeVersionRow, 'name' | 'description' | 'code' | 'config'>;

const VERSION_SUMMARY_COLUMNS = [
  'id',
  'recipe_id',
  'version_no',
  'comment',
  'author_name',
  'author_email',
  'created_at',
  'updated_at',
] as const;

/** The versions of a recipe, newest first, without their content. */
export async function listVersions(
  db: Db,
  recipeId: number,
  page: { offset: number; perPage: number },
): Promise<RecipeVersionSummaryRow[]> {
  return db
    .selectFrom('recipe_versions')
    .select(VERSION_SUMMARY_COLUMNS)
    .where('recipe_id', '=', recipeId)
    .orderBy('version_no', 'desc')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}

/** One version of this recipe by its id; undefined when the id is unknown or a version of another recipe. */
export async function findVersion(db: Db, recipeId: number, id: number): Promise<RecipeVersionRow | undefined> {
  return db
    .selectFrom('recipe_versions')
    .selectAll()
    .where('recipe_id', '=', recipeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Set a version's comment (null clears it); false when the version is not one of this recipe. */
export async function setVersionComment(
  db: Db,
  recipeId: number,
  id: number,
  comment: string | null,
  updatedAt: string,
): Promise<boolean> {
  const done = await db
    .updateTable('recipe_versions')
    .set({ comment, updated_at: updatedAt })
    .where('recipe_id', '=', recipeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** What a version holds: the recipe's name, description, code (text as it was sent) and config (JSON text) at that version. */
export type RecipeVersionContent = Pick<
  RecipeVersionRow,
  'recipe_id' | 'version_no' | 'name' | 'description' | 'code' | 'config'
>;

/**
 * The content of version `versionNo` of a recipe (e.g. to export a chosen version); undefined when
 * the recipe has no such version. The recipe's current version is its `version_no`.
 */
export async function findRecipeVersionContent(
  db: Db,
  recipeId: number,
  versionNo: number,
): Promise<RecipeVersionContent | undefined> {
  return db
    .selectFrom('recipe_versions')
    .select(['recipe_id', 'version_no', 'name', 'description', 'code', 'config'])
    .where('recipe_id', '=', recipeId)
    .where('version_no', '=', versionNo)
    .executeTakeFirst();
}

export interface RecipeVersionApi {
  id: number;
  version_no: number;
  comment: string | null;
  author_name: string;
  author_email: string;
  created_at: string;
  updated_at: string;
}

export interface RecipeVersionDetailApi extends RecipeVersionApi {
  name: string;
  description: string;
  code: string;
  config: ConfigApi[];
}

export function versionToApi(row: RecipeVersionSummaryRow): RecipeVersionApi {
  return {
    id: row.id,
    version_no: row.version_no,
    comment: row.comment,
    author_name: row.author_name,
    author_email: row.author_email,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** A version with its content, `code` and `config` in the recipe's own shapes (14 §1). */
export function versionDetailToApi(row: RecipeVersionRow): RecipeVersionDetailApi {
  return {
    ...versionToApi(row),
    name: row.name,
    description: row.description,
    code: row.code,
    config: configToApi(row.config),
  };
}

export async function countRecipes(db: Db, workspaceId: number, runningOnly: boolean): Promise<number> {
  let q = db
    .selectFrom('recipes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId);
  if (runningOnly) q = q.where('running', '=', 1);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The recipes of an environment in a folder and every folder below it, by id. */
export async function recipeIdsInTree(db: Db, environmentId: number, rootFolderId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('recipes')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('folder_id', 'in', folderTreeIds(db, rootFolderId))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The folder of each of these recipes. */
export async function recipeFolders(db: Db, ids: readonly number[]): Promise<Array<{ id: number; folder_id: number }>> {
  return db
    .selectFrom('recipes')
    .select(['id', 'folder_id'])
    .where('id', 'in', ids.length > 0 ? ids : [-1])
    .execute();
}

export async function recipeName(db: Db, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('recipes').select('name').where('id', '=', id).executeTakeFirst();
  return row?.name;
}
