// A recipe's test cases keep the order they were created or imported in: `position` counts up
// per recipe. Creation times alone tie within a millisecond (a script or a package creates
// several at once), and the ids are random.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('test_cases')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Existing test cases: numbered by their creation time, then id, as they were listed.
  await sql`update test_cases set position = (
      select count(*) from test_cases earlier
      where earlier.recipe_id = test_cases.recipe_id
        and (earlier.created_at < test_cases.created_at
          or (earlier.created_at = test_cases.created_at and earlier.id <= test_cases.id)))`.execute(db);
  await db.schema
    .createIndex('test_cases_recipe_position')
    .on('test_cases')
    .columns(['recipe_id', 'position'])
    .execute();
}
