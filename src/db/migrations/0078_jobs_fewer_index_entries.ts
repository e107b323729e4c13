// Every change of a job's state (queued, running, ended) writes a new version of its row with an
// entry in each index of `jobs` whose condition it meets. Two indexes held every job at every state
// for queries about a few of them:
// - `jobs_running_lease` (status, lease_expires_at): the queries of running jobs (recovery of a dead
//   node's jobs, lease renewals) find them through `jobs_status_recipe`, which leads with the status
//   too; running jobs are at most the nodes' workers. Dropped: a claim no longer writes an entry
//   there, and a lease renewal, which changes no other indexed column, can stay on its row's page.
// - `jobs_failed_completed` (status, completed_at), the dashboard's recent failures newest first:
//   now only failed jobs, `(completed_at) where status = 'failed'`; the query names the status as a
//   literal, so that a prepared statement's plan can use the partial index.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.dropIndex('jobs_running_lease').execute();
  await db.schema.dropIndex('jobs_failed_completed').execute();
  await db.schema
    .createIndex('jobs_failed_completed')
    .on('jobs')
    .column('completed_at')
    .where(sql.ref('status'), '=', sql.lit('failed'))
    .execute();
}
