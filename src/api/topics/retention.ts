// The retention sweep: in the background, delete messages older than their topic's retention,
// messages of purged topics, and deleted topics with their messages. Each statement deletes a
// bounded batch, and the sweep yields between batches, so publishers and consumers are never held
// up for long. Consumers never rely on it: reads skip expired and purged messages themselves.
import type { ServiceContext } from '../../context.ts';
import { createPeriodicSweep, type PeriodicSweep } from '../../periodic-sweep.ts';
import { toStored } from '../../time.ts';
import { deleteOldestMessages, deleteTopicRow, topicsToSweep } from './topics.store.ts';

export interface SweepOptions {
  intervalMs: number;
  /** Rows per DELETE statement. */
  batchSize?: number;
  /** Rows per run; what is left waits for the next run (every topic is visited each run). */
  maxRowsPerRun?: number;
}

export function createRetentionSweeper(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'log' | 'nodeId'>,
  options: SweepOptions,
): PeriodicSweep {
  const batchSize = options.batchSize ?? 1000;
  const maxRows = options.maxRowsPerRun ?? 200_000;

  /** One run; returns how many messages it deleted. */
  async function sweepOnce(closing: () => boolean): Promise<number> {
    let deleted = 0;
    const now = ctx.clock.now().getTime();
    for (const topic of await topicsToSweep(ctx.db)) {
      for (;;) {
        const gone =
          topic.deleted_at !== null
            ? ('all' as const)
            : { purgedSeq: topic.purged_seq, cutoff: toStored(new Date(now - topic.retention_seconds * 1000)) };
        const n = await deleteOldestMessages(ctx.db, topic.id, batchSize, gone);
        deleted += n;
        if (n < batchSize) {
          if (topic.deleted_at !== null) await deleteTopicRow(ctx.db, topic.id);
          break;
        }
        // Let requests in between two batches.
        await new Promise((resolve) => setImmediate(resolve));
        if (deleted >= maxRows || closing()) break;
      }
      if (closing()) break;
    }
    return deleted;
  }

  return createPeriodicSweep({
    name: 'event streams retention sweep',
    intervalMs: options.intervalMs,
    log: ctx.log,
    run: sweepOnce,
    turns: { db: ctx.db, nodeId: ctx.nodeId },
  });
}
