// The retention sweep: in the background, delete messages older than their topic's retention,
// messages of purged topics, and deleted topics with their messages. Each statement deletes a
// bounded batch, and the sweep yields between batches, so publishers and consumers are never held
// up for long. Consumers never rely on it: reads skip expired and purged messages themselves.
import type { ServiceContext } from '../../context.ts';
import { toStored } from '../../time.ts';
import { deleteOldestMessages, deleteTopicRow, topicsToSweep } from './topics.store.ts';

export interface SweepOptions {
  intervalMs: number;
  /** Rows per DELETE statement. */
  batchSize?: number;
  /** Rows per run; what is left waits for the next run (every topic is visited each run). */
  maxRowsPerRun?: number;
}

export function createRetentionSweeper(ctx: Pick<ServiceContext, 'db' | 'clock' | 'log'>, options: SweepOptions) {
  const batchSize = options.batchSize ?? 1000;
  const maxRows = options.maxRowsPerRun ?? 200_000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = true;
  /** Set by stop(): a run in progress ends after its current statement. */
  let closing = false;

  /** One run; returns how many messages it deleted. */
  async function sweepOnce(): Promise<number> {
    let deleted = 0;
    const now = ctx.clock.now().getTime();
    for (const topic of await topicsToSweep(ctx.db)) {
      for (;;) {
        const gone = topic.deleted_at !== null ? 'all' as const : { purgedSeq: topic.purged_seq, cutoff: toStored(new Date(now - topic.retention_seconds * 1000)) };
        const n = await deleteOldestMessages(ctx.db, topic.id, batchSize, gone);
        deleted += n;
        if (n < batchSize) {
          if (topic.deleted_at !== null) await deleteTopicRow(ctx.db, topic.id);
          break;
        }
        // Let requests in between two batches.
        await new Promise((resolve) => setImmediate(resolve));
        if (deleted >= maxRows || closing) break;
      }
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
        .then((n) => { if (n > 0) ctx.log.debug({ deleted: n }, 'event streams retention sweep'); })
        .catch((error: unknown) => ctx.log.error({ err: error }, 'event streams retention sweep failed'))
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
    /** Stop the timer; a run in progress ends after its current statement (before the database closes). */
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
