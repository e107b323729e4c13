// Lookup tables (contract 11): a table per name with up to ten string columns, and its rows.
// Rows keep one text column per table column (col1..col10) with one index per column, led by
// table_id, so that a lookup by any column is an index search whatever the table's size.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export const CELL_COLUMN_COUNT = 10;

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('lookup_tables'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // Lower-cased name; null once the table is deleted, so the name is free while its rows are purged.
    .addColumn('name_key', 'varchar(255)')
    // JSON array of the column labels, by position.
    .addColumn('columns', 'text', (c) => c.notNull())
    // Maintained with every row write: enforces the row limit without counting rows.
    .addColumn('row_count', 'integer', (c) => c.notNull().defaultTo(0))
    // Set by batch delete; the rows are then purged in small chunks and the table row removed.
    .addColumn(...ts('deleted_at'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('lookup_tables_name_unique', ['environment_id', 'name_key'])
    .execute();
  await db.schema
    .createIndex('lookup_tables_environment')
    .on('lookup_tables')
    .columns(['environment_id', 'id'])
    .execute();
  await db.schema.createIndex('lookup_tables_deleted').on('lookup_tables').column('deleted_at').execute();

  let rows = addIdColumn(db.schema.createTable('lookup_table_rows'), dialect).addColumn('table_id', 'bigint', (c) =>
    c.notNull().references('lookup_tables.id').onDelete('cascade'),
  );
  for (let n = 1; n <= CELL_COLUMN_COUNT; n++) rows = rows.addColumn(`col${n}`, 'text');
  await rows
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  // Listing a table's rows in id order, and purging them.
  await db.schema.createIndex('lookup_table_rows_table').on('lookup_table_rows').columns(['table_id', 'id']).execute();
  for (let n = 1; n <= CELL_COLUMN_COUNT; n++) {
    await db.schema
      .createIndex(`lookup_table_rows_col${n}`)
      .on('lookup_table_rows')
      .columns(['table_id', `col${n}`])
      .execute();
  }
}
