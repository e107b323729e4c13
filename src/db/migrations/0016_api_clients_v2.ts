// API platform v2 (contract 03 §7): an API client made through v2 holds its auth type, its
// collections and its JWT/OIDC settings; its API keys are the rows of api_access_profiles (a v1
// access profile is a v2 API key). Keys get the masked token that v2 lists show and the time
// they became active; profiles and clients get the OIDC settings and accepted audiences.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  // Every client that exists already was made through v1.
  await db.schema
    .alterTable('api_clients')
    .addColumn('is_legacy', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  for (const [name, type] of [
    // Null on v1 clients: their keys each carry their own (see src/api/api_clients/README.md).
    ['auth_type', 'varchar(10)'],
    ['email', 'varchar(255)'],
    ['api_portal_id', 'bigint'],
    ['api_collection_ids', 'text'],
    ['jwt_method', 'varchar(10)'],
    ['jwt_secret_sealed', 'text'],
    ['oidc_issuer', 'varchar(2000)'],
    ['oidc_jwks_uri', 'varchar(2000)'],
    ['access_profile_claim', 'varchar(255)'],
    ['required_claims', 'text'],
    ['allowed_issuers', 'text'],
    ['allowed_audiences', 'text'],
    ['validation_formula', 'text'],
    ['cert_bundle_ids', 'text'],
  ] as const) {
    await db.schema.alterTable('api_clients').addColumn(name, type).execute();
  }
  await db.schema
    .alterTable('api_clients')
    .addColumn('mtls_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  for (const [name, type] of [
    // The token as lists show it (first 8 characters, an ellipsis, the last 4), never the token.
    ['token_mask', 'varchar(40)'],
    ['active_since', 'varchar(40)'],
    ['oidc_issuer', 'varchar(2000)'],
    ['oidc_jwks_uri', 'varchar(2000)'],
    ['allowed_audiences', 'text'],
  ] as const) {
    await db.schema.alterTable('api_access_profiles').addColumn(name, type).execute();
  }
  await sql`update api_access_profiles set active_since = created_at`.execute(db);
  await db.schema.createIndex('api_access_profiles_client').on('api_access_profiles').column('api_client_id').execute();
}
