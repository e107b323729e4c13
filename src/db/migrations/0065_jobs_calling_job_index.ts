// `wait_for_async_jobs` waits for the jobs a job started: they are found by `calling_job_handle`.
// The index holds only jobs started by another job (the column is null for every other job), so
// the jobs of webhooks and schedules, the hot inserts, add nothing to it.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('jobs_calling_job')
    .on('jobs')
    .column('calling_job_handle')
    .where('calling_job_handle', 'is not', null)
    .execute();
}
