// A stand-in OAuth 2.0 provider with an API behind it (RFC 6749, RFC 7636): its authorize
// endpoint consents at once and redirects back with a code; its token endpoint exchanges codes
// (checking the redirect URI and the PKCE verifier), takes each refresh token once (rotating them)
// and client credentials, authenticating the app in the form or with HTTP Basic; its API wants a
// bearer token it issued. Apps: `profile-client`/`profile-secret`, `field-client`/`field-secret`.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A provider: its authorize endpoint consents at once, its token endpoint follows RFC 6749, its API wants a bearer. */
export interface OAuthProvider {
  url: string;
  server: Server;
  authorizeQueries: URLSearchParams[];
  tokenForms: URLSearchParams[];
  apiCalls: Array<{ path: string; auth: string | undefined }>;
  /** Access tokens the API takes. */
  valid: Set<string>;
  /** Access tokens the API answers 200 `{"error": "token_expired"}` for (found by `detect_on`). */
  expiredInBody: Set<string>;
  /** Refresh tokens not used yet: each is taken once (rotated), as services that rotate them do. */
  refreshTokens: Set<string>;
  refuseRefresh: boolean;
  /** 401 answers of the API so far. */
  unauthorized: number;
  /** Awaited before a refresh grant is answered (holds a refresh in flight). */
  beforeRefresh: (() => Promise<void>) | null;
}

const APPS: Record<string, string> = { 'profile-client': 'profile-secret', 'field-client': 'field-secret' };

export async function startOAuthProvider(): Promise<OAuthProvider> {
  let n = 0;
  const codes = new Map<string, string>();
  const challenges = new Map<string, { challenge: string; method: string }>();
  const read = async (req: IncomingMessage) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    return body;
  };
  const p: OAuthProvider = {
    url: '',
    server: createServer((req, res) => {
      void read(req).then(async (body) => {
        const url = new URL(req.url ?? '/', 'http://provider');
        const json = (status: number, value: unknown) => {
          res.statusCode = status;
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(value));
        };
        if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
          p.authorizeQueries.push(url.searchParams);
          const code = `code-${++n}`;
          codes.set(code, url.searchParams.get('redirect_uri') ?? '');
          const challenge = url.searchParams.get('code_challenge');
          if (challenge)
            challenges.set(code, { challenge, method: url.searchParams.get('code_challenge_method') ?? 'plain' });
          const back = new URL(url.searchParams.get('redirect_uri') ?? '');
          back.searchParams.set('code', code);
          back.searchParams.set('state', url.searchParams.get('state') ?? '');
          res.statusCode = 302;
          res.setHeader('location', back.toString());
          res.end();
          return;
        }
        if (req.method === 'POST' && url.pathname === '/oauth/token') {
          const form = new URLSearchParams(body);
          p.tokenForms.push(form);
          // The client authenticates in the form, or with HTTP Basic (RFC 6749 §2.3.1).
          const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
          const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
          const id = basicId ?? form.get('client_id') ?? '';
          const secret = basicSecret ?? form.get('client_secret');
          if (APPS[id] === undefined || APPS[id] !== secret) return json(401, { error: 'invalid_client' });
          const grant = form.get('grant_type');
          if (grant === 'authorization_code') {
            const code = form.get('code') ?? '';
            if (codes.get(code) !== form.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
            codes.delete(code);
            // RFC 7636 §4.6: a code asked with a challenge needs the verifier it was made of.
            const asked = challenges.get(code);
            const verifier = form.get('code_verifier');
            if (asked) {
              const made =
                asked.method === 'S256'
                  ? createHash('sha256')
                      .update(verifier ?? '')
                      .digest('base64url')
                  : verifier;
              if (verifier === null || made !== asked.challenge)
                return json(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
            } else if (verifier !== null) return json(400, { error: 'invalid_request' });
          } else if (grant === 'refresh_token') {
            if (p.beforeRefresh) await p.beforeRefresh();
            if (p.refuseRefresh || !p.refreshTokens.delete(form.get('refresh_token') ?? ''))
              return json(400, { error: 'invalid_grant', error_description: 'the refresh token was revoked' });
          } else if (grant !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
          const access = `access-${++n}-${Math.random().toString(36).slice(2)}`;
          const refresh = `refresh-${n}-${Math.random().toString(36).slice(2)}`;
          p.valid.add(access);
          p.refreshTokens.add(refresh);
          return json(200, {
            access_token: access,
            refresh_token: refresh,
            token_type: 'Bearer',
            expires_in: 3600,
            workspace: 'ws-7',
          });
        }
        const auth = req.headers.authorization;
        p.apiCalls.push({ path: url.pathname, auth });
        const token = (auth ?? '').replace(/^Bearer /, '');
        if (p.expiredInBody.has(token)) return json(200, { error: 'token_expired' });
        if (!p.valid.has(token) && req.headers['x-api-key'] !== 'key-1') {
          p.unauthorized++;
          return json(401, { error: 'unauthorized' });
        }
        if (url.pathname === '/me') return json(200, { id: 1 });
        if (url.pathname === '/notes') return json(200, { notes: [{ id: 1, text: 'hello' }] });
        json(404, { error: 'not found' });
      });
    }),
    authorizeQueries: [],
    tokenForms: [],
    apiCalls: [],
    valid: new Set(),
    expiredInBody: new Set(),
    refreshTokens: new Set(),
    refuseRefresh: false,
    unauthorized: 0,
    beforeRefresh: null,
  };
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
  return p;
}
