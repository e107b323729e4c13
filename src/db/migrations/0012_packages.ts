// Recipe lifecycle (contract 15): export manifests, packages (exports and imports, run in the
// background), and the zip of each package, stored in the database in chunks so that it survives
// a restart and streams in and out without holding the archive in memory.
import type { Kysely } from 'kysely';
import { addIdColumn, blobType, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('export_manifests'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // The anchor folder: asset paths are relative to it. A deleted folder leaves the manifest, archived.
    .addColumn('folder_id', 'bigint', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // JSON array of the assets (contract 15 §1), as the client gave them or as generated.
    .addColumn('assets', 'text', (c) => c.notNull())
    .addColumn('include_data', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('include_test_cases', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('include_tags', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    // JSON object "type:id" -> updated_at of each asset at the last export (asset status).
    .addColumn('last_export', 'text')
    .addColumn(...ts('last_exported_at'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addColumn(...ts('deleted_at'))
    .execute();
  await db.schema.createIndex('export_manifests_environment').on('export_manifests').column('environment_id').execute();

  await addIdColumn(db.schema.createTable('packages'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('operation_type', 'varchar(10)', (c) => c.notNull())
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    .addColumn('export_manifest_id', 'bigint', (c) => c.references('export_manifests.id').onDelete('set null'))
    // Imports: the target folder.
    .addColumn('folder_id', 'bigint', (c) => c.references('folders.id').onDelete('set null'))
    // JSON: what the export or import was asked to do (the manifest's assets as they were, import flags).
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('error_parts', 'text')
    .addColumn('recipe_status', 'text')
    .addColumn('content_size', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addColumn(...ts('completed_at'))
    .execute();
  await db.schema.createIndex('packages_status').on('packages').column('status').execute();

  await db.schema
    .createTable('package_chunks')
    .addColumn('package_id', 'bigint', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', blobType(dialect), (c) => c.notNull())
    .addPrimaryKeyConstraint('package_chunks_pk', ['package_id', 'seq'])
    .execute();
}
