// Activity log retention: entries are kept as long as jobs are (JOB_RETENTION_HOURS) and deleted
// the same way, in the background, a bounded batch per statement, yielding between statements.
import type { ServiceContext } from '../../context.ts';
import { createPeriodicSweep, type PeriodicSweep } from '../../periodic-sweep.ts';
import { toStored } from '../../time.ts';
import { deleteActivityByIds, expiredActivityIds } from './activity_logs.store.ts';

export function createActivityRetentionSweeper(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'log' | 'nodeId'>,
  options: { intervalMs: number; retentionMs: number; batchSize?: number },
): PeriodicSweep {
  const batchSize = options.batchSize ?? 500;
  const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve));

  async function sweepOnce(closing: () => boolean): Promise<number> {
    const cutoff = toStored(new Date(ctx.clock.now().getTime() - options.retentionMs));
    let deleted = 0;
    for (;;) {
      const ids = await expiredActivityIds(ctx.db, cutoff, batchSize);
      if (ids.length === 0) break;
      deleted += await deleteActivityByIds(ctx.db, ids);
      if (ids.length < batchSize || closing()) break;
      await yieldToRequests();
    }
    return deleted;
  }

  return createPeriodicSweep({
    name: 'activity log retention sweep',
    intervalMs: options.intervalMs,
    log: ctx.log,
    run: sweepOnce,
    // With several nodes, each interval's sweep is a turn: one node sweeps.
    turns: { db: ctx.db, nodeId: ctx.nodeId },
  });
}
