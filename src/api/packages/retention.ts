// Retention of lifecycle work (PACKAGE_RETENTION_HOURS): in the background, the zip of an export
// that ended longer ago than that is deleted (the package row stays, so its history and the
// deployments that point at packages stay readable; a download then answers 404), and run requests
// of test cases that completed longer ago are deleted. The zips of builds are kept: a build can be
// deployed again at any time. An import's uploaded zip is deleted as soon as the import ends.
// Every statement works on a bounded batch, with a turn for requests between them.
import type { ServiceContext } from '../../context.ts';
import { createPeriodicSweep, type PeriodicSweep } from '../../periodic-sweep.ts';
import { toStored } from '../../time.ts';

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
      const rows = await ctx.db
        .selectFrom('packages')
        .select('id')
        .where('status', 'in', ['completed', 'failed'])
        .where('completed_at', '<', cutoff)
        .where('content_size', 'is not', null)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('project_builds')
                .select('project_builds.id')
                .whereRef('project_builds.package_id', '=', 'packages.id'),
            ),
          ),
        )
        .orderBy('id')
        .limit(batch)
        .execute();
      if (rows.length === 0) break;
      const ids = rows.map((r) => r.id);
      await ctx.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('package_chunks').where('package_id', 'in', ids).execute();
        await trx.updateTable('packages').set({ content_size: null }).where('id', 'in', ids).execute();
      });
      deleted += ids.length;
      await yieldToRequests();
      if (closing() || rows.length < batch) break;
    }
    for (;;) {
      const rows = await ctx.db
        .selectFrom('test_run_requests')
        .select('id')
        .where('status', '=', 'completed')
        .where('updated_at', '<', cutoff)
        .orderBy('id')
        .limit(batch)
        .execute();
      if (rows.length === 0) break;
      await ctx.db
        .deleteFrom('test_run_requests')
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      deleted += rows.length;
      await yieldToRequests();
      if (closing() || rows.length < batch) break;
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
