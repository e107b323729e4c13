// The activity log (contract 23 §6): one row per change made through the management API, with
// who made it (the workspace's owner, on whose behalf every developer API client acts), from which
// client, and when. Names are copied into the row, so an entry still reads right after the client
// is renamed or deleted. Entries older than JOB_RETENTION_HOURS are deleted like jobs.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await addIdColumn(db.schema.createTable('activity_logs'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('occurred_at', 'varchar(40)', (c) => c.notNull())
    .addColumn('event_type', 'varchar(100)', (c) => c.notNull())
    .addColumn('resource_type', 'varchar(60)', (c) => c.notNull())
    .addColumn('resource_id', 'varchar(100)')
    .addColumn('resource_name', 'varchar(255)')
    // No foreign keys: the entry outlives the user and the client it names.
    .addColumn('user_id', 'bigint')
    .addColumn('user_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_email', 'varchar(320)', (c) => c.notNull())
    .addColumn('client_id', 'bigint')
    .addColumn('client_name', 'varchar(255)', (c) => c.notNull())
    // api | console
    .addColumn('via', 'varchar(20)', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)')
    .addColumn('user_agent', 'varchar(255)')
    .addColumn('request_id', 'varchar(100)')
    // JSON object: what the change was (never a credential or a request body).
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activity_logs_env_id').on('activity_logs').columns(['environment_id', 'id']).execute();
  await db.schema
    .createIndex('activity_logs_env_event')
    .on('activity_logs')
    .columns(['environment_id', 'event_type', 'id'])
    .execute();
  await db.schema
    .createIndex('activity_logs_env_time')
    .on('activity_logs')
    .columns(['environment_id', 'occurred_at'])
    .execute();
  await db.schema.createIndex('activity_logs_occurred').on('activity_logs').columns(['occurred_at']).execute();
}
