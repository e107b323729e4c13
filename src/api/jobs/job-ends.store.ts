// The end of a job: its row, its lines and its recipe's counters (appended to recipe_job_counts,
// src/api/recipes/job-counts.store.ts) in one write, and the claim of the recipe's next jobs; on
// PostgreSQL a batch of ends is one call of switchboard_job_ends_9.
import { sql } from 'kysely';
import type { Db, JobLineRow, JobRow } from '../../db/types.ts';
import { ADVISORY_LOCKS, runsStoredFunctions } from '../../db/dialect.ts';
import { pgArray } from '../../db/pg-arrays.ts';
import { storableTextOrNull } from '../../db/text.ts';
import { appendJobCounts, type JobCountsDelta } from '../recipes/job-counts.store.ts';
import {
  type JobClaim,
  claimJobs,
  type JobResult,
  finishJob,
  insertLines,
  joinedLines,
  lineSets,
} from './queue.store.ts';

/** What a job's end writes: its lines, its end state, and (unless a test case's) its recipe's counters. */
export type JobEnd = {
  id: number;
  lines: JobLineRow[];
  result: JobResult;
  counters: { recipeId: number; succeeded: boolean; taskCount: number; lastRunAt: string } | null;
};

/** A job's state and lines, one statement each in the caller's transaction (recordEachEnd). */
async function recordJobEnd(db: Db, end: JobEnd): Promise<void> {
  await finishJob(db, end.id, end.result);
  await insertLines(db, end.lines);
}

/**
 * The claim of an ending job's successor: one job of its recipe. `from`: an id to claim from (the
 * ending job's own), where PostgreSQL's scan of the queue starts; the jobs below it are claimed
 * only when those from it cannot fill the places. Absent or null: the oldest queued job.
 */
export type SuccessorRequest = Omit<JobClaim, 'limit'> & { from?: number | null };

/** A job's end as a batch records it, with the claim of its successor unless null. */
export type JobEndAndClaim = { end: JobEnd; successor: SuccessorRequest | null };

/** What a successor's claim got: the job (none when no job was queued), or `contended` (another node held the recipe). */
export type SuccessorClaim = { jobs: JobRow[]; contended: boolean };

/**
 * Record the ends of many jobs in the caller's transaction, then claim their successors: one
 * claim per recipe, of as many jobs as its ends asked successors for, handed out in the order of
 * the ends. Where the database runs stored functions (PostgreSQL), one call does it all (one round
 * trip): every line, every job's state, each recipe's counters summed (several jobs of a recipe
 * add up; its last run is the latest of theirs), then the claims. Otherwise each end as
 * recordJobEnd, the counters of all as one insert, then each claim as claimJobs.
 */
export async function recordJobEnds(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> {
  return recordJobEndsAlone(db, items) ?? recordEachEnd(db, items);
}

/**
 * As recordJobEnds, as one statement that is its own transaction when `db` is not one (the
 * group commit's batch of nothing but job ends): undefined where that cannot be (SQLite, or more
 * lines than one call takes), for the caller to record them in a transaction.
 */
export function recordJobEndsAlone(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> | undefined {
  const lineCount = items.reduce((n, item) => n + item.end.lines.length, 0);
  if (items.length === 0 || !runsStoredFunctions(db) || lineCount > MAX_LINES_IN_ONE_RECORD) return undefined;
  return recordInOneCall(db, items);
}

/** The indexes of the items asking a successor of each recipe, in the items' order. */
function successorsByRecipe(items: readonly JobEndAndClaim[]): Map<number, number[]> {
  const byRecipe = new Map<number, number[]>();
  items.forEach((item, i) => {
    if (item.successor === null) return;
    const asking = byRecipe.get(item.successor.recipeId);
    if (asking) asking.push(i);
    else byRecipe.set(item.successor.recipeId, [i]);
  });
  return byRecipe;
}

/** Each recipe's claimed jobs (oldest first) handed to the items that asked, in their order. */
function handOut(
  items: readonly JobEndAndClaim[],
  byRecipe: Map<number, number[]>,
  claimed: (recipeId: number) => { jobs: JobRow[]; contended: boolean },
): SuccessorClaim[] {
  const results = items.map((): SuccessorClaim => ({ jobs: [], contended: false }));
  for (const [recipeId, asking] of byRecipe) {
    const { jobs, contended } = claimed(recipeId);
    asking.forEach((index, k) => {
      const job = jobs[k];
      results[index] = { jobs: job ? [job] : [], contended };
    });
  }
  return results;
}

async function recordEachEnd(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> {
  for (const item of items) await recordJobEnd(db, item.end);
  await appendJobCounts(db, countsByRecipe(items.map((item) => item.end)));
  const byRecipe = successorsByRecipe(items);
  const claims = new Map<number, { jobs: JobRow[]; contended: boolean }>();
  for (const [recipeId, asking] of byRecipe) {
    const { now, node, leaseUntil } = items[asking[0] as number]!.successor!;
    claims.set(recipeId, await claimJobs(db, { recipeId, now, node, leaseUntil, limit: asking.length }));
  }
  return handOut(items, byRecipe, (recipeId) => claims.get(recipeId)!);
}

/**
 * What the ends add to their recipes' counters: one sum per recipe (several jobs of a recipe add
 * up; its last run is the latest of theirs), in the order of the recipes' ids.
 */
function countsByRecipe(ends: readonly JobEnd[]): JobCountsDelta[] {
  const sums = new Map<number, JobCountsDelta>();
  for (const end of ends) {
    const c = end.counters;
    if (c === null) continue;
    const sum = sums.get(c.recipeId) ?? {
      recipeId: c.recipeId,
      succeeded: 0,
      failed: 0,
      tasks: 0,
      lastRunAt: c.lastRunAt,
    };
    if (c.succeeded) sum.succeeded += 1;
    else sum.failed += 1;
    sum.tasks += c.taskCount;
    if (c.lastRunAt > sum.lastRunAt) sum.lastRunAt = c.lastRunAt;
    sums.set(c.recipeId, sum);
  }
  return [...sums.values()].sort((a, b) => a.recipeId - b.recipeId);
}

/** Lines of all the ends one call records at most (its parameters stay a few megabytes at most). */
const MAX_LINES_IN_ONE_RECORD = 5_000;

/**
 * PostgreSQL: the ends of many jobs and their successors' claims in one call of
 * switchboard_job_ends_9 (migration 0084). Each job's lines are one text (its row of
 * job_line_sets: lineSets), and all of them travel as one (joinedLines); every column of the ends
 * as one array, so the statement's text is the same whatever the number of jobs and lines; each
 * array goes as its text literal, written by pgArray in one native pass.
 * The claims try the same claim lock as claimJobs: a recipe whose lock another transaction holds
 * comes back as a row with no id, and its ends' claims are `contended` (their places go back to
 * the dispatcher).
 */
async function recordInOneCall(db: Db, items: readonly JobEndAndClaim[]): Promise<SuccessorClaim[]> {
  const ends = items.map((item) => item.end);
  const sets = lineSets(ends.flatMap((end) => end.lines));
  const sums = countsByRecipe(ends);
  const byRecipe = successorsByRecipe(items);
  // In the order of the recipes' ids, as every call takes their claim locks.
  const claims = [...byRecipe.entries()].sort(([a], [b]) => a - b);
  // Every successor of a batch is claimed with the time and lease of the first end asking (the
  // ends of a batch are milliseconds apart) and this node.
  const claim =
    claims.length > 0 ? items[claims[0]![1][0] as number]!.successor! : { now: '', node: '', leaseUntil: '' };
  // Each recipe's claim starts from the lowest `from` of its ends; none when one of them gives none.
  const from = claims.map(([, asking]) => {
    let lowest: number | null = null;
    for (const index of asking) {
      const given = items[index]!.successor!.from ?? null;
      if (given === null) return null;
      if (lowest === null || given < lowest) lowest = given;
    }
    return lowest;
  });
  const { rows } = await sql<JobRow>`select * from switchboard_job_ends_9(
      ${pgArray(sets.map((set) => set.job_id))}::bigint[], ${pgArray(sets.map((set) => set.seq))}::int[], ${joinedLines(sets)}::text,
      ${pgArray(ends.map((e) => e.id))}::bigint[], ${pgArray(ends.map((e) => e.result.status))}::text[], ${pgArray(ends.map((e) => storableTextOrNull(e.result.error)))}::text[],
      ${pgArray(ends.map((e) => e.result.error_parts))}::text[], ${pgArray(ends.map((e) => e.result.completed_at))}::text[], ${pgArray(ends.map((e) => e.result.task_count))}::int[],
      ${pgArray(ends.map((e) => e.result.reply ?? null))}::text[], ${pgArray(ends.map((e) => e.result.recipe_version_no ?? null))}::int[],
      ${pgArray(sums.map((c) => c.recipeId))}::bigint[], ${pgArray(sums.map((c) => c.succeeded))}::int[], ${pgArray(sums.map((c) => c.failed))}::int[],
      ${pgArray(sums.map((c) => c.tasks))}::bigint[], ${pgArray(sums.map((c) => c.lastRunAt))}::text[],
      ${pgArray(claims.map(([id]) => id))}::bigint[], ${pgArray(claims.map(([, asking]) => asking.length))}::int[], ${pgArray(from)}::bigint[], ${ADVISORY_LOCKS.recipeClaims}::int,
      ${claim.now}::text, ${claim.node}::text, ${claim.leaseUntil}::text)`.execute(db);
  const claimed = new Map<number, { jobs: JobRow[]; contended: boolean }>(
    claims.map(([id]) => [id, { jobs: [], contended: false }]),
  );
  for (const row of rows as Array<Omit<JobRow, 'id'> & { id: number | null }>) {
    const of = claimed.get(row.recipe_id);
    if (of === undefined) continue;
    if (row.id === null) of.contended = true;
    else of.jobs.push(row as JobRow);
  }
  for (const of of claimed.values()) of.jobs.sort((a, b) => a.id - b.id);
  return handOut(items, byRecipe, (recipeId) => claimed.get(recipeId)!);
}
