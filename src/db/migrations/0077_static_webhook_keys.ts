// The keys of custom connectors' static webhooks (`webhook_key` of a started recipe's trigger),
// written when the recipe starts and removed when it stops, so a call of the connector's URL finds
// its recipes by key on any node (src/engine/static-webhooks.ts). One row per started recipe.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('static_webhook_keys')
    .addColumn('recipe_id', 'bigint', (c) => c.primaryKey().references('recipes.id').onDelete('cascade'))
    .addColumn('connector_id', 'bigint', (c) => c.notNull().references('custom_connectors.id').onDelete('cascade'))
    // SHA-256 (hex) of the key: keys are the connector's strings, of any length.
    .addColumn('key_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('static_webhook_keys_connector_key_hash')
    .on('static_webhook_keys')
    .columns(['connector_id', 'key_hash'])
    .execute();
}
