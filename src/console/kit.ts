// What the console's sections share: the dependencies they are given, the session's helpers (frame,
// caller with a privilege, CSRF token, notices) and the schemas of their forms and pages.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { IdParams } from '../http/schemas.ts';
import type { Privilege } from '../auth/privileges.ts';
import type { RecipeRuntime } from '../api/recipes/recipes.service.ts';
import type { JobControl } from '../api/jobs/jobs.service.ts';
import type { EventStreamsRuntime } from '../api/topics/topics.service.ts';
import type { PackageRunner } from '../api/packages/runner.ts';
import type { TestRunKick } from '../api/test_cases/test_cases.service.ts';
import type { RecordListener } from '../api/data_tables/data_tables.service.ts';
import type { WorkflowTaskRuntime } from '../api/workflow_tasks/workflow_tasks.service.ts';
import type { LoadBuiltInConnectors } from '../api/integrations/catalog.ts';
import type { Connector } from '../connectors/types.ts';
import { csrfTokenOf, type ConsoleSession } from './sessions.ts';
import type { PageFrame } from './layout.ts';
import { CUSTOM_ICON_URL, type IconOf } from './pages/icons.ts';
import { wordsOf } from './pages/step-words.ts';

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
  /** The connectors the recipe editor offers: the engine's built-in ones and the SaaS services by provider. */
  connectors: { builtIn: LoadBuiltInConnectors; find(provider: string): Connector | undefined };
  /** Key of the CSRF tokens (derived from the secret key: stable across restarts, like the sessions). */
  csrfKey: Buffer;
  /** Wrong tokens at sign-in, counted per source address (buildApp gives the token endpoint's limiter). */
  signInLimiter: SignInLimiter;
}

/** Counts wrong tokens by source and says how many seconds a source must wait before it tries again. */
export interface SignInLimiter {
  retryAfter(keys: readonly string[]): number;
  recordFailure(keys: readonly string[]): void;
}

/** The console's app as each section's routes see it (TypeBox schemas). */
export type ConsoleApp = ReturnType<FastifyInstance['withTypeProvider']> & FastifyInstance;

export const PAGE_SIZE = 50;
export const DASHBOARD_HOURS = 3;

/** Texts shown after a change (the redirect names one by key, so no text travels in a URL). */
const NOTICES: Record<string, string> = {
  started: 'The recipe is running.',
  stopped: 'The recipe is stopped.',
  table_created: 'Lookup table created.',
  table_deleted: 'Lookup table deleted.',
  row_added: 'Row added.',
  row_saved: 'Row saved.',
  row_deleted: 'Row deleted.',
  published: 'Message published.',
  topic_created: 'Topic created.',
  property_saved: 'Property saved.',
  client_created: 'API client created: issue it a key.',
  key_revoked: 'Key revoked: calls with it are refused.',
  topic_deleted: 'Topic deleted.',
  build_started: 'Build started: it is pending until its package is written.',
  record_added: 'Record added.',
  record_saved: 'Record saved.',
  record_deleted: 'Record deleted.',
  task_completed: 'Task completed: its job goes on.',
  tested: 'Connection tested.',
  connection_created: 'Connection created.',
  connection_saved: 'Connection saved.',
  connection_tested: 'Connection saved and tested.',
  connection_deleted: 'Connection deleted.',
  saved: 'Recipe saved.',
  data_table_created: 'Data table created: add its records.',
  data_table_saved: 'Table saved.',
  data_table_deleted: 'Data table deleted.',
  test_case_created: 'Test case created: run it from the list below.',
  test_case_saved: 'Test case saved.',
  test_case_written: 'Test case created: run it from here.',
  test_case_deleted: 'Test case deleted.',
};

export const Form = (fields: Record<string, ReturnType<typeof Type.String>>) =>
  Type.Object({ _csrf: Type.String({ maxLength: 100 }), ...fields });
export const NoticeQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) });
export const HandleParams = Type.Object({
  id: IdParams.properties.id,
  handle: Type.String({ minLength: 1, maxLength: 100 }),
});
export const RowParams = Type.Object({ id: IdParams.properties.id, row_id: IdParams.properties.id });

export const COOKIE = 'sb_console';

export function cookieOf(request: FastifyRequest): string {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return '';
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === COOKIE) return part.slice(at + 1).trim();
  }
  return '';
}

/** A lookup table row or data table record form: the CSRF token and a field per column. */
export const RowForm = Type.Object(
  { _csrf: Type.String({ maxLength: 100 }) },
  { additionalProperties: Type.String({ maxLength: 10240 }) },
);

/** Whether a browser's Origin header, when it sends one, names this host (a malformed one does not). */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return true;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

/** What every section's routes share: the dependencies, and the session's helpers. */
export type ConsoleKit = ReturnType<typeof consoleKit>;

export function consoleKit(deps: ConsoleDeps) {
  const { csrfKey } = deps;

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

  /** A connector's icon: its own for a built-in or SaaS connector, the generic one otherwise. */
  const iconOf: IconOf = (provider) =>
    deps.connectors.find(provider) ? `/console/assets/icons/${provider}.svg` : CUSTOM_ICON_URL;

  /** Connector and operation titles of the catalog, for steps in a person's words (step-words.ts). */
  const words = wordsOf((provider) => deps.connectors.find(provider));

  const csrfOf = (request: FastifyRequest) => csrfTokenOf(csrfKey, sessionOf(request).id);
  const noticeOf = (done: string | undefined) =>
    done !== undefined && NOTICES[done] ? { text: NOTICES[done], kind: 'ok' as const } : undefined;
  const hide = { hide: true };

  return { ...deps, frameOf, sessionOf, callerWith, can, send, csrfOf, noticeOf, hide, iconOf, words };
}
