// Connections that authorize (docs/adr/0019): what an authorization left (tokens, expiry, the
// instance URL or realm id the provider gave) sealed beside the connection's fields, and the
// states of OAuth 2.0 redirects in flight (single use, short-lived, bound to the connection, the
// developer API client that asked and the browser that asked; hashes only).
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('connections').addColumn('auth_sealed', 'text').execute();
  await addIdColumn(db.schema.createTable('oauth_states'), dialect)
    .addColumn('state_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'bigint', (c) => c.notNull())
    .addColumn('environment_id', 'bigint', (c) => c.notNull())
    .addColumn('connection_id', 'bigint', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('client_id', 'bigint', (c) => c.notNull().references('developer_api_clients.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('browser_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('code_verifier_sealed', 'text')
    .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(40)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_states_expires').on('oauth_states').column('expires_at').execute();
  await db.schema.createIndex('oauth_states_connection').on('oauth_states').column('connection_id').execute();
}
