// OAuth clients (oauth2 access profiles) by client id, kept in memory so that issuing a token
// needs no database read; an entry is dropped the moment its profile or client changes.
import type { ServiceContext } from '../context.ts';
import {
  findProfileByOAuthClientId,
  type ProfileWithClient,
} from '../api/api_access_profiles/api_access_profiles.store.ts';

export type OAuthClient = Pick<
  ProfileWithClient,
  'id' | 'auth_type' | 'active' | 'client_active' | 'secret_generation' | 'api_client_id'
> & {
  /** The SHA-256 of the client secret, as bytes (the column holds it in hex); null when the profile has none. */
  secretHash: Buffer | null;
};

const MAX_ENTRIES = 50_000;

export function createOAuthClientCache(ctx: ServiceContext) {
  const byClientId = new Map<string, OAuthClient>();
  const forget = (match: (c: OAuthClient) => boolean) => {
    for (const [key, value] of byClientId) if (match(value)) byClientId.delete(key);
  };
  ctx.notifier.subscribe('api_access_profile.changed', ({ profileId }) => forget((c) => c.id === profileId));
  ctx.notifier.subscribe('api_client.changed', ({ clientId }) => forget((c) => c.api_client_id === clientId));
  ctx.notifier.subscribe('everything.changed', () => byClientId.clear());

  return {
    /** The client if it is in memory (no database read). */
    peek(clientId: string): OAuthClient | undefined {
      return byClientId.get(clientId);
    },
    async find(clientId: string): Promise<OAuthClient | undefined> {
      const cached = byClientId.get(clientId);
      if (cached) return cached;
      const row = await findProfileByOAuthClientId(ctx.db, clientId);
      // Unknown ids are not remembered: a flood of guesses must not fill memory.
      if (!row) return undefined;
      if (byClientId.size >= MAX_ENTRIES) byClientId.delete(byClientId.keys().next().value as string);
      const entry: OAuthClient = {
        id: row.id,
        auth_type: row.auth_type,
        active: row.active,
        client_active: row.client_active,
        secretHash: row.oauth_secret_hash === null ? null : Buffer.from(row.oauth_secret_hash, 'hex'),
        secret_generation: row.secret_generation,
        api_client_id: row.api_client_id,
      };
      byClientId.set(clientId, entry);
      return entry;
    },
  };
}

export type OAuthClientCache = ReturnType<typeof createOAuthClientCache>;
