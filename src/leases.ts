// Claims on background work by name (`package:12`, `test_run:...`) when several nodes share one
// PostgreSQL database: the node that takes a lease does the work and renews the lease while it
// works; a node that dies stops renewing, and another node takes the work up once the lease has
// run out. Turns (`poll:7`) are the same rows for periodic work: one node takes the turn until the
// next is due, and the others leave it to that node. On SQLite one process owns the database:
// every lease and turn is granted without a write (and a restarted process takes its own work up
// at once, as before).
import type { Db } from './db/types.ts';
import { isSharedByNodes } from './db/dialect.ts';
import type { Clock } from './time.ts';
import { toStored } from './time.ts';
import { takeLease, releaseLease } from './leases.store.ts';

export interface LeaseDeps {
  db: Db;
  clock: Clock;
  nodeId: string;
  leaseMs: number;
}

/**
 * Run `work` while holding the lease `name`, renewed every third of the lease; undefined without
 * running it when another node holds it. Released at the end, whatever the outcome.
 */
export async function withLease<T>(
  deps: LeaseDeps,
  name: string,
  work: () => Promise<T>,
): Promise<{ done: T } | undefined> {
  if (!isSharedByNodes(deps.db)) return { done: await work() };
  const until = () => toStored(new Date(deps.clock.now().getTime() + deps.leaseMs));
  if (!(await takeLease(deps.db, name, deps.nodeId, toStored(deps.clock.now()), until()))) return undefined;
  const timer = setInterval(
    () => {
      takeLease(deps.db, name, deps.nodeId, toStored(deps.clock.now()), until()).catch(() => undefined);
    },
    Math.max(100, Math.floor(deps.leaseMs / 3)),
  );
  timer.unref();
  try {
    return { done: await work() };
  } finally {
    clearInterval(timer);
    await releaseLease(deps.db, name, deps.nodeId).catch(() => undefined);
  }
}
