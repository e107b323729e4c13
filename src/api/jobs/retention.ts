// Job retention: in the background, delete finished jobs that ended more than JOB_RETENTION_HOURS
// ago, with their lines. Lines go first (a crash in between leaves an expired job that the next
// run finishes, never orphan lines). Every statement deletes a bounded batch, and the sweep yields
// between statements, so requests and the engine's own writes are never held up for long. Pending
// jobs are never deleted; the recipe's counters are lifetime counts and are left as they are.
import type { ServiceContext } from '../../context.ts';
import { toStored } from '../../time.ts';
import { deleteExpiredJobs, deleteLinesOfJobs, expiredJobIds } from './jobs.store.ts';

export interface JobRetentionOptions {
  intervalMs: number;
  retentionMs: number;
  /** Jobs per batch. */
  jobBatchSize?: number;
  /** Lines per DELETE statement. */
  lineBatchSize?: number;
}

export function createJobRetentionSweeper(ctx: Pick<ServiceContext, 'db' | 'clock' | 'log'>, options: JobRetentionOptions) {
  const jobBatchSize = options.jobBatchSize ?? 200;
  const lineBatchSize = options.lineBatchSize ?? 500;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = true;
  /** Set by stop(): a run in progress ends after its current statement. */
  let closing = false;

  const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve));

  /** One run, until no expired job is left or the sweeper stops; returns how many jobs it deleted. */
  async function sweepOnce(): Promise<number> {
    const cutoff = toStored(new Date(ctx.clock.now().getTime() - options.retentionMs));
    let deleted = 0;
    for (;;) {
      const ids = await expiredJobIds(ctx.db, cutoff, jobBatchSize);
      if (ids.length === 0) break;
      while ((await deleteLinesOfJobs(ctx.db, ids, lineBatchSize)) === lineBatchSize) {
        await yieldToRequests();
        if (closing) return deleted;
      }
      deleted += await deleteExpiredJobs(ctx.db, ids, cutoff);
      if (ids.length < jobBatchSize) break;
      await yieldToRequests();
      if (closing) break;
    }
    return deleted;
  }

  function next(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = sweepOnce();
      running
        .then((n) => { if (n > 0) ctx.log.debug({ deleted: n }, 'job retention sweep'); })
        .catch((error: unknown) => ctx.log.error({ err: error }, 'job retention sweep failed'))
        .finally(() => {
          running = null;
          next();
        });
    }, options.intervalMs);
    timer.unref();
  }

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      closing = false;
      next();
    },
    /** Stop the timer; a run in progress stops after its current statement (before the database closes). */
    async stop(): Promise<void> {
      stopped = true;
      closing = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running.catch(() => undefined);
    },
    sweepOnce,
  };
}

export type JobRetentionSweeper = ReturnType<typeof createJobRetentionSweeper>;
