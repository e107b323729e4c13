// Crash recovery (docs/adr/0006): on start, a job left `running` by a process that died is marked
// failed with `error_type` `Interrupted`. Its steps may already have had effects, so it is not
// run again, and it is never silently dropped. Queued jobs simply run.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { finishJob, interruptedJobs } from '../api/jobs/jobs.store.ts';
import { countFailedJob } from '../api/recipes/recipes.store.ts';
import type { EngineEventBus } from './events.ts';
import { toStored } from '../time.ts';

export async function recoverInterruptedJobs(ctx: ServiceContext, events: EngineEventBus): Promise<void> {
  const interrupted = await interruptedJobs(ctx.db);
  if (interrupted.length === 0) return;
  const stamp = toStored(ctx.clock.now());
  const message = 'the server stopped while this job was running; it was not run again because its steps may already have had effects';
  await ctx.db.transaction().execute(async (trx) => {
    for (const job of interrupted) {
      await finishJob(trx, job.id, {
        status: 'failed',
        error: `Interrupted: ${message}`,
        error_parts: JSON.stringify({ adapter: 'workato', error_type: 'Interrupted', message, error_id: randomUUID(), error_at: stamp, input: '<redacted>', inner_message: null }),
        completed_at: stamp,
        task_count: 0,
      });
      // A test case's job is not counted in the recipe's figures, interrupted or not.
      if (job.is_test !== 1) await countFailedJob(trx, job.recipe_id);
    }
  });
  ctx.log.warn({ jobs: interrupted.length }, 'marked jobs interrupted by the last shutdown as failed');
  for (const job of interrupted) {
    events.emit('job.failed', { recipeId: job.recipe_id, jobId: job.handle, durationMs: 0, error: `Interrupted: ${message}`, interrupted: true });
  }
}
