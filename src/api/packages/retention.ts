// Retention of lifecycle work (PACKAGE_RETENTION_HOURS): in the background, the zip of an export
// that ended longer ago than that is deleted (the package row stays, so its history and the
// deployments that point at packages stay readable; a download then answers 404), and run requests
// of test cases that completed longer ago are deleted. The zips of builds are kept: a build can be
// deployed again at any time. An import's uploaded zip is deleted as soon as the import ends.
// Every statement works on a bounded batch, with a turn for requests between them.
import type { ServiceContext } from '../../context.ts';
import { createPeriodicSweep, type PeriodicSweep } from '../../periodic-sweep.ts';
import { toStored } from '../../time.ts';
import { deleteRunRequests, dropPackageContents, expiredExportIds, expiredRunRequestIds } from './retention.store.ts';

export function createPackageRetentionSweeper(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'log' | 'nodeId'>,
  options: { intervalMs: number; retentionMs: number; batchSize?: number },
): PeriodicSweep {
  const batch = options.batchSize ?? 50;
  const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve));

  async function sweepOnce(closing: () => boolean): Promise<number> {
    const cutoff = toStored(new Date(ctx.clock.now().getTime() - options.retentionMs));
    let deleted = 0;
    for (;;) {
      const ids = await expiredExportIds(ctx.db, cutoff, batch);
      if (ids.length === 0) break;
      await dropPackageContents(ctx.db, ids);
      deleted += ids.length;
      await yieldToRequests();
      if (closing() || ids.length < batch) break;
    }
    for (;;) {
      const ids = await expiredRunRequestIds(ctx.db, cutoff, batch);
      if (ids.length === 0) break;
      await deleteRunRequests(ctx.db, ids);
      deleted += ids.length;
      await yieldToRequests();
      if (closing() || ids.length < batch) break;
    }
    return deleted;
  }

  return createPeriodicSweep({
    name: 'package retention sweep',
    intervalMs: options.intervalMs,
    log: ctx.log,
    run: sweepOnce,
    turns: { db: ctx.db, nodeId: ctx.nodeId },
  });
}
