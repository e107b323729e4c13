// Recipe test cases and their run requests (contract 16). A test case belongs to a recipe and
// goes with it (copy, delete, packages); a run request keeps its results as they come in, so a
// restart takes up the ones still pending.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await db.schema
    .createTable('test_cases')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().references('recipes.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // JSON: trigger_output, mocks, expectations, allow_external (src/api/test_cases/README.md).
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('test_cases_recipe_name_unique', ['recipe_id', 'name'])
    .execute();

  await db.schema
    .createTable('test_run_requests')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('client_id', 'bigint', (c) => c.notNull())
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    // JSON array: one result per test case, in order ({recipe, test_case, job, status, failure?, lines?}).
    .addColumn('results', 'text', (c) => c.notNull())
    .addColumn('coverage', 'real')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('test_run_requests_status').on('test_run_requests').column('status').execute();
}
