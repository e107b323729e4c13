// Tags (contract 23 §3): labels of an environment, attached to recipes and connections. A tag is
// known outside by its handle (`tag-<random>`); its title is unique in the environment, whatever
// the case. Attachments are one table per kind of asset, so deleting a recipe, a connection or a
// tag removes its attachments through the foreign keys.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;
  await addIdColumn(db.schema.createTable('tags'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('handle', 'varchar(40)', (c) => c.notNull().unique())
    .addColumn('title', 'varchar(100)', (c) => c.notNull())
    // The title trimmed and lower-cased: unique in the environment (tags_title_unique).
    .addColumn('title_key', 'varchar(100)', (c) => c.notNull())
    .addColumn('description', 'varchar(1000)')
    .addColumn('color', 'varchar(32)')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('tags_title_unique', ['environment_id', 'title_key'])
    .execute();

  await db.schema
    .createTable('recipe_tags')
    .addColumn('tag_id', 'bigint', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().references('recipes.id').onDelete('cascade'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addPrimaryKeyConstraint('recipe_tags_pk', ['recipe_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('recipe_tags_tag').on('recipe_tags').columns(['tag_id']).execute();

  await db.schema
    .createTable('connection_tags')
    .addColumn('tag_id', 'bigint', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('connection_id', 'bigint', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addPrimaryKeyConstraint('connection_tags_pk', ['connection_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('connection_tags_tag').on('connection_tags').columns(['tag_id']).execute();
}
