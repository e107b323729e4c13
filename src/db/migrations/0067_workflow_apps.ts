// Workflow apps (workato_workflow_task): an app is a data table of requests and the workflow stages
// a request moves through. A request is a record of that table; its stage is kept beside it
// (`workflow_app_requests`, written when a step or the API moves it; a record without a row there
// is at the app's first stage). Both go with their app (cascade) and their environment.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;
  await addIdColumn(db.schema.createTable('workflow_apps'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // Lower-cased name, unique per environment: recipes name an app by it ({"name": ...} references).
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('data_table_id', 'bigint', (c) => c.notNull().references('data_tables.id').onDelete('cascade'))
    // JSON: [{id, name}] in workflow order.
    .addColumn('stages', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('workflow_apps_env_name_unique', ['environment_id', 'name_key'])
    .execute();
  await db.schema
    .createTable('workflow_app_requests')
    .addColumn('app_id', 'bigint', (c) => c.notNull().references('workflow_apps.id').onDelete('cascade'))
    .addColumn('record_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('stage_id', 'varchar(64)', (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addPrimaryKeyConstraint('workflow_app_requests_pk', ['app_id', 'record_id'])
    .execute();
}
