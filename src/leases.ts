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

/** Take (or renew) the lease `name` for `holder` until `until`; false when another holder's lease still runs. */
export async function takeLease(db: Db, name: string, holder: string, now: string, until: string): Promise<boolean> {
  await db
    .insertInto('leases')
    .values({ name, holder, expires_at: until })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  // A concurrent taker waits for this update's row lock, then finds the lease held.
  const taken = await db
    .updateTable('leases')
    .set({ holder, expires_at: until })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now)]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/**
 * Take the turn `name` (periodic work that one node at a time does, such as a polling trigger's
 * poll) until `until`, if no turn runs at `now`, whoever took the last one: returns whether this
 * call took it, and when the turn that runs now ends (this one's or another node's). On SQLite
 * one process owns the database: every turn is taken, without a write.
 */
export async function takeTurn(
  db: Db,
  name: string,
  holder: string,
  now: string,
  until: string,
): Promise<{ taken: boolean; endsAt: string }> {
  if (!isSharedByNodes(db)) return { taken: true, endsAt: until };
  await db
    .insertInto('leases')
    .values({ name, holder, expires_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  // A concurrent taker waits for this update's row lock, then finds the turn running.
  const taken = await db
    .updateTable('leases')
    .set({ holder, expires_at: until })
    .where('name', '=', name)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 1) return { taken: true, endsAt: until };
  const current = await db.selectFrom('leases').select('expires_at').where('name', '=', name).executeTakeFirst();
  return { taken: false, endsAt: current?.expires_at ?? now };
}

/** Forget the turn `name` (its work stopped), so that the next start takes one at once. */
export async function forgetTurn(db: Db, name: string): Promise<void> {
  if (!isSharedByNodes(db)) return;
  await db.deleteFrom('leases').where('name', '=', name).execute();
}

/** Give the lease up (the work is done); nothing when another holder has it. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
}

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
