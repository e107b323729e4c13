// Recipes (contract 14): list, get, create, copy, update (each change a version), delete, start
// (validated by the engine: code_errors / config_errors), stop, and the versions of a recipe
// (14 §11). Recipes live in folders of the caller's environment; project scope applies. The code
// is stored exactly as sent.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { Db, RecipeRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { tagsOfAssets } from '../tags/tags.store.ts';
import { recordActivity, type Actor, type InTransaction } from '../activity_logs/activity.ts';
import { normaliseConfig } from '../../recipe/document.ts';
import type { StepErrors } from '../../recipe/document.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { findFolderInScope, folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import { findHomeFolder } from '../folders/folders.store.ts';
import { findFirstUser, findWorkspace } from '../../workspaces/workspaces.store.ts';
import { findConnection } from '../connections/connections.store.ts';
import { listTestCases, replaceTestCases } from '../test_cases/test_cases.store.ts';
import {
  deleteRecipe as deleteRecipeRow,
  findRecipe,
  findVersion,
  incrementCopyCount,
  insertRecipe,
  insertVersion,
  listRecipes as listRecipeRows,
  listVersions,
  markRecipeRunning,
  markRecipeStopped,
  recipeToApi,
  setVersionComment,
  updateRecipe as updateRecipeRow,
  versionDetailToApi,
  versionToApi,
  type RecipeApi,
  type RecipeListFilters,
  type RecipeVersionApi,
  type RecipeVersionDetailApi,
  type RecipeWithProject,
} from './recipes.store.ts';
import {
  MAX_NAME,
  DEFAULT_NAME,
  flag,
  timestampParam,
  intParam,
  adapterList,
  checkFields,
  safeParse,
} from './recipes.input.ts';
import type { RecipeFields } from './recipes.input.ts';

export type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

export interface ListQuery {
  adapter_names_all?: string;
  adapter_names_any?: string;
  /** Part of an application's name, as a person types it ("webhooks", "lookup table"): the console's filter. */
  application_contains?: string;
  folder_id?: string | number;
  order?: string;
  running?: string | boolean;
  active?: string | boolean;
  since_id?: string | number;
  stopped_after?: string;
  stop_cause?: string;
  updated_after?: string;
  exclude_code?: string | boolean;
  /** Part of the name (the console's search; not a parameter of the API). */
  name_contains?: string;
  withTags: boolean;
  page: { offset: number; perPage: number };
}

export type Refusal = { success: false; errors: FieldErrors };
export type StartRefusal = { success: false; code_errors: StepErrors; config_errors: StepErrors };

/** What this service needs of the recipe engine: the check before a start, arming or disarming a trigger. */
export interface RecipeRuntime {
  validate(row: RecipeRow): Promise<{ codeErrors: StepErrors; configErrors: StepErrors }>;
  recipeStarted(recipeId: number): Promise<void>;
  recipeStopped(recipeId: number): void;
  /** Fire a running recipe's scheduled trigger now; false when it has no schedule armed. */
  pollNow(recipeId: number): Promise<boolean>;
  /** Whether the recipe's trigger is a connector's that keeps state (a closure, dedup keys) reset_trigger clears. */
  keepsTriggerState?(row: RecipeRow): Promise<boolean>;
}

export const STOP_CAUSES = [
  'trigger_errors_limit',
  'action_quota_limit',
  'trial_expired',
  'txn_quota_limit',
  'release_start_failed',
] as const;

function output(
  ctx: ServiceContext,
  row: RecipeWithProject,
  options: { withTags?: boolean; excludeCode?: boolean } = {},
): RecipeApi {
  return recipeToApi(row, {
    publicBaseUrl: ctx.config.publicBaseUrl,
    withTags: options.withTags ?? false,
    excludeCode: options.excludeCode ?? false,
  });
}

export async function findVisible(db: Db, caller: Caller, id: number): Promise<RecipeWithProject> {
  const row = assertFound(await findRecipe(db, caller.environmentId, id));
  if (!caller.allFolders && (await findFolderInScope(db, caller.environmentId, caller, row.folder_id)) === undefined)
    throw new AppError('not_found');
  return row;
}

export async function listRecipes(ctx: ServiceContext, caller: Caller, query: ListQuery): Promise<RecipeApi[]> {
  const order = query.order ?? 'default';
  if (order !== 'default' && order !== 'activity') throw invalid({ order: ['must be activity or default'] });
  if (
    query.stop_cause !== undefined &&
    query.stop_cause !== '' &&
    !(STOP_CAUSES as readonly string[]).includes(query.stop_cause)
  ) {
    throw invalid({ stop_cause: [`must be one of ${STOP_CAUSES.join(', ')}`] });
  }
  const running = flag(query.running, 'running') ?? flag(query.active, 'active');
  const filters: RecipeListFilters = { order };
  const folderId = intParam(query.folder_id, 'folder_id');
  if (folderId !== undefined) filters.folderId = folderId;
  if (running !== undefined) filters.running = running;
  const sinceId = intParam(query.since_id, 'since_id');
  if (sinceId !== undefined) filters.sinceId = sinceId;
  const stoppedAfter = timestampParam(query.stopped_after, 'stopped_after');
  if (stoppedAfter !== undefined) filters.stoppedAfter = stoppedAfter;
  const updatedAfter = timestampParam(query.updated_after, 'updated_after');
  if (updatedAfter !== undefined) filters.updatedAfter = updatedAfter;
  if (query.stop_cause) filters.stopCause = query.stop_cause;
  if (query.name_contains !== undefined && query.name_contains.trim() !== '')
    filters.nameContains = query.name_contains.trim().slice(0, 255);
  const all = adapterList(query.adapter_names_all, 'adapter_names_all');
  if (all) filters.adapterNamesAll = all;
  const any = adapterList(query.adapter_names_any, 'adapter_names_any');
  if (any) filters.adapterNamesAny = any;
  const part = (query.application_contains ?? '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .slice(0, 100);
  if (part !== '') filters.applicationContains = part;
  const excludeCode = flag(query.exclude_code, 'exclude_code') ?? false;
  if (!caller.allFolders)
    filters.folderIds = await folderIdsUnderProjects(ctx.db, caller.environmentId, caller.folderIds);
  const rows = await listRecipeRows(ctx.db, caller.environmentId, filters, query.page);
  const recipes = rows.map((row) => output(ctx, row, { withTags: query.withTags, excludeCode }));
  return query.withTags ? withTagHandles(ctx.db, recipes) : recipes;
}

/** `tags` (includes[]=tags): the handles of the tags each recipe carries. */
async function withTagHandles(db: Db, recipes: RecipeApi[]): Promise<RecipeApi[]> {
  const tags = await tagsOfAssets(
    db,
    'recipe',
    recipes.map((r) => r.id),
  );
  return recipes.map((r) => ({ ...r, tags: (tags.get(r.id) ?? []).map((t) => t.handle) }));
}

export async function getRecipe(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  withTags: boolean,
): Promise<RecipeApi> {
  const recipe = output(ctx, await findVisible(ctx.db, caller, id), { withTags });
  return withTags ? ((await withTagHandles(ctx.db, [recipe]))[0] as RecipeApi) : recipe;
}

async function targetFolder(db: Db, caller: Caller, folderId: number | undefined, fallback?: number): Promise<number> {
  if (folderId === undefined) {
    if (fallback !== undefined) return fallback;
    if (!caller.allFolders) throw invalid({ folder_id: ['is required for a client limited to some projects'] });
    return assertFound(await findHomeFolder(db, caller.environmentId)).id;
  }
  const folder = await findFolderInScope(db, caller.environmentId, caller, folderId);
  if (!folder)
    throw new AppError('folder_not_found', { errors: { folder_id: ['is not a folder of this environment'] } });
  return folder.id;
}

export async function authorOf(db: Db, workspaceId: number): Promise<{ name: string; email: string }> {
  const user = await findFirstUser(db, workspaceId);
  if (user) return { name: user.name, email: user.email };
  const workspace = await findWorkspace(db, workspaceId);
  return { name: workspace?.name ?? '', email: workspace?.owner_email ?? '' };
}

function newWebhookKey(): string {
  return randomBytes(12).toString('hex');
}

export async function createRecipe(ctx: ServiceContext, caller: Caller, fields: RecipeFields): Promise<number> {
  const checked = checkFields(fields, true);
  return ctx.db.transaction().execute(async (trx) => {
    const folderId = await targetFolder(trx, caller, fields.folder_id);
    const author = await authorOf(trx, caller.workspaceId);
    const now = toStored(ctx.clock.now());
    const row: Omit<RecipeRow, 'id'> = {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      folder_id: folderId,
      name: checked.name ?? DEFAULT_NAME,
      description: checked.description ?? '',
      code: checked.code as string,
      config: checked.config ?? '[]',
      trigger_application: checked.trigger_application ?? null,
      action_applications: checked.action_applications ?? '[]',
      webhook_event: checked.webhook_event ?? null,
      concurrency: checked.concurrency ?? 1,
      ...newRecipeState(author, now),
    };
    const id = await insertRecipe(trx, row);
    await insertVersion(trx, versionOf(id, row, author, now));
    return id;
  });
}

/** The version row of a save: the recipe's content at that version, who saved it and when. */
export function versionOf(
  recipeId: number,
  content: Pick<RecipeRow, 'version_no' | 'name' | 'description' | 'code' | 'config'>,
  author: { name: string; email: string },
  now: string,
) {
  return {
    recipe_id: recipeId,
    version_no: content.version_no,
    name: content.name,
    description: content.description,
    code: content.code,
    config: content.config,
    comment: null,
    author_name: author.name,
    author_email: author.email,
    created_at: now,
    updated_at: now,
  };
}

export async function copyRecipe(
  ctx: ServiceContext,
  caller: Caller,
  sourceId: number,
  options: { folderId?: number; name?: string },
): Promise<number> {
  const errors: FieldErrors = {};
  const name = options.name?.trim();
  if (name !== undefined && (name === '' || name.length > MAX_NAME))
    errors.name = [name === '' ? "can't be blank" : `is too long (maximum is ${MAX_NAME} characters)`];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return ctx.db.transaction().execute(async (trx) => {
    const source = await findVisible(trx, caller, sourceId);
    const folderId = await targetFolder(trx, caller, options.folderId, source.folder_id);
    const now = toStored(ctx.clock.now());
    const author = await authorOf(trx, caller.workspaceId);
    const row: Omit<RecipeRow, 'id'> = {
      workspace_id: source.workspace_id,
      environment_id: source.environment_id,
      folder_id: folderId,
      name: name ?? `Copy of ${source.name}`.slice(0, MAX_NAME),
      description: source.description,
      code: source.code,
      config: source.config,
      trigger_application: source.trigger_application,
      action_applications: source.action_applications,
      webhook_event: source.webhook_event,
      concurrency: source.concurrency,
      ...newRecipeState(author, now),
    };
    const id = await insertRecipe(trx, row);
    await insertVersion(trx, versionOf(id, row, author, now));
    await incrementCopyCount(trx, source.id);
    // Test cases go with the recipe.
    const cases = await listTestCases(trx, [source.id]);
    await replaceTestCases(
      trx,
      id,
      cases.map((c) => ({ name: c.name, description: c.description, body: c.body })),
      now,
    );
    return id;
  });
}

/** `alsoInTransaction`: more work of the caller's once the change is made, in its transaction (recording it). */
export async function updateRecipe(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  fields: RecipeFields,
  alsoInTransaction?: InTransaction,
): Promise<{ success: true } | Refusal> {
  const known: (keyof RecipeFields)[] = ['name', 'description', 'code', 'config', 'folder_id', 'concurrency'];
  if (!known.some((key) => fields[key] !== undefined))
    throw new AppError('nothing_to_update', {
      errors: { recipe: [`must contain at least one of ${known.join(', ')}`] },
    });
  return ctx.db.transaction().execute(async (trx) => {
    const current = await findVisible(trx, caller, id);
    if (current.running === 1) return { success: false as const, errors: { running: ["can't modify running recipe"] } };
    const checked = checkFields(fields, false, current);
    const folderId =
      fields.folder_id === undefined ? current.folder_id : await targetFolder(trx, caller, fields.folder_id);
    const changed =
      (checked.code !== undefined && checked.code !== current.code) ||
      (checked.config !== undefined && checked.config !== current.config) ||
      (checked.name !== undefined && checked.name !== current.name) ||
      (checked.description !== undefined && checked.description !== current.description);
    const now = toStored(ctx.clock.now());
    const author = await authorOf(trx, caller.workspaceId);
    const next = {
      name: checked.name ?? current.name,
      description: checked.description ?? current.description,
      code: checked.code ?? current.code,
      config: checked.config ?? current.config,
      version_no: changed ? current.version_no + 1 : current.version_no,
      updated_at: now,
    };
    await updateRecipeRow(trx, id, {
      ...next,
      folder_id: folderId,
      concurrency: checked.concurrency ?? current.concurrency,
      ...(checked.trigger_application !== undefined ? { trigger_application: checked.trigger_application } : {}),
      ...(checked.action_applications !== undefined ? { action_applications: checked.action_applications } : {}),
      ...(checked.webhook_event !== undefined ? { webhook_event: checked.webhook_event } : {}),
    });
    if (changed) await insertVersion(trx, versionOf(id, next, author, now));
    await alsoInTransaction?.(trx);
    return { success: true as const };
  });
}

export async function deleteRecipe(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
): Promise<{ success: true } | Refusal> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = await findVisible(trx, caller, id);
    if (current.running === 1)
      return { success: false as const, errors: { running: ["Can't change the recipe state: invalid state running"] } };
    await deleteRecipeRow(trx, id);
    return { success: true as const };
  });
  if (result.success) ctx.notifier.publish('recipes.deleted', { recipeIds: [id] });
  return result;
}

/** Steps listed in a refused start; past them the last entry says how many more steps have errors. */
export const MAX_REPORTED_STEPS = 100;

/** The first MAX_REPORTED_STEPS steps' errors, so a broken recipe of a thousand steps gets an answer one can read. */
export function capStepErrors(errors: StepErrors): StepErrors {
  if (errors.length <= MAX_REPORTED_STEPS) return errors;
  const kept = errors.slice(0, MAX_REPORTED_STEPS);
  const [number, details] = kept[kept.length - 1] as StepErrors[number];
  kept[kept.length - 1] = [
    number,
    [...details, ['code', null, `and ${errors.length - MAX_REPORTED_STEPS} more steps have errors`]],
  ];
  return kept;
}

export async function startRecipe(
  ctx: ServiceContext,
  engine: RecipeRuntime,
  caller: Caller,
  id: number,
): Promise<{ success: true } | StartRefusal> {
  const current = await findVisible(ctx.db, caller, id);
  if (current.running === 1) throw new AppError('recipe_already_running');
  const validation = await engine.validate(current);
  if (validation.codeErrors.length > 0 || validation.configErrors.length > 0) {
    return {
      success: false,
      code_errors: capStepErrors(validation.codeErrors),
      config_errors: capStepErrors(validation.configErrors),
    };
  }
  if (!(await markRecipeRunning(ctx.db, id))) throw new AppError('recipe_already_running');
  await engine.recipeStarted(id);
  return { success: true };
}

export async function stopRecipe(
  ctx: ServiceContext,
  engine: RecipeRuntime,
  caller: Caller,
  id: number,
): Promise<void> {
  await findVisible(ctx.db, caller, id);
  if (!(await markRecipeStopped(ctx.db, id, toStored(ctx.clock.now())))) throw new AppError('recipe_already_stopped');
  engine.recipeStopped(id);
}

/** The versions of a visible recipe, newest first (14 §11). */
export async function listRecipeVersions(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  page: { offset: number; perPage: number },
): Promise<RecipeVersionApi[]> {
  const recipe = await findVisible(ctx.db, caller, recipeId);
  return (await listVersions(ctx.db, recipe.id, page)).map(versionToApi);
}

/** One version of a visible recipe, with its content. */
export async function getRecipeVersion(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  versionId: number,
): Promise<RecipeVersionDetailApi> {
  const recipe = await findVisible(ctx.db, caller, recipeId);
  return versionDetailToApi(assertFound(await findVersion(ctx.db, recipe.id, versionId), 'recipe_version_not_found'));
}

/** Set (or, with null, clear) a version's comment; a comment is not a change of the recipe, so a running recipe takes one too. */
export async function commentRecipeVersion(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  versionId: number,
  comment: string | null,
  actor: Actor,
): Promise<RecipeVersionDetailApi> {
  return ctx.db.transaction().execute(async (trx) => {
    const recipe = await findVisible(trx, caller, recipeId);
    if (!(await setVersionComment(trx, recipe.id, versionId, comment, toStored(ctx.clock.now()))))
      throw new AppError('recipe_version_not_found');
    const version = assertFound(await findVersion(trx, recipe.id, versionId), 'recipe_version_not_found');
    await recordActivity(trx, ctx.clock, actor, {
      eventType: 'recipe_version_updated',
      resourceType: 'recipe_version',
      resourceId: version.id,
      resourceName: recipe.name,
      details: { recipe_id: recipe.id, version_no: version.version_no, comment },
    });
    return versionDetailToApi(version);
  });
}

/** What every new recipe starts with, whether created or copied: stopped, version 1, no jobs. */
export function newRecipeState(author: { name: string; email: string }, now: string) {
  return {
    running: 0 as const,
    version_no: 1,
    copy_count: 0,
    job_succeeded_count: 0,
    job_failed_count: 0,
    lifetime_task_count: 0,
    last_run_at: null,
    stopped_at: null,
    stop_cause: null,
    trigger_closure: null,
    webhook_key: newWebhookKey(),
    author_name: author.name,
    author_email: author.email,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Triggers that keep a cursor (trigger_closure): schedules (last firing), topic triggers (last
 * message), polling HTTP triggers (last record); connectors' polling and webhook triggers (their
 * closure and dedup keys) are asked of the engine.
 */
const CURSOR_TRIGGERS = new Set(['clock', 'scheduler', 'workato_pub_sub', 'rest', 'http']);

/** Forget where the trigger got to (14 §12): a stopped recipe with a scheduled or topic trigger. */
export async function resetTrigger(
  ctx: ServiceContext,
  engine: RecipeRuntime,
  caller: Caller,
  id: number,
): Promise<{ success: true }> {
  const current = await findVisible(ctx.db, caller, id);
  if (current.running === 1) throw new AppError('recipe_already_running');
  if (!CURSOR_TRIGGERS.has(current.trigger_application ?? '') && !(await engine.keepsTriggerState?.(current)))
    throw new AppError('trigger_without_cursor', { params: { provider: current.trigger_application ?? 'none' } });
  await updateRecipeRow(ctx.db, id, { trigger_closure: null, updated_at: toStored(ctx.clock.now()) });
  return { success: true };
}

/** Run a running recipe's scheduled trigger now (14 §12). */
export async function pollNow(
  ctx: ServiceContext,
  engine: RecipeRuntime,
  caller: Caller,
  id: number,
): Promise<{ success: true }> {
  const current = await findVisible(ctx.db, caller, id);
  if (current.running !== 1) throw new AppError('recipe_already_stopped');
  if (!(await engine.pollNow(id)))
    throw new AppError('trigger_not_pollable', { params: { provider: current.trigger_application ?? 'none' } });
  return { success: true };
}

/**
 * Point a recipe's connector slot at a connection (14 §12): a stopped recipe, a connector its
 * config names, a connection of the caller's environment and scope with that provider (or null
 * to leave the slot empty). A change of config, so a new version, as an update.
 */
export async function connectRecipe(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  input: { adapter_name?: unknown; connection_id?: unknown },
  actor: Actor,
): Promise<{ success: true } | Refusal> {
  const current = await findVisible(ctx.db, caller, id);
  const errors: FieldErrors = {};
  const adapter = typeof input.adapter_name === 'string' ? input.adapter_name.trim() : '';
  if (adapter === '') errors.adapter_name = ["can't be blank"];
  let connectionId: number | null = null;
  if (input.connection_id === undefined) errors.connection_id = ["can't be blank (null empties the slot)"];
  else if (input.connection_id !== null) {
    const text = String(input.connection_id);
    if (!/^\d{1,15}$/.test(text)) errors.connection_id = ['must be a connection id'];
    else connectionId = Number(text);
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  let config: Array<Record<string, unknown>>;
  try {
    config = normaliseConfig(current.config, safeParse(current.code)) as unknown as Array<Record<string, unknown>>;
  } catch {
    config = [];
  }
  const slot = config.find((entry) => entry.provider === adapter);
  if (!slot)
    throw invalid({
      adapter_name: [
        `is not a connector of this recipe (its connectors: ${config.map((c) => String(c.provider)).join(', ') || 'none'})`,
      ],
    });
  if (connectionId !== null) {
    const connection = await findConnection(
      ctx.db,
      { workspaceId: caller.workspaceId, environmentId: caller.environmentId },
      connectionId,
    );
    const inScope =
      connection &&
      (caller.allFolders ||
        (await findFolderInScope(ctx.db, caller.environmentId, caller, connection.folder_id)) !== undefined);
    if (!connection || !inScope) throw invalid({ connection_id: ['is not a connection of this environment'] });
    const same =
      connection.provider === adapter ||
      (['rest', 'http'].includes(connection.provider) && ['rest', 'http'].includes(adapter));
    if (!same) throw invalid({ connection_id: [`is a ${connection.provider} connection; the slot is for ${adapter}`] });
  }
  const next = config.map((entry) => (entry === slot ? { ...entry, account_id: connectionId } : entry));
  return updateRecipe(ctx, caller, id, { config: next }, (trx) =>
    recordActivity(trx, ctx.clock, actor, {
      eventType: 'recipe_connection_updated',
      resourceType: 'recipe',
      resourceId: id,
      resourceName: current.name,
      details: { adapter_name: adapter, connection_id: connectionId },
    }),
  );
}
