// On PostgreSQL jobs_failed_completed holds failed jobs only. As (status, completed_at) it held
// every job at each of its states (queued, running, ended): three of the nineteen index entries a
// succeeded job wrote, each one of its write-ahead log (docs/performance.md, Failed jobs only in
// their index). It serves the console's latest failed jobs (`status = 'failed'` by `completed_at`),
// whose value PostgreSQL's planner reads when it plans the query; the jobs per minute read
// jobs_completed. The ends function's generic plan counts a recipe's running jobs through
// jobs_status_recipe (the full index would have it read every running job of every recipe).
// SQLite keeps the full index, which its dashboard was measured with.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema.dropIndex('jobs_failed_completed').execute();
  await sql`create index jobs_failed_completed on jobs (completed_at) where status = 'failed'`.execute(db);
}
