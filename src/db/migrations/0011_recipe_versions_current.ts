// Recipe versions are read back through the API (contract 14 §11), and a recipe's
// version_author_* and version_comment come from the row of its current version_no. A recipe
// without that row gets one here, holding its current content, its author, and its last save as
// the version's time.
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

interface RecipeColumns {
  id: number;
  version_no: number;
  name: string;
  description: string;
  code: string;
  config: string;
  author_name: string;
  author_email: string;
  updated_at: string;
}

type Tables = {
  recipes: RecipeColumns;
  recipe_versions: Omit<RecipeColumns, 'id'> & {
    id: number;
    recipe_id: number;
    comment: string | null;
    created_at: string;
  };
};

export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  const typed = db as Kysely<Tables>;
  await typed
    .insertInto('recipe_versions')
    .columns([
      'recipe_id',
      'version_no',
      'name',
      'description',
      'code',
      'config',
      'comment',
      'author_name',
      'author_email',
      'created_at',
      'updated_at',
    ])
    .expression(
      typed
        .selectFrom('recipes as r')
        .select([
          'r.id',
          'r.version_no',
          'r.name',
          'r.description',
          'r.code',
          'r.config',
          sql<null>`null`.as('comment'),
          'r.author_name',
          'r.author_email',
          'r.updated_at as created_at',
          'r.updated_at',
        ])
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('recipe_versions as v')
                .select('v.id')
                .whereRef('v.recipe_id', '=', 'r.id')
                .whereRef('v.version_no', '=', 'r.version_no'),
            ),
          ),
        ),
    )
    .execute();
}
