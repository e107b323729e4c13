// The file store of recipes (the vendor's `workato_files`): a file per path in an environment,
// its bytes in chunks in the database (as packages), so that a file is durable with the commit
// that wrote it and goes with its row.
import type { Kysely } from 'kysely';
import { addIdColumn, blobType, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('files'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // Normalised absolute path (`/reports/q1.csv`) and its directory (`/reports`).
    .addColumn('path', 'varchar(1024)', (c) => c.notNull())
    .addColumn('directory', 'varchar(1024)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('files_path_unique', ['environment_id', 'path'])
    .execute();
  await db.schema.createIndex('files_directory').on('files').columns(['environment_id', 'directory', 'name']).execute();

  await db.schema
    .createTable('file_chunks')
    .addColumn('file_id', 'bigint', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', blobType(dialect), (c) => c.notNull())
    .addPrimaryKeyConstraint('file_chunks_pk', ['file_id', 'seq'])
    .execute();
}
