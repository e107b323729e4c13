// Jobs and their lines as the API reads them (contract 10): lists, counters, one job with its lines,
// and the one mapper to the API shape. The queue's writes are in queue.store.ts and job-ends.store.ts.
import { sql } from 'kysely';
import type { Db, JobLineRow, JobRow, JobState } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import { pendingJobCounts, totalJobCounts } from '../recipes/job-counts.store.ts';

export type ApiJobStatus = 'pending' | 'succeeded' | 'failed';

export function apiStatus(state: JobState): ApiJobStatus {
  if (state === 'queued' || state === 'running' || state === 'waiting') return 'pending';
  return state === 'succeeded' ? 'succeeded' : 'failed';
}

export function statesFor(status: ApiJobStatus): JobState[] {
  return status === 'pending'
    ? ['queued', 'running', 'waiting']
    : status === 'succeeded'
      ? ['succeeded']
      : ['failed', 'canceled'];
}

export async function findJob(db: Db, recipeId: number, handleOrId: string): Promise<JobRow | undefined> {
  let q = db.selectFrom('jobs').selectAll().where('recipe_id', '=', recipeId);
  q = /^\d{1,15}$/.test(handleOrId)
    ? q.where((eb) => eb.or([eb('handle', '=', handleOrId), eb('id', '=', Number(handleOrId))]))
    : q.where('handle', '=', handleOrId);
  return q.executeTakeFirst();
}

/** The jobs a job started (recipe function calls), oldest first: what `wait_for_async_jobs` waits for. */
export async function jobsCalledBy(
  db: Db,
  callingJobHandle: string,
  limit: number,
): Promise<Array<Pick<JobRow, 'handle' | 'recipe_id' | 'status' | 'error'>>> {
  return db
    .selectFrom('jobs')
    .select(['handle', 'recipe_id', 'status', 'error'])
    .where('calling_job_handle', '=', callingJobHandle)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** A job's lines, in order: from job_line_rows (those of job_line_sets, and of job_lines before migration 0083). */
export async function listLines(db: Db, jobId: number): Promise<JobLineRow[]> {
  return db.selectFrom('job_line_rows').selectAll().where('job_id', '=', jobId).orderBy('seq').execute();
}

/** Which of a job's line values are kept whole (job_line_values), as `<seq>:<field>`. */
export async function listLineValueKeys(db: Db, jobId: number): Promise<Set<string>> {
  const rows = await db.selectFrom('job_line_values').select(['seq', 'field']).where('job_id', '=', jobId).execute();
  return new Set(rows.map((row) => `${row.seq}:${row.field}`));
}

/** One line value kept whole, or undefined. */
export async function findLineValue(
  db: Db,
  jobId: number,
  seq: number,
  field: 'input' | 'output',
): Promise<string | undefined> {
  const row = await db
    .selectFrom('job_line_values')
    .select('value')
    .where('job_id', '=', jobId)
    .where('seq', '=', seq)
    .where('field', '=', field)
    .executeTakeFirst();
  return row?.value;
}

export interface JobListFilters {
  status?: ApiJobStatus;
  rerunOnly: boolean;
  /** Test-case jobs left out, or only they; both when not given. */
  testJobs?: 'exclude' | 'only';
}

export async function listJobs(
  db: Db,
  recipeId: number,
  filters: JobListFilters,
  cursor: { job: Pick<JobRow, 'started_at' | 'id'>; newer: boolean } | null,
  perPage: number,
): Promise<JobRow[]> {
  // One query per engine state: each walks its index range (recipe_id, status, started_at, id) in
  // order from the cursor and stops after a page, however many jobs the recipe has; the pages are
  // merged here. The cursor is a row-value comparison, so it bounds the index range (an OR of two
  // comparisons would not).
  const states = filters.status ? statesFor(filters.status) : [null];
  const pages = await Promise.all(
    states.map((state) => {
      let q = db.selectFrom('jobs').selectAll().where('recipe_id', '=', recipeId);
      if (state !== null) q = q.where('status', '=', state);
      if (filters.rerunOnly) q = q.where('is_repeat', '=', 1);
      if (filters.testJobs !== undefined) q = q.where('is_test', '=', filters.testJobs === 'only' ? 1 : 0);
      if (cursor) {
        const { started_at: at, id } = cursor.job;
        q = q.where((eb) => eb(eb.refTuple('started_at', 'id'), cursor.newer ? '>' : '<', eb.tuple(at, id)));
      }
      const direction = cursor?.newer ? 'asc' : 'desc';
      return q.orderBy('started_at', direction).orderBy('id', direction).limit(perPage).execute();
    }),
  );
  const newestFirst = (a: JobRow, b: JobRow) =>
    a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : b.id - a.id;
  const rows =
    pages.length === 1
      ? (pages[0] as JobRow[])
      : pages
          .flat()
          .sort((a, b) => (cursor?.newer ? -newestFirst(a, b) : newestFirst(a, b)))
          .slice(0, perPage);
  // The page of jobs just newer than the cursor is read oldest first, and shown newest first like every page.
  return cursor?.newer ? rows.reverse() : rows;
}

export interface JobCounters {
  succeeded: number;
  failed: number;
  pending: number;
}

/**
 * The recipe's lifetime counters and its pending jobs, read in one statement so they agree. The
 * counters outlive the jobs that retention deletes; pending jobs are never deleted.
 */
export async function jobCounters(db: Db, recipeId: number): Promise<JobCounters> {
  const row = await db
    .selectFrom('recipes as r')
    .leftJoin(pendingJobCounts(db).as('c'), 'c.recipe_id', 'r.id')
    .select((eb) => [
      'r.job_succeeded_count',
      'r.job_failed_count',
      'r.lifetime_task_count',
      'c.succeeded',
      'c.failed',
      'c.task_count',
      eb
        .selectFrom('jobs as j')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('j.status', 'in', ['queued', 'running', 'waiting'])
        .whereRef('j.recipe_id', '=', 'r.id')
        .as('pending'),
    ])
    .where('r.id', '=', recipeId)
    .executeTakeFirstOrThrow();
  const { succeeded, failed } = totalJobCounts(row, row);
  return { succeeded, failed, pending: Number(row.pending ?? 0) };
}

/** Jobs of the recipe still kept (not deleted by retention) under these filters. */
export async function countRetainedJobs(db: Db, recipeId: number, filters: JobListFilters): Promise<number> {
  let q = db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('recipe_id', '=', recipeId);
  if (filters.status) q = q.where('status', 'in', statesFor(filters.status));
  if (filters.rerunOnly) q = q.where('is_repeat', '=', 1);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export interface ErrorPartsApi {
  adapter: string | null;
  error_type: string;
  message: string;
  error_id: string;
  error_at: string;
  input: string;
  inner_message: string | null;
}

export interface JobApi {
  id: string;
  flow_run_id: number;
  recipe_id: number;
  title: string;
  status: ApiJobStatus;
  started_at: string;
  completed_at: string | null;
  is_error: boolean;
  is_poll_error: boolean;
  error: string | null;
  error_parts?: ErrorPartsApi;
  master_job_id: string | null;
  calling_recipe_id: number | null;
  calling_job_id: string | null;
  root_recipe_id: number | null;
  root_job_id: string | null;
}

export interface JobDetailApi extends JobApi {
  handle: string;
  is_repeat: boolean;
  is_test: boolean;
  is_test_case_job: boolean;
  master_job_handle: string | null;
  calling_job_handle: string | null;
  lines: LineApi[];
}

export interface LineApi {
  recipe_line_number: number;
  adapter_name: string;
  adapter_operation: string;
  mask_data: boolean;
  error?: string;
  line_stat: { total: number; started_at: string; completed_at: string };
}

function errorPartsOf(text: string | null): ErrorPartsApi | undefined {
  if (!text) return undefined;
  try {
    const p = JSON.parse(text) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return {
      adapter: str(p.adapter),
      error_type: str(p.error_type) ?? 'Error',
      message: str(p.message) ?? '',
      error_id: str(p.error_id) ?? '',
      error_at: toApiTimestamp(str(p.error_at) ?? new Date(0).toISOString()),
      input: '<redacted>',
      inner_message: str(p.inner_message),
    };
  } catch {
    return undefined;
  }
}

export function jobToApi(row: JobRow): JobApi {
  const failed = row.status === 'failed' || row.status === 'canceled';
  const parts = failed ? errorPartsOf(row.error_parts) : undefined;
  return {
    id: row.handle,
    flow_run_id: row.id,
    recipe_id: row.recipe_id,
    title: row.title,
    status: apiStatus(row.status),
    started_at: toApiTimestamp(row.started_at),
    completed_at: toApiTimestamp(row.completed_at),
    is_error: failed,
    is_poll_error: row.is_poll_error === 1,
    error: failed ? row.error : null,
    ...(parts ? { error_parts: parts } : {}),
    master_job_id: row.master_job_handle,
    calling_recipe_id: row.calling_recipe_id,
    calling_job_id: row.calling_job_handle,
    root_recipe_id: row.root_recipe_id,
    root_job_id: row.root_job_handle,
  };
}

export function jobDetailToApi(row: JobRow, lines: JobLineRow[]): JobDetailApi {
  return {
    ...jobToApi(row),
    handle: row.handle,
    is_repeat: row.is_repeat === 1,
    is_test: row.is_test === 1,
    is_test_case_job: row.is_test === 1,
    master_job_handle: row.master_job_handle,
    calling_job_handle: row.calling_job_handle,
    lines: lines.map((line) => ({
      recipe_line_number: line.recipe_line_number,
      adapter_name: line.adapter_name,
      adapter_operation: line.adapter_operation,
      mask_data: line.mask_data === 1,
      ...(line.error !== null ? { error: line.error } : {}),
      line_stat: {
        total: Math.max(0, Date.parse(line.completed_at) - Date.parse(line.started_at)) / 1000,
        started_at: toApiTimestamp(line.started_at),
        completed_at: toApiTimestamp(line.completed_at),
      },
    })),
  };
}

export async function findJobById(db: Db, id: number): Promise<JobRow> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Cancel a job still queued (repeat and cancel routes); false when it was claimed or ended meanwhile. */
export async function cancelQueuedJob(db: Db, id: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: 'canceled',
      error: 'Canceled: the job was canceled before it ran',
      error_parts: JSON.stringify({
        adapter: 'workato',
        error_type: 'Canceled',
        message: 'the job was canceled before it ran',
        error_at: now,
        input: '<redacted>',
        inner_message: null,
      }),
      completed_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Pending (queued, running or waiting for a workflow task) jobs of a recipe, oldest first. */
export async function pendingJobsOf(db: Db, recipeId: number, limit: number): Promise<JobRow[]> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('recipe_id', '=', recipeId)
    .where('status', 'in', ['queued', 'running', 'waiting'])
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Finished jobs of an environment per minute since a time (the console's dashboard chart). */
export async function jobsPerMinute(
  db: Db,
  environmentId: number,
  since: string,
  folderIds: readonly number[] | null,
): Promise<Array<{ minute: string; status: string; n: number }>> {
  if (folderIds !== null && folderIds.length === 0) return [];
  let q = db
    .selectFrom('jobs as j')
    .innerJoin('recipes as r', 'r.id', 'j.recipe_id')
    .select((eb) => [
      eb.fn<string>('substr', ['j.completed_at', eb.val(1), eb.val(16)]).as('minute'),
      'j.status',
      eb.fn.countAll<number | string>().as('n'),
    ])
    .where('j.completed_at', '>=', since)
    .where('j.status', 'in', ['succeeded', 'failed'])
    .where('r.environment_id', '=', environmentId);
  if (folderIds !== null) q = q.where('r.folder_id', 'in', folderIds);
  const rows = await q.groupBy(['minute', 'j.status']).execute();
  return rows.map((r) => ({ minute: r.minute, status: r.status, n: Number(r.n) }));
}

/** The latest failed jobs of an environment, with their recipe's name. */
export async function recentFailedJobs(
  db: Db,
  environmentId: number,
  folderIds: readonly number[] | null,
  limit: number,
) {
  if (folderIds !== null && folderIds.length === 0) return [];
  return recentFailedJobsQuery(db, environmentId, folderIds, limit).execute();
}

/**
 * recentFailedJobs's query. The status is a literal, not a parameter: on PostgreSQL the index of
 * failed jobs holds those only (migration 0085), and a plan made once for any value of a parameter
 * (the generic plan of a statement run often) could not use it.
 */
export function recentFailedJobsQuery(
  db: Db,
  environmentId: number,
  folderIds: readonly number[] | null,
  limit: number,
) {
  let q = db
    .selectFrom('jobs as j')
    .innerJoin('recipes as r', 'r.id', 'j.recipe_id')
    .select(['j.handle', 'j.recipe_id', 'j.title', 'j.error', 'j.completed_at', 'r.name as recipe_name', 'r.folder_id'])
    .where('j.status', '=', sql.lit('failed'))
    .where('r.environment_id', '=', environmentId);
  if (folderIds !== null) q = q.where('r.folder_id', 'in', folderIds);
  return q.orderBy('j.completed_at', 'desc').limit(limit);
}
