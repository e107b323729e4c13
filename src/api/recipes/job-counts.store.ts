// A recipe's job counters: its columns (job_succeeded_count, job_failed_count,
// lifetime_task_count, last_run_at) plus the rows that records of job ends append to
// recipe_job_counts until the fold adds them into the columns (migration 0079). Ends append rather
// than update the recipe's row so that concurrent ends of one recipe share no row lock (on
// PostgreSQL such a lock is held until the commit is on disk). Every read adds both in one
// statement, so the counts it returns are exact.
import { sql, type RawBuilder } from 'kysely';
import { ADVISORY_LOCKS, writesInWithClause } from '../../db/dialect.ts';
import { prepareQuery } from '../../db/prepared.ts';
import type { Db, RecipeRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

/** What the ends of one record add to one recipe's counters. */
export type JobCountsDelta = {
  recipeId: number;
  succeeded: number;
  failed: number;
  tasks: number;
  lastRunAt: string;
};

/** Append the counts of a record's ends, one row per recipe, in the caller's transaction. */
export async function appendJobCounts(db: Db, deltas: readonly JobCountsDelta[]): Promise<void> {
  // A statement built once (a record's ends are mostly of one recipe): no query to build per record.
  for (const delta of deltas) await appendOne.execute(db, delta);
}

const appendOne = prepareQuery<JobCountsDelta, never>((db, param) =>
  db.insertInto('recipe_job_counts').values({
    recipe_id: param('recipeId'),
    succeeded: param('succeeded'),
    failed: param('failed'),
    task_count: param('tasks'),
    last_run_at: param('lastRunAt'),
  }),
);

/**
 * The appended counts not yet folded, summed by recipe: left-joined as `c` to a query of recipes
 * `r`, with `pendingCountColumns` and `lastRunAtOf`.
 */
export function pendingJobCounts(db: Db) {
  return db
    .selectFrom('recipe_job_counts')
    .select((eb) => [
      'recipe_id',
      eb.fn.sum<number | string>('succeeded').as('succeeded'),
      eb.fn.sum<number | string>('failed').as('failed'),
      eb.fn.sum<number | string>('task_count').as('task_count'),
      eb.fn.max('last_run_at').as('last_run_at'),
    ])
    .groupBy('recipe_id');
}

/** A recipe's pending counts as a query of recipes `r` joined with `pendingJobCounts` as `c` selects them. */
export const PENDING_COUNT_COLUMNS = [
  'c.succeeded as pending_succeeded',
  'c.failed as pending_failed',
  'c.task_count as pending_task_count',
  'c.last_run_at as pending_last_run_at',
] as const;

export type PendingCounts = {
  pending_succeeded: number | string | null;
  pending_failed: number | string | null;
  pending_task_count: number | string | null;
  pending_last_run_at: string | null;
};

/** A recipe's counters in the API's shape: its columns plus its pending counts. */
export function jobCountsToApi(row: RecipeRow & PendingCounts): {
  job_succeeded_count: number;
  job_failed_count: number;
  lifetime_task_count: number;
  last_run_at?: string;
} {
  const total = totalJobCounts(row, {
    succeeded: row.pending_succeeded,
    failed: row.pending_failed,
    task_count: row.pending_task_count,
  });
  const pending = row.pending_last_run_at;
  const last = pending !== null && (row.last_run_at === null || pending > row.last_run_at) ? pending : row.last_run_at;
  return {
    job_succeeded_count: total.succeeded,
    job_failed_count: total.failed,
    lifetime_task_count: total.tasks,
    ...(last ? { last_run_at: toApiTimestamp(last) } : {}),
  };
}

/** The later of the recipe's last run and its pending counts' (either may be null). */
export function lastRunAtOf(recipe: string, pending: string): RawBuilder<string | null> {
  return later(sql.ref(recipe), sql.ref(pending));
}

function later(recipe: RawBuilder<unknown>, pending: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`case when ${pending} is null or ${pending} < ${recipe} then ${recipe} else ${pending} end`;
}

/** A recipe's counters: its columns plus its pending counts (sums arrive as text from PostgreSQL). */
export function totalJobCounts(
  recipe: { job_succeeded_count: number; job_failed_count: number; lifetime_task_count: number },
  pending: { succeeded: number | string | null; failed: number | string | null; task_count: number | string | null },
): { succeeded: number; failed: number; tasks: number } {
  return {
    succeeded: recipe.job_succeeded_count + Number(pending.succeeded ?? 0),
    failed: recipe.job_failed_count + Number(pending.failed ?? 0),
    tasks: recipe.lifetime_task_count + Number(pending.task_count ?? 0),
  };
}

/**
 * Add up to `limit` appended rows (the oldest) into their recipes' columns and delete them, in one
 * transaction: a reader sees them either as rows or in the columns, never both nor neither.
 * Returns how many rows it folded (0 too while another node's fold runs).
 */
export async function foldJobCounts(db: Db, limit: number): Promise<number> {
  const any = await db.selectFrom('recipe_job_counts').select('id').limit(1).executeTakeFirst();
  if (any === undefined) return 0;
  if (writesInWithClause(db)) {
    // One statement. One fold at a time across the nodes (the lock), so that two folds never
    // update the same recipes' rows in different orders.
    const { rows } = await sql<{ n: number | string }>`with folded as (
        delete from recipe_job_counts
          where id in (select id from recipe_job_counts order by id limit ${limit})
            and (select pg_try_advisory_xact_lock(${ADVISORY_LOCKS.jobCountsFold}::int, 0))
        returning recipe_id, succeeded, failed, task_count, last_run_at
      ), sums as (
        select recipe_id, sum(succeeded) as succeeded, sum(failed) as failed, sum(task_count) as task_count,
          max(last_run_at) as last_run_at, count(*) as n
        from folded group by recipe_id
      ), updated as (
        update recipes r set job_succeeded_count = r.job_succeeded_count + s.succeeded,
            job_failed_count = r.job_failed_count + s.failed,
            lifetime_task_count = r.lifetime_task_count + s.task_count,
            last_run_at = ${lastRunAtOf('r.last_run_at', 's.last_run_at')}
          from sums s where r.id = s.recipe_id
      )
      select coalesce(sum(n), 0) as n from sums`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  return db.transaction().execute(async (trx) => {
    const last = await trx
      .selectFrom('recipe_job_counts')
      .select('id')
      .orderBy('id')
      .limit(1)
      .offset(limit - 1)
      .executeTakeFirst();
    const upTo = last?.id ?? Number.MAX_SAFE_INTEGER;
    const sums = await pendingJobCounts(trx).where('id', '<=', upTo).execute();
    for (const s of sums) {
      await trx
        .updateTable('recipes as r')
        .set((eb) => ({
          job_succeeded_count: eb('r.job_succeeded_count', '+', Number(s.succeeded)),
          job_failed_count: eb('r.job_failed_count', '+', Number(s.failed)),
          lifetime_task_count: eb('r.lifetime_task_count', '+', Number(s.task_count)),
          last_run_at: later(sql.ref('r.last_run_at'), sql.val(s.last_run_at)),
        }))
        .where('r.id', '=', s.recipe_id)
        .execute();
    }
    const deleted = await trx.deleteFrom('recipe_job_counts').where('id', '<=', upTo).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  });
}

/** A recipe's counters as users see them (its columns plus its pending counts), undefined for no such recipe. */
export async function findRecipeJobCounts(
  db: Db,
  recipeId: number,
): Promise<
  | { job_succeeded_count: number; job_failed_count: number; lifetime_task_count: number; last_run_at: string | null }
  | undefined
> {
  const row = await db
    .selectFrom('recipes as r')
    .leftJoin(pendingJobCounts(db).as('c'), 'c.recipe_id', 'r.id')
    .select([
      'r.job_succeeded_count',
      'r.job_failed_count',
      'r.lifetime_task_count',
      'c.succeeded',
      'c.failed',
      'c.task_count',
      lastRunAtOf('r.last_run_at', 'c.last_run_at').as('last_run_at'),
    ])
    .where('r.id', '=', recipeId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const total = totalJobCounts(row, row);
  return {
    job_succeeded_count: total.succeeded,
    job_failed_count: total.failed,
    lifetime_task_count: total.tasks,
    last_run_at: row.last_run_at,
  };
}
