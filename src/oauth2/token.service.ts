// The client credentials grant (RFC 6749 §4.4) as named steps: read the credentials, check the
// grant, authenticate the client, check that it may use the grant, issue the token (contract 01).
import { timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { hashTokenBytes } from '../auth/credentials.ts';
import type { OAuthClient, OAuthClientCache } from './client-cache.ts';
import { ACCESS_TOKEN_TTL_SECONDS, type AccessTokenSigner } from './access-token.ts';
import { OAuthError } from './errors.ts';
import type { FailureLimiter } from './failure-limiter.ts';

/** What the request carried, whatever its format: each parameter with every value it had. */
export interface TokenRequest {
  params: Map<string, string[]>;
  basic: { clientId: string; clientSecret: string } | null;
  sourceAddress: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
}

const MAX_PARAM_LENGTH = 1024;

type IssueDeps = { signer: AccessTokenSigner; limiter: FailureLimiter; clients: OAuthClientCache };
type Credentials = ReturnType<typeof clientCredentials>;

/**
 * The grant. An invalid request throws at once. The client is usually in memory, and then the
 * token is returned without a promise; otherwise it is read first and a promise is returned.
 */
export function issueToken(
  ctx: ServiceContext,
  deps: IssueDeps,
  request: TokenRequest,
): TokenResponse | Promise<TokenResponse> {
  const grantType = single(request.params, 'grant_type');
  if (grantType === undefined) throw new OAuthError('grant_type_missing');
  if (grantType !== 'client_credentials') throw new OAuthError('grant_type_unsupported');

  const credentials = clientCredentials(request);
  const limiterKeys = [`id:${credentials.clientId}`, `ip:${request.sourceAddress}`];
  const wait = deps.limiter.retryAfter(limiterKeys);
  if (wait > 0) throw new OAuthError('too_many_token_requests', { headers: { 'retry-after': String(wait) } });

  const known = deps.clients.peek(credentials.clientId);
  if (known !== undefined) return grant(ctx, deps, credentials, limiterKeys, known);
  return deps.clients.find(credentials.clientId).then((profile) => grant(ctx, deps, credentials, limiterKeys, profile));
}

/** Authenticate the client against its profile (or none) and issue the token. */
function grant(
  ctx: ServiceContext,
  deps: IssueDeps,
  credentials: Credentials,
  limiterKeys: string[],
  profile: OAuthClient | undefined,
): TokenResponse {
  const presented = hashTokenBytes(credentials.clientSecret);
  const stored = profile?.secretHash ?? Buffer.alloc(presented.length);
  const secretMatches = timingSafeEqual(presented, stored) && profile?.secretHash != null;
  if (!profile || !secretMatches) {
    deps.limiter.recordFailure(limiterKeys);
    ctx.log.info({ client_id: credentials.clientId.slice(0, 100), outcome: 'invalid_client' }, 'token request refused');
    throw new OAuthError(
      'client_authentication_failed',
      credentials.viaBasic ? { headers: { 'www-authenticate': 'Basic realm="oauth2", error="invalid_client"' } } : {},
    );
  }
  if (profile.auth_type !== 'oauth2') throw new OAuthError('profile_not_oauth2');
  if (profile.active !== 1 || profile.client_active !== 1) throw new OAuthError('profile_disabled');

  const token = deps.signer.sign({
    profileId: profile.id,
    generation: profile.secret_generation,
    issuer: ctx.config.publicAuthUrl,
    now: ctx.clock.now(),
  });
  ctx.log.info({ client_id: credentials.clientId, access_profile_id: profile.id, outcome: 'issued' }, 'token issued');
  return { access_token: token, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS };
}

/** Credentials from the Basic header or the body (one place only, or both identical). */
function clientCredentials(request: TokenRequest): { clientId: string; clientSecret: string; viaBasic: boolean } {
  const bodyId = single(request.params, 'client_id');
  const bodySecret = single(request.params, 'client_secret');
  if (request.basic) {
    if (
      (bodyId !== undefined && bodyId !== request.basic.clientId) ||
      (bodySecret !== undefined && bodySecret !== request.basic.clientSecret)
    ) {
      throw new OAuthError('credentials_differ');
    }
    if (request.basic.clientId === '' || request.basic.clientSecret === '') throw new OAuthError('basic_incomplete');
    return { ...request.basic, viaBasic: true };
  }
  if (bodyId === undefined && bodySecret === undefined) throw new OAuthError('credentials_missing');
  if (bodyId === undefined || bodyId === '') throw new OAuthError('client_id_missing');
  if (bodySecret === undefined || bodySecret === '') throw new OAuthError('client_secret_missing');
  return { clientId: bodyId, clientSecret: bodySecret, viaBasic: false };
}

/** A parameter that may appear at most once (RFC 6749 §3.2), within a sane length. */
function single(params: Map<string, string[]>, name: string): string | undefined {
  const values = params.get(name);
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new OAuthError('parameter_repeated', { params: { name } });
  const value = values[0] as string;
  if (value.length > MAX_PARAM_LENGTH) throw new OAuthError('parameter_too_long', { params: { name } });
  return value;
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1). */
export function parseBasic(header: string | undefined): { clientId: string; clientSecret: string } | null {
  if (header === undefined) return null;
  const match = /^basic\s+(\S*)\s*$/i.exec(header);
  if (!match) throw new OAuthError('authorization_not_basic');
  const encoded = match[1] ?? '';
  if (
    encoded.length === 0 ||
    encoded.length > 4096 ||
    !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ||
    encoded.length % 4 !== 0
  ) {
    throw new OAuthError('basic_not_base64');
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('basic_without_colon');
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('basic_not_percent_encoded');
  }
}

function formDecode(text: string): string {
  // Most ids and secrets have nothing encoded in them.
  if (!text.includes('%') && !text.includes('+')) return text;
  return decodeURIComponent(text.replace(/\+/g, ' '));
}
