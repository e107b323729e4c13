// The leases table (leases.ts): take, renew and give up a claim by name, and take or forget a
// turn of periodic work.
import type { Db } from './db/types.ts';
import { isSharedByNodes } from './db/dialect.ts';

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
