// The web console (src/console/README.md): server-rendered pages at /console/, same origin as the
// API. A plugin of its own context: a form body parser, security headers on every reply, the
// session read from its cookie, a CSRF check on every change, and errors as HTML pages. Handlers
// call the same services as the management API with the session's AuthContext, and check the
// same privilege each API route declares, so a role can do here exactly what it can do there.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.ts';
import { AppError, storageUnavailable } from '../errors.ts';
import { fieldErrors } from '../http/validation.ts';
import { IdParams } from '../http/schemas.ts';
import type { Privilege } from '../api/developer_api_client_roles/privileges.ts';
import { actorOf } from '../http/activity.ts';
import {
  listRecipes,
  getRecipe,
  listRecipeVersions,
  startRecipe,
  stopRecipe,
  type RecipeRuntime,
} from '../api/recipes/recipes.service.ts';
import {
  cancelJobs,
  getJobWithSteps,
  jobActivity,
  listJobs,
  repeatJobs,
  type JobControl,
} from '../api/jobs/jobs.service.ts';
import {
  addRow,
  deleteRow,
  getRow,
  getTable,
  listRows,
  listTables,
  updateRow,
} from '../api/lookup_tables/lookup_tables.service.ts';
import { listProfiles, refreshSecret } from '../api/api_access_profiles/api_access_profiles.service.ts';
import { listApiClients } from '../api/api_clients/api_clients.service.ts';
import { listCollections } from '../api/api_collections/api_collections.service.ts';
import { listEndpoints } from '../api/api_endpoints/api_endpoints.service.ts';
import { listConnections } from '../api/connections/connections.service.ts';
import { tagsByHandle } from '../api/tags/tags.service.ts';
import { listProperties } from '../api/properties/properties.service.ts';
import { getTopic, listTopics } from '../api/event_streams/event_streams.service.ts';
import { publishMessage, recentMessages, type EventStreamsRuntime } from '../api/topics/topics.service.ts';
import { deployBuild, listBuildDeployments, listDeployments } from '../api/deployments/deployments.service.ts';
import { getBuildContents, listBuilds, startBuild } from '../api/project_builds/project_builds.service.ts';
import { listProjects } from '../api/projects/projects.service.ts';
import type { PackageRunner } from '../api/packages/runner.ts';
import {
  getRunRequest,
  listRecentRunRequests,
  listTestCases,
  startRunRequest,
  type TestRunKick,
} from '../api/test_cases/test_cases.service.ts';
import { listFolders } from '../api/folders/folders.service.ts';
import {
  addRecord,
  columnsOf as dataColumnsOf,
  deleteRecord,
  filterFor,
  getRecord,
  getTable as getDataTable,
  listTables as listDataTables,
  recordToApi,
  searchRecords,
  updateRecord,
  type RecordListener,
} from '../api/data_tables/data_tables.service.ts';
import {
  completeTask,
  getTask,
  listTasks,
  type WorkflowTaskRuntime,
} from '../api/workflow_tasks/workflow_tasks.service.ts';
import { csrfTokenMatches, csrfTokenOf, resumeSession, signIn, signOut, type ConsoleSession } from './sessions.ts';
import type { PageFrame } from './layout.ts';
import { errorPage, signInPage } from './pages/sign-in.ts';
import { dashboardPage } from './pages/dashboard.ts';
import { recipeListPage, recipePage } from './pages/recipes.ts';
import { jobListPage, jobPage } from './pages/jobs.ts';
import { columnsOf, lookupRowPage, lookupTablePage, lookupTablesPage } from './pages/lookup-tables.ts';
import {
  apiPlatformPage,
  connectionsPage,
  deploymentsPage,
  propertiesPage,
  testRunPage,
  testRunsPage,
  topicPage,
  topicsPage,
} from './pages/workspace.ts';
import { buildPage, buildsPage } from './pages/builds.ts';
import { dataRecordPage, dataTablePage, dataTablesPage } from './pages/data-tables.ts';
import { TASK_STATUSES, workflowTaskPage, workflowTasksPage } from './pages/workflow-tasks.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: ConsoleSession | null;
  }
}

export interface ConsoleDeps {
  ctx: ServiceContext;
  engine: RecipeRuntime & JobControl & WorkflowTaskRuntime & { readonly dataTableListener: RecordListener };
  /** Event streams at run time: a test message is published as the API publishes one. */
  eventStreams: EventStreamsRuntime;
  /** Background exports and imports: a build or a deployment started here runs as one started by the API. */
  packages: PackageRunner;
  /** Test run requests in the background. */
  tests: TestRunKick;
  /** Key of the CSRF tokens (derived from the secret key: stable across restarts, like the sessions). */
  csrfKey: Buffer;
}

const COOKIE = 'sb_console';
/** Largest form the console accepts (a lookup-table row of 10 KB cells, the sign-in token). */
const FORM_LIMIT_BYTES = 256 * 1024;
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_SIZE = 50;
const DASHBOARD_HOURS = 3;

/** Pages reachable without a session. */
const OPEN_ROUTES = new Set([
  '/',
  '/console',
  '/console/sign-in',
  '/console/assets/console.js',
  '/console/assets/console.css',
  '/console/assets/favicon.svg',
  '/favicon.ico',
]);

/** Texts shown after a change (the redirect names one by key, so no text travels in a URL). */
const NOTICES: Record<string, string> = {
  started: 'The recipe is running.',
  stopped: 'The recipe is stopped.',
  row_added: 'Row added.',
  row_saved: 'Row saved.',
  row_deleted: 'Row deleted.',
  published: 'Message published.',
  build_started: 'Build started: it is pending until its package is written.',
  deployed: 'Deployment started.',
  record_added: 'Record added.',
  record_saved: 'Record saved.',
  record_deleted: 'Record deleted.',
  task_completed: 'Task completed: its job goes on.',
};

const Form = (fields: Record<string, ReturnType<typeof Type.String>>) =>
  Type.Object({ _csrf: Type.String({ maxLength: 100 }), ...fields });
const NoticeQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) });
const HandleParams = Type.Object({ id: IdParams.properties.id, handle: Type.String({ minLength: 1, maxLength: 100 }) });
const RowParams = Type.Object({ id: IdParams.properties.id, row_id: IdParams.properties.id });

function asset(name: string): { body: Buffer; etag: string } {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
}

function cookieOf(request: FastifyRequest): string {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return '';
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === COOKIE) return part.slice(at + 1).trim();
  }
  return '';
}

/** Whether a browser's Origin header, when it sends one, names this host (a malformed one does not). */
function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return true;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

/** A path inside the console to go back to after sign-in; anything else goes to the dashboard. */
function safeNext(next: unknown): string {
  return typeof next === 'string' &&
    /^\/console\/[A-Za-z0-9/_?=&%.-]*$/.test(next) &&
    !next.includes('..') &&
    !next.includes('//')
    ? next
    : '/console/';
}

export function consoleRoutes(deps: ConsoleDeps) {
  const { ctx, engine, csrfKey, eventStreams, packages, tests } = deps;
  const assets = { js: asset('console.js'), css: asset('console.css'), icon: asset('favicon.svg') };

  return async function consolePlugin(fastify: FastifyInstance): Promise<void> {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.decorateRequest('consoleSession', null);

    // Forms arrive URL-encoded; repeated names keep their first value.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
      (_request, body, done) => {
        const fields: Record<string, string> = {};
        for (const [key, value] of new URLSearchParams(body as string)) if (!(key in fields)) fields[key] = value;
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

    function frameOf(request: FastifyRequest, section?: string): Omit<PageFrame, 'title'> {
      const session = request.consoleSession;
      if (!session) return {};
      return {
        ...(section ? { section } : {}),
        session: {
          environment: session.auth.environmentType,
          workspaceId: session.auth.workspaceId,
          csrf: csrfTokenOf(csrfKey, session.id),
          privileges: session.auth.privileges,
        },
      };
    }

    function sessionOf(request: FastifyRequest): ConsoleSession {
      if (!request.consoleSession) throw new AppError('console_session_ended');
      return request.consoleSession;
    }

    /** The session's caller, when its role holds the privilege the matching API route needs. */
    function callerWith(request: FastifyRequest, privilege: Privilege) {
      const { auth } = sessionOf(request);
      if (!auth.privileges.has(privilege)) throw new AppError('privilege_missing', { params: { privilege } });
      return auth;
    }

    function can(request: FastifyRequest, privilege: Privilege): boolean {
      return request.consoleSession?.auth.privileges.has(privilege) ?? false;
    }

    function send(reply: FastifyReply, markup: string, status = 200) {
      return reply.status(status).type('text/html; charset=utf-8').send(markup);
    }

    const csrfOf = (request: FastifyRequest) => csrfTokenOf(csrfKey, sessionOf(request).id);
    const noticeOf = (done: string | undefined) =>
      done !== undefined && NOTICES[done] ? { text: NOTICES[done], kind: 'ok' as const } : undefined;
    const hide = { hide: true };

    // Entry points and assets
    app.get('/', { schema: hide }, async (_request, reply) => reply.redirect('/console/', 302));
    app.get('/console', { schema: hide }, async (_request, reply) => reply.redirect('/console/', 302));
    app.get('/favicon.ico', { schema: hide }, async (_request, reply) =>
      reply.redirect('/console/assets/favicon.svg', 301),
    );
    for (const [name, file, type] of [
      ['console.js', assets.js, 'text/javascript; charset=utf-8'],
      ['console.css', assets.css, 'text/css; charset=utf-8'],
      ['favicon.svg', assets.icon, 'image/svg+xml'],
    ] as const) {
      app.get(`/console/assets/${name}`, { schema: hide }, async (request, reply) => {
        reply.header('cache-control', 'no-cache').header('etag', file.etag);
        if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
        return reply.type(type).send(file.body);
      });
    }

    // Sign-in and sign-out
    app.get(
      '/console/sign-in',
      {
        schema: {
          ...hide,
          querystring: Type.Object({
            next: Type.Optional(Type.String({ maxLength: 500 })),
            ended: Type.Optional(Type.String({ maxLength: 10 })),
          }),
        },
      },
      async (request, reply) =>
        send(reply, signInPage({ next: safeNext(request.query.next), sessionEnded: request.query.ended === '1' })),
    );

    app.post(
      '/console/sign-in',
      {
        schema: {
          ...hide,
          body: Type.Object({
            token: Type.String({ maxLength: 4096 }),
            next: Type.Optional(Type.String({ maxLength: 500 })),
          }),
        },
      },
      async (request, reply) => {
        if (!sameOrigin(request)) throw new AppError('console_csrf_invalid');
        const next = safeNext(request.body.next);
        let session: ConsoleSession;
        try {
          session = await signIn(ctx, request.body.token, request.ip);
        } catch (error) {
          if (error instanceof AppError && error.status < 500)
            return send(reply, signInPage({ error: error.message, next }), error.status);
          throw error;
        }
        const maxAge = ctx.config.consoleSessionHours * 3600;
        const secure = request.protocol === 'https' ? '; Secure' : '';
        reply.header(
          'set-cookie',
          `${COOKIE}=${session.id}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
        );
        return reply.redirect(next, 303);
      },
    );

    app.post('/console/sign-out', { schema: { ...hide, body: Form({}) } }, async (request, reply) => {
      await signOut(ctx, sessionOf(request).id);
      reply.header(
        'set-cookie',
        `${COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${request.protocol === 'https' ? '; Secure' : ''}`,
      );
      return reply.redirect('/console/sign-in', 303);
    });

    // Dashboard
    app.get('/console/', { schema: hide }, async (request, reply) => {
      const { auth } = sessionOf(request);
      const activity = can(request, 'jobs:read')
        ? await jobActivity(ctx, auth, DASHBOARD_HOURS)
        : { perMinute: [], failures: [] };
      const running = can(request, 'recipes:read')
        ? await listRecipes(ctx, auth, {
            running: true,
            exclude_code: true,
            order: 'activity',
            withTags: false,
            page: { offset: 0, perPage: 20 },
          })
        : [];
      return send(
        reply,
        dashboardPage(
          { ...frameOf(request, 'dashboard'), title: 'Dashboard' },
          {
            hours: DASHBOARD_HOURS,
            now: ctx.clock.now(),
            perMinute: activity.perMinute,
            running,
            failures: activity.failures,
            seesJobs: can(request, 'jobs:read'),
            seesRecipes: can(request, 'recipes:read'),
          },
        ),
      );
    });

    // Recipes
    app.get(
      '/console/recipes',
      {
        schema: {
          ...hide,
          querystring: Type.Object({
            q: Type.Optional(Type.String({ maxLength: 255 })),
            folder_id: Type.Optional(Type.Union([IdParams.properties.id, Type.Literal('')])),
            running: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('')])),
            application: Type.Optional(Type.String({ maxLength: 100, pattern: '^[A-Za-z0-9_.-]*$' })),
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          }),
        },
      },
      async (request, reply) => {
        const auth = callerWith(request, 'recipes:read');
        const q = request.query;
        const pageNo = q.page ?? 1;
        const folderId = typeof q.folder_id === 'number' ? q.folder_id : undefined;
        const [recipes, folders] = await Promise.all([
          listRecipes(ctx, auth, {
            ...(q.q ? { name_contains: q.q } : {}),
            ...(folderId !== undefined ? { folder_id: folderId } : {}),
            ...(q.running ? { running: q.running } : {}),
            ...(q.application ? { adapter_names_any: q.application } : {}),
            exclude_code: true,
            withTags: true,
            page: { offset: (pageNo - 1) * PAGE_SIZE, perPage: PAGE_SIZE + 1 },
          }),
          can(request, 'projects_folders:read')
            ? listFolders(ctx, auth, { nested: true, page: { offset: 0, perPage: 100 } }).catch(() => [])
            : Promise.resolve([]),
        ]);
        return send(
          reply,
          recipeListPage(
            { ...frameOf(request, 'recipes'), title: 'Recipes' },
            {
              recipes: recipes.slice(0, PAGE_SIZE),
              tags: await tagsByHandle(
                ctx,
                auth,
                recipes.flatMap((r) => r.tags ?? []),
              ),
              hasMore: recipes.length > PAGE_SIZE,
              folders,
              filters: {
                q: q.q,
                folder_id: folderId,
                running: q.running || undefined,
                application: q.application || undefined,
                page: pageNo,
              },
            },
          ),
        );
      },
    );

    async function showRecipe(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number,
      message?: { text: string; kind: 'ok' | 'error' },
      startErrors?: string[],
      status = 200,
    ) {
      const auth = callerWith(request, 'recipes:read');
      const recipe = await getRecipe(ctx, auth, id, false);
      const versions = await listRecipeVersions(ctx, auth, id, { offset: 0, perPage: 20 });
      const testCases = can(request, 'test_cases:read') ? (await listTestCases(ctx, auth, id)).data : null;
      return send(
        reply,
        recipePage(
          { ...frameOf(request, 'recipes'), title: recipe.name },
          {
            recipe,
            versions,
            canWrite: can(request, 'recipes:write'),
            canReadJobs: can(request, 'jobs:read'),
            message,
            startErrors,
            testCases,
            canRunTests: can(request, 'test_cases:write'),
          },
          csrfOf(request),
        ),
        status,
      );
    }

    app.get(
      '/console/recipes/:id',
      { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
      async (request, reply) => showRecipe(request, reply, request.params.id, noticeOf(request.query.done)),
    );

    app.post(
      '/console/recipes/:id/start',
      { schema: { ...hide, params: IdParams, body: Form({}) } },
      async (request, reply) => {
        const auth = callerWith(request, 'recipes:write');
        const result = await startRecipe(ctx, engine, auth, request.params.id);
        if (result.success) return reply.redirect(`/console/recipes/${request.params.id}?done=started`, 303);
        const problems = [...result.code_errors, ...result.config_errors].flatMap(([step, details]) =>
          details.map((d) => `Step ${step}: ${d.filter((part) => typeof part === 'string').join(' ')}`),
        );
        return showRecipe(
          request,
          reply,
          request.params.id,
          { text: 'The recipe cannot start:', kind: 'error' },
          problems,
          422,
        );
      },
    );

    app.post(
      '/console/recipes/:id/stop',
      { schema: { ...hide, params: IdParams, body: Form({}) } },
      async (request, reply) => {
        await stopRecipe(ctx, engine, callerWith(request, 'recipes:write'), request.params.id);
        return reply.redirect(`/console/recipes/${request.params.id}?done=stopped`, 303);
      },
    );

    // Jobs
    app.get(
      '/console/recipes/:id/jobs',
      {
        schema: {
          ...hide,
          params: IdParams,
          querystring: Type.Object({
            status: Type.Optional(
              Type.Union([
                Type.Literal('succeeded'),
                Type.Literal('failed'),
                Type.Literal('pending'),
                Type.Literal(''),
              ]),
            ),
            after: Type.Optional(Type.String({ maxLength: 100 })),
            before: Type.Optional(Type.String({ maxLength: 100 })),
          }),
        },
      },
      async (request, reply) => {
        const auth = callerWith(request, 'jobs:read');
        const { status, after, before } = request.query;
        const recipe = await getRecipe(ctx, callerWith(request, 'jobs:read'), request.params.id, false).catch(
          (error: unknown) => {
            throw error instanceof AppError ? error : new AppError('not_found');
          },
        );
        const cursor = before ? { offset_job_id: before, prev: 'true' } : after ? { offset_job_id: after } : {};
        // One more than a page tells whether there is a page beyond.
        const list = await listJobs(ctx, auth, request.params.id, {
          ...(status ? { status } : {}),
          ...cursor,
          per_page: String(PAGE_SIZE + 1),
        });
        const more = list.items.length > PAGE_SIZE;
        const jobs = before ? list.items.slice(-PAGE_SIZE) : list.items.slice(0, PAGE_SIZE);
        const olderExists = before ? true : more;
        const newerExists = before ? more : after !== undefined;
        return send(
          reply,
          jobListPage(
            { ...frameOf(request, 'recipes'), title: 'Jobs' },
            {
              recipe: { id: recipe.id, name: recipe.name },
              jobs,
              counts: { succeeded: list.job_succeeded_count, failed: list.job_failed_count, all: list.job_count },
              status: status || undefined,
              older: olderExists && jobs.length > 0 ? jobs[jobs.length - 1]?.id : undefined,
              newer: newerExists && jobs.length > 0 ? jobs[0]?.id : undefined,
            },
          ),
        );
      },
    );

    async function showJob(
      request: FastifyRequest,
      reply: FastifyReply,
      recipeId: number,
      handle: string,
      message?: { text: string; kind: 'ok' | 'error' },
    ) {
      const { recipe, job, lines } = await getJobWithSteps(ctx, callerWith(request, 'jobs:read'), recipeId, handle);
      return send(
        reply,
        jobPage(
          { ...frameOf(request, 'recipes'), title: job.title || job.handle },
          {
            recipe: { id: recipe.id, name: recipe.name, running: recipe.running === 1 },
            job,
            lines,
            canWrite: can(request, 'jobs:write'),
            message,
          },
          csrfOf(request),
        ),
      );
    }

    app.get(
      '/console/recipes/:id/jobs/:handle',
      { schema: { ...hide, params: HandleParams } },
      async (request, reply) => showJob(request, reply, request.params.id, request.params.handle),
    );

    app.post(
      '/console/recipes/:id/jobs/:handle/repeat',
      { schema: { ...hide, params: HandleParams, body: Form({}) } },
      async (request, reply) => {
        const { results } = await repeatJobs(
          ctx,
          engine,
          callerWith(request, 'jobs:write'),
          request.params.id,
          { job_ids: [request.params.handle] },
          actorOf(request, 'console'),
        );
        const result = results[0];
        if (result?.status === 'enqueued' && result.new_job_id)
          return reply.redirect(
            `/console/recipes/${request.params.id}/jobs/${encodeURIComponent(result.new_job_id)}`,
            303,
          );
        return showJob(request, reply, request.params.id, request.params.handle, {
          text: `Not run again: ${result?.error ?? 'unknown job'}`,
          kind: 'error',
        });
      },
    );

    app.post(
      '/console/recipes/:id/jobs/:handle/cancel',
      { schema: { ...hide, params: HandleParams, body: Form({}) } },
      async (request, reply) => {
        const { results } = await cancelJobs(
          ctx,
          engine,
          callerWith(request, 'jobs:write'),
          request.params.id,
          { job_ids: [request.params.handle] },
          actorOf(request, 'console'),
        );
        const result = results[0];
        const ok = result?.status === 'canceled' || result?.status === 'canceling';
        return showJob(
          request,
          reply,
          request.params.id,
          request.params.handle,
          ok
            ? {
                text: result.status === 'canceled' ? 'Job canceled.' : 'The job stops after its current step.',
                kind: 'ok',
              }
            : { text: `Not canceled: ${result?.error ?? 'unknown job'}`, kind: 'error' },
        );
      },
    );

    // Lookup tables
    app.get('/console/lookup-tables', { schema: hide }, async (request, reply) => {
      const tables = await listTables(ctx, callerWith(request, 'lookup_tables:read'), { offset: 0, perPage: 100 });
      return send(reply, lookupTablesPage({ ...frameOf(request, 'lookup-tables'), title: 'Lookup tables' }, tables));
    });

    async function showTable(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number,
      q: { column?: string | undefined; value?: string | undefined; page?: number | undefined },
      message?: { text: string; kind: 'ok' | 'error' },
      status = 200,
    ) {
      const scope = callerWith(request, 'lookup_tables:read');
      const table = await getTable(ctx, scope, id);
      const columns = columnsOf(table);
      const pageNo = q.page ?? 1;
      const searching = q.value !== undefined && q.value !== '' && q.column !== undefined && columns.includes(q.column);
      const rows = await listRows(ctx, scope, id, searching ? { [`by[${q.column}]`]: q.value } : {}, {
        offset: (pageNo - 1) * PAGE_SIZE,
        perPage: PAGE_SIZE + 1,
      });
      return send(
        reply,
        lookupTablePage(
          { ...frameOf(request, 'lookup-tables'), title: table.name },
          {
            table,
            columns,
            rows: rows.slice(0, PAGE_SIZE),
            hasMore: rows.length > PAGE_SIZE,
            page: pageNo,
            search: searching ? { column: q.column, value: q.value } : { column: q.column },
            canWrite: can(request, 'lookup_tables:write'),
            message,
          },
          csrfOf(request),
        ),
        status,
      );
    }

    app.get(
      '/console/lookup-tables/:id',
      {
        schema: {
          ...hide,
          params: IdParams,
          querystring: Type.Object({
            column: Type.Optional(Type.String({ maxLength: 255 })),
            value: Type.Optional(Type.String({ maxLength: 10240 })),
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
            done: Type.Optional(Type.String({ maxLength: 40 })),
          }),
        },
      },
      async (request, reply) =>
        showTable(request, reply, request.params.id, request.query, noticeOf(request.query.done)),
    );

    /** A row's values from the form's col_<i> fields, by the table's column labels. */
    function rowData(columns: readonly string[], body: Record<string, string>): Record<string, string> {
      const data: Record<string, string> = {};
      columns.forEach((label, i) => {
        const value = body[`col_${i}`];
        if (value !== undefined) data[label] = value;
      });
      return data;
    }

    const RowForm = Type.Object(
      { _csrf: Type.String({ maxLength: 100 }) },
      { additionalProperties: Type.String({ maxLength: 10240 }) },
    );

    app.post(
      '/console/lookup-tables/:id/rows',
      { schema: { ...hide, params: IdParams, body: RowForm } },
      async (request, reply) => {
        const scope = callerWith(request, 'lookup_tables:write');
        const table = await getTable(ctx, scope, request.params.id);
        await addRow(ctx, scope, table.id, rowData(columnsOf(table), request.body as Record<string, string>));
        return reply.redirect(`/console/lookup-tables/${table.id}?done=row_added`, 303);
      },
    );

    app.get(
      '/console/lookup-tables/:id/rows/:row_id',
      { schema: { ...hide, params: RowParams } },
      async (request, reply) => {
        const scope = callerWith(request, 'lookup_tables:write');
        const table = await getTable(ctx, scope, request.params.id);
        const row = await getRow(ctx, scope, table.id, request.params.row_id);
        return send(
          reply,
          lookupRowPage(
            { ...frameOf(request, 'lookup-tables'), title: `Edit row ${row.id}` },
            table,
            columnsOf(table),
            row,
            csrfOf(request),
          ),
        );
      },
    );

    app.post(
      '/console/lookup-tables/:id/rows/:row_id',
      { schema: { ...hide, params: RowParams, body: RowForm } },
      async (request, reply) => {
        const scope = callerWith(request, 'lookup_tables:write');
        const table = await getTable(ctx, scope, request.params.id);
        await updateRow(
          ctx,
          scope,
          table.id,
          request.params.row_id,
          rowData(columnsOf(table), request.body as Record<string, string>),
        );
        return reply.redirect(`/console/lookup-tables/${table.id}?done=row_saved`, 303);
      },
    );

    app.post(
      '/console/lookup-tables/:id/rows/:row_id/delete',
      { schema: { ...hide, params: RowParams, body: Form({}) } },
      async (request, reply) => {
        await deleteRow(ctx, callerWith(request, 'lookup_tables:write'), request.params.id, request.params.row_id);
        return reply.redirect(`/console/lookup-tables/${request.params.id}?done=row_deleted`, 303);
      },
    );

    // API platform
    async function showApiPlatform(
      request: FastifyRequest,
      reply: FastifyReply,
      issued?: { profile: Awaited<ReturnType<typeof refreshSecret>>; secret: string },
    ) {
      const auth = callerWith(request, 'api_platform_clients:read');
      const seesCollections = can(request, 'api_platform_collections:read');
      const all = { offset: 0, perPage: 100 };
      const [collections, endpoints, clients, profiles] = await Promise.all([
        seesCollections ? listCollections(ctx, auth, all) : null,
        seesCollections ? listEndpoints(ctx, auth, undefined, all) : null,
        listApiClients(ctx, auth, undefined, all),
        listProfiles(ctx, auth, undefined, all),
      ]);
      return send(
        reply,
        apiPlatformPage(
          { ...frameOf(request, 'api-platform'), title: 'API platform' },
          {
            collections,
            endpoints,
            clients,
            profiles,
            canWrite: can(request, 'api_platform_clients:write'),
            issued,
          },
          csrfOf(request),
        ),
      );
    }

    app.get('/console/api-platform', { schema: hide }, async (request, reply) => showApiPlatform(request, reply));

    app.post(
      '/console/api-platform/access-profiles/:id/refresh-secret',
      { schema: { ...hide, params: IdParams, body: Form({}) } },
      async (request, reply) => {
        const profile = await refreshSecret(ctx, callerWith(request, 'api_platform_clients:write'), request.params.id);
        const secret = profile.oauth_client_secret ?? profile.secret ?? '';
        // Shown in this reply only (never in a URL, never stored in the clear).
        return showApiPlatform(request, reply, { profile, secret });
      },
    );

    // Connections, properties, topics
    app.get('/console/connections', { schema: hide }, async (request, reply) => {
      const connections = await listConnections(
        ctx,
        callerWith(request, 'connections:read'),
        { includeRuntime: false },
        { offset: 0, perPage: 100 },
      );
      const tags = await tagsByHandle(
        ctx,
        sessionOf(request).auth,
        connections.flatMap((c) => c.tags),
      );
      return send(
        reply,
        connectionsPage({ ...frameOf(request, 'connections'), title: 'Connections' }, connections, tags),
      );
    });

    app.get('/console/properties', { schema: hide }, async (request, reply) => {
      const properties = await listProperties(ctx, callerWith(request, 'environment_properties:read'), {});
      return send(reply, propertiesPage({ ...frameOf(request, 'properties'), title: 'Properties' }, properties));
    });

    app.get('/console/topics', { schema: hide }, async (request, reply) => {
      const topics = await listTopics(
        ctx,
        callerWith(request, 'event_streams:read'),
        { sort: 'name', includeSchema: false },
        { offset: 0, perPage: 100 },
      );
      return send(reply, topicsPage({ ...frameOf(request, 'topics'), title: 'Topics' }, topics));
    });

    async function showTopic(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number,
      extra: { message?: { text: string; kind: 'ok' | 'error' } | undefined; draft?: string } = {},
      status = 200,
    ) {
      const topic = await getTopic(ctx, callerWith(request, 'event_streams:read'), id);
      const state = await eventStreams.topics.get(topic.id);
      const messages = state ? await recentMessages(ctx, state, 20) : [];
      return send(
        reply,
        topicPage(
          { ...frameOf(request, 'topics'), title: topic.name },
          { topic, messages, canPublish: can(request, 'event_streams:write'), ...extra },
          csrfOf(request),
        ),
        status,
      );
    }

    app.get(
      '/console/topics/:id',
      { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
      async (request, reply) => showTopic(request, reply, request.params.id, { message: noticeOf(request.query.done) }),
    );

    app.post(
      '/console/topics/:id/publish',
      {
        schema: {
          ...hide,
          params: IdParams,
          body: Type.Object({ _csrf: Type.String({ maxLength: 100 }), payload: Type.String({ maxLength: 200_000 }) }),
        },
      },
      async (request, reply) => {
        const topic = await getTopic(ctx, callerWith(request, 'event_streams:write'), request.params.id);
        let payload: unknown;
        try {
          payload = JSON.parse(request.body.payload);
        } catch {
          return showTopic(
            request,
            reply,
            topic.id,
            { message: { text: 'The message is not JSON.', kind: 'error' }, draft: request.body.payload },
            400,
          );
        }
        const state = await eventStreams.topics.get(topic.id);
        if (!state) throw new AppError('topic_not_found');
        try {
          await publishMessage(eventStreams, state, payload);
        } catch (error) {
          if (error instanceof AppError && error.status < 500)
            return showTopic(
              request,
              reply,
              topic.id,
              { message: { text: error.message, kind: 'error' }, draft: request.body.payload },
              error.status,
            );
          throw error;
        }
        return reply.redirect(`/console/topics/${topic.id}?done=published`, 303);
      },
    );

    // Data tables
    app.get('/console/data-tables', { schema: hide }, async (request, reply) => {
      const tables = await listDataTables(ctx, callerWith(request, 'data_tables:read'), { offset: 0, perPage: 100 });
      return send(reply, dataTablesPage({ ...frameOf(request, 'data-tables'), title: 'Data tables' }, tables));
    });

    const DataTableQuery = Type.Object({
      column: Type.Optional(Type.String({ maxLength: 255 })),
      value: Type.Optional(Type.String({ maxLength: 10240 })),
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
      done: Type.Optional(Type.String({ maxLength: 40 })),
    });

    async function showDataTable(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number,
      q: { column?: string | undefined; value?: string | undefined; page?: number | undefined },
      extra: { message?: { text: string; kind: 'ok' | 'error' } | undefined; draft?: Record<string, string> } = {},
      status = 200,
    ) {
      const scope = callerWith(request, 'data_tables:read');
      const table = await getDataTable(ctx, scope, id);
      const pageNo = q.page ?? 1;
      const searching =
        q.value !== undefined &&
        q.value !== '' &&
        q.column !== undefined &&
        table.schema.some((c) => c.name === q.column);
      let message = extra.message;
      let records: ReturnType<typeof recordToApi>[] = [];
      let hasMore = false;
      const filter = searching ? filterFor(table.schema, q.column as string, 'eq', q.value) : null;
      if (filter && 'problem' in filter) {
        message = { text: `Not searched: ${filter.problem}.`, kind: 'error' };
        status = 400;
      } else {
        const found = await searchRecords(ctx, scope, table.id, {
          filters: filter ? [filter] : [],
          limit: PAGE_SIZE,
          offset: (pageNo - 1) * PAGE_SIZE,
        });
        const columns = dataColumnsOf(found.table);
        records = found.records.map((r) => recordToApi(r, columns));
        hasMore = found.next !== null;
      }
      return send(
        reply,
        dataTablePage(
          { ...frameOf(request, 'data-tables'), title: table.name },
          {
            table,
            records,
            hasMore,
            page: pageNo,
            search: searching ? { column: q.column, value: q.value } : { column: q.column },
            canWrite: can(request, 'data_tables:write'),
            message,
            draft: extra.draft,
          },
          csrfOf(request),
        ),
        status,
      );
    }

    app.get(
      '/console/data-tables/:id',
      { schema: { ...hide, params: IdParams, querystring: DataTableQuery } },
      async (request, reply) =>
        showDataTable(request, reply, request.params.id, request.query, { message: noticeOf(request.query.done) }),
    );

    const RecordParams = Type.Object({
      id: IdParams.properties.id,
      record_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' }),
    });

    /** A record's values from the form's col_<i> fields, by the table's column names (text: the service reads it as the column's type). */
    function recordData(
      columns: ReadonlyArray<{ name: string }>,
      body: Record<string, string>,
    ): Record<string, string> {
      const data: Record<string, string> = {};
      columns.forEach((column, i) => {
        const value = body[`col_${i}`];
        if (value !== undefined) data[column.name] = value;
      });
      return data;
    }

    const refused = (error: unknown) => (error instanceof AppError && error.status === 400 ? error : undefined);

    app.post(
      '/console/data-tables/:id/records',
      { schema: { ...hide, params: IdParams, body: RowForm } },
      async (request, reply) => {
        const scope = callerWith(request, 'data_tables:write');
        const table = await getDataTable(ctx, scope, request.params.id);
        const body = request.body as Record<string, string>;
        try {
          await addRecord(ctx, scope, table.id, recordData(table.schema, body), engine.dataTableListener);
        } catch (error) {
          const problem = refused(error);
          if (!problem) throw error;
          return showDataTable(
            request,
            reply,
            table.id,
            {},
            {
              message: { text: `Not added: ${problem.message}`, kind: 'error' },
              draft: recordData(table.schema, body),
            },
            400,
          );
        }
        return reply.redirect(`/console/data-tables/${table.id}?done=record_added`, 303);
      },
    );

    app.get(
      '/console/data-tables/:id/records/:record_id',
      { schema: { ...hide, params: RecordParams } },
      async (request, reply) => {
        const scope = callerWith(request, 'data_tables:write');
        const table = await getDataTable(ctx, scope, request.params.id);
        const record = await getRecord(ctx, scope, table.id, request.params.record_id);
        return send(
          reply,
          dataRecordPage({ ...frameOf(request, 'data-tables'), title: 'Edit record' }, table, record, csrfOf(request)),
        );
      },
    );

    app.post(
      '/console/data-tables/:id/records/:record_id',
      { schema: { ...hide, params: RecordParams, body: RowForm } },
      async (request, reply) => {
        const scope = callerWith(request, 'data_tables:write');
        const table = await getDataTable(ctx, scope, request.params.id);
        const data = recordData(table.schema, request.body as Record<string, string>);
        try {
          await updateRecord(ctx, scope, table.id, request.params.record_id, data, engine.dataTableListener);
        } catch (error) {
          const problem = refused(error);
          if (!problem) throw error;
          const record = await getRecord(ctx, scope, table.id, request.params.record_id);
          return send(
            reply,
            dataRecordPage(
              { ...frameOf(request, 'data-tables'), title: 'Edit record' },
              table,
              record,
              csrfOf(request),
              { text: `Not saved: ${problem.message}`, draft: data },
            ),
            400,
          );
        }
        return reply.redirect(`/console/data-tables/${table.id}?done=record_saved`, 303);
      },
    );

    app.post(
      '/console/data-tables/:id/records/:record_id/delete',
      { schema: { ...hide, params: RecordParams, body: Form({}) } },
      async (request, reply) => {
        await deleteRecord(ctx, callerWith(request, 'data_tables:write'), request.params.id, request.params.record_id);
        return reply.redirect(`/console/data-tables/${request.params.id}?done=record_deleted`, 303);
      },
    );

    // Workflow tasks
    app.get(
      '/console/workflow-tasks',
      {
        schema: {
          ...hide,
          querystring: Type.Object({
            status: Type.Optional(Type.Union(TASK_STATUSES.map((s) => Type.Literal(s)))),
            assignee: Type.Optional(Type.String({ maxLength: 255 })),
          }),
        },
      },
      async (request, reply) => {
        const status = request.query.status ?? 'open';
        const assignee = request.query.assignee || undefined;
        const { items } = await listTasks(ctx, callerWith(request, 'jobs:read'), {
          status,
          ...(assignee ? { assignee } : {}),
          per_page: 100,
        });
        // Newest first (the service pages oldest first by id).
        return send(
          reply,
          workflowTasksPage(
            { ...frameOf(request, 'workflow-tasks'), title: 'Workflow tasks' },
            { tasks: [...items].reverse(), status, assignee },
          ),
        );
      },
    );

    async function showTask(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number,
      extra: { message?: { text: string; kind: 'ok' | 'error' } | undefined; draft?: Record<string, string> } = {},
      status = 200,
    ) {
      const task = await getTask(ctx, callerWith(request, 'jobs:read'), id);
      return send(
        reply,
        workflowTaskPage(
          { ...frameOf(request, 'workflow-tasks'), title: task.name },
          { task, canComplete: can(request, 'jobs:write'), ...extra },
          csrfOf(request),
        ),
        status,
      );
    }

    app.get(
      '/console/workflow-tasks/:id',
      { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
      async (request, reply) => showTask(request, reply, request.params.id, { message: noticeOf(request.query.done) }),
    );

    /** A form field's text as the value its type takes (what cannot be read stays text: the service names the problem). */
    function fieldValue(type: string, text: string): unknown {
      if ((type === 'integer' || type === 'number') && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text))
        return Number(text);
      if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
      return text;
    }

    app.post(
      '/console/workflow-tasks/:id/complete',
      {
        schema: {
          ...hide,
          params: IdParams,
          body: Type.Object(
            {
              _csrf: Type.String({ maxLength: 100 }),
              decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('completed')]),
              comments: Type.Optional(Type.String({ maxLength: 10_000 })),
            },
            { additionalProperties: Type.String({ maxLength: 10_240 }) },
          ),
        },
      },
      async (request, reply) => {
        const auth = callerWith(request, 'jobs:write');
        const task = await getTask(ctx, auth, request.params.id);
        const body = request.body as Record<string, string>;
        const fields: Record<string, unknown> = {};
        task.form_fields.forEach((field, i) => {
          const text = body[`field_${i}`];
          if (text !== undefined && text !== '') fields[field.name] = fieldValue(field.type, text);
        });
        try {
          await completeTask(ctx, engine, auth, task.id, {
            ...(task.task_type === 'approval' ? { status: request.body.decision } : {}),
            fields,
            ...(request.body.comments ? { comments: request.body.comments } : {}),
          });
        } catch (error) {
          const problem =
            error instanceof AppError && (error.status === 400 || error.code === 'workflow_task_not_open')
              ? error
              : undefined;
          if (!problem) throw error;
          return showTask(
            request,
            reply,
            task.id,
            { message: { text: `Not completed: ${problem.message}`, kind: 'error' }, draft: body },
            problem.status,
          );
        }
        return reply.redirect(`/console/workflow-tasks/${task.id}?done=task_completed`, 303);
      },
    );

    // Builds
    app.get(
      '/console/builds',
      {
        schema: {
          ...hide,
          querystring: Type.Object({
            project_id: Type.Optional(Type.Union([IdParams.properties.id, Type.Literal('')])),
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
            done: Type.Optional(Type.String({ maxLength: 40 })),
          }),
        },
      },
      async (request, reply) => showBuilds(request, reply, request.query, noticeOf(request.query.done)),
    );

    async function showBuilds(
      request: FastifyRequest,
      reply: FastifyReply,
      q: { project_id?: number | '' | undefined; page?: number | undefined },
      message?: { text: string; kind: 'ok' | 'error' },
      status = 200,
    ) {
      const auth = callerWith(request, 'project_deployments:read');
      const projectId = typeof q.project_id === 'number' ? q.project_id : undefined;
      const pageNo = q.page ?? 1;
      const [builds, projects] = await Promise.all([
        listBuilds(ctx, auth, projectId, { offset: (pageNo - 1) * PAGE_SIZE, perPage: PAGE_SIZE + 1 }),
        can(request, 'projects_folders:read')
          ? listProjects(ctx, auth, { offset: 0, perPage: 100 })
          : Promise.resolve(null),
      ]);
      return send(
        reply,
        buildsPage(
          { ...frameOf(request, 'builds'), title: 'Builds' },
          {
            builds: builds.slice(0, PAGE_SIZE),
            hasMore: builds.length > PAGE_SIZE,
            projects,
            projectId,
            page: pageNo,
            canBuild: can(request, 'project_deployments:write') && auth.environmentType === 'dev',
            message,
          },
          csrfOf(request),
        ),
        status,
      );
    }

    app.post(
      '/console/builds',
      {
        schema: {
          ...hide,
          body: Type.Object({
            _csrf: Type.String({ maxLength: 100 }),
            project_id: Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9]+$' }),
            description: Type.Optional(Type.String({ maxLength: 10_000 })),
            include_test_cases: Type.Optional(Type.Literal('true')),
          }),
        },
      },
      async (request, reply) => {
        const build = await startBuild(
          ctx,
          packages,
          callerWith(request, 'project_deployments:write'),
          request.body.project_id,
          {
            ...(request.body.description ? { description: request.body.description } : {}),
            include_test_cases: request.body.include_test_cases === 'true',
          },
        );
        return reply.redirect(`/console/builds/${build.id}?done=build_started`, 303);
      },
    );

    async function showBuild(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number,
      message?: { text: string; kind: 'ok' | 'error' },
      status = 200,
    ) {
      const auth = callerWith(request, 'project_deployments:read');
      const { build, assets } = await getBuildContents(ctx, auth, id);
      const deployments = await listBuildDeployments(ctx, auth, id, { offset: 0, perPage: 100 });
      return send(
        reply,
        buildPage(
          { ...frameOf(request, 'builds'), title: `Build ${build.id}` },
          {
            build,
            assets,
            deployments,
            canDeploy: can(request, 'project_deployments:write') && auth.environmentType === 'dev',
            message,
          },
          csrfOf(request),
        ),
        status,
      );
    }

    app.get(
      '/console/builds/:id',
      { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
      async (request, reply) => showBuild(request, reply, request.params.id, noticeOf(request.query.done)),
    );

    app.post(
      '/console/builds/:id/deploy',
      {
        schema: {
          ...hide,
          params: IdParams,
          body: Type.Object({
            _csrf: Type.String({ maxLength: 100 }),
            environment_type: Type.Union([Type.Literal('test'), Type.Literal('prod')]),
            description: Type.Optional(Type.String({ maxLength: 10_000 })),
          }),
        },
      },
      async (request, reply) => {
        const auth = callerWith(request, 'project_deployments:write');
        try {
          await deployBuild(
            ctx,
            packages,
            auth,
            request.params.id,
            {},
            {
              environment_type: request.body.environment_type,
              ...(request.body.description ? { description: request.body.description } : {}),
            },
          );
        } catch (error) {
          // A build that has not succeeded: its page again, saying why.
          if (error instanceof AppError && error.code === 'build_not_successful')
            return showBuild(request, reply, request.params.id, { text: error.message, kind: 'error' }, error.status);
          throw error;
        }
        return reply.redirect(`/console/builds/${request.params.id}?done=deployed`, 303);
      },
    );

    // Deployments and test runs
    app.get('/console/deployments', { schema: hide }, async (request, reply) => {
      const { items } = await listDeployments(
        ctx,
        callerWith(request, 'project_deployments:read'),
        {},
        { offset: 0, perPage: 100 },
      );
      return send(reply, deploymentsPage({ ...frameOf(request, 'deployments'), title: 'Deployments' }, items));
    });

    app.get('/console/test-runs', { schema: hide }, async (request, reply) => {
      const runs = await listRecentRunRequests(ctx, callerWith(request, 'test_cases:read'), 20);
      return send(reply, testRunsPage({ ...frameOf(request, 'test-runs'), title: 'Test runs' }, runs));
    });

    app.post(
      '/console/test-runs',
      {
        schema: {
          ...hide,
          body: Type.Object({
            _csrf: Type.String({ maxLength: 100 }),
            recipe_id: Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9]+$' }),
            test_case_id: Type.Optional(Type.String({ maxLength: 100 })),
          }),
        },
      },
      async (request, reply) => {
        const auth = callerWith(request, 'test_cases:write');
        const input = request.body.test_case_id
          ? { test_case_ids: [request.body.test_case_id] }
          : { recipe_id: Number(request.body.recipe_id) };
        const { data } = await startRunRequest(ctx, tests, auth, input);
        return reply.redirect(`/console/test-runs/${encodeURIComponent(data.id)}`, 303);
      },
    );

    app.get(
      '/console/test-runs/:id',
      { schema: { ...hide, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }) } },
      async (request, reply) => {
        const { data } = await getRunRequest(ctx, callerWith(request, 'test_cases:read'), request.params.id);
        return send(reply, testRunPage({ ...frameOf(request, 'test-runs'), title: `Test run ${data.id}` }, data));
      },
    );

    // Any other console path: a page, not the API's JSON 404.
    app.get('/console/*', { schema: hide }, async () => {
      throw new AppError('not_found');
    });
  };
}
