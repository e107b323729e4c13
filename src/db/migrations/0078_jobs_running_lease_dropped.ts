// Every change of a job's state (queued, running, ended) writes a new version of its row with an
// entry in each index of `jobs` whose condition it meets. `jobs_running_lease` (status,
// lease_expires_at) held every job at every state for the queries of running jobs (recovery of a
// dead node's jobs, lease renewals), which find them through `jobs_status_recipe`, leading with the
// status too; running jobs are at most the nodes' workers. Dropped: a job writes three index entries
// fewer, and a lease renewal, which then changes no indexed column, can stay on its row's page.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.dropIndex('jobs_running_lease').execute();
}
