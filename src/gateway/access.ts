// Who is calling a published API or an event stream: the credential of §9.1 (auth token, OAuth
// access token or a caller's JWT) resolved to an access profile whose state is cached in memory and dropped the
// moment a management change (refresh, disable, grants) is published, so revocation is immediate.
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { decodeJwt, decodeProtectedHeader, importSPKI, jwtVerify, type JWTPayload } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceContext } from '../context.ts';
import type { ApiAuthType } from '../db/types.ts';
import { findProfileById, findProfileBySecretHash, jsonList, type ProfileWithClient } from '../api/api_access_profiles/api_access_profiles.store.ts';
import type { AccessTokenSigner } from '../oauth2/access-token.ts';

export interface ProfileState {
  id: number;
  authType: ApiAuthType;
  usable: boolean;
  generation: number;
  collectionIds: ReadonlySet<number>;
  /** Event topics this profile may publish to / consume from (contract 13 §1). */
  publishTopicIds: ReadonlySet<number>;
  consumeTopicIds: ReadonlySet<number>;
  ipAllow: BlockList | null;
  ipDeny: BlockList | null;
  policyId: number | null;
  environmentId: number;
  jwt?: { method: 'hmac' | 'rsa'; sealedSecret: string; claim: string | null; requiredClaims: string[]; allowedIssuers: string[] };
}

export type AccessOutcome =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | { kind: 'profile'; profile: ProfileState; apiToken: 'query' | 'other' };

export type AccessResolver = ReturnType<typeof createAccessResolver>;

export function createAccessResolver(ctx: ServiceContext, signer: AccessTokenSigner) {
  const byId = new Map<number, ProfileState | null>();
  const idByHash = new Map<string, number | null>();
  const drop = () => { byId.clear(); idByHash.clear(); };
  ctx.notifier.subscribe('api_access_profile.changed', ({ profileId }) => {
    byId.delete(profileId);
    // A refresh changes the hash: forget every hash that pointed at this profile.
    for (const [hash, id] of idByHash) if (id === profileId || id === null) idByHash.delete(hash);
  });
  ctx.notifier.subscribe('api_client.changed', drop);
  ctx.notifier.subscribe('api_routes.changed', drop);

  async function stateById(id: number): Promise<ProfileState | null> {
    if (byId.has(id)) return byId.get(id) ?? null;
    const row = await findProfileById(ctx.db, id);
    const state = row ? toState(row) : null;
    if (byId.size > 50_000) byId.clear();
    byId.set(id, state);
    return state;
  }

  async function stateBySecret(secret: string): Promise<ProfileState | null> {
    const hash = sha256(secret);
    let id = idByHash.get(hash);
    if (id === undefined) {
      const row = await findProfileBySecretHash(ctx.db, hash);
      // Compare the stored hash in constant time even though the index found it.
      id = row && row.secret_hash && timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), Buffer.from(hash, 'hex')) ? row.id : null;
      if (idByHash.size > 50_000) idByHash.clear();
      idByHash.set(hash, id);
    }
    return id === null ? null : stateById(id);
  }

  return {
    async resolve(request: { headers: IncomingHttpHeaders; query: Record<string, unknown> }): Promise<AccessOutcome> {
      const headers = request.headers;
      const apiTokenHeader = headers['api-token'];
      const authorization = headers.authorization;
      const queryToken = request.query.api_token;

      // Auth tokens (token profiles): API-TOKEN header, then Basic api-token:<token>, then ?api_token=.
      let token: string | undefined;
      let via: 'query' | 'other' = 'other';
      if (typeof apiTokenHeader === 'string') token = apiTokenHeader.trim();
      else if (typeof authorization === 'string' && /^basic\s/i.test(authorization)) {
        const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon < 0 || decoded.slice(0, colon).toLowerCase() !== 'api-token') return { kind: 'invalid' };
        token = decoded.slice(colon + 1);
      } else if (typeof queryToken === 'string' && !(typeof authorization === 'string' && /^bearer\s/i.test(authorization))) {
        token = queryToken;
        via = 'query';
      }
      if (token !== undefined) {
        if (token === '' || token.length > 512) return { kind: 'invalid' };
        const profile = await stateBySecret(token);
        return profile && profile.authType === 'token' ? { kind: 'profile', profile, apiToken: via } : { kind: 'invalid' };
      }

      if (typeof authorization === 'string') {
        const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
        if (!match) return { kind: 'invalid' };
        const bearer = match[1] as string;
        if (signer.isOurs(bearer)) {
          const claims = signer.verify(bearer, ctx.clock.now());
          if (!claims) return { kind: 'invalid' };
          const profile = await stateById(claims.apid);
          // A token issued before the last secret refresh is revoked.
          if (!profile || profile.authType !== 'oauth2' || profile.generation !== claims.gen) return { kind: 'invalid' };
          return { kind: 'profile', profile, apiToken: 'other' };
        }
        return verifyCallerJwt(bearer);
      }
      return { kind: 'none' };
    },
  };

  /** A JWT of the caller's identity provider (jwt profiles, 03 §9.3). */
  async function verifyCallerJwt(jwt: string): Promise<AccessOutcome> {
    if (jwt.length > 16_384) return { kind: 'invalid' };
    let payload: JWTPayload;
    let header: { kid?: string };
    try {
      payload = decodeJwt(jwt);
      header = decodeProtectedHeader(jwt);
    } catch {
      return { kind: 'invalid' };
    }
    // The profile key travels in the first of these claims that is set (unless a custom claim is named).
    const candidates = [payload['https://www.workato.com/sub'], payload.workato_sub, payload.sub, header.kid];
    for (const candidate of candidates) {
      if (typeof candidate !== 'string' || candidate === '') continue;
      const profile = await stateBySecret(candidate);
      if (profile?.authType === 'jwt' && profile.jwt) return checkJwt(jwt, profile);
    }
    // A custom claim name: look for any string claim that opens a jwt profile naming that claim.
    for (const [name, value] of Object.entries(payload)) {
      if (typeof value !== 'string' || value === '' || value.length > 512) continue;
      const profile = await stateBySecret(value);
      if (profile?.authType === 'jwt' && profile.jwt?.claim === name) return checkJwt(jwt, profile);
    }
    return { kind: 'invalid' };
  }

  async function checkJwt(jwt: string, profile: ProfileState): Promise<AccessOutcome> {
    const settings = profile.jwt as NonNullable<ProfileState['jwt']>;
    try {
      const secret = ctx.secretBox.open(settings.sealedSecret);
      const key = settings.method === 'hmac' ? new TextEncoder().encode(secret) : await importSPKI(secret, 'RS256');
      const algorithms = settings.method === 'hmac' ? ['HS256', 'HS384', 'HS512'] : ['RS256', 'RS384', 'RS512'];
      const { payload } = await jwtVerify(jwt, key, { algorithms, currentDate: ctx.clock.now(), ...(settings.allowedIssuers.length > 0 ? { issuer: settings.allowedIssuers } : {}) });
      if (settings.requiredClaims.some((claim) => payload[claim] === undefined)) return { kind: 'invalid' };
      return { kind: 'profile', profile, apiToken: 'other' };
    } catch {
      return { kind: 'invalid' };
    }
  }
}

export function ipPasses(profile: ProfileState, address: string): boolean {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(plain) === 0) return profile.ipAllow === null;
  if (profile.ipDeny?.check(plain, family)) return false;
  return profile.ipAllow === null || profile.ipAllow.check(plain, family);
}

function toState(row: ProfileWithClient): ProfileState {
  return {
    id: row.id,
    authType: row.auth_type,
    usable: row.active === 1 && row.client_active === 1,
    generation: row.secret_generation,
    collectionIds: new Set(jsonList<number>(row.api_collection_ids)),
    publishTopicIds: new Set(jsonList<number>(row.publish_topic_ids)),
    consumeTopicIds: new Set(jsonList<number>(row.consume_topic_ids)),
    ipAllow: blockList(jsonList<string>(row.ip_allow_list)),
    ipDeny: blockList(jsonList<string>(row.ip_deny_list)),
    policyId: row.api_policy_id ?? row.client_policy_id,
    environmentId: row.environment_id,
    ...(row.auth_type === 'jwt' && row.jwt_secret_sealed
      ? { jwt: { method: row.jwt_method ?? 'hmac', sealedSecret: row.jwt_secret_sealed, claim: row.access_profile_claim, requiredClaims: jsonList<string>(row.required_claims), allowedIssuers: jsonList<string>(row.allowed_issuers) } }
      : {}),
  };
}

function blockList(entries: string[]): BlockList | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
