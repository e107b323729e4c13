// A table that holds nothing for long: after a full disk or a read-only data directory, GET /ready
// writes a row into it (64 KiB of text: new pages, as a real write needs) and deletes it again, to
// see whether the database takes writes again (src/db/storage-health.ts).
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await addIdColumn(db.schema.createTable('storage_checks'), dialect)
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addColumn('filler', 'text', (c) => c.notNull())
    .execute();
}
