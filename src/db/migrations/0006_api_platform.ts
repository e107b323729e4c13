// The API platform: collections and their endpoints, API clients, access profiles, access
// policies with their durable counters, and each environment's API prefix on the gateway.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await db.schema.alterTable('environments').addColumn('api_prefix', 'varchar(100)').execute();
  await db.schema
    .createIndex('environments_api_prefix_unique')
    .on('environments')
    .column('api_prefix')
    .unique()
    .execute();

  await addIdColumn(db.schema.createTable('api_policies'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('rate_limit_requests', 'integer')
    .addColumn('rate_limit_interval_seconds', 'integer')
    .addColumn('quota_requests', 'integer')
    .addColumn('quota_interval_seconds', 'integer')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('api_policies_name_unique', ['workspace_id', 'name'])
    .execute();

  await addIdColumn(db.schema.createTable('api_collections'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('version', 'varchar(50)', (c) => c.notNull())
    .addColumn('slug', 'varchar(255)', (c) => c.notNull())
    .addColumn('proxy_connection_id', 'bigint')
    .addColumn('public_access', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('doc_token', 'varchar(64)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('api_collections_slug_unique', ['environment_id', 'slug'])
    .addUniqueConstraint('api_collections_name_unique', ['project_id', 'name'])
    .execute();

  await addIdColumn(db.schema.createTable('api_endpoints'), dialect)
    .addColumn('collection_id', 'bigint', (c) => c.notNull().references('api_collections.id').onDelete('cascade'))
    .addColumn('flow_id', 'bigint')
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('method', 'varchar(10)', (c) => c.notNull())
    .addColumn('path', 'varchar(1000)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('api_endpoints_route_unique', ['collection_id', 'method', 'path'])
    .execute();

  await addIdColumn(db.schema.createTable('api_clients'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('api_policy_id', 'bigint', (c) => c.references('api_policies.id').onDelete('set null'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();

  await addIdColumn(db.schema.createTable('api_access_profiles'), dialect)
    .addColumn('api_client_id', 'bigint', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('auth_type', 'varchar(10)', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('api_collection_ids', 'text', (c) => c.notNull())
    .addColumn('api_policy_id', 'bigint', (c) => c.references('api_policies.id').onDelete('set null'))
    .addColumn('ip_allow_list', 'text', (c) => c.notNull())
    .addColumn('ip_deny_list', 'text', (c) => c.notNull())
    // token/jwt profiles: SHA-256 of the auth token (the access profile key).
    .addColumn('secret_hash', 'varchar(64)', (c) => c.unique())
    // oauth2 profiles: the public client id and the SHA-256 of the client secret.
    .addColumn('oauth_client_id', 'varchar(100)', (c) => c.unique())
    .addColumn('oauth_secret_hash', 'varchar(64)')
    // Bumped by every refresh_secret: tokens carry it, so earlier ones stop verifying.
    .addColumn('secret_generation', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('jwt_method', 'varchar(10)')
    .addColumn('jwt_secret_sealed', 'text')
    .addColumn('access_profile_claim', 'varchar(255)')
    .addColumn('required_claims', 'text', (c) => c.notNull())
    .addColumn('allowed_issuers', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_policy_counters')
    .addColumn('profile_id', 'bigint', (c) => c.notNull().references('api_access_profiles.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(10)', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_policy_counters_pk', ['profile_id', 'kind', 'window_start'])
    .execute();
}
