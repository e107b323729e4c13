// The leases table (leases.ts): take, renew and give up a claim by name.
import type { Db } from './db/types.ts';

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

/** Give the lease up (the work is done); nothing when another holder has it. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
}
