// Crash recovery (docs/adr/0006): a job left `running` by a process that died is marked failed
// with `error_type` `Interrupted`. Its steps may already have had effects, so it is not run again,
// and it is never silently dropped. Queued jobs simply run (a claim is a start: a job claimed by a
// node that died is treated as running, never run twice).
// One process on SQLite: at start, every running job was left by the previous run. Several nodes
// on PostgreSQL: only jobs whose claim (lease) ran out, renewed by their node while it lives; each
// node looks for them at start and at every heartbeat, so a dead node's jobs are failed within a
// lease and a heartbeat.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { retryingConflicts } from '../db/conflict-retry.ts';
import { isSharedByNodes } from '../db/dialect.ts';
import { failInterruptedJob, interruptedJobs, renewJobLeases } from '../api/jobs/queue.store.ts';
import { countFailedJob } from '../api/recipes/recipes.store.ts';
import type { EngineEventBus } from './events.ts';
import { toStored } from '../time.ts';

export async function recoverInterruptedJobs(ctx: ServiceContext, events: EngineEventBus): Promise<number> {
  const now = toStored(ctx.clock.now());
  const expiredBefore = isSharedByNodes(ctx.db) ? now : undefined;
  const candidates = await interruptedJobs(ctx.db, expiredBefore);
  if (candidates.length === 0) return 0;
  const message =
    'the server stopped while this job was running; it was not run again because its steps may already have had effects';
  // The jobs first, then their recipes' counters in the order of the ids: the order in which the
  // job ends of every node lock them (src/db/group-commit.ts), so recoveries and job ends never
  // wait for each other in a cycle; a conflict cancelled all the same runs again.
  const failed = await retryingConflicts(() =>
    ctx.db.transaction().execute(async (trx) => {
      const done: typeof candidates = [];
      for (const job of candidates) {
        const result = {
          status: 'failed' as const,
          error: `Interrupted: ${message}`,
          error_parts: JSON.stringify({
            adapter: 'workato',
            error_type: 'Interrupted',
            message,
            error_id: randomUUID(),
            error_at: now,
            input: '<redacted>',
            inner_message: null,
          }),
          completed_at: now,
          task_count: 0,
        };
        // Another node may have failed it first: counted once.
        if (!(await failInterruptedJob(trx, job.id, result, expiredBefore))) continue;
        done.push(job);
      }
      // A test case's job is not counted in the recipe's figures, interrupted or not.
      const perRecipe = new Map<number, number>();
      for (const job of done)
        if (job.is_test !== 1) perRecipe.set(job.recipe_id, (perRecipe.get(job.recipe_id) ?? 0) + 1);
      for (const [recipeId, jobs] of [...perRecipe].sort(([a], [b]) => a - b))
        await countFailedJob(trx, recipeId, jobs);
      return done;
    }),
  );
  if (failed.length === 0) return 0;
  ctx.log.warn({ jobs: failed.length }, 'marked jobs interrupted by a stopped node as failed');
  for (const job of failed) {
    events.emit('job.failed', {
      recipeId: job.recipe_id,
      jobId: job.handle,
      durationMs: 0,
      error: `Interrupted: ${message}`,
      interrupted: true,
    });
  }
  return failed.length;
}

/**
 * Several nodes: renew this node's claims on its running jobs, then fail those whose node stopped
 * renewing. Every third of the lease. Nothing to do on SQLite (one process).
 */
export function startJobHeartbeat(
  ctx: ServiceContext,
  events: EngineEventBus,
  leaseMs: number,
  onRecovered: (count: number) => void,
  afterBeat: () => Promise<void>,
): () => Promise<void> {
  if (!isSharedByNodes(ctx.db)) return () => Promise.resolve();
  let beating: Promise<void> | undefined;
  const timer = setInterval(
    () => {
      if (beating) return;
      const until = toStored(new Date(ctx.clock.now().getTime() + leaseMs));
      beating = renewJobLeases(ctx.db, ctx.nodeId, until)
        .then(() => recoverInterruptedJobs(ctx, events))
        .then((count) => {
          if (count > 0) onRecovered(count);
        })
        .then(afterBeat)
        .catch((error: unknown) => ctx.log.warn({ err: error }, 'could not renew the claims on running jobs'))
        .finally(() => {
          beating = undefined;
        });
    },
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  // Stopping waits for a beat under way: the database may be closed right after.
  return async () => {
    clearInterval(timer);
    await beating;
  };
}
