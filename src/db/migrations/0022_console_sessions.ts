// Sessions of the web console (src/console/): a developer API token exchanged for a cookie.
// The cookie's value is never stored, only its SHA-256; the token is kept as the same hash the
// developer API clients table holds, so regenerating or deleting the client ends its sessions.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await addIdColumn(db.schema.createTable('console_sessions'), dialect)
    .addColumn('session_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('developer_api_clients.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(40)', (c) => c.notNull())
    .execute();
  // The sweep of ended sessions.
  await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_at').execute();
  // A recipe's jobs of one status, newest first, from any cursor (the console's job list filter).
  await db.schema
    .createIndex('jobs_recipe_status_started')
    .on('jobs')
    .columns(['recipe_id', 'status', 'started_at', 'id'])
    .execute();
  // The dashboard's recent failures of an environment, newest first, without reading the succeeded jobs.
  await db.schema.createIndex('jobs_failed_completed').on('jobs').columns(['status', 'completed_at']).execute();
}
