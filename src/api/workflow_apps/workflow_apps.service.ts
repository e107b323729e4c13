// Workflow apps (src/api/workflow_apps/README.md): an app is a data table of requests and the
// workflow stages a request moves through; recipes react to new requests and move them
// (workato_workflow_task), and app functions answer a page's components through recipes.
import type { ServiceContext } from '../../context.ts';
import type { Db, WorkflowAppRow } from '../../db/types.ts';
import { AppError, assertFound, invalid, uniqueOr422, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import {
  columnsOf,
  findTableByRef,
  recordToApi,
  storedRecord,
  type DataRecordApi,
} from '../data_tables/data_tables.service.ts';
import { findRecord } from '../data_tables/data_tables.store.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import {
  appToApi,
  deleteApp as deleteAppRow,
  deleteRequestsAtStages,
  findApp,
  findAppByName,
  insertApp,
  listApps as listAppRows,
  requestStageId,
  setRequestStage,
  stagesOf,
  updateApp as updateAppRow,
  type Stage,
  type WorkflowAppApi,
} from './workflow_apps.store.ts';

type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

export const MAX_STAGES = 50;
const MAX_NAME = 255;

export interface AppInput {
  name?: string;
  data_table_id?: number | string;
  stages?: Array<string | { id?: string; name: string }>;
}

/** What a caller sees of a request: its record and its stage. */
export interface RequestApi {
  record_id: string;
  app_id: number;
  stage: Stage;
  record: DataRecordApi;
}

/** The engine's side of app functions (src/engine/app-functions.ts). */
export interface AppFunctionRuntime {
  callAppFunction(
    recipeId: number,
    environmentId: number,
    event: Record<string, unknown>,
  ): Promise<
    | { kind: 'not_running' }
    | { kind: 'timeout' }
    | { kind: 'backlog_full'; retryAfterSeconds: number }
    | { kind: 'done'; status: 'succeeded' | 'failed'; data: unknown; error: string | null; jobId: string }
  >;
}

function slug(name: string): string {
  return (
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 60) || 'stage'
  );
}

function checkStages(raw: AppInput['stages'], errors: FieldErrors): Stage[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.stages = ['must list the workflow stages, in order (at least one)'];
    return undefined;
  }
  if (raw.length > MAX_STAGES) {
    errors.stages = [`has more than ${MAX_STAGES} stages`];
    return undefined;
  }
  const out: Stage[] = [];
  for (const [i, item] of raw.entries()) {
    const name = (typeof item === 'string' ? item : item.name).trim();
    const id = typeof item === 'string' || item.id === undefined ? slug(name) : item.id.trim();
    if (name === '' || name.length > MAX_NAME) errors[`stages[${i}]`] = [`needs a name of 1 to ${MAX_NAME} characters`];
    else if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) errors[`stages[${i}]`] = ['id must be 1 to 64 letters, digits, _ or -'];
    else if (out.some((s) => s.id === id || s.name.toLowerCase() === name.toLowerCase()))
      errors[`stages[${i}]`] = [`names the stage "${name}" twice`];
    else out.push({ id, name });
  }
  return out;
}

function checkName(raw: unknown, errors: FieldErrors): string | undefined {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.trim().length > MAX_NAME) {
    errors.name = [`is required: 1 to ${MAX_NAME} characters`];
    return undefined;
  }
  return raw.trim();
}

function tableScope(caller: Caller) {
  return {
    workspaceId: caller.workspaceId,
    environmentId: caller.environmentId,
    allFolders: caller.allFolders,
    folderIds: caller.folderIds,
  };
}

/** Apps belong to the environment, not to a project: a client limited to some projects sees none. */
function requireAllFolders(caller: Caller): void {
  if (!caller.allFolders) throw new AppError('workflow_app_not_found');
}

async function visibleApp(ctx: ServiceContext, caller: Caller, id: number): Promise<WorkflowAppRow> {
  requireAllFolders(caller);
  return assertFound(await findApp(ctx.db, caller.environmentId, id), 'workflow_app_not_found');
}

export async function createApp(ctx: ServiceContext, caller: Caller, input: AppInput): Promise<WorkflowAppApi> {
  requireAllFolders(caller);
  const errors: FieldErrors = {};
  const name = checkName(input.name, errors);
  const stages = checkStages(input.stages, errors);
  if (input.data_table_id === undefined) errors.data_table_id = ['is required: the data table of the requests'];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const table = await findTableByRef(ctx, tableScope(caller), input.data_table_id as number | string);
  if (!table) throw invalid({ data_table_id: ['does not name a data table of this environment'] });
  const now = toStored(ctx.clock.now());
  const row = await uniqueOr422(() =>
    insertApp(ctx.db, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      name: name as string,
      name_key: (name as string).toLowerCase(),
      data_table_id: table.id,
      stages: JSON.stringify(stages),
      created_at: now,
      updated_at: now,
    }),
  );
  return appToApi(row);
}

export async function getApp(ctx: ServiceContext, caller: Caller, id: number): Promise<WorkflowAppApi> {
  return appToApi(await visibleApp(ctx, caller, id));
}

export async function listApps(
  ctx: ServiceContext,
  caller: Caller,
  page: { offset: number; perPage: number },
): Promise<{ items: WorkflowAppApi[] }> {
  if (!caller.allFolders) return { items: [] };
  const rows = await listAppRows(ctx.db, caller.environmentId, { offset: page.offset, limit: page.perPage });
  return { items: rows.map(appToApi) };
}

/** Rename an app or change its stages: requests at a stage that is gone are back at the first. */
export async function updateApp(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  input: AppInput,
): Promise<WorkflowAppApi> {
  const app = await visibleApp(ctx, caller, id);
  const errors: FieldErrors = {};
  const name = input.name === undefined ? undefined : checkName(input.name, errors);
  const stages = input.stages === undefined ? undefined : checkStages(input.stages, errors);
  if (input.data_table_id !== undefined) errors.data_table_id = ['cannot be changed: create another app'];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const now = toStored(ctx.clock.now());
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (stages)
      await deleteRequestsAtStages(
        trx,
        app.id,
        stages.map((s) => s.id),
      );
    return uniqueOr422(() =>
      updateAppRow(trx, app.id, {
        ...(name !== undefined ? { name, name_key: name.toLowerCase() } : {}),
        ...(stages ? { stages: JSON.stringify(stages) } : {}),
        updated_at: now,
      }),
    );
  });
  return appToApi(row);
}

export async function deleteApp(ctx: ServiceContext, caller: Caller, id: number): Promise<{ success: true }> {
  const app = await visibleApp(ctx, caller, id);
  await deleteAppRow(ctx.db, app.id);
  return { success: true };
}

export async function getRequest(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  recordId: string,
): Promise<RequestApi> {
  const app = await visibleApp(ctx, caller, id);
  const table = assertFound(await findTableByRef(ctx, tableScope(caller), app.data_table_id), 'not_found');
  const record = assertFound(await findRecord(ctx.db, table.id, recordId), 'not_found');
  return {
    record_id: record.record_id,
    app_id: app.id,
    stage: await stageOfRequest(ctx.db, app, record.record_id),
    record: recordToApi(storedRecord(record), columnsOf(table)),
  };
}

/** The stage a request is at: the one it was moved to, else the app's first. */
export async function stageOfRequest(db: Db, app: WorkflowAppRow, recordId: string): Promise<Stage> {
  const stages = stagesOf(app);
  const id = await requestStageId(db, app.id, recordId);
  return stages.find((s) => s.id === id) ?? (stages[0] as Stage);
}

/** The stage a step names: its id or its name (any case), or a reference {name} / {id}. */
export function findStage(app: WorkflowAppRow, ref: unknown): Stage | undefined {
  const stages = stagesOf(app);
  const obj = typeof ref === 'object' && ref !== null && !Array.isArray(ref) ? (ref as Record<string, unknown>) : null;
  const candidates = (obj ? [obj.id, obj.name] : [ref])
    .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
    .map((v) => String(v).trim());
  for (const c of candidates) {
    const hit = stages.find((s) => s.id === c) ?? stages.find((s) => s.name.toLowerCase() === c.toLowerCase());
    if (hit) return hit;
  }
  return undefined;
}

/** Move a request to a stage (the record must exist). */
export async function moveRequest(
  ctx: ServiceContext,
  app: WorkflowAppRow,
  recordId: string,
  stage: Stage,
): Promise<boolean> {
  if (!(await findRecord(ctx.db, app.data_table_id, recordId))) return false;
  await setRequestStage(ctx.db, app.id, recordId, stage.id, toStored(ctx.clock.now()));
  return true;
}

/** The app a step names in the recipe's environment: an id, its name, or a reference {name} (an lcap_app export). */
export async function resolveApp(db: Db, environmentId: number, ref: unknown): Promise<WorkflowAppRow | undefined> {
  if (typeof ref === 'number' || (typeof ref === 'string' && /^[1-9][0-9]{0,15}$/.test(ref.trim())))
    return (await findApp(db, environmentId, Number(ref))) ?? findAppByName(db, environmentId, String(ref));
  if (typeof ref === 'string' && ref.trim() !== '') return findAppByName(db, environmentId, ref);
  if (typeof ref === 'object' && ref !== null && !Array.isArray(ref)) {
    const name = (ref as Record<string, unknown>).name;
    if (typeof name === 'string' && name.trim() !== '') return findAppByName(db, environmentId, name);
  }
  return undefined;
}

export interface AppFunctionCall {
  parameters?: Record<string, unknown>;
  search_query?: string;
  user?: { id?: string | number; name?: string; email?: string; user_groups?: unknown[] };
}

/**
 * Call an app function recipe as a page component does (a drop-down opened, a table loaded, a
 * button clicked): its job runs with the parameters, the search text and the user, and what its
 * `app_function_return` gives back is the answer.
 */
export async function callAppFunction(
  ctx: ServiceContext,
  caller: Caller,
  runtime: AppFunctionRuntime,
  recipeId: number,
  body: AppFunctionCall,
): Promise<{ data: unknown; job_id: string }> {
  requireAllFolders(caller);
  const user = body.user ?? {};
  const outcome = await runtime.callAppFunction(recipeId, caller.environmentId, {
    parameters: body.parameters ?? {},
    search_query: body.search_query ?? null,
    user: {
      id: user.id === undefined ? null : String(user.id),
      name: user.name ?? null,
      email: user.email ?? null,
      status: 'active',
      user_groups: Array.isArray(user.user_groups) ? user.user_groups : [],
    },
  });
  if (outcome.kind === 'not_running') throw new AppError('app_function_not_found');
  if (outcome.kind === 'timeout') throw new AppError('app_function_timeout');
  if (outcome.kind === 'backlog_full')
    throw new AppError('app_function_busy', { retryAfterSeconds: outcome.retryAfterSeconds });
  if (outcome.status === 'failed')
    throw new AppError('app_function_failed', { params: { error: (outcome.error ?? 'failed').slice(0, 500) } });
  return { data: outcome.data, job_id: outcome.jobId };
}
