// OAuth 2.0 token requests of connectors (RFC 6749): client credentials (§4.4), the code exchange
// of the authorization-code grant with PKCE (§4.1, RFC 7636), and refresh (§6). Each request goes
// through the transport (outbound rules, timeouts); a refusal of the token endpoint is an
// AuthorizationError carrying the endpoint's `error` and `error_description`, never a secret.
import { createHash, randomBytes } from 'node:crypto';
import type {
  AuthState,
  FieldValues,
  OAuth2AuthorizationCode,
  OAuth2ClientCredentials,
  OAuthCodeClient,
} from '../definition.ts';
import type { ExchangeLimits, Transport } from '../http/transport.ts';
import { fromValues } from './kinds.ts';

/** The provider refused to give a token: `error` is the RFC 6749 code when it sent one. */
export class AuthorizationError extends Error {
  override name = 'AuthorizationError';
  /** `invalid_grant` and its kin: the stored grant is no good, the connection must connect again. */
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.permanent = permanent;
  }
}

const PERMANENT = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'access_denied']);

/** A PKCE verifier (43 characters of base64url, RFC 7636 §4.1) and its S256 challenge. */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface TokenCall {
  transport: Transport;
  limits: ExchangeLimits;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  clientAuth: 'basic' | 'body';
  params: Record<string, string>;
  keep?: readonly string[];
  readToken?: OAuth2AuthorizationCode['readToken'];
  /** Stays when the reply brings no new one (a refresh reply often has no refresh_token). */
  previous?: AuthState;
}

/** One token request; the new state. */
export async function tokenRequest(call: TokenCall): Promise<AuthState> {
  const form = new URLSearchParams(call.params);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (call.clientAuth === 'basic') {
    const id = encodeURIComponent(call.clientId);
    const secret = encodeURIComponent(call.clientSecret);
    headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
  } else {
    form.set('client_id', call.clientId);
    form.set('client_secret', call.clientSecret);
  }
  const secrets = [call.clientSecret, ...Object.values(call.params)].filter((v) => v.length >= 8);
  const res = await call.transport.send(
    { method: 'POST', url: call.tokenUrl, headers, body: form.toString(), secrets, followRedirects: false },
    call.limits,
  );
  let reply: Record<string, unknown> = {};
  const text = res.body.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      reply = parsed as Record<string, unknown>;
  } catch {
    // Some providers answer form-encoded (RFC 6749 says JSON; GitHub's default is a form).
    for (const [key, value] of new URLSearchParams(text)) reply[key] = value;
  }
  const code = typeof reply.error === 'string' ? reply.error : null;
  if (res.status < 200 || res.status >= 300 || code !== null) {
    const description =
      typeof reply.error_description === 'string' ? ` (${reply.error_description.slice(0, 300)})` : '';
    throw new AuthorizationError(
      `the token endpoint answered ${res.status}${code ? `: ${code.slice(0, 100)}` : ''}${description}`,
      (code !== null && PERMANENT.has(code)) || res.status === 400 || res.status === 401,
    );
  }
  const custom = call.readToken?.(reply) ?? null;
  const accessToken = custom?.accessToken ?? (typeof reply.access_token === 'string' ? reply.access_token : undefined);
  if (accessToken === undefined || accessToken === '')
    throw new AuthorizationError('the token endpoint answered without an access_token', false);
  const expiresIn = Number(reply.expires_in);
  const state: AuthState = {
    accessToken,
    extra: { ...(call.previous?.extra ?? {}), ...(custom?.extra ?? {}) },
  };
  const refresh = custom?.refreshToken ?? (typeof reply.refresh_token === 'string' ? reply.refresh_token : undefined);
  if (refresh ?? call.previous?.refreshToken) state.refreshToken = (refresh ?? call.previous?.refreshToken) as string;
  if (Number.isFinite(expiresIn) && expiresIn > 0)
    state.expiresAt = new Date(Date.now() + expiresIn * 1000).toISOString();
  if (typeof reply.token_type === 'string') state.tokenType = reply.token_type;
  if (typeof reply.scope === 'string') state.scope = reply.scope;
  for (const key of call.keep ?? []) {
    const value = reply[key];
    if (typeof value === 'string' || typeof value === 'number') state.extra[key] = String(value);
  }
  return state;
}

/** A token by the client credentials grant, with the connection's client id and secret. */
export function clientCredentialsToken(
  auth: OAuth2ClientCredentials,
  values: FieldValues,
  transport: Transport,
  limits: ExchangeLimits,
): Promise<AuthState> {
  const scope = auth.scope === undefined ? '' : fromValues(auth.scope, values);
  return tokenRequest({
    transport,
    limits,
    tokenUrl: fromValues(auth.tokenUrl, values),
    clientId: String(values[auth.clientId] ?? ''),
    clientSecret: String(values[auth.clientSecret] ?? ''),
    clientAuth: auth.clientAuth ?? 'basic',
    params: { grant_type: 'client_credentials', ...(scope !== '' ? { scope } : {}) },
  });
}

/** A new access token from the refresh token. */
export function refreshAccessToken(
  auth: OAuth2AuthorizationCode,
  values: FieldValues,
  client: { clientId: string; clientSecret: string },
  previous: AuthState,
  transport: Transport,
  limits: ExchangeLimits,
): Promise<AuthState> {
  if (!previous.refreshToken)
    throw new AuthorizationError('the connection has no refresh token: connect it again', true);
  return tokenRequest({
    transport,
    limits,
    tokenUrl: fromValues(auth.tokenUrl, values),
    ...client,
    clientAuth: auth.clientAuth ?? 'body',
    params: { grant_type: 'refresh_token', refresh_token: previous.refreshToken },
    ...(auth.keepFromToken ? { keep: auth.keepFromToken } : {}),
    ...(auth.readToken ? { readToken: auth.readToken } : {}),
    previous,
  });
}

/** The provider side of the redirect for a definition's authorization-code grant. */
export function codeClientFor(
  auth: OAuth2AuthorizationCode,
  transport: Transport,
  limits: () => ExchangeLimits,
): OAuthCodeClient {
  const pkce = auth.pkce !== false;
  return {
    pkce,
    authorizationUrl({ clientId, redirectUri, state, codeChallenge, values }) {
      const url = new URL(fromValues(auth.authorizationUrl, values));
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      const scopes = typeof auth.scopes === 'function' ? auth.scopes(values) : (auth.scopes ?? []);
      if (scopes.length > 0) url.searchParams.set(auth.scopeParam ?? 'scope', scopes.join(auth.scopeSeparator ?? ' '));
      if (pkce && codeChallenge !== null) {
        url.searchParams.set('code_challenge', codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
      }
      for (const [key, value] of Object.entries(auth.authorizationParams ?? {})) url.searchParams.set(key, value);
      return url.toString();
    },
    async exchange({ code, codeVerifier, redirectUri, clientId, clientSecret, values, callback }) {
      const state = await tokenRequest({
        transport,
        limits: limits(),
        tokenUrl: fromValues(auth.tokenUrl, values),
        clientId,
        clientSecret,
        clientAuth: auth.clientAuth ?? 'body',
        params: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          ...(codeVerifier !== null ? { code_verifier: codeVerifier } : {}),
        },
        ...(auth.keepFromToken ? { keep: auth.keepFromToken } : {}),
        ...(auth.readToken ? { readToken: auth.readToken } : {}),
      });
      for (const key of auth.keepFromCallback ?? []) {
        const value = callback[key];
        if (value !== undefined) state.extra[key] = value;
      }
      return state;
    },
  };
}
