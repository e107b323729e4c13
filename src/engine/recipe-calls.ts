// Calls that wait for a job of another recipe: `call_recipe` / `call_recipe_async` from a step
// (workato_recipe_function) and calls of recipe-backed API endpoints from the gateway.
import type { Db, JobRow, RecipeRow } from '../db/types.ts';
import { findFolderNames } from '../api/folders/folders.store.ts';
import { findRecipeById, findRecipeInEnvironment, findRecipesByName } from '../api/recipes/recipes.store.ts';
import { StepError, type CallOutcome, type EngineLimits } from './connectors/types.ts';
import { toPlain, isHash, newHash, type Hash, type Value } from '../recipe/formula/values.ts';
import { BACKLOG_RETRY_AFTER_SECONDS } from './backlog.ts';
import type { EnqueueMeta, JobQueue } from './queue.ts';

/** What the gateway gets for a call of a recipe-backed endpoint. */
export type ApiCallOutcome =
  | { kind: 'not_running' }
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
  if (target.trigger_application !== 'workato_recipe_function')
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
