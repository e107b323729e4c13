// The recipes list of an environment in id order (GET /api/recipes, the console's list and search)
// walks this index and stops at its page: without it every page sorted all the environment's
// recipes (150 ms for the first page of 10,000 recipes on SQLite, 3 ms with it).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('recipes_environment_id').on('recipes').columns(['environment_id', 'id']).execute();
}
