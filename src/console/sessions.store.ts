// The console_sessions table (migration 0022): one row per signed-in browser.
import type { Db } from '../db/types.ts';

export async function insertSession(
  db: Db,
  values: { session_hash: string; client_id: number; token_hash: string; created_at: string; expires_at: string },
): Promise<void> {
  await db.insertInto('console_sessions').values(values).execute();
}

/** A session that has not ended by `now`. */
export async function findLiveSession(db: Db, sessionHash: string, now: string) {
  return db
    .selectFrom('console_sessions')
    .select(['id', 'client_id', 'token_hash', 'created_at', 'expires_at'])
    .where('session_hash', '=', sessionHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, sessionHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('session_hash', '=', sessionHash).execute();
}

export async function deleteEndedSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
}
