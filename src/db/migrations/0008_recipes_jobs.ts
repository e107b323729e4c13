// Recipes, their saved versions, and jobs with their step lines (contracts 14, 10, 20 §12).
// A job row is written before its trigger event is acknowledged: the table is the durable queue.
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;

  await addIdColumn(db.schema.createTable('recipes'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    // Folders with recipes cannot vanish under them: deleting a folder deletes its recipes.
    .addColumn('folder_id', 'bigint', (c) => c.notNull().references('folders.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // The step tree exactly as sent (contract README: stored verbatim).
    .addColumn('code', 'text', (c) => c.notNull())
    // The config array as JSON text.
    .addColumn('config', 'text', (c) => c.notNull())
    // Derived from the code on every save (the code itself is kept verbatim).
    .addColumn('trigger_application', 'varchar(100)')
    .addColumn('action_applications', 'text', (c) => c.notNull())
    .addColumn('webhook_event', 'varchar(100)')
    .addColumn('concurrency', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('running', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version_no', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('copy_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('job_succeeded_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('job_failed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lifetime_task_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('last_run_at'))
    .addColumn(...ts('stopped_at'))
    .addColumn('stop_cause', 'varchar(40)')
    .addColumn('trigger_closure', 'text')
    // Secret part of the recipe's webhook URL; new on every copy.
    .addColumn('webhook_key', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('author_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('author_email', 'varchar(255)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recipes_environment_folder')
    .on('recipes')
    .columns(['environment_id', 'folder_id'])
    .execute();
  await db.schema.createIndex('recipes_running').on('recipes').column('running').execute();

  await addIdColumn(db.schema.createTable('recipe_versions'), dialect)
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().references('recipes.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('comment', 'varchar(255)')
    .addColumn('author_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('author_email', 'varchar(255)', (c) => c.notNull())
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('updated_at'), (c) => c.notNull())
    .addUniqueConstraint('recipe_versions_number_unique', ['recipe_id', 'version_no'])
    .execute();

  await addIdColumn(db.schema.createTable('jobs'), dialect)
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().references('recipes.id').onDelete('cascade'))
    .addColumn('handle', 'varchar(40)', (c) => c.notNull().unique())
    // queued | running | succeeded | failed | canceled (API: pending, succeeded, failed).
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    .addColumn('title', 'varchar(1000)', (c) => c.notNull())
    // The trigger event (JSON): what the job runs on, kept so a restart can run a queued job.
    .addColumn('trigger_output', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('error_parts', 'text')
    .addColumn('is_poll_error', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_repeat', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('master_job_handle', 'varchar(40)')
    .addColumn('calling_recipe_id', 'bigint')
    .addColumn('calling_job_handle', 'varchar(40)')
    .addColumn('root_recipe_id', 'bigint')
    .addColumn('root_job_handle', 'varchar(40)')
    .addColumn('task_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('started_at'), (c) => c.notNull())
    .addColumn(...ts('completed_at'))
    .execute();
  await db.schema.createIndex('jobs_recipe_started').on('jobs').columns(['recipe_id', 'started_at', 'id']).execute();
  await db.schema.createIndex('jobs_status_recipe').on('jobs').columns(['status', 'recipe_id', 'id']).execute();

  await db.schema
    .createTable('job_lines')
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('recipe_line_number', 'integer', (c) => c.notNull())
    .addColumn('adapter_name', 'varchar(100)', (c) => c.notNull())
    .addColumn('adapter_operation', 'varchar(100)', (c) => c.notNull())
    // Loop pass (foreach/repeat iteration index) the line belongs to; null outside loops.
    .addColumn('pass', 'integer')
    .addColumn('input', 'text')
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('mask_data', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn(...ts('started_at'), (c) => c.notNull())
    .addColumn(...ts('completed_at'), (c) => c.notNull())
    .addPrimaryKeyConstraint('job_lines_pk', ['job_id', 'seq'])
    .execute();
}
