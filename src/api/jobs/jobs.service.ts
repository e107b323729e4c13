// Jobs of a recipe (contract 10): the list with its counters and cursor paging, and one job with
// its lines. Step input and output are stored but never returned (10 §1).
import type { ServiceContext } from '../../context.ts';
import type { JobLineRow, JobRow, RecipeRow } from '../../db/types.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { recordActivity, type Actor } from '../activity_logs/activity.ts';
import { findFolderInScope, folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import { findRecipe, findRecipeVersionContent } from '../recipes/recipes.store.ts';
import type { Caller } from '../recipes/recipes.service.ts';
import {
  countRetainedJobs,
  findJob,
  pendingJobsOf,
  jobCounters,
  jobDetailToApi,
  jobToApi,
  listJobs as listJobRows,
  listLines,
  listLineValueKeys,
  findLineValue,
  jobsPerMinute,
  recentFailedJobs,
  type ApiJobStatus,
  type JobApi,
  type JobDetailApi,
} from './jobs.store.ts';

export interface JobListQuery {
  offset_job_id?: string;
  prev?: string;
  status?: string;
  rerun_only?: string;
  per_page?: string;
  failed?: string;
  /** The console's view: a recipe's own jobs, or its test-case jobs. */
  test_jobs?: 'exclude' | 'only';
}

export interface JobList {
  job_succeeded_count: number;
  job_failed_count: number;
  job_count: number;
  job_scope_count: number;
  items: JobApi[];
}

const STATUSES: readonly ApiJobStatus[] = ['succeeded', 'failed', 'pending'];
const MAX_PER_PAGE = 100;

async function visibleRecipe(ctx: ServiceContext, caller: Caller, recipeId: number) {
  const recipe = assertFound(await findRecipe(ctx.db, caller.environmentId, recipeId));
  if (
    !caller.allFolders &&
    (await findFolderInScope(ctx.db, caller.environmentId, caller, recipe.folder_id)) === undefined
  )
    throw new AppError('not_found');
  return recipe;
}

function bool(value: string | undefined, field: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw invalid({ [field]: ['must be true or false'] });
}

export async function listJobs(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  query: JobListQuery,
): Promise<JobList> {
  const recipe = await visibleRecipe(ctx, caller, recipeId);
  let status: ApiJobStatus | undefined;
  if (query.status !== undefined && query.status !== '') {
    if (!(STATUSES as readonly string[]).includes(query.status))
      throw invalid({ status: [`must be one of ${STATUSES.join(', ')}`] });
    status = query.status as ApiJobStatus;
  } else if (bool(query.failed, 'failed')) status = 'failed';
  let perPage = MAX_PER_PAGE;
  if (query.per_page !== undefined && query.per_page !== '') {
    if (!/^\d{1,9}$/.test(query.per_page.trim()) || Number(query.per_page) < 1)
      throw invalid({ per_page: ['must be a whole number from 1'] });
    perPage = Math.min(Number(query.per_page), MAX_PER_PAGE);
  }
  const rerunOnly = bool(query.rerun_only, 'rerun_only');
  const newer = bool(query.prev, 'prev');
  let cursor = null;
  if (query.offset_job_id !== undefined && query.offset_job_id !== '') {
    const job = await findJob(ctx.db, recipe.id, query.offset_job_id.slice(0, 100));
    if (!job)
      throw new AppError('offset_job_not_found', { errors: { offset_job_id: ['is not a job of this recipe'] } });
    cursor = { job, newer };
  }
  const filters = {
    ...(status ? { status } : {}),
    rerunOnly,
    ...(query.test_jobs ? { testJobs: query.test_jobs } : {}),
  };
  const [rows, counters] = await Promise.all([
    listJobRows(ctx.db, recipe.id, filters, cursor, perPage),
    jobCounters(ctx.db, recipe.id),
  ]);
  // The counters are lifetime counts (retention deletes old jobs, not their count), so
  // job_count = succeeded + failed + pending keeps `job_count >= job_succeeded_count +
  // job_failed_count`. A status filter counts from the same counters; rerun_only counts the jobs kept.
  const all = counters.succeeded + counters.failed + counters.pending;
  const byStatus = { succeeded: counters.succeeded, failed: counters.failed, pending: counters.pending };
  const scope = rerunOnly ? await countRetainedJobs(ctx.db, recipe.id, filters) : status ? byStatus[status] : all;
  return {
    job_succeeded_count: counters.succeeded,
    job_failed_count: counters.failed,
    job_count: all,
    job_scope_count: scope,
    items: rows.map((row) => jobToApi(row)),
  };
}

/** Finished jobs per minute over the last hours and the latest failures, of the recipes the caller sees (the console's dashboard). */
export async function jobActivity(
  ctx: ServiceContext,
  caller: Caller,
  hours: number,
): Promise<{
  perMinute: Array<{ minute: string; status: string; n: number }>;
  failures: Awaited<ReturnType<typeof recentFailedJobs>>;
}> {
  const folderIds = caller.allFolders
    ? null
    : await folderIdsUnderProjects(ctx.db, caller.environmentId, caller.folderIds);
  const since = new Date(ctx.clock.now().getTime() - hours * 3600_000).toISOString();
  const [perMinute, failures] = await Promise.all([
    jobsPerMinute(ctx.db, caller.environmentId, since, folderIds),
    recentFailedJobs(ctx.db, caller.environmentId, folderIds, 10),
  ]);
  return { perMinute, failures };
}

/** A job with its stored lines, step input and output included (the web console shows them; the API never does). */
export async function getJobWithSteps(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  handle: string,
): Promise<{
  recipe: RecipeRow;
  job: JobDetailApi;
  lines: JobLineRow[];
  wholeValues: Set<string>;
  /** The steps the job ran: its recipe version's code (the current one for a job stored before migration 0076, or a version no longer kept). */
  version: { versionNo: number; code: string; own: boolean };
}> {
  const recipe = await visibleRecipe(ctx, caller, recipeId);
  const job = assertFound(await findJob(ctx.db, recipe.id, handle));
  const [lines, wholeValues, ran] = await Promise.all([
    listLines(ctx.db, job.id),
    listLineValueKeys(ctx.db, job.id),
    job.recipe_version_no === null || job.recipe_version_no === recipe.version_no
      ? undefined
      : findRecipeVersionContent(ctx.db, recipe.id, job.recipe_version_no),
  ]);
  const version = ran
    ? { versionNo: ran.version_no, code: ran.code, own: true }
    : { versionNo: recipe.version_no, code: recipe.code, own: job.recipe_version_no === recipe.version_no };
  return { recipe, job: jobDetailToApi(job, lines), lines, wholeValues, version };
}

/** A step line's input or output kept whole (over 100,000 characters, so the line has its size only). */
export async function getJobLineValue(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  handle: string,
  seq: number,
  field: 'input' | 'output',
): Promise<{ job: JobRow; value: string }> {
  const recipe = await visibleRecipe(ctx, caller, recipeId);
  const job = assertFound(await findJob(ctx.db, recipe.id, handle));
  return { job, value: assertFound(await findLineValue(ctx.db, job.id, seq, field)) };
}

/** A job with its lines and its trigger's event as stored (whole: a line keeps 100 KB of it). */
export async function getJobTriggerEvent(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  handle: string,
): Promise<{ job: JobRow; lines: JobLineRow[]; event: string }> {
  const recipe = await visibleRecipe(ctx, caller, recipeId);
  const job = assertFound(await findJob(ctx.db, recipe.id, handle));
  return { job, lines: await listLines(ctx.db, job.id), event: job.trigger_output };
}

export async function getJob(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  handle: string,
): Promise<JobDetailApi> {
  const recipe = await visibleRecipe(ctx, caller, recipeId);
  const job = assertFound(await findJob(ctx.db, recipe.id, handle));
  return jobDetailToApi(job, await listLines(ctx.db, job.id));
}

/** What the job control routes need of the recipe engine. */
export interface JobControl {
  repeatJob(row: RecipeRow, original: JobRow): Promise<string | null>;
  cancelJob(row: RecipeRow, job: JobRow): Promise<'canceled' | 'canceling' | 'not_pending'>;
}

export interface JobControlResult {
  job_id: string;
  status: 'enqueued' | 'canceled' | 'canceling' | 'failed';
  new_job_id?: string;
  error?: string;
}

/** At most this many job ids a call (contract 10 §5). */
export const MAX_JOB_IDS = 25;

function jobIdsOf(value: unknown, required: boolean): string[] | null {
  if (value === undefined || value === null) {
    if (required) throw invalid({ job_ids: ["can't be blank"] });
    return null;
  }
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => typeof v === 'string' && v !== '' && v.length <= 64)
  )
    throw invalid({ job_ids: ['must be a non-empty list of job ids'] });
  if (value.length > MAX_JOB_IDS)
    throw invalid({ job_ids: [`holds ${value.length} ids; at most ${MAX_JOB_IDS} a call`] });
  return [...new Set(value as string[])];
}

/** Run finished jobs again (POST /api/recipes/:id/repeat_jobs): each id gets its own result. */
export async function repeatJobs(
  ctx: ServiceContext,
  engine: JobControl,
  caller: Caller,
  recipeId: number,
  body: { job_ids?: unknown },
  actor: Actor,
): Promise<{ results: JobControlResult[] }> {
  const row = await visibleRecipe(ctx, caller, recipeId);
  const ids = jobIdsOf(body.job_ids, true) as string[];
  const results: JobControlResult[] = [];
  for (const id of ids) {
    const job = await findJob(ctx.db, row.id, id);
    if (!job) results.push({ job_id: id, status: 'failed', error: 'no such job of this recipe' });
    else if (job.is_test === 1)
      results.push({ job_id: id, status: 'failed', error: 'a test case job is run again by running its test case' });
    else if (job.status === 'queued' || job.status === 'running')
      results.push({ job_id: id, status: 'failed', error: 'the job has not finished' });
    else if (row.running !== 1)
      results.push({ job_id: id, status: 'failed', error: 'the recipe is stopped: start it to run jobs again' });
    else {
      const handle = await engine.repeatJob(row, job);
      results.push(
        handle === null
          ? { job_id: id, status: 'failed', error: "the recipe's trigger filter refused the event" }
          : { job_id: id, status: 'enqueued', new_job_id: handle },
      );
    }
  }
  await recordJobControl(ctx, actor, row, 'jobs_repeated', results);
  return { results };
}

/**
 * One activity entry for a call that ran or canceled jobs (none when every id failed). The new jobs
 * are written by the engine's own queue transactions, so the entry follows them.
 */
async function recordJobControl(
  ctx: ServiceContext,
  actor: Actor,
  recipe: RecipeRow,
  eventType: 'jobs_repeated' | 'jobs_canceled',
  results: readonly JobControlResult[],
): Promise<void> {
  const done = results.filter((r) => r.status !== 'failed');
  if (done.length === 0) return;
  await ctx.groupCommit.run((trx) =>
    recordActivity(trx, ctx.clock, actor, {
      eventType,
      resourceType: 'recipe',
      resourceId: recipe.id,
      resourceName: recipe.name,
      details: {
        job_ids: done.map((r) => r.job_id),
        ...(eventType === 'jobs_repeated' ? { new_job_ids: done.map((r) => r.new_job_id ?? null) } : {}),
        failed: results.length - done.length,
      },
    }),
  );
}

/** Cancel pending jobs (POST /api/recipes/:id/cancel_jobs): the ones named, or every pending one. */
export async function cancelJobs(
  ctx: ServiceContext,
  engine: JobControl,
  caller: Caller,
  recipeId: number,
  body: { job_ids?: unknown },
  actor: Actor,
): Promise<{ results: JobControlResult[] }> {
  const row = await visibleRecipe(ctx, caller, recipeId);
  const ids = jobIdsOf(body.job_ids, false);
  const jobs: Array<JobRow | string> =
    ids === null
      ? await pendingJobsOf(ctx.db, row.id, 1000)
      : await Promise.all(ids.map(async (id) => (await findJob(ctx.db, row.id, id)) ?? id));
  const results: JobControlResult[] = [];
  for (const job of jobs) {
    if (typeof job === 'string') {
      results.push({ job_id: job, status: 'failed', error: 'no such job of this recipe' });
      continue;
    }
    const outcome = await engine.cancelJob(row, job);
    results.push(
      outcome === 'not_pending'
        ? { job_id: job.handle, status: 'failed', error: 'the job has already ended' }
        : { job_id: job.handle, status: outcome },
    );
  }
  await recordJobControl(ctx, actor, row, 'jobs_canceled', results);
  return { results };
}
