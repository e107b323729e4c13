// Calls that wait for a job of another recipe: `call_recipe` / `call_recipe_async` from a step
// (workato_recipe_function) and calls of recipe-backed API endpoints from the gateway.
import type { Db, JobRow, RecipeRow } from '../db/types.ts';
import { findFolderNames } from '../api/folders/folders.store.ts';
import { findRecipeById, findRecipeInEnvironment, findRecipesByName } from '../api/recipes/recipes.store.ts';
import { jobsCalledBy } from '../api/jobs/jobs.store.ts';
import { StepError, type CalledJob, type CallOutcome, type EngineLimits } from './connectors/types.ts';
import { toPlain, isHash, newHash, type Hash, type Value } from '../recipe/formula/values.ts';
import { BACKLOG_RETRY_AFTER_SECONDS } from './backlog.ts';
import type { EnqueueMeta, JobQueue } from './queue.ts';
import { SKILL_TRIGGERS } from '../recipe/tool-schema.ts';

/** Providers whose trigger makes a recipe callable: recipe functions, and the older callable recipes. */
export const CALLABLE_PROVIDERS: ReadonlySet<string> = new Set(['workato_recipe_function', 'workato_service']);

/** Whether a step calls another recipe (its flow_id names a callable recipe). */
export function isRecipeCall(provider: string | null, name: string | null): boolean {
  return (
    (provider === 'workato_recipe_function' && (name === 'call_recipe' || name === 'call_recipe_async')) ||
    (provider === 'workato_service' && (name === 'call_service' || name === 'call_service_async'))
  );
}

/** What the gateway gets for a call of a recipe-backed endpoint. */
export type ApiCallOutcome =
  | { kind: 'not_running' }
  | { kind: 'invalid'; problems: string[] }
  | { kind: 'backlog_full'; retryAfterSeconds: number }
  | { kind: 'timeout' }
  | { kind: 'done'; status: 'succeeded' | 'failed'; response: { status: number; body: unknown } | null };

export interface RecipeCallDeps {
  db: Db;
  queue: JobQueue;
  limits: EngineLimits;
}

/**
 * The recipe a `flow_id` names, in the caller's environment: an id, or a {name, folder} reference.
 * Several recipes of one name (a project imported twice, into two folders): the one in the caller's
 * own project wins, then the one whose folder has the reference's folder name, then the first.
 */
export async function resolveFlow(
  db: Db,
  caller: Pick<RecipeRow, 'environment_id' | 'folder_id'>,
  flow: Value,
): Promise<RecipeRow | undefined> {
  if (typeof flow === 'number' || (typeof flow === 'string' && /^\d{1,15}$/.test(flow)))
    return findRecipeInEnvironment(db, caller.environment_id, Number(flow));
  if (!isHash(flow)) return undefined;
  const name = flow.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const candidates = await findRecipesByName(db, caller.environment_id, name);
  if (candidates.length <= 1) return candidates[0];
  const folders = await findFolderNames(db, [caller.folder_id, ...candidates.map((c) => c.folder_id)]);
  const folderOf = (id: number) => folders.find((f) => f.id === id);
  const callerProject = folderOf(caller.folder_id)?.project_id ?? null;
  const inProject =
    callerProject === null ? [] : candidates.filter((c) => folderOf(c.folder_id)?.project_id === callerProject);
  const pool = inProject.length > 0 ? inProject : candidates;
  const folderName = typeof flow.folder === 'string' ? flow.folder : null;
  const named = folderName === null ? undefined : pool.find((c) => folderOf(c.folder_id)?.name === folderName);
  return named ?? pool[0];
}

export async function callRecipe(
  deps: RecipeCallDeps,
  caller: RecipeRow,
  job: JobRow,
  flow: Value,
  parameters: Value,
  wait: boolean,
): Promise<CallOutcome> {
  const { queue, limits } = deps;
  const target = await resolveFlow(deps.db, caller, flow);
  if (!target)
    throw new StepError(
      'Bad request',
      `the recipe function ${JSON.stringify(toPlain(flow)).slice(0, 120)} does not exist in this environment`,
    );
  if (
    !CALLABLE_PROVIDERS.has(target.trigger_application ?? '') &&
    !SKILL_TRIGGERS.has(target.trigger_application ?? '')
  )
    throw new StepError('Bad request', `recipe ${target.id} is not a recipe function`);
  if (target.running !== 1) throw new StepError('Bad request', `the recipe function "${target.name}" is not running`);
  const event = newHash([
    ['parameters', isHash(parameters) ? parameters : newHash()],
    ['calling_job_id', job.handle],
    ['calling_recipe_id', caller.id],
  ]);
  const meta: EnqueueMeta = {
    callingRecipeId: caller.id,
    callingJobHandle: job.handle,
    rootRecipeId: job.root_recipe_id ?? caller.id,
    rootJobHandle: job.root_job_handle ?? job.handle,
  };
  if (!wait) {
    const handle = await queue.enqueue(target, event, meta);
    return { recipeId: target.id, jobId: handle ?? '', result: null };
  }
  queue.releaseWorkerSlot();
  queue.kick();
  try {
    const { handle, outcome } = await queue.submitAndWait(target, event, meta, limits.callTimeoutMs);
    if (outcome === null)
      throw new StepError(
        'Timeout',
        `the recipe function "${target.name}" did not finish within ${limits.callTimeoutMs} ms`,
      );
    if (outcome.status === 'failed')
      throw new StepError(
        'Recipe function error',
        `the recipe function "${target.name}" failed: ${outcome.error ?? 'unknown error'}`,
      );
    return { recipeId: target.id, jobId: handle, result: outcome.end?.kind === 'result' ? outcome.end.value : null };
  } finally {
    queue.retakeWorkerSlot();
  }
}

const MAX_CALLED_JOBS = 1000;
const CALL_POLL_MS = 100;

/**
 * Wait until every job `job` started (its recipe function calls, sync and async) has ended, or the
 * timeout passed; the jobs as they are then. The jobs are read from the database, so they may run
 * on any node; the waiting job gives up its worker slot meanwhile, as a synchronous call does.
 */
export async function waitForCalledJobs(
  deps: RecipeCallDeps,
  job: JobRow,
  timeoutMs: number,
  sleep: (ms: number) => Promise<void>,
): Promise<CalledJob[]> {
  const deadline = Date.now() + timeoutMs;
  const read = async () =>
    (await jobsCalledBy(deps.db, job.handle, MAX_CALLED_JOBS)).map((r): CalledJob => ({
      jobId: r.handle,
      recipeId: r.recipe_id,
      status: r.status,
      error: r.error,
    }));
  let jobs = await read();
  if (!jobs.some(isPending)) return jobs;
  deps.queue.releaseWorkerSlot();
  deps.queue.kick();
  try {
    while (jobs.some(isPending) && Date.now() < deadline) {
      await sleep(Math.max(1, Math.min(CALL_POLL_MS, deadline - Date.now())));
      jobs = await read();
    }
    return jobs;
  } finally {
    deps.queue.retakeWorkerSlot();
  }
}

function isPending(j: CalledJob): boolean {
  return j.status === 'queued' || j.status === 'running' || j.status === 'waiting';
}

/** What a page's component gets from an app function recipe (workato_workflow_task app_function_* triggers). */
export type AppFunctionOutcome =
  | { kind: 'not_running' }
  | { kind: 'timeout' }
  | { kind: 'backlog_full'; retryAfterSeconds: number }
  | { kind: 'done'; status: 'succeeded' | 'failed'; data: unknown; error: string | null; jobId: string };

/**
 * A call of an app function: one job of the recipe, admitted within the backlog as API calls are,
 * waited for until `app_function_return` ends it (its data), it ends without one (null), or the timeout.
 */
export async function receiveAppFunctionCall(
  deps: RecipeCallDeps,
  row: RecipeRow | undefined,
  environmentId: number,
  event: Hash,
  timeoutMs: number,
): Promise<AppFunctionOutcome> {
  if (
    !row ||
    row.environment_id !== environmentId ||
    row.running !== 1 ||
    row.trigger_application !== 'workato_workflow_task'
  )
    return { kind: 'not_running' };
  const { handle, outcome, refused } = await deps.queue.submitAndWait(row, event, {}, timeoutMs, true);
  if (refused) return { kind: 'backlog_full', retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS };
  if (outcome === null) return { kind: 'timeout' };
  return {
    kind: 'done',
    status: outcome.status,
    data: outcome.end?.kind === 'response' ? toPlain(outcome.end.value) : null,
    error: outcome.error,
    jobId: handle,
  };
}

export async function receiveApiRequest(
  deps: RecipeCallDeps,
  recipeId: number,
  environmentId: number,
  event: Hash,
  timeoutMs: number,
): Promise<ApiCallOutcome> {
  const row = await findRecipeById(deps.db, recipeId);
  if (
    !row ||
    row.environment_id !== environmentId ||
    row.running !== 1 ||
    row.trigger_application !== 'workato_api_platform'
  )
    return { kind: 'not_running' };
  const { outcome, refused } = await deps.queue.submitAndWait(row, event, {}, timeoutMs, true);
  if (refused) return { kind: 'backlog_full', retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS };
  if (outcome === null) return { kind: 'timeout' };
  const end = outcome.end;
  if (end?.kind === 'response' && isHash(end.value)) {
    const status = Number(end.value.http_status_code ?? 200);
    return {
      kind: 'done',
      status: outcome.status,
      response: { status: Number.isInteger(status) ? status : 200, body: toPlain(end.value.response ?? null) },
    };
  }
  return { kind: 'done', status: outcome.status, response: null };
}

/** What an MCP tool call of a skill recipe gets. */
export type SkillCallOutcome =
  | { kind: 'not_running' }
  | { kind: 'backlog_full'; retryAfterSeconds: number }
  | { kind: 'timeout'; jobId: string }
  | { kind: 'done'; jobId: string; status: 'succeeded' | 'failed'; result: unknown; error: string | null };

/** A call of a skill recipe from outside (an MCP client): stored as a job of the recipe, answered with its result. */
export async function receiveSkillCall(
  deps: RecipeCallDeps,
  recipeId: number,
  environmentId: number,
  event: Hash,
  timeoutMs: number,
): Promise<SkillCallOutcome> {
  const row = await findRecipeById(deps.db, recipeId);
  if (
    !row ||
    row.environment_id !== environmentId ||
    row.running !== 1 ||
    !SKILL_TRIGGERS.has(row.trigger_application ?? '')
  )
    return { kind: 'not_running' };
  const { handle, outcome, refused } = await deps.queue.submitAndWait(row, event, {}, timeoutMs, true);
  if (refused) return { kind: 'backlog_full', retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS };
  if (outcome === null) return { kind: 'timeout', jobId: handle };
  return {
    kind: 'done',
    jobId: handle,
    status: outcome.status,
    result: outcome.end?.kind === 'result' ? toPlain(outcome.end.value) : null,
    error: outcome.error ?? null,
  };
}
