// Polling triggers of data tables (`updated_records_polling` reads records changed after its
// cursor, in the order of `updated_at` and id) and the directories of the file store that steps
// create (`ensure_dir_exists`): a directory exists when a file is in it or below it, or when it was
// created; `file_directories` keeps the created ones (deleted with `delete_directory`).
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('data_table_records_updated')
    .on('data_table_records')
    .columns(['table_id', 'updated_at', 'id'])
    .execute();
  await addIdColumn(db.schema.createTable('file_directories'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('path', 'varchar(1024)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
    .addUniqueConstraint('file_directories_env_path_unique', ['environment_id', 'path'])
    .execute();
}
