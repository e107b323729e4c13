// Job retention: in the background, delete finished jobs that ended more than JOB_RETENTION_HOURS
// ago, with their lines and their large line values (job_line_values). Values and lines go first (a
// crash in between leaves an expired job that the next run finishes, never orphans). Every statement deletes a bounded batch, and the sweep yields
// between statements, so requests and the engine's own writes are never held up for long. Pending
// jobs are never deleted; the recipe's counters are lifetime counts and are left as they are.
import type { ServiceContext } from '../../context.ts';
import { createPeriodicSweep, type PeriodicSweep } from '../../periodic-sweep.ts';
import { toStored } from '../../time.ts';
import { deleteExpiredJobs, deleteLineValuesOfJobs, deleteLinesOfJobs, expiredJobIds } from './retention.store.ts';

export interface JobRetentionOptions {
  intervalMs: number;
  retentionMs: number;
  /** Jobs per batch. */
  jobBatchSize?: number;
  /** Lines per DELETE statement. */
  lineBatchSize?: number;
}

/** Large line values per DELETE statement. */
const VALUE_BATCH = 20;

export function createJobRetentionSweeper(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'log' | 'nodeId'>,
  options: JobRetentionOptions,
): PeriodicSweep {
  const jobBatchSize = options.jobBatchSize ?? 200;
  const lineBatchSize = options.lineBatchSize ?? 500;
  const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve));

  /** One run, until no expired job is left or the sweeper stops; returns how many jobs it deleted. */
  async function sweepOnce(closing: () => boolean): Promise<number> {
    const cutoff = toStored(new Date(ctx.clock.now().getTime() - options.retentionMs));
    let deleted = 0;
    for (;;) {
      const ids = await expiredJobIds(ctx.db, cutoff, jobBatchSize);
      if (ids.length === 0) break;
      // A value may be megabytes: a few per statement.
      while ((await deleteLineValuesOfJobs(ctx.db, ids, VALUE_BATCH)) === VALUE_BATCH) {
        await yieldToRequests();
        if (closing()) return deleted;
      }
      while ((await deleteLinesOfJobs(ctx.db, ids, lineBatchSize)) === lineBatchSize) {
        await yieldToRequests();
        if (closing()) return deleted;
      }
      deleted += await deleteExpiredJobs(ctx.db, ids, cutoff);
      if (ids.length < jobBatchSize) break;
      await yieldToRequests();
      if (closing()) break;
    }
    return deleted;
  }

  return createPeriodicSweep({
    name: 'job retention sweep',
    intervalMs: options.intervalMs,
    log: ctx.log,
    run: sweepOnce,
    turns: { db: ctx.db, nodeId: ctx.nodeId },
  });
}

export type JobRetentionSweeper = PeriodicSweep;
