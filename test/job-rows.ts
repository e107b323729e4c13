// A job row as the engine stores it, for tests that write jobs straight into the database (a job
// another node claimed, one a killed process left, one old enough for retention): every column a
// new job leaves empty is empty, so a test names only the columns it is about.
import { newJobRow, type NewJob } from '../src/api/jobs/queue.store.ts';
import { toStored } from '../src/time.ts';

export function jobRow(recipeId: number, values: Partial<NewJob> = {}): NewJob {
  return newJobRow(recipeId, toStored(new Date()), 'HTTP: new event', { trigger_output: '{}', ...values });
}
