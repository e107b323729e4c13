// Tenancy (workspaces, their owner, environments), the folder tree that scopes developer API
// clients, and developer API clients with their roles.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('workspaces'), dialect)
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('company_name', 'varchar(255)')
    .addColumn('owner_email', 'varchar(255)', (c) => c.notNull())
    .addColumn('plan_id', 'varchar(100)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();

  await addIdColumn(db.schema.createTable('users'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(255)', (c) => c.notNull())
    .addColumn('role', 'varchar(50)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('users_workspace_email_unique', ['workspace_id', 'email'])
    .execute();

  await addIdColumn(db.schema.createTable('environments'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('type', 'varchar(10)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addUniqueConstraint('environments_workspace_type_unique', ['workspace_id', 'type'])
    .execute();

  await addIdColumn(db.schema.createTable('folders'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('parent_id', 'bigint', (c) => c.references('folders.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('is_project', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('project_id', 'bigint')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('folders_environment_parent')
    .on('folders')
    .columns(['environment_id', 'parent_id', 'name'])
    .execute();

  await addIdColumn(db.schema.createTable('projects'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_folder_unique').on('projects').column('folder_id').unique().execute();

  await addIdColumn(db.schema.createTable('developer_api_client_roles'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('privileges', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('developer_api_client_roles_name_unique', ['workspace_id', 'name_key'])
    .execute();

  await addIdColumn(db.schema.createTable('developer_api_clients'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('role_id', 'bigint', (c) => c.notNull().references('developer_api_client_roles.id').onDelete('restrict'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('all_folders', 'integer', (c) => c.notNull())
    .addColumn('folder_ids', 'text', (c) => c.notNull())
    .addColumn('ip_allow_list', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn(...ts('token_updated_at'), (c) => c.notNull())
    .addColumn(...ts('last_used_at'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('developer_api_clients_name_unique', ['workspace_id', 'name_key'])
    .execute();
}
