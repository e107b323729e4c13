// Other names of a custom connector in an environment: the provider names recipes and connections
// of an imported package give it (`acme_crm_connector_123456_1700000000`, the vendor's account id
// and stamp), so that they find the connector imported with them, or the one of the same title.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await addIdColumn(db.schema.createTable('custom_connector_aliases'), dialect)
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('connector_id', 'bigint', (c) => c.notNull().references('custom_connectors.id').onDelete('cascade'))
    .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
    .addUniqueConstraint('custom_connector_aliases_name_unique', ['environment_id', 'name'])
    .execute();
  await db.schema
    .createIndex('custom_connector_aliases_connector')
    .on('custom_connector_aliases')
    .column('connector_id')
    .execute();
}
