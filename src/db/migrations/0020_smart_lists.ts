// Smart lists (workato_smart_list, "SQL Collection"): named lists of records that recipes create,
// add rows to and query with SQL. Durable, per environment; rows kept as JSON in insertion order.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;
  await addIdColumn(db.schema.createTable('smart_lists'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // The table name queries use: letters, digits and _ only.
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    // JSON: [{name, type}] in order; type integer | number | boolean | string | json.
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('primary_index', 'varchar(255)')
    .addColumn('row_count', 'integer', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('smart_lists_env_name_unique', ['environment_id', 'name'])
    .execute();
  await db.schema
    .createTable('smart_list_rows')
    .addColumn('list_id', 'bigint', (c) => c.notNull().references('smart_lists.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    // JSON object: the record's top-level fields.
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('smart_list_rows_pk', ['list_id', 'seq'])
    .execute();
}
