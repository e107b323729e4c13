// A connection's session (contract 22 §4): each request joined to the connection's base URL,
// authenticated as its definition says, sent through the transport; an OAuth 2.0 token fetched or
// refreshed when it expired, refreshed once when the service answers 401 and the request tried
// again, after which a 401 fails the step naming the connection; every other error answer fails
// the step with the service's own message. Refreshed tokens are stored through an AuthStore.
import { applyAuth, secretValues, selectAuth } from '../auth/kinds.ts';
import { AuthorizationError, clientCredentialsToken, refreshAccessToken } from '../auth/oauth2.ts';
import type {
  AuthDefinition,
  AuthState,
  ConnectionDefinition,
  ConnectionState,
  ConnectorRequest,
  ConnectorResponse,
  ConnectorSession,
} from '../definition.ts';
import { StepError } from '../step-error.ts';
import { jsonDepth, MAX_EVENT_DEPTH } from '../../recipe/formula/values.ts';
import { serviceMessage } from './errors.ts';
import type { ExchangeLimits, Transport, TransportResponse } from './transport.ts';

/** Where a session keeps what an authorization left (the connection's sealed `auth_sealed`). */
export interface AuthStore {
  /** The state stored now: another job or node may have refreshed the token meanwhile. */
  load(): Promise<AuthState>;
  /** Stores a refreshed state. */
  save(next: AuthState): Promise<void>;
  /** The grant is no good any more (the refresh was refused): the connection lost its authorization. */
  lost(reason: string): Promise<void>;
}

export interface SessionOptions {
  definition: ConnectionDefinition;
  connection: { id: number | null; name: string; provider: string };
  state: ConnectionState;
  transport: Transport;
  limits: ExchangeLimits;
  /** The OAuth app of an authorization-code connection (its custom OAuth profile, or its own fields). */
  oauthClient?: (() => Promise<{ clientId: string; clientSecret: string } | undefined>) | undefined;
  store?: AuthStore | undefined;
  /** Told of every new state (the job's cached connection follows it). */
  onState?: ((state: AuthState) => void) | undefined;
}

/** Refresh this long before the provider's expiry, so a token does not die in flight. */
const EXPIRY_MARGIN_MS = 60_000;

const ERROR_TYPES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Request too large',
  415: 'Unsupported media type',
  422: 'Unprocessable entity',
  429: 'Too many requests',
};

export function errorTypeOf(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'Server error' : `HTTP ${status}`);
}

export function openSession(options: SessionOptions): ConnectorSession {
  const { definition, connection, transport, limits } = options;
  const state: ConnectionState = { values: options.state.values, auth: { ...options.state.auth } };
  const { auth } = selectAuth(definition, state.values);
  // An administrator's refresh token (an integration user's) stands for the redirect.
  if (auth.type === 'oauth2_authorization_code' && auth.refreshTokenField && !state.auth.refreshToken) {
    const given = state.values[auth.refreshTokenField];
    if (given !== undefined && String(given).trim() !== '') state.auth.refreshToken = String(given).trim();
  }
  const baseUrl = new URL(definition.baseUrl(state));
  const who = `the ${connection.provider} connection "${connection.name}"${connection.id === null ? '' : ` (id ${connection.id})`}`;

  const refreshable = () =>
    auth.type === 'oauth2_client_credentials' ||
    (auth.type === 'oauth2_authorization_code' && state.auth.refreshToken !== undefined);
  let refreshing: Promise<void> | null = null;

  async function renew(reason: 'expired' | 'refused'): Promise<void> {
    refreshing ??= (async () => {
      const used = state.auth.accessToken;
      // Another job (or node) may already have refreshed it: take the stored state first.
      if (options.store && reason === 'refused') {
        const stored = await options.store.load();
        if (stored.accessToken && stored.accessToken !== used && !expired(stored)) {
          state.auth = stored;
          options.onState?.(stored);
          return;
        }
      }
      let next: AuthState;
      try {
        next = await fetchToken(auth, state, options);
      } catch (error) {
        if (error instanceof AuthorizationError) {
          // A concurrent refresh may have used up a rotating refresh token: look once more.
          if (options.store) {
            const stored = await options.store.load();
            if (stored.accessToken && stored.accessToken !== used && !expired(stored)) {
              state.auth = stored;
              options.onState?.(stored);
              return;
            }
            if (error.permanent) await options.store.lost(error.message);
          }
          throw new StepError('Connection error', `${who} could not get a new access token: ${error.message}`);
        }
        throw error;
      }
      state.auth = next;
      options.onState?.(next);
      await options.store?.save(next);
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  async function send(req: ConnectorRequest): Promise<TransportResponse> {
    const url = resolveUrl(baseUrl, req.url);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
      else url.searchParams.append(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Switchboard' };
    const fixed = typeof definition.headers === 'function' ? definition.headers(state) : (definition.headers ?? {});
    for (const [name, value] of Object.entries(fixed)) headers[name.toLowerCase()] = value;
    for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
    let body: string | Uint8Array | undefined;
    if (req.body && req.method !== 'GET' && req.method !== 'HEAD') {
      if ('json' in req.body && definition.jsonBodyAsForm) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = formEncode(req.body.json);
      } else if ('json' in req.body) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(req.body.json);
      } else if ('form' in req.body) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = new URLSearchParams(req.body.form as Record<string, string>).toString();
      } else if ('text' in req.body) {
        headers['content-type'] ??= req.body.contentType;
        body = req.body.text;
      } else {
        headers['content-type'] ??= req.body.contentType;
        body = req.body.bytes;
      }
    }
    applyAuth(auth, state, headers, url, req.method);
    return transport.send(
      {
        method: req.method,
        url: url.toString(),
        headers,
        ...(body !== undefined ? { body } : {}),
        secrets: secretValues(definition, state),
      },
      limits,
    );
  }

  return {
    connection,
    get state() {
      return state;
    },
    baseUrl,
    send: (raw) => transport.send(raw, limits),
    portable() {
      const portable = transport.portable?.() ?? null;
      if (portable === null) return null;
      return {
        settings: {
          ...portable.settings,
          timeoutMs: limits.timeoutMs,
          maxResponseBytes: limits.maxResponseBytes,
          deadline: limits.deadline,
          retryRateLimits: limits.retryRateLimits !== false,
        },
        sleep: (ms) => limits.sleep(ms),
        log: portable.log,
      };
    },
    async request(req) {
      if (refreshable() && needsToken(auth, state.auth)) await renew('expired');
      let res = await send(req);
      let refreshed = false;
      if ((res.status === 401 || unauthorized(definition, res)) && refreshable()) {
        await renew('refused');
        refreshed = true;
        res = await send(req);
      }
      return read(definition, res, req, who, refreshed);
    },
  };
}

function unauthorized(definition: ConnectionDefinition, res: TransportResponse): boolean {
  if (!definition.unauthorized) return false;
  let body: unknown = null;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    body = null;
  }
  return definition.unauthorized(res.status, body);
}

/** A JSON value as a form, nested keys in brackets (`metadata[plan]=pro`, `items[0][price]=p_1`). */
export function formEncode(value: unknown): string {
  const out = new URLSearchParams();
  const walk = (prefix: string, v: unknown, depth: number) => {
    if (v === null || v === undefined || depth > 20) return;
    if (Array.isArray(v)) v.forEach((item, i) => walk(`${prefix}[${i}]`, item, depth + 1));
    else if (typeof v === 'object')
      for (const [k, inner] of Object.entries(v as Record<string, unknown>))
        walk(prefix === '' ? k : `${prefix}[${k}]`, inner, depth + 1);
    else out.append(prefix, String(v));
  };
  if (typeof value === 'object' && value !== null) walk('', value, 0);
  return out.toString();
}

function expired(auth: AuthState): boolean {
  return auth.expiresAt !== undefined && Date.parse(auth.expiresAt) - EXPIRY_MARGIN_MS <= Date.now();
}

function needsToken(auth: AuthDefinition, state: AuthState): boolean {
  if (auth.type === 'oauth2_client_credentials') return !state.accessToken || expired(state);
  if (auth.type === 'oauth2_authorization_code')
    return state.refreshToken !== undefined && (!state.accessToken || expired(state));
  return false;
}

async function fetchToken(auth: AuthDefinition, state: ConnectionState, options: SessionOptions): Promise<AuthState> {
  if (auth.type === 'oauth2_client_credentials')
    return clientCredentialsToken(auth, state.values, options.transport, options.limits);
  if (auth.type === 'oauth2_authorization_code') {
    const client = await options.oauthClient?.();
    if (!client)
      throw new AuthorizationError(
        'no OAuth app to refresh with (a custom OAuth profile for the provider, or client_id and client_secret)',
        true,
      );
    return refreshAccessToken(auth, state.values, client, state.auth, options.transport, options.limits);
  }
  throw new AuthorizationError('this connection has no token to refresh', true);
}

/**
 * A path joined to the base URL as RFC 3986 resolves references: `users.list` and `me/messages`
 * go below the base, `/v1/customers` replaces its path, an absolute URL stays itself.
 */
export function resolveUrl(baseUrl: URL, path: string): URL {
  const trimmed = path.trim();
  try {
    return new URL(trimmed === '' ? baseUrl.toString() : trimmed, baseUrl);
  } catch {
    throw new StepError('Bad request', `${JSON.stringify(trimmed.slice(0, 100))} is not a path or a URL`);
  }
}

function jsonOrText(text: string): unknown {
  if (jsonDepth(text) > MAX_EVENT_DEPTH) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function read(
  definition: ConnectionDefinition,
  res: TransportResponse,
  req: ConnectorRequest,
  who: string,
  refreshed: boolean,
): ConnectorResponse {
  const contentType = res.headers['content-type'] ?? '';
  const text = req.responseType === 'bytes' ? '' : res.body.toString('utf8');
  let body: unknown = req.responseType === 'bytes' ? res.body : text;
  let parsedJson = false;
  if (req.responseType !== 'bytes' && req.responseType !== 'text' && text.trim() !== '') {
    if (jsonDepth(text) > MAX_EVENT_DEPTH)
      throw new StepError('Bad response', `the answer nests deeper than ${MAX_EVENT_DEPTH} levels`);
    try {
      body = JSON.parse(text);
      parsedJson = true;
    } catch {
      body = text;
    }
  } else if ((req.responseType ?? 'json') === 'json' && text.trim() === '') body = null;
  const ok = res.status >= 200 && res.status < 300;
  const serviceError = definition.errorOf?.(res.status, body) ?? null;
  if ((!ok || serviceError !== null) && !req.acceptErrors) {
    // A download's error answer is the service's text all the same (Drive's JSON error for alt=media).
    const errorText = req.responseType === 'bytes' ? res.body.toString('utf8').slice(0, 100_000) : text;
    const message =
      serviceError ?? serviceMessage(req.responseType === 'bytes' ? jsonOrText(errorText) : body, errorText);
    if (res.status === 401)
      throw new StepError(
        'Unauthorized',
        `401 Unauthorized: ${who} was refused${refreshed ? ' after its token was refreshed' : ''}: ${message}`,
        errorText.slice(0, 2000),
      );
    const type = ok ? 'Bad request' : errorTypeOf(res.status);
    throw new StepError(type, `${res.status} ${type}: ${message}`, errorText.slice(0, 2000));
  }
  if (ok && (req.responseType ?? 'json') === 'json' && !parsedJson && text.trim() !== '')
    throw new StepError(
      'Bad response',
      `${res.status} answer is not JSON (${contentType.split(';')[0] || 'no content type'}): ${text.slice(0, 200)}`,
      text.slice(0, 2000),
    );
  return { status: res.status, headers: res.headers, body, url: res.url };
}
