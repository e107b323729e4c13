// Lookup rows: the column indexes hold only the columns a table has. A row keeps col1..col10,
// but a table of five columns never looks up col6..col10, and every row still paid for an entry
// in each of their five indexes (about a third of the cost of an insert). From here on an empty
// cell of one of the table's columns is stored as '' (and answered as null, as before), a column
// beyond the table's width stays null, and each index (table_id, colN) is partial: only
// `colN IS NOT NULL`. A lookup `colN = ?` (an empty cell is `colN = ''`) implies that condition,
// so it is still an index search (SQLite and PostgreSQL both prove it).
import { sql, type Kysely } from 'kysely';
import { lookupCellIndexKeys, type DialectName } from '../dialect.ts';
import { CELL_COLUMN_COUNT } from './0002_lookup_tables.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const typed = db as Kysely<{
    lookup_tables: { id: number; columns: string };
    lookup_table_rows: Record<string, unknown>;
  }>;
  // Empty cells of the columns each table has become '' (while the old, full indexes find them).
  const tables = await typed.selectFrom('lookup_tables').select(['id', 'columns']).execute();
  const widthOf = (columns: string): number => {
    const parsed: unknown = JSON.parse(columns);
    return Array.isArray(parsed) ? parsed.length : 0;
  };
  const widths = tables.map((t) => ({ id: t.id, width: widthOf(t.columns) }));
  for (let n = 1; n <= CELL_COLUMN_COUNT; n++) {
    const ids = widths.filter((t) => t.width >= n).map((t) => t.id);
    for (let i = 0; i < ids.length; i += 500) {
      await typed
        .updateTable('lookup_table_rows')
        .set({ [`col${n}`]: '' })
        .where('table_id', 'in', ids.slice(i, i + 500))
        .where(`col${n}`, 'is', null)
        .execute();
    }
  }
  for (let n = 1; n <= CELL_COLUMN_COUNT; n++) {
    await db.schema.dropIndex(`lookup_table_rows_col${n}`).execute();
    // PostgreSQL: (table_id, md5(colN)), since a cell may be larger than a B-tree entry (dialect.ts).
    await lookupCellIndexKeys(
      db.schema.createIndex(`lookup_table_rows_col${n}`).on('lookup_table_rows'),
      dialect,
      `col${n}`,
    )
      .where(sql.ref(`col${n}`), 'is not', null)
      .execute();
  }
}
