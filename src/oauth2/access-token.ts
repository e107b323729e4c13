// OAuth 2.0 access tokens: compact JWTs (HS256) signed with a key derived from the master key.
// Signing and verifying are synchronous HMACs: an async WebCrypto call per token would cost
// about twenty times as much (docs/adr/0005). A token names its access profile and the secret
// generation it was issued under, so a secret refresh revokes every earlier token at once.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hmacSha256Base64url } from '../crypto/hmac.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'sb1' })).toString('base64url');
const HEADER_PREFIX = `${HEADER}.`;
export const AUDIENCE = 'switchboard-gateway';
/** Verified tokens remembered (about 0.5 KB each). */
const VERIFIED_CACHE_SIZE = 20_000;

export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  /** Access profile id. */
  apid: number;
  /** Secret generation of the profile at issue. */
  gen: number;
  iat: number;
  exp: number;
  jti: string;
}

export interface AccessTokenSigner {
  sign(input: { profileId: number; generation: number; issuer: string; now: Date }): string;
  /** The claims of a token this server signed and that has not expired; otherwise null. */
  verify(token: string, now: Date): Readonly<AccessTokenClaims> | null;
  /** Whether the string is shaped like one of our tokens (to tell it from a caller's JWT). */
  isOurs(token: string): boolean;
}

/**
 * The claims of a new token as JSON, the same text as JSON.stringify of AccessTokenClaims in
 * member order (tested), written directly: only the issuer can need escaping. Integers and the
 * token id (base64url, a dot, base 36) need none.
 */
export function claimsJson(issuer: string, profileId: number, generation: number, iat: number, jti: string): string {
  return `{"iss":${JSON.stringify(issuer)},"aud":"${AUDIENCE}","sub":"ap:${profileId}","apid":${profileId},"gen":${generation},"iat":${iat},"exp":${iat + ACCESS_TOKEN_TTL_SECONDS},"jti":"${jti}"}`;
}

export function createAccessTokenSigner(key: Buffer): AccessTokenSigner {
  const mac = hmacSha256Base64url(key);
  // Token ids: a random prefix per signer and a counter, unique without asking for randomness per token.
  const idPrefix = randomBytes(9).toString('base64url');
  let counter = 0;
  // Tokens whose signature was checked, by their exact text: a gateway call with a token seen
  // before costs a map lookup instead of an HMAC and a JSON parse. Only a token this server
  // signed can be in it; expiry is still checked on every call, and revocation (secret refresh,
  // disable) is checked by the caller against the profile's state, never cached here.
  const verified = new Map<string, Readonly<AccessTokenClaims>>();
  const checkSignature = (token: string): Readonly<AccessTokenClaims> | null => {
    if (token.length > 2048 || !token.startsWith(HEADER_PREFIX)) return null;
    const dot = token.lastIndexOf('.');
    if (dot <= HEADER_PREFIX.length) return null;
    const body = token.slice(0, dot);
    // The signature as sent against the one we would write: only the canonical base64url passes
    // (decoding first would let other spellings of the same bytes through).
    const signature = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(mac(body), 'utf8');
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
    let claims: AccessTokenClaims;
    try {
      claims = JSON.parse(
        Buffer.from(body.slice(HEADER_PREFIX.length), 'base64url').toString('utf8'),
      ) as AccessTokenClaims;
    } catch {
      return null;
    }
    if (
      claims.aud !== AUDIENCE ||
      !Number.isInteger(claims.apid) ||
      !Number.isInteger(claims.gen) ||
      typeof claims.exp !== 'number'
    )
      return null;
    return Object.freeze(claims);
  };
  return {
    sign({ profileId, generation, issuer, now }) {
      const iat = Math.floor(now.getTime() / 1000);
      const claims = claimsJson(issuer, profileId, generation, iat, `${idPrefix}.${(counter++).toString(36)}`);
      const body = HEADER_PREFIX + Buffer.from(claims).toString('base64url');
      return `${body}.${mac(body)}`;
    },
    verify(token, now) {
      let claims = verified.get(token);
      if (claims === undefined) {
        const checked = checkSignature(token);
        if (checked === null) return null;
        claims = checked;
        // Oldest first out: a full cache forgets the token verified longest ago.
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
        verified.set(token, claims);
      }
      if (Math.floor(now.getTime() / 1000) >= claims.exp) {
        verified.delete(token);
        return null;
      }
      return claims;
    },
    isOurs(token) {
      return token.startsWith(HEADER_PREFIX);
    },
  };
}
