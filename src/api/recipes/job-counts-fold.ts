// The fold of appended job counts into their recipes' columns (job-counts.store.ts), in the
// background every second: the rows a recipe's reads add up stay few. Every node tries each
// second (a turn's write every second would cost more than a fold with nothing to do, which reads
// one index entry and writes nothing); on PostgreSQL a fold holds a lock that another node's fold
// skips. A fold is one transaction, so a crash or a stop between two leaves every count where it was.
import type { ServiceContext } from '../../context.ts';
import { createPeriodicSweep, type PeriodicSweep } from '../../periodic-sweep.ts';
import { foldJobCounts } from './job-counts.store.ts';

/** How often the counts are folded. */
export const JOB_COUNTS_FOLD_INTERVAL_MS = 1_000;

/** Rows per fold statement. */
const FOLD_BATCH = 5_000;

export function createJobCountsFolder(ctx: Pick<ServiceContext, 'db' | 'log'>): PeriodicSweep {
  return createPeriodicSweep({
    name: 'job counts fold',
    intervalMs: JOB_COUNTS_FOLD_INTERVAL_MS,
    log: ctx.log,
    run: async (closing) => {
      let folded = 0;
      for (;;) {
        const n = await foldJobCounts(ctx.db, FOLD_BATCH);
        folded += n;
        if (n < FOLD_BATCH || closing()) return folded;
      }
    },
  });
}
