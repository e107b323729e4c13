// A project's colour and icon (the vendor's `project.json` in a package carries them with the
// description): set by an import, written by an export, shown with the project.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('projects').addColumn('color', 'varchar(40)').execute();
  await db.schema.alterTable('projects').addColumn('icon', 'varchar(100)').execute();
}
