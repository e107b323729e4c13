// OAuth 2.0 redirects in flight (table `oauth_states`): inserted when a connection is connected,
// taken (deleted and returned in one statement, so a state is used once) by the callback.
import type { Db, OauthStatesTable } from '../../db/types.ts';
import type { Insertable, Selectable } from 'kysely';

export type OauthStateRow = Selectable<OauthStatesTable>;

export async function insertOauthState(db: Db, values: Insertable<OauthStatesTable>): Promise<void> {
  await db.insertInto('oauth_states').values(values).execute();
}

/** The state of that hash, removed: a second callback with it finds nothing. */
export async function takeOauthState(db: Db, stateHash: string): Promise<OauthStateRow | undefined> {
  return db.deleteFrom('oauth_states').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
}

export async function deleteExpiredOauthStates(db: Db, now: string): Promise<void> {
  await db.deleteFrom('oauth_states').where('expires_at', '<=', now).execute();
}
