// Connections and their credentials, custom OAuth profiles, custom connectors with their code
// versions, and the built-in secret store. Every credential column holds a secret-box value
// (AES-256-GCM, `v1.<iv>.<tag>.<data>`), never plaintext.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('custom_oauth_profiles'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    .addColumn('provider', 'varchar(100)', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
    .addColumn('token_sealed', 'text')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('custom_oauth_profiles_name_unique', ['environment_id', 'name_key'])
    .execute();

  await addIdColumn(db.schema.createTable('connections'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    // Deleting a parent through its folder takes its runtime children with it; the API refuses a direct delete.
    .addColumn('parent_id', 'bigint', (c) => c.references('connections.id').onDelete('cascade'))
    // The API refuses to delete a profile in use; set null only matters when a whole environment goes.
    .addColumn('custom_oauth_profile_id', 'bigint', (c) =>
      c.references('custom_oauth_profiles.id').onDelete('set null'),
    )
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('provider', 'varchar(100)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('external_id', 'varchar(255)')
    .addColumn('input_sealed', 'text')
    .addColumn('input_fields', 'text', (c) => c.notNull())
    .addColumn('authorization_status', 'varchar(20)')
    .addColumn('authorization_error', 'text')
    .addColumn(...ts('authorized_at'))
    .addColumn(...ts('connection_lost_at'))
    .addColumn('connection_lost_reason', 'text')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('connections_environment_folder')
    .on('connections')
    .columns(['environment_id', 'folder_id'])
    .execute();
  await db.schema.createIndex('connections_parent').on('connections').column('parent_id').execute();
  await db.schema
    .createIndex('connections_oauth_profile')
    .on('connections')
    .column('custom_oauth_profile_id')
    .execute();

  await addIdColumn(db.schema.createTable('custom_connectors'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('title', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('oem_shared_version', 'integer')
    .addColumn(...ts('oem_shared_at'))
    .addColumn('static_webhook_url', 'text')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('custom_connectors_environment')
    .on('custom_connectors')
    .column('environment_id')
    .execute();

  await addIdColumn(db.schema.createTable('custom_connector_versions'), dialect)
    .addColumn('connector_id', 'bigint', (c) => c.notNull().references('custom_connectors.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('released_at'))
    .addUniqueConstraint('custom_connector_versions_unique', ['connector_id', 'version'])
    .execute();

  await addIdColumn(db.schema.createTable('secrets'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('value_sealed', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('secrets_name_unique', ['environment_id', 'name'])
    .execute();
}
