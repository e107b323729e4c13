// GET /oauth/callback (docs/adr/0019): where a provider sends the browser back after a
// connection's OAuth 2.0 authorization. A plugin of its own context: HTML replies with the
// console's security headers; the outcome leads to the connection's page in the console, a bad
// or used state an error page that changes nothing.
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { AppError, storageUnavailable } from '../errors.ts';
import { CALLBACK_PATH, finishAuthorization, OAUTH_COOKIE } from '../connectors/auth/flow.ts';
import { escapeHtml } from '../console/html.ts';

const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const MAX_QUERY_VALUE = 8192;

export function oauthCallbackRoutes(deps: { ctx: ServiceContext }) {
  const { ctx } = deps;
  return async function oauthCallbackPlugin(app: FastifyInstance): Promise<void> {
    app.addHook('onRequest', async (_request, reply) => {
      reply
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-store');
    });
    app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      const known =
        error instanceof AppError
          ? error
          : (storageUnavailable(error) ??
            (typeof error.statusCode === 'number' && error.statusCode < 500 ? new AppError('bad_request') : undefined));
      if (!known) request.log.error({ err: error }, 'the OAuth callback failed');
      const status = known?.status ?? 500;
      return reply
        .status(status)
        .type('text/html; charset=utf-8')
        .send(callbackErrorPage(known?.message ?? 'The server could not finish this authorization.'));
    });

    app.get(CALLBACK_PATH, { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
      const query: Record<string, string> = {};
      for (const [key, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
        if (typeof value === 'string' && key.length <= 100) query[key] = value.slice(0, MAX_QUERY_VALUE);
      }
      const outcome = await finishAuthorization(ctx, query, cookieValue(request.headers.cookie, OAUTH_COOKIE));
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header('set-cookie', `${OAUTH_COOKIE}=; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);
      // A page of this origin moves the browser on: the console's session cookie (SameSite=Strict)
      // is not sent on a redirect chain that a provider started, but is on this page's navigation.
      const next = `/console/connections/${outcome.connectionId}?authorization=${outcome.status}`;
      return reply
        .status(200)
        .type('text/html; charset=utf-8')
        .send(callbackDonePage(next, outcome.status === 'success'));
    });
  };
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function callbackDonePage(next: string, success: boolean): string {
  const title = success ? 'Connected' : 'Not connected';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escapeHtml(next)}"><title>${title} · Switchboard</title><link rel="stylesheet" href="/console/assets/console.css"></head><body><main id="main"><h1>${title}</h1><p><a id="continue" href="${escapeHtml(next)}">Back to the connection</a></p></main></body></html>`;
}

function callbackErrorPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization · Switchboard</title><link rel="stylesheet" href="/console/assets/console.css"></head><body><main id="main"><h1>Authorization not finished</h1><p class="notice error" role="alert">${escapeHtml(message)}</p><p><a href="/console/connections">Connections</a></p></main></body></html>`;
}
