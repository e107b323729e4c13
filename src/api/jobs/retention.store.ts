// Job retention (retention.ts): finished jobs that ended before a cutoff are deleted with their lines
// and their large line values (job_line_values),
// a bounded batch per statement. A pending job has no `completed_at`, so it is never chosen.
import type { Db } from '../../db/types.ts';

/** Up to `limit` jobs that ended before `cutoff`, oldest end first (the partial index jobs_completed). */
export async function expiredJobIds(db: Db, cutoff: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('completed_at', '<', cutoff)
    .orderBy('completed_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Delete up to `limit` large line values of these jobs; returns how many went (fewer than `limit`: none is left). */
export async function deleteLineValuesOfJobs(db: Db, jobIds: readonly number[], limit: number): Promise<number> {
  if (jobIds.length === 0) return 0;
  const result = await db
    .deleteFrom('job_line_values')
    .where((eb) =>
      eb(
        eb.refTuple('job_id', 'seq', 'field'),
        'in',
        eb
          .selectFrom('job_line_values')
          .select(['job_id', 'seq', 'field'])
          .where('job_id', 'in', jobIds)
          .limit(limit)
          .$asTuple('job_id', 'seq', 'field'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Delete up to `limit` rows of lines of these jobs (a row of job_line_sets holds a job's lines
 * recorded at once; one of job_lines, a line recorded before migration 0083); returns how many
 * went (fewer than `limit`: none is left).
 */
export async function deleteLinesOfJobs(db: Db, jobIds: readonly number[], limit: number): Promise<number> {
  if (jobIds.length === 0) return 0;
  const deleted = await deleteRowsOfJobs(db, 'job_line_sets', jobIds, limit);
  if (deleted === limit) return deleted;
  return deleted + (await deleteRowsOfJobs(db, 'job_lines', jobIds, limit - deleted));
}

/** Delete up to `limit` rows of these jobs from a table keyed by (job_id, seq). */
async function deleteRowsOfJobs(
  db: Db,
  table: 'job_line_sets' | 'job_lines',
  jobIds: readonly number[],
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom(table)
    .where((eb) =>
      eb(
        eb.refTuple('job_id', 'seq'),
        'in',
        eb
          .selectFrom(table)
          .select(['job_id', 'seq'])
          .where('job_id', 'in', jobIds)
          .limit(limit)
          .$asTuple('job_id', 'seq'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Delete these jobs if they ended before `cutoff` (their lines first: deleteLinesOfJobs). */
export async function deleteExpiredJobs(db: Db, jobIds: readonly number[], cutoff: string): Promise<number> {
  if (jobIds.length === 0) return 0;
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', jobIds)
    .where('completed_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
