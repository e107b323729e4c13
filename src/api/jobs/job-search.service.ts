// The console's job search: a job by its id, jobs by words of their title, by status, and a jump
// to a date (the jobs started on or before it, UTC), each a page of the recipe's job list.
import type { ServiceContext } from '../../context.ts';
import { AppError, invalid } from '../../errors.ts';
import type { Caller } from '../recipes/recipes.service.ts';
import { visibleRecipe } from './jobs.service.ts';
import { findJob, jobToApi, listJobs, type ApiJobStatus, type JobApi } from './jobs.store.ts';
import { searchJobTitles } from './job-search.store.ts';

/** Jobs a title search reads at most per page, newest first: its cost whatever the recipe's history. */
export const TITLE_SEARCH_WINDOW = 5_000;

export interface JobSearchQuery {
  /** A job's id (its handle or number), else words of its title. */
  q?: string | undefined;
  status?: ApiJobStatus | undefined;
  /** A job's handle or number: the page starts after it (older). */
  after?: string | undefined;
  /** `YYYY-MM-DD`: the page starts with the jobs started on or before that day (UTC). */
  date?: string | undefined;
  testJobs: 'exclude' | 'only';
  perPage: number;
}

export interface JobSearchResult {
  /** Up to perPage + 1 jobs (one more tells there is a page beyond). */
  items: JobApi[];
  /** The job named by the query's id. */
  byId: boolean;
  /** A title search stopped at this job: older jobs are searched from it. */
  searchedTo: { id: string; started_at: string } | null;
}

export async function searchJobs(
  ctx: ServiceContext,
  caller: Caller,
  recipeId: number,
  query: JobSearchQuery,
): Promise<JobSearchResult> {
  const recipe = await visibleRecipe(ctx, caller, recipeId);
  let from: { started_at: string; id: number } | null = null;
  if (query.after !== undefined && query.after !== '') {
    const job = await findJob(ctx.db, recipe.id, query.after.slice(0, 100));
    if (!job) throw new AppError('offset_job_not_found', { errors: { after: ['is not a job of this recipe'] } });
    from = job;
  } else if (query.date !== undefined && query.date !== '') {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(query.date) ? Date.parse(`${query.date}T00:00:00.000Z`) : NaN;
    if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== query.date)
      throw invalid({ date: ['must be a day as YYYY-MM-DD'] });
    from = { started_at: new Date(day + 86_400_000).toISOString(), id: 0 };
  }
  const text = (query.q ?? '').trim().slice(0, 200);
  if (text !== '' && from === null) {
    const job = await findJob(ctx.db, recipe.id, text);
    if (job) return { items: [jobToApi(job)], byId: true, searchedTo: null };
  }
  if (text === '') {
    const rows = await listJobs(
      ctx.db,
      recipe.id,
      { ...(query.status ? { status: query.status } : {}), rerunOnly: false, testJobs: query.testJobs },
      from ? { job: from, newer: false } : null,
      query.perPage + 1,
    );
    return { items: rows.map((row) => jobToApi(row)), byId: false, searchedTo: null };
  }
  const { rows, edge } = await searchJobTitles(
    ctx.db,
    recipe.id,
    { text, status: query.status, testJobs: query.testJobs },
    from,
    query.perPage + 1,
    TITLE_SEARCH_WINDOW,
  );
  return {
    items: rows.map((row) => jobToApi(row)),
    byId: false,
    searchedTo: edge && rows.length <= query.perPage ? { id: edge.handle, started_at: edge.started_at } : null,
  };
}
