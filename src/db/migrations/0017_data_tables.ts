// Data tables (the vendor's `workato_db_table`): tables in a folder of an environment with typed
// columns, each addressed by a UUID, and their records. A record keeps its values as one JSON
// object keyed by column UUID, so that adding, renaming or dropping a column never rewrites rows;
// beside it, one index entry per value (column, value text, record) serves equality searches.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('data_tables'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // Lower-cased name: unique per environment, as recipes and packages find a table by it.
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    // JSON array of {field_id, name, type, optional, default_value, hint}.
    .addColumn('columns', 'text', (c) => c.notNull())
    // Maintained with every record write: enforces the record limit without counting.
    .addColumn('record_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('data_tables_name_unique', ['environment_id', 'name_key'])
    .execute();
  await db.schema.createIndex('data_tables_environment').on('data_tables').columns(['environment_id', 'id']).execute();

  await addIdColumn(db.schema.createTable('data_table_records'), dialect)
    .addColumn('table_id', 'bigint', (c) => c.notNull().references('data_tables.id').onDelete('cascade'))
    // The Record ID recipes see (a UUID).
    .addColumn('record_id', 'varchar(36)', (c) => c.notNull().unique())
    // JSON object: column UUID -> value.
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('data_table_records_table')
    .on('data_table_records')
    .columns(['table_id', 'id'])
    .execute();

  await db.schema
    .createTable('data_table_values')
    .addColumn('table_id', 'bigint', (c) => c.notNull())
    .addColumn('field_id', 'varchar(36)', (c) => c.notNull())
    // The value as text, cut to 200 characters: a search compares the records it finds again.
    .addColumn('value_key', 'varchar(200)', (c) => c.notNull())
    .addColumn('record_pk', 'bigint', (c) => c.notNull().references('data_table_records.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('data_table_values_lookup')
    .on('data_table_values')
    .columns(['table_id', 'field_id', 'value_key', 'record_pk'])
    .execute();
  await db.schema.createIndex('data_table_values_record').on('data_table_values').column('record_pk').execute();
}
