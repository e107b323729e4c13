// Who is calling a published API or an event stream: the credential of §9.1 (auth token, OAuth
// access token, or a caller's JWT: jwt and oidc profiles and v2 API keys) resolved to an access profile whose state is cached in memory and dropped the
// moment a management change (refresh, disable, grants) is published, so revocation is immediate.
import { createHash, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceContext } from '../context.ts';
import type { ApiAuthType, JwtMethod } from '../db/types.ts';
import {
  findProfileById,
  findProfileBySecretHash,
  jsonList,
  type ProfileWithClient,
} from '../api/api_access_profiles/api_access_profiles.store.ts';
import type { AccessTokenSigner } from '../oauth2/access-token.ts';
import { createKeySetCache, type KeySetCache } from './jwks.ts';

/** How a caller's JWT is verified: the algorithms are fixed by the profile, never by the token's header. */
export interface JwtSettings {
  method: JwtMethod | 'oidc';
  /** hmac: the shared secret; rsa/ecdsa: a PEM public key. Null when keys come from a JWKS URL or an OIDC issuer. */
  sealedSecret: string | null;
  jwksUri: string | null;
  /** oidc: the issuer whose discovery document names the keys; `iss` must equal it. */
  issuer: string | null;
  claim: string | null;
  requiredClaims: string[];
  allowedIssuers: string[];
  allowedAudiences: string[];
  /** The secret or public key, opened once per profile state. */
  key?: Uint8Array | KeyObject;
}

const ALGORITHMS: Record<JwtSettings['method'], string[]> = {
  hmac: ['HS256', 'HS384', 'HS512'],
  rsa: ['RS256', 'RS384', 'RS512'],
  ecdsa: ['ES256', 'ES384', 'ES512'],
  // An identity provider's keys are key pairs: never an HMAC algorithm, so a token "signed" with a public key as an HMAC secret fails.
  oidc: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'],
};

/** Verified JWTs remembered by their text: at most this many, each at most this long (ms) and never past its `exp`. */
const VERIFIED_JWTS_MAX = 20_000;
const VERIFIED_JWT_MAX_AGE_MS = 5 * 60_000;
const VERIFIED_JWT_MAX_LENGTH = 4096;

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
  jwt?: JwtSettings;
}

export type AccessOutcome =
  { kind: 'none' } | { kind: 'invalid' } | { kind: 'profile'; profile: ProfileState; apiToken: 'query' | 'other' };

export type AccessResolver = ReturnType<typeof createAccessResolver>;

export function createAccessResolver(
  ctx: ServiceContext,
  signer: AccessTokenSigner,
  keySets: KeySetCache = createKeySetCache({ clock: ctx.clock, outbound: ctx.outbound }),
) {
  const byId = new Map<number, ProfileState | null>();
  // A JWT verified once is remembered with the profile state it opened: a repeat call costs a map
  // lookup. Any change of the profile (refresh, disable, delete, settings) replaces that state
  // object, so the entry stops matching at the next request.
  const verifiedJwts = new Map<string, { state: ProfileState; until: number; notBefore: number }>();
  const idByHash = new Map<string, number | null>();
  const drop = () => {
    byId.clear();
    idByHash.clear();
  };
  ctx.notifier.subscribe('api_access_profile.changed', ({ profileId }) => {
    byId.delete(profileId);
    // A refresh changes the hash: forget every hash that pointed at this profile.
    for (const [hash, id] of idByHash) if (id === profileId || id === null) idByHash.delete(hash);
  });
  ctx.notifier.subscribe('api_client.changed', drop);
  ctx.notifier.subscribe('api_routes.changed', drop);
  ctx.notifier.subscribe('everything.changed', drop);

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
      id =
        row && row.secret_hash && timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), Buffer.from(hash, 'hex'))
          ? row.id
          : null;
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
      } else if (
        typeof queryToken === 'string' &&
        !(typeof authorization === 'string' && /^bearer\s/i.test(authorization))
      ) {
        token = queryToken;
        via = 'query';
      }
      if (token !== undefined) {
        if (token === '' || token.length > 512) return { kind: 'invalid' };
        const profile = await stateBySecret(token);
        return profile && profile.authType === 'token'
          ? { kind: 'profile', profile, apiToken: via }
          : { kind: 'invalid' };
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
          if (!profile || profile.authType !== 'oauth2' || profile.generation !== claims.gen)
            return { kind: 'invalid' };
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
    const remembered = verifiedJwts.get(jwt);
    if (remembered) {
      const now = ctx.clock.now().getTime();
      // The state still cached for the profile is the one the token opened: nothing changed since.
      if (now < remembered.until && now >= remembered.notBefore && byId.get(remembered.state.id) === remembered.state) {
        return { kind: 'profile', profile: remembered.state, apiToken: 'other' };
      }
      verifiedJwts.delete(jwt);
    }
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
      if (profile?.jwt && profile.jwt.claim === null) return checkJwt(jwt, profile);
    }
    // A custom claim name: look for any string claim that opens a jwt profile naming that claim.
    for (const [name, value] of Object.entries(payload)) {
      if (typeof value !== 'string' || value === '' || value.length > 512) continue;
      const profile = await stateBySecret(value);
      if (profile?.jwt && profile.jwt.claim === name) return checkJwt(jwt, profile);
    }
    return { kind: 'invalid' };
  }

  async function checkJwt(jwt: string, profile: ProfileState): Promise<AccessOutcome> {
    const settings = profile.jwt as JwtSettings;
    try {
      // `exp` is required whatever the profile lists (RFC 7523 §3): a token without one would never expire.
      const options: JWTVerifyOptions = {
        algorithms: ALGORITHMS[settings.method],
        currentDate: ctx.clock.now(),
        requiredClaims: ['exp'],
      };
      const issuers =
        settings.issuer !== null
          ? settings.allowedIssuers.length === 0 || settings.allowedIssuers.includes(settings.issuer)
            ? [settings.issuer]
            : []
          : settings.allowedIssuers;
      if (settings.issuer !== null && issuers.length === 0) return { kind: 'invalid' };
      if (issuers.length > 0) options.issuer = issuers;
      if (settings.allowedAudiences.length > 0) options.audience = settings.allowedAudiences;
      let payload: JWTPayload;
      if (settings.sealedSecret !== null) {
        settings.key ??= openKey(settings);
        payload = (await jwtVerify(jwt, settings.key, options)).payload;
      } else {
        const url = settings.jwksUri ?? (settings.issuer !== null ? await keySets.jwksUriOf(settings.issuer) : null);
        if (url === null) return { kind: 'invalid' };
        const keySet = await keySets.keySet(url);
        if (keySet === null) return { kind: 'invalid' };
        try {
          payload = (await jwtVerify(jwt, keySet.getKey, options)).payload;
        } catch (error) {
          // A kid the set does not hold: the provider may have rotated its keys; ask again (at a bounded rate).
          if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
          const refreshed = await keySets.keySet(url, { refresh: true });
          if (refreshed === null || refreshed === keySet) return { kind: 'invalid' };
          payload = (await jwtVerify(jwt, refreshed.getKey, options)).payload;
        }
      }
      if (settings.requiredClaims.some((claim) => payload[claim] === undefined)) return { kind: 'invalid' };
      if (!withinLongestLifetime(payload, ctx.clock.now().getTime(), ctx.config.callerJwtMaxLifetimeSeconds))
        return { kind: 'invalid' };
      if (jwt.length <= VERIFIED_JWT_MAX_LENGTH) {
        const now = ctx.clock.now().getTime();
        if (verifiedJwts.size >= VERIFIED_JWTS_MAX) verifiedJwts.clear();
        const until = Math.min(
          now + VERIFIED_JWT_MAX_AGE_MS,
          typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity,
        );
        verifiedJwts.set(jwt, {
          state: profile,
          until,
          notBefore: typeof payload.nbf === 'number' ? payload.nbf * 1000 : 0,
        });
      }
      return { kind: 'profile', profile, apiToken: 'other' };
    } catch {
      return { kind: 'invalid' };
    }
  }

  function openKey(settings: JwtSettings): Uint8Array | KeyObject {
    const secret = ctx.secretBox.open(settings.sealedSecret as string);
    return settings.method === 'hmac' ? new TextEncoder().encode(secret) : createPublicKey(secret);
  }
}

/**
 * A verified token's `exp` (which jose has checked is a number in the future) lies at most
 * `maxSeconds` ahead of now, and of its `iat` when it has one: an identity provider's token
 * issued for a year is refused like one without `exp`.
 */
function withinLongestLifetime(payload: JWTPayload, nowMs: number, maxSeconds: number): boolean {
  const exp = payload.exp;
  if (typeof exp !== 'number') return false;
  if (exp - nowMs / 1000 > maxSeconds) return false;
  return typeof payload.iat !== 'number' || exp - payload.iat <= maxSeconds;
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
    ...(jwtSettingsOf(row) ?? {}),
  };
}

function jwtSettingsOf(row: ProfileWithClient): { jwt: JwtSettings } | undefined {
  const common = {
    claim: row.access_profile_claim,
    requiredClaims: jsonList<string>(row.required_claims),
    allowedIssuers: jsonList<string>(row.allowed_issuers),
    allowedAudiences: jsonList<string>(row.allowed_audiences),
  };
  if (
    row.auth_type === 'jwt' &&
    (row.jwt_secret_sealed !== null || (row.jwt_method !== 'hmac' && row.oidc_jwks_uri !== null))
  ) {
    return {
      jwt: {
        method: row.jwt_method ?? 'hmac',
        sealedSecret: row.jwt_secret_sealed,
        jwksUri: row.jwt_secret_sealed === null ? row.oidc_jwks_uri : null,
        issuer: null,
        ...common,
      },
    };
  }
  if (row.auth_type === 'oidc' && (row.oidc_issuer !== null || row.oidc_jwks_uri !== null)) {
    return {
      jwt: {
        method: 'oidc',
        sealedSecret: null,
        jwksUri: row.oidc_jwks_uri,
        issuer: row.oidc_jwks_uri === null ? row.oidc_issuer : null,
        ...common,
      },
    };
  }
  return undefined;
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
