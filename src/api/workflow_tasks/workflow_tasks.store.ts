// Workflow tasks: the rows a waiting job's task step creates, and the moves of the job they hold
// (waiting -> queued when the task ends, waiting -> canceled). One mapper to the API shape.
import type { Db, NewWorkflowTask, WorkflowTaskRow, WorkflowTaskStatus } from '../../db/types.ts';
import type { TaskFormField } from '../../recipe/document.ts';
import { toApiTimestamp } from '../../time.ts';

export interface TaskFilters {
  environmentId: number;
  recipeId?: number;
  status?: WorkflowTaskStatus;
  assignee?: string;
  /** Only tasks of recipes in these folders (a client limited to some projects). */
  folderIds?: number[];
  afterId?: number;
  limit: number;
}

export interface WorkflowTaskApi {
  id: number;
  recipe_id: number;
  job_id: string;
  step_number: number;
  name: string;
  assignee: string | null;
  record_id: string | null;
  status: WorkflowTaskStatus;
  task_type: 'approval' | 'form';
  form_fields: TaskFormField[];
  result: Record<string, unknown> | null;
  completed_by: string | null;
  created_at: string;
  expires_at: string | null;
  completed_at: string | null;
}

export async function insertTask(db: Db, values: NewWorkflowTask): Promise<number> {
  const row = await db.insertInto('workflow_tasks').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The last task a job stopped at (the checkpoint a resumed job runs from). */
export async function latestTaskOfJob(db: Db, jobId: number): Promise<WorkflowTaskRow | undefined> {
  return db
    .selectFrom('workflow_tasks')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function findTask(
  db: Db,
  environmentId: number,
  id: number,
): Promise<(WorkflowTaskRow & { job_handle: string; folder_id: number }) | undefined> {
  return db
    .selectFrom('workflow_tasks as t')
    .innerJoin('jobs as j', 'j.id', 't.job_id')
    .innerJoin('recipes as r', 'r.id', 't.recipe_id')
    .selectAll('t')
    .select(['j.handle as job_handle', 'r.folder_id as folder_id'])
    .where('t.environment_id', '=', environmentId)
    .where('t.id', '=', id)
    .executeTakeFirst();
}

export async function listTasks(
  db: Db,
  filters: TaskFilters,
): Promise<Array<WorkflowTaskRow & { job_handle: string }>> {
  let q = db
    .selectFrom('workflow_tasks as t')
    .innerJoin('jobs as j', 'j.id', 't.job_id')
    .selectAll('t')
    .select('j.handle as job_handle')
    .where('t.environment_id', '=', filters.environmentId);
  if (filters.recipeId !== undefined) q = q.where('t.recipe_id', '=', filters.recipeId);
  if (filters.status !== undefined) q = q.where('t.status', '=', filters.status);
  if (filters.assignee !== undefined) q = q.where('t.assignee', '=', filters.assignee);
  if (filters.afterId !== undefined) q = q.where('t.id', '>', filters.afterId);
  if (filters.folderIds !== undefined) {
    const folderIds = filters.folderIds;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('recipes as r')
          .select('r.id')
          .whereRef('r.id', '=', 't.recipe_id')
          .where('r.folder_id', 'in', folderIds.length > 0 ? folderIds : [-1]),
      ),
    );
  }
  return q.orderBy('t.id').limit(filters.limit).execute();
}

/** Open tasks whose time is up, oldest first. */
export async function dueTasks(db: Db, now: string, limit: number): Promise<WorkflowTaskRow[]> {
  return db
    .selectFrom('workflow_tasks')
    .selectAll()
    .where('status', '=', 'open')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** End an open task; false when it had ended already. */
export async function endOpenTask(
  db: Db,
  id: number,
  values: {
    status: Exclude<WorkflowTaskStatus, 'open'>;
    result: string;
    completed_by: string | null;
    completed_at: string;
  },
): Promise<boolean> {
  const done = await db
    .updateTable('workflow_tasks')
    .set(values)
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** The open task of a waiting job, if any. */
export async function openTaskOfJob(db: Db, jobId: number): Promise<WorkflowTaskRow | undefined> {
  return db
    .selectFrom('workflow_tasks')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

/** A running job stops at a task: it waits. */
export async function markJobWaiting(db: Db, jobId: number, taskCount: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'waiting', task_count: taskCount })
    .where('id', '=', jobId)
    .where('status', '=', 'running')
    .execute();
}

/** A waiting job's task ended: the job is queued again; false when it was not waiting. */
export async function requeueWaitingJob(db: Db, jobId: number): Promise<boolean> {
  const done = await db
    .updateTable('jobs')
    .set({ status: 'queued' })
    .where('id', '=', jobId)
    .where('status', '=', 'waiting')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Cancel a waiting job; false when it was not waiting any more. */
export async function cancelWaitingJob(db: Db, jobId: number, now: string): Promise<boolean> {
  const done = await db
    .updateTable('jobs')
    .set({
      status: 'canceled',
      error: 'Canceled: the job was canceled while it waited for a workflow task',
      error_parts: JSON.stringify({
        adapter: 'workato',
        error_type: 'Canceled',
        message: 'the job was canceled while it waited for a workflow task',
        error_at: now,
        input: '<redacted>',
        inner_message: null,
      }),
      completed_at: now,
    })
    .where('id', '=', jobId)
    .where('status', '=', 'waiting')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

function parsed(text: string | null, fallback: unknown): unknown {
  if (text === null) return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

export function taskToApi(row: WorkflowTaskRow & { job_handle: string }): WorkflowTaskApi {
  return {
    id: row.id,
    recipe_id: row.recipe_id,
    job_id: row.job_handle,
    step_number: row.step_number,
    name: row.name,
    assignee: row.assignee,
    record_id: row.record_id,
    status: row.status,
    task_type: row.task_type,
    form_fields: parsed(row.form_fields, []) as TaskFormField[],
    result: parsed(row.result, null) as Record<string, unknown> | null,
    completed_by: row.completed_by,
    created_at: toApiTimestamp(row.created_at) as string,
    expires_at: toApiTimestamp(row.expires_at),
    completed_at: toApiTimestamp(row.completed_at),
  };
}
