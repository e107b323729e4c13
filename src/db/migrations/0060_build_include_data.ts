// A build says whether it carries the rows of its lookup and data tables: only when asked
// (`include_data`), so a release does not replace the rows a target keeps its state in. Builds
// made before the column existed carried their rows.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('project_builds')
    .addColumn('include_data', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update project_builds set include_data = 1`.execute(db);
}
