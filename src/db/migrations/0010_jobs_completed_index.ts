// Job retention: the sweep deletes finished jobs oldest first by `completed_at`. The index holds
// only finished jobs (`completed_at IS NOT NULL`): a pending job gets its entry once, when it
// ends, and `completed_at < ?` implies the condition, so the sweep's query is an index search on
// SQLite and PostgreSQL alike.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('jobs_completed')
    .on('jobs')
    .column('completed_at')
    .where('completed_at', 'is not', null)
    .execute();
}
