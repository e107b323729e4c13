// Files of an imported package that this server does not use (the vendor's low-code apps and
// pages, and any file type it does not know): kept as they came, in the folder they were
// imported into, so the next export of that folder carries them again unchanged.
import type { Kysely } from 'kysely';
import { addIdColumn, blobType, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await addIdColumn(db.schema.createTable('package_kept_files'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // The folder the file's directory maps onto; the file goes with its folder.
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    // The file's name in its directory, as it came.
    .addColumn('name', 'varchar(1024)', (c) => c.notNull())
    .addColumn('content', blobType(dialect), (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'varchar(40)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
    .addUniqueConstraint('package_kept_files_folder_name', ['folder_id', 'name'])
    .execute();
  await db.schema
    .createIndex('package_kept_files_environment')
    .on('package_kept_files')
    .column('environment_id')
    .execute();
}
