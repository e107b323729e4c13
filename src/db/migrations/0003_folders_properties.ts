// Folders and projects as an API (sibling names unique, case-insensitively), and environment and
// project properties.
import { sql, type Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  // name_key: the folder name trimmed and lower-cased by the store; siblings may not share one.
  await db.schema
    .alterTable('folders')
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .execute();
  // Rows made before this migration are Home folders and project folders with plain names.
  await sql`update folders set name_key = lower(trim(name))`.execute(db);
  await db.schema.dropIndex('folders_environment_parent').execute();
  // Decides duplicate sibling names (422) and serves the listing order (parent, then name).
  await db.schema
    .createIndex('folders_sibling_name_unique')
    .on('folders')
    .columns(['environment_id', 'parent_id', 'name_key'])
    .unique()
    .execute();
  await db.schema.createIndex('folders_project').on('folders').column('project_id').execute();

  // One table for both levels: project_id null = environment property.
  await addIdColumn(db.schema.createTable('properties'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('value', 'varchar(1024)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  // Names are unique per level, exactly as given (case-sensitive). Partial indexes, since a
  // plain unique index treats every null project_id as distinct.
  await db.schema
    .createIndex('properties_environment_name_unique')
    .on('properties')
    .columns(['environment_id', 'name'])
    .where(sql.ref('project_id'), 'is', null)
    .unique()
    .execute();
  await db.schema
    .createIndex('properties_project_name_unique')
    .on('properties')
    .columns(['project_id', 'name'])
    .where(sql.ref('project_id'), 'is not', null)
    .unique()
    .execute();
}
