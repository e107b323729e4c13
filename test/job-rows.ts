// A job row as the engine stores it, for tests that write jobs straight into the database (a job
// another node claimed, one a killed process left, one old enough for retention): every column a
// new job leaves empty is empty, so a test names only the columns it is about.
import { newJobHandle, type NewJob } from '../src/api/jobs/queue.store.ts';
import { toStored } from '../src/time.ts';

export function jobRow(recipeId: number, values: Partial<NewJob> = {}): NewJob {
  const stamp = toStored(new Date());
  return {
    recipe_id: recipeId,
    handle: newJobHandle(),
    status: 'queued',
    title: 'HTTP: new event',
    trigger_output: '{}',
    error: null,
    error_parts: null,
    is_poll_error: 0,
    is_repeat: 0,
    is_test: 0,
    master_job_handle: null,
    calling_recipe_id: null,
    calling_job_handle: null,
    root_recipe_id: null,
    root_job_handle: null,
    task_count: 0,
    created_at: stamp,
    started_at: stamp,
    completed_at: null,
    recipe_version_no: null,
    ...values,
  };
}
