// At most 20 API keys (access profiles) per API client (contract 03 §7, D-limits), whichever
// view, v1 or v2, creates them.
import type { Db } from '../../db/types.ts';
import { AppError } from '../../errors.ts';
import { countClientProfiles } from './api_access_profiles.store.ts';

export const MAX_KEYS_PER_CLIENT = 20;

/** Called inside the creating transaction, so two creates at once cannot both take the 20th place. */
export async function assertKeyRoom(db: Db, clientId: number): Promise<void> {
  if ((await countClientProfiles(db, clientId)) >= MAX_KEYS_PER_CLIENT)
    throw new AppError('api_key_limit_reached', { params: { max: MAX_KEYS_PER_CLIENT } });
}
