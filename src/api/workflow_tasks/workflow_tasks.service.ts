// Workflow tasks (workato_workflow_task): list, read, complete and cancel the tasks that waiting
// jobs stopped at. Ending a task and queueing its job again is one transaction (endTask), shared
// with the engine's expiry of tasks whose time is up.
import type { ServiceContext } from '../../context.ts';
import type { Db, WorkflowTaskRow, WorkflowTaskStatus } from '../../db/types.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { findFolderInScope } from '../folders/folder-scope.store.ts';
import { findRecipe } from '../recipes/recipes.store.ts';
import type { Caller } from '../recipes/recipes.service.ts';
import {
  endOpenTask,
  findTask,
  listTasks as listTaskRows,
  requeueWaitingJob,
  taskToApi,
  type WorkflowTaskApi,
} from './workflow_tasks.store.ts';

/** What the service needs of the engine: a task ended and its job is queued again. */
export interface WorkflowTaskRuntime {
  taskEnded(recipeId: number): void;
}

export interface TaskListQuery {
  recipe_id?: number;
  status?: string;
  assignee?: string;
  since_id?: number;
  per_page?: number;
}

export interface CompleteTaskBody {
  status?: string;
  fields?: Record<string, unknown>;
  comments?: string;
  custom_status_label?: string;
  completed_by?: string;
}

const STATUSES: readonly WorkflowTaskStatus[] = ['open', 'completed', 'expired', 'canceled'];
const MAX_PER_PAGE = 100;

interface FormField {
  name: string;
  label: string;
  type: string;
  optional: boolean;
}

async function inScope(ctx: ServiceContext, caller: Caller, folderId: number): Promise<boolean> {
  return caller.allFolders || (await findFolderInScope(ctx.db, caller.environmentId, caller, folderId)) !== undefined;
}

async function visibleTask(ctx: ServiceContext, caller: Caller, id: number) {
  const task = assertFound(await findTask(ctx.db, caller.environmentId, id), 'workflow_task_not_found');
  if (!(await inScope(ctx, caller, task.folder_id))) throw new AppError('workflow_task_not_found');
  return task;
}

export async function listTasks(
  ctx: ServiceContext,
  caller: Caller,
  query: TaskListQuery,
): Promise<{ items: WorkflowTaskApi[] }> {
  if (query.status !== undefined && !(STATUSES as readonly string[]).includes(query.status))
    throw invalid({ status: [`must be one of ${STATUSES.join(', ')}`] });
  if (query.recipe_id !== undefined) {
    const recipe = assertFound(await findRecipe(ctx.db, caller.environmentId, query.recipe_id), 'not_found');
    if (!(await inScope(ctx, caller, recipe.folder_id))) throw new AppError('not_found');
  }
  const limit = Math.min(query.per_page ?? MAX_PER_PAGE, MAX_PER_PAGE);
  const rows = await listTaskRows(ctx.db, {
    environmentId: caller.environmentId,
    ...(query.recipe_id !== undefined ? { recipeId: query.recipe_id } : {}),
    ...(query.status !== undefined ? { status: query.status as WorkflowTaskStatus } : {}),
    ...(query.assignee !== undefined && query.assignee !== '' ? { assignee: query.assignee.toLowerCase() } : {}),
    ...(query.since_id !== undefined ? { afterId: query.since_id } : {}),
    limit,
  });
  const items: WorkflowTaskApi[] = [];
  // A client limited to some projects sees the tasks of their recipes only.
  const folders = new Map<number, boolean>();
  for (const row of rows) {
    if (!caller.allFolders) {
      const recipe = await findRecipe(ctx.db, caller.environmentId, row.recipe_id);
      if (!recipe) continue;
      let ok = folders.get(recipe.folder_id);
      if (ok === undefined) folders.set(recipe.folder_id, (ok = await inScope(ctx, caller, recipe.folder_id)));
      if (!ok) continue;
    }
    items.push(taskToApi(row));
  }
  return { items };
}

export async function getTask(ctx: ServiceContext, caller: Caller, id: number): Promise<WorkflowTaskApi> {
  return taskToApi(await visibleTask(ctx, caller, id));
}

/** The value a form field takes, or the problem with it. */
function checkField(field: FormField, value: unknown): string | null {
  switch (field.type) {
    case 'integer':
      return Number.isSafeInteger(value) ? null : 'must be an integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be a date (YYYY-MM-DD)';
    default:
      return typeof value === 'string'
        ? value.length > 10_000
          ? 'must be at most 10000 characters'
          : null
        : 'must be a string';
  }
}

function formFieldsOf(task: WorkflowTaskRow): FormField[] {
  try {
    const parsed: unknown = JSON.parse(task.form_fields);
    return Array.isArray(parsed) ? (parsed as FormField[]) : [];
  } catch {
    return [];
  }
}

/** What the task step gives the job when its task ends (its output). */
export function taskOutput(
  task: WorkflowTaskRow,
  status: Exclude<WorkflowTaskStatus, 'open'> | 'approved' | 'rejected',
  at: string,
  extra: {
    completedBy?: string | null;
    comments?: string | null;
    label?: string | null;
    fields?: Record<string, unknown>;
  } = {},
) {
  return {
    task_id: task.id,
    name: task.name,
    record_id: task.record_id,
    assignee: task.assignee,
    status,
    custom_status_label: extra.label ?? null,
    completed_by: extra.completedBy ?? null,
    completed_at: at,
    comments: extra.comments ?? null,
    fields: extra.fields ?? {},
  };
}

/**
 * End an open task and queue its job again, in one transaction. False when the task had ended
 * already (a completion and an expiry racing: the first one wins).
 */
export async function endTask(
  db: Db,
  task: WorkflowTaskRow,
  status: Exclude<WorkflowTaskStatus, 'open'>,
  output: unknown,
  completedBy: string | null,
  at: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (
      !(await endOpenTask(trx, task.id, {
        status,
        result: JSON.stringify(output),
        completed_by: completedBy,
        completed_at: at,
      }))
    )
      return false;
    await requeueWaitingJob(trx, task.job_id);
    return true;
  });
}

export async function completeTask(
  ctx: ServiceContext,
  runtime: WorkflowTaskRuntime,
  caller: Caller,
  id: number,
  body: CompleteTaskBody,
): Promise<WorkflowTaskApi> {
  const task = await visibleTask(ctx, caller, id);
  if (task.status !== 'open') throw new AppError('workflow_task_not_open', { params: { status: task.status } });
  let decision: 'approved' | 'rejected' | 'completed';
  const fields = body.fields ?? {};
  if (task.task_type === 'approval') {
    if (body.status !== 'approved' && body.status !== 'rejected')
      throw invalid({ status: ['must be approved or rejected for an approval task'] });
    decision = body.status;
  } else {
    if (body.status !== undefined && body.status !== 'completed')
      throw invalid({ status: ['must be completed for a form task'] });
    decision = 'completed';
  }
  const form = formFieldsOf(task);
  const errors: Record<string, string[]> = {};
  for (const name of Object.keys(fields))
    if (!form.some((f) => f.name === name)) errors[`fields.${name}`] = ['is not a field of this task'];
  for (const field of form) {
    const value = Object.hasOwn(fields, field.name) ? fields[field.name] : undefined;
    if (value === undefined || value === null || value === '') {
      if (!field.optional) errors[`fields.${field.name}`] = ["can't be blank"];
      continue;
    }
    const problem = checkField(field, value);
    if (problem) errors[`fields.${field.name}`] = [problem];
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const at = toStored(ctx.clock.now());
  const completedBy = body.completed_by ?? task.assignee;
  const output = taskOutput(task, decision, at, {
    completedBy,
    comments: body.comments ?? null,
    label: body.custom_status_label ?? null,
    fields,
  });
  if (!(await endTask(ctx.db, task, 'completed', output, completedBy, at))) {
    const now = assertFound(await findTask(ctx.db, caller.environmentId, id), 'workflow_task_not_found');
    throw new AppError('workflow_task_not_open', { params: { status: now.status } });
  }
  runtime.taskEnded(task.recipe_id);
  return taskToApi(assertFound(await findTask(ctx.db, caller.environmentId, id), 'workflow_task_not_found'));
}

/** Cancel an open task: its job goes on, the step's output saying `canceled`. */
export async function cancelTask(
  ctx: ServiceContext,
  runtime: WorkflowTaskRuntime,
  caller: Caller,
  id: number,
): Promise<WorkflowTaskApi> {
  const task = await visibleTask(ctx, caller, id);
  if (task.status !== 'open') throw new AppError('workflow_task_not_open', { params: { status: task.status } });
  const at = toStored(ctx.clock.now());
  if (!(await endTask(ctx.db, task, 'canceled', taskOutput(task, 'canceled', at), null, at))) {
    const now = assertFound(await findTask(ctx.db, caller.environmentId, id), 'workflow_task_not_found');
    throw new AppError('workflow_task_not_open', { params: { status: now.status } });
  }
  runtime.taskEnded(task.recipe_id);
  return taskToApi(assertFound(await findTask(ctx.db, caller.environmentId, id), 'workflow_task_not_found'));
}
