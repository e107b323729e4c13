// Workflow tasks (workato_workflow_task): a job that reaches a task step waits (jobs.status
// `waiting`) until a person completes the task, or it expires or is canceled. The task row keeps
// the job's checkpoint (the outcomes of the steps that ran before it), from which the job is run
// again when the task ends (src/engine/README.md, "Workflow tasks").
import type { Kysely } from 'kysely';
import { addIdColumn, type DialectName } from '../dialect.ts';

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const ts = (name: string) => [name, 'varchar(40)'] as const;
  await addIdColumn(db.schema.createTable('workflow_tasks'), dialect)
    .addColumn('workspace_id', 'bigint', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('environment_id', 'bigint', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('recipe_id', 'bigint', (c) => c.notNull().references('recipes.id').onDelete('cascade'))
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('step_number', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(1000)', (c) => c.notNull())
    .addColumn('assignee', 'varchar(320)')
    .addColumn('record_id', 'varchar(255)')
    // open | completed | expired | canceled
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    // approval (approve / reject) | form (field values)
    .addColumn('task_type', 'varchar(20)', (c) => c.notNull())
    // JSON: the form's fields [{name, label, type, optional}] (form tasks), else [].
    .addColumn('form_fields', 'text', (c) => c.notNull())
    // JSON: the job's checkpoint when it stopped at this task (src/engine/checkpoint.ts).
    .addColumn('checkpoint', 'text', (c) => c.notNull())
    // JSON: the task step's output once the task ended (completed, expired or canceled).
    .addColumn('result', 'text')
    .addColumn('completed_by', 'varchar(320)')
    .addColumn(...ts('created_at'), (c) => c.notNull())
    .addColumn(...ts('expires_at'))
    .addColumn(...ts('completed_at'))
    .execute();
  await db.schema.createIndex('workflow_tasks_job').on('workflow_tasks').columns(['job_id', 'id']).execute();
  await db.schema
    .createIndex('workflow_tasks_env_status')
    .on('workflow_tasks')
    .columns(['environment_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('workflow_tasks_status_expires')
    .on('workflow_tasks')
    .columns(['status', 'expires_at'])
    .execute();
}
