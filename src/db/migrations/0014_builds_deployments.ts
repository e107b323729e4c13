// Project builds and deployments (contract 12). A build is an export of a whole project (its zip
// in the package it points at, never changed afterwards); a deployment is an import of that zip
// into the project of the same name in another environment (the package it points at).
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('project_builds'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // The project may be deleted later; its builds stay readable.
    .addColumn('project_id', 'bigint', (c) => c.notNull())
    // The project's name and description when it was built: a deployment creates or updates the project of that name.
    .addColumn('project_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('project_description', 'text', (c) => c.notNull())
    .addColumn('package_id', 'bigint', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('description', 'text')
    .addColumn('include_test_cases', 'integer')
    .addColumn('performed_by_name', 'varchar(255)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_builds_project').on('project_builds').column('project_id').execute();

  await addIdColumn(db.schema.createTable('deployments'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.notNull())
    // The source project's folder, for the folder_id filter.
    .addColumn('folder_id', 'bigint', (c) => c.notNull())
    .addColumn('project_build_id', 'bigint', (c) => c.notNull().references('project_builds.id').onDelete('cascade'))
    .addColumn('environment_type', 'varchar(10)', (c) => c.notNull())
    .addColumn('target_environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('package_id', 'bigint', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('description', 'text')
    .addColumn('performed_by_name', 'varchar(255)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('deployments_environment_created')
    .on('deployments')
    .columns(['environment_id', 'created_at'])
    .execute();
  await db.schema.createIndex('deployments_package').on('deployments').column('package_id').execute();
}
