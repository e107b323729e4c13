// A local stand-in of an outside service (STYLE.md, "Connectors"): an HTTP server on loopback that
// answers for the service's origins (the app's CONNECTOR_ORIGINS sends them here), checks each
// request as the service's reference says (method, path, credentials, body format) and answers in
// its documented shapes. Each service's file (test/stand-ins/<service>.ts) declares its routes,
// each naming the reference page it follows, and, for OAuth 2.0 services, its authorization
// server: the authorize endpoint consents at once and sends the browser back with a code; the
// token endpoint checks the client, the code, the redirect URI and the PKCE verifier.
import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
  /** Wait this long before the headers (a slow service). */
  delayMs?: number;
}

export interface Route {
  method: string;
  path: string | RegExp;
  /** The service's reference page this endpoint follows. */
  reference: string;
  answer(req: StandInRequest, standIn: StandIn): Answer | Promise<Answer>;
}

export interface OAuthServer {
  authorizePath: string;
  tokenPath: string;
  /** The reference pages of the two endpoints. */
  reference: string;
  /** How the client authenticates at the token endpoint. */
  clientAuth: 'basic' | 'body' | 'either';
  pkce: 'required' | 'optional';
  /** Extra fields of the token reply (Salesforce's instance_url). */
  tokenExtras?: (standIn: StandIn) => Record<string, unknown>;
  /** Extra query parameters of the redirect back (QuickBooks' realmId). */
  callbackExtras?: Record<string, string>;
  /** The token reply's shape when it is not RFC 6749's (Slack's user token in authed_user). */
  tokenReply?: (tokens: { access: string; refresh: string }) => Record<string, unknown>;
  /** Each refresh issues a new refresh token and ends the old one. */
  rotateRefreshTokens?: boolean;
  /** Form-encoded token replies (GitHub's default); JSON when the client asks for it with Accept. */
  formUnlessJsonAccepted?: boolean;
  clientCredentials?: boolean;
}

export interface StandInSpec {
  name: string;
  /** The real origins this stand-in answers for. */
  origins: readonly string[];
  /** null when the request carries valid credentials as the reference says, else the service's error answer. */
  authenticate(req: StandInRequest, standIn: StandIn): Answer | null;
  routes: readonly Route[];
  oauth?: OAuthServer;
}

export const CLIENT_ID = 'stand-in-client';
export const CLIENT_SECRET = 'stand-in-client-secret-0123';

export interface StandIn {
  readonly url: string;
  readonly spec: StandInSpec;
  readonly requests: StandInRequest[];
  /** Answers given before any API route's (not the authorization server's), one per request, in order. */
  enqueue(...answers: Answer[]): void;
  readonly accessTokens: Set<string>;
  readonly refreshTokens: Set<string>;
  /** Every access token issued so far stops working (expired on the service's side). */
  expireAccessTokens(): void;
  revokeRefreshTokens(): void;
  /** CONNECTOR_ORIGINS entries sending the service's origins here. */
  origins(): Record<string, string>;
  /** Requests that reached a route of the API (not the authorization server). */
  apiRequests(): StandInRequest[];
  close(): Promise<void>;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string | null;
}

interface TokenState {
  codes: Map<string, Code>;
  refreshTokens: Set<string>;
  issue(): { access: string; refresh: string };
  self: StandIn;
}

/** The authorization server's token endpoint (RFC 6749 §4.1.3, §4.4, §6), as the service runs it. */
function tokenAnswer(oauth: OAuthServer, req: StandInRequest, state: TokenState): Answer {
  const { codes, refreshTokens, issue, self } = state;
  const fail = (error: string, status = 400): Answer => ({
    status,
    json: { error, error_description: `stand-in: ${error}` },
  });
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
    return fail('invalid_request');
  const form = new URLSearchParams(req.body);
  const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
  const [basicId, basicSecret] = basic
    ? Buffer.from(basic[1] as string, 'base64')
        .toString('utf8')
        .split(':')
        .map(decodeURIComponent)
    : [undefined, undefined];
  const id = basicId ?? form.get('client_id');
  const secret = basicSecret ?? form.get('client_secret');
  if (oauth.clientAuth === 'basic' && !basic) return fail('invalid_client', 401);
  if (oauth.clientAuth === 'body' && basic) return fail('invalid_client', 401);
  if (id !== CLIENT_ID || secret !== CLIENT_SECRET) return fail('invalid_client', 401);
  const grant = form.get('grant_type');
  let tokens: { access: string; refresh: string };
  if (grant === 'authorization_code') {
    const code = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    if (!code || code.redirectUri !== form.get('redirect_uri')) return fail('invalid_grant');
    if (code.challenge !== null) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) return fail('invalid_grant');
    }
    tokens = issue();
  } else if (grant === 'refresh_token') {
    const given = form.get('refresh_token') ?? '';
    if (!refreshTokens.has(given)) return fail('invalid_grant');
    tokens = issue();
    if (oauth.rotateRefreshTokens) refreshTokens.delete(given);
    else {
      refreshTokens.delete(tokens.refresh);
      tokens.refresh = given;
    }
  } else if (grant === 'client_credentials' && oauth.clientCredentials) {
    tokens = issue();
  } else return fail('unsupported_grant_type');
  const reply = oauth.tokenReply?.(tokens) ?? {
    access_token: tokens.access,
    token_type: 'Bearer',
    expires_in: 3600,
    ...(grant === 'client_credentials' ? {} : { refresh_token: tokens.refresh }),
    ...(oauth.tokenExtras?.(self) ?? {}),
  };
  if (oauth.formUnlessJsonAccepted && !String(req.headers.accept ?? '').includes('application/json'))
    return {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      text: new URLSearchParams(reply as Record<string, string>).toString(),
    };
  return { json: reply };
}

export async function startStandIn(spec: StandInSpec): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const queue: Answer[] = [];
  const accessTokens = new Set<string>();
  const refreshTokens = new Set<string>();
  const codes = new Map<string, Code>();
  const tokenPaths = new Set(spec.oauth ? [spec.oauth.authorizePath, spec.oauth.tokenPath] : []);

  const issue = () => {
    const access = `at-${randomBytes(12).toString('hex')}`;
    const refresh = `rt-${randomBytes(12).toString('hex')}`;
    accessTokens.add(access);
    refreshTokens.add(refresh);
    return { access, refresh };
  };

  const self: StandIn = {
    url: '',
    spec,
    requests,
    enqueue: (...answers) => queue.push(...answers),
    accessTokens,
    refreshTokens,
    expireAccessTokens: () => accessTokens.clear(),
    revokeRefreshTokens: () => refreshTokens.clear(),
    origins: () => Object.fromEntries(spec.origins.map((o) => [o, self.url])),
    apiRequests: () => requests.filter((r) => !tokenPaths.has(r.path)),
    close: async () => undefined,
  };

  const oauthAnswer = (req: StandInRequest): Answer | null => {
    const oauth = spec.oauth;
    if (!oauth) return null;
    if (req.method === 'GET' && req.path === oauth.authorizePath) {
      const q = req.query;
      if (
        q.get('response_type') !== 'code' ||
        q.get('client_id') !== CLIENT_ID ||
        !q.get('redirect_uri') ||
        !q.get('state')
      )
        return { status: 400, text: 'invalid authorization request' };
      const challenge = q.get('code_challenge');
      if (oauth.pkce === 'required' && (challenge === null || q.get('code_challenge_method') !== 'S256'))
        return { status: 400, text: 'PKCE with S256 is required' };
      const code = `code-${randomBytes(8).toString('hex')}`;
      codes.set(code, { clientId: CLIENT_ID, redirectUri: q.get('redirect_uri') as string, challenge });
      const back = new URL(q.get('redirect_uri') as string);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') as string);
      for (const [k, v] of Object.entries(oauth.callbackExtras ?? {})) back.searchParams.set(k, v);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (req.method === 'POST' && req.path === oauth.tokenPath)
      return tokenAnswer(oauth, req, { codes, refreshTokens, issue, self });
    return null;
  };

  const server = http.createServer((incoming, res) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (c: Buffer) => chunks.push(c));
    incoming.on('end', () => {
      void (async () => {
        const url = new URL(incoming.url ?? '/', 'http://stand-in');
        const req: StandInRequest = {
          method: incoming.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        requests.push(req);
        // Queued answers stand for the API's: the authorization server answers as it does.
        let answer: Answer | null = oauthAnswer(req) ?? queue.shift() ?? null;
        if (answer === null) {
          const route = spec.routes.find(
            (r) =>
              r.method === req.method && (typeof r.path === 'string' ? r.path === req.path : r.path.test(req.path)),
          );
          if (!route)
            answer = { status: 404, json: { message: `stand-in ${spec.name}: no route ${req.method} ${req.path}` } };
          else answer = spec.authenticate(req, self) ?? (await route.answer(req, self));
        }
        if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
        const body =
          answer.json !== undefined ? JSON.stringify(answer.json) : answer.text !== undefined ? answer.text : '';
        const headers: Record<string, string> = {
          ...(answer.json !== undefined ? { 'content-type': 'application/json; charset=utf-8' } : {}),
          ...answer.headers,
        };
        if (!res.destroyed) res.writeHead(answer.status ?? 200, headers).end(body);
      })().catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(self, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return self;
}

/** Bearer tokens the stand-in issued (OAuth 2.0 services), checked as the service does. */
export function bearerIssued(req: StandInRequest, standIn: StandIn, unauthorized: Answer): Answer | null {
  const match = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
  return match && standIn.accessTokens.has(match[1] as string) ? null : unauthorized;
}

/** A fixed bearer token (API keys sent as bearer tokens). */
export function bearerIs(req: StandInRequest, token: string, unauthorized: Answer): Answer | null {
  return req.headers.authorization === `Bearer ${token}` ? null : unauthorized;
}

/** Basic credentials, as RFC 7617 sends them. */
export function basicIs(req: StandInRequest, user: string, password: string, unauthorized: Answer): Answer | null {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return req.headers.authorization === expected ? null : unauthorized;
}

export function parseJson(req: StandInRequest): unknown {
  try {
    return JSON.parse(req.body);
  } catch {
    return undefined;
  }
}
