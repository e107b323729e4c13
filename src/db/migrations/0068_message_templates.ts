// Message templates (workato_template): Mustache bodies stored as assets of an environment, named
// by recipes' `template_id` (an id, or the template's name as export references carry it).
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;
  await addIdColumn(db.schema.createTable('message_templates'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    // Lower-cased name, unique per environment.
    .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
    // html | text | json | xml: what the rendered document is (the vendor's template types).
    .addColumn('content_type', 'varchar(10)', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('message_templates_env_name_unique', ['environment_id', 'name_key'])
    .execute();
}
