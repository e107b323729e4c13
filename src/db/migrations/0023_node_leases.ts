// Several nodes on one PostgreSQL database. A claimed job names the node that runs it and until
// when its claim holds (renewed while it runs); a job whose claim ran out was left by a node that
// died, and another node fails it Interrupted. `leases` holds the same kind of claim on other
// work (a package, a test run) by name. On SQLite (one process) the columns are written and the
// leases table stays empty.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('claimed_by', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('lease_expires_at', 'text').execute();
  await db.schema.createIndex('jobs_running_lease').on('jobs').columns(['status', 'lease_expires_at']).execute();
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
