// The web console (src/console/README.md): server-rendered pages at /console/, same origin as the
// API. A plugin of its own context: a form body parser, security headers on every reply, the
// session read from its cookie, a CSRF check on every change, and errors as HTML pages. Handlers
// call the same services as the management API with the session's AuthContext, and check the
// same privilege each API route declares, so a role can do here exactly what it can do there.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, storageUnavailable } from '../errors.ts';
import { fieldErrors } from '../http/validation.ts';
import { csrfTokenMatches, resumeSession } from './sessions.ts';
import { errorPage } from './pages/sign-in.ts';
import { connectorIconSvg, CUSTOM_ICON_SVG } from './pages/icons.ts';
import { consoleKit, cookieOf, type ConsoleDeps, sameOrigin } from './kit.ts';
import { consoleSignInRoutes } from './pages/sign-in.routes.ts';
import { consoleDashboardRoutes } from './pages/dashboard.routes.ts';
import { consoleEditorRoutes } from './pages/editor.routes.ts';
import { consoleRecipesRoutes } from './pages/recipes.routes.ts';
import { consoleJobsRoutes } from './pages/jobs.routes.ts';
import { consoleTestCaseRoutes } from './pages/test-cases.routes.ts';
import { consoleLookupTablesRoutes } from './pages/lookup-tables.routes.ts';
import { consoleDeploymentsRoutes, consoleTopicsRoutes, consoleWorkspaceRoutes } from './pages/workspace.routes.ts';
import { consoleDataTableRecordsRoutes, consoleDataTablesRoutes } from './pages/data-tables.routes.ts';
import { consoleDataTableSchemaRoutes } from './pages/data-table-schema.routes.ts';
import { consoleWorkflowTasksRoutes } from './pages/workflow-tasks.routes.ts';
import { consoleBuildsRoutes } from './pages/builds.routes.ts';
import { consoleConnectionRoutes } from './pages/connection.routes.ts';
import { consoleConnectionFormRoutes } from './pages/connection-form.routes.ts';
import { consoleApiClientsRoutes } from './pages/api-clients.routes.ts';

/** Largest form the console accepts: the recipe editor's, which carries the draft recipe (as the API's body limit). */
const FORM_LIMIT_BYTES = 1024 * 1024;
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Pages reachable without a session. */
const OPEN_ROUTES = new Set([
  '/',
  '/console',
  '/console/sign-in',
  '/console/assets/console.js',
  '/console/assets/editor.js',
  '/console/assets/console.css',
  '/console/assets/favicon.svg',
  '/console/assets/icons/:file',
  '/favicon.ico',
]);

function asset(name: string): { body: Buffer; etag: string } {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
}

export function consoleRoutes(deps: ConsoleDeps) {
  const { ctx, csrfKey } = deps;
  const kit = consoleKit(deps);
  const { frameOf, hide } = kit;
  const assets = {
    js: asset('console.js'),
    editor: asset('editor.js'),
    css: asset('console.css'),
    icon: asset('favicon.svg'),
  };

  return async function consolePlugin(fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.decorateRequest('consoleSession', null);

    // Forms arrive URL-encoded; repeated names keep their first value.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
      (_request, body, done) => {
        const fields: Record<string, string> = {};
        // Own entries only: a field named `constructor` or `__proto__` is a field like any other.
        for (const [key, value] of new URLSearchParams(body as string))
          if (!Object.hasOwn(fields, key))
            Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
        done(null, fields);
      },
    );

    app.addHook('onRequest', async (request, reply) => {
      reply
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'same-origin')
        .header('cache-control', 'no-store');
      const url = request.routeOptions.url;
      if (url === undefined || OPEN_ROUTES.has(url)) return;
      request.consoleSession = await resumeSession(ctx, cookieOf(request), request.ip);
      if (request.consoleSession !== null) return;
      if (request.method === 'GET' || request.method === 'HEAD') {
        const next = request.url.length <= 500 ? request.url : '/console/';
        return reply.redirect(`/console/sign-in?next=${encodeURIComponent(next)}`, 303);
      }
      throw new AppError('console_session_ended');
    });

    // Every change carries the session's CSRF token, and comes from this origin when the browser says where from.
    app.addHook('preValidation', async (request) => {
      if (request.method !== 'POST') return;
      // Forms only: a JSON body (which the app's parser would read) is not a console form.
      const type = request.headers['content-type'];
      if (typeof type !== 'string' || type.split(';')[0]?.trim().toLowerCase() !== 'application/x-www-form-urlencoded')
        throw new AppError('console_form_media_type');
      if (request.consoleSession === null) return;
      if (!sameOrigin(request)) throw new AppError('console_csrf_invalid');
      const body = request.body as Record<string, unknown> | undefined;
      if (!csrfTokenMatches(csrfKey, request.consoleSession.id, body?._csrf))
        throw new AppError('console_csrf_invalid');
    });

    app.setErrorHandler(
      (
        error: Error & { validation?: unknown; validationContext?: string; statusCode?: number; code?: string },
        request,
        reply,
      ) => {
        let known: AppError | undefined;
        if (error instanceof AppError) known = error;
        else if (error.validation) {
          const errors = fieldErrors(error.validation as Parameters<typeof fieldErrors>[0], error.validationContext);
          const [field, problems] = Object.entries(errors)[0] ?? ['request', ['is invalid']];
          const code =
            error.validationContext === 'querystring'
              ? 'query_parameter_invalid'
              : error.validationContext === 'params'
                ? 'path_parameter_invalid'
                : 'body_invalid';
          known = new AppError(code, { params: { field, problem: problems[0] ?? 'is invalid' } });
        } else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') known = new AppError('console_form_media_type');
        else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') known = new AppError('payload_too_large');
        else
          known =
            storageUnavailable(error) ??
            (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
              ? new AppError('bad_request')
              : undefined);
        const status = known?.status ?? 500;
        if (!known) request.log.error({ err: error }, 'console page failed');
        const message = known?.message ?? 'The server could not show this page.';
        return reply
          .status(status)
          .type('text/html; charset=utf-8')
          .send(errorPage(frameOf(request), status, message, known ? undefined : String(request.id)));
      },
    );

    // Entry points and assets
    app.get('/', { schema: hide }, async (_request, reply) => reply.redirect('/console/', 302));
    app.get('/console', { schema: hide }, async (_request, reply) => reply.redirect('/console/', 302));
    app.get('/favicon.ico', { schema: hide }, async (_request, reply) =>
      reply.redirect('/console/assets/favicon.svg', 301),
    );
    for (const [name, file, type] of [
      ['console.js', assets.js, 'text/javascript; charset=utf-8'],
      ['editor.js', assets.editor, 'text/javascript; charset=utf-8'],
      ['console.css', assets.css, 'text/css; charset=utf-8'],
      ['favicon.svg', assets.icon, 'image/svg+xml'],
    ] as const) {
      app.get(`/console/assets/${name}`, { schema: hide }, async (request, reply) => {
        reply.header('cache-control', 'no-cache').header('etag', file.etag);
        if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
        return reply.type(type).send(file.body);
      });
    }

    // Connector icons: built-in and SaaS connectors by provider, `custom.svg` for the others.
    const icons = new Map<string, { body: string; etag: string }>();
    app.get(
      '/console/assets/icons/:file',
      { schema: { ...hide, params: Type.Object({ file: Type.String({ pattern: '^[a-z0-9_]{1,64}\\.svg$' }) }) } },
      async (request, reply) => {
        const provider = request.params.file.slice(0, -'.svg'.length);
        let icon = icons.get(provider);
        if (!icon) {
          const connector = provider === 'custom' ? undefined : deps.connectors.find(provider);
          if (provider !== 'custom' && !connector) throw new AppError('not_found');
          const body = connector ? connectorIconSvg(provider, connector.title) : CUSTOM_ICON_SVG;
          icon = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
          icons.set(provider, icon);
        }
        reply.header('cache-control', 'no-cache').header('etag', icon.etag);
        if (request.headers['if-none-match'] === icon.etag) return reply.status(304).send();
        return reply.type('image/svg+xml').send(icon.body);
      },
    );

    // One file a section, beside the page it renders (src/console/pages/<section>.routes.ts).
    consoleSignInRoutes(app, kit);
    consoleDashboardRoutes(app, kit);
    consoleRecipesRoutes(app, kit);
    consoleEditorRoutes(app, kit);
    consoleJobsRoutes(app, kit);
    consoleTestCaseRoutes(app, kit);
    consoleLookupTablesRoutes(app, kit);
    consoleWorkspaceRoutes(app, kit);
    consoleApiClientsRoutes(app, kit);
    consoleConnectionRoutes(app, kit);
    consoleConnectionFormRoutes(app, kit);
    consoleTopicsRoutes(app, kit);
    consoleDeploymentsRoutes(app, kit);
    consoleDataTablesRoutes(app, kit);
    consoleDataTableSchemaRoutes(app, kit);
    consoleDataTableRecordsRoutes(app, kit);
    consoleWorkflowTasksRoutes(app, kit);
    consoleBuildsRoutes(app, kit);

    // Any other console path: a page, not the API's JSON 404.
    app.get('/console/*', { schema: hide }, async () => {
      throw new AppError('not_found');
    });
  };
}
