// buildApp: plugins, then the route table. It never listens: server.ts does, tests inject.
import { exportManifestsRoutes } from './api/export_manifests/export_manifests.routes.ts';
import { packagesRoutes } from './api/packages/packages.routes.ts';
import { projectBuildsRoutes } from './api/project_builds/project_builds.routes.ts';
import { deploymentsRoutes } from './api/deployments/deployments.routes.ts';
import { announceDeployments } from './api/deployments/deployments.service.ts';
import { testCasesRoutes } from './api/test_cases/test_cases.routes.ts';
import { createTestRunner, type TestRunner } from './api/test_cases/runner.ts';
import { createPackageRunner, type PackageRunner } from './api/packages/runner.ts';
import { createPackageRetentionSweeper } from './api/packages/retention.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createServiceContext, type ServiceContext } from './context.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import { type Notifier } from './notifier.ts';
import { type SecretResolver } from './api/secrets_management/secret-resolver.ts';
import type { DbHandle } from './db/index.ts';
import { registerAuth } from './http/auth.ts';
import { registerHostRouting } from './http/hosts.ts';
import { registerLingeringClose } from './http/lingering-close.ts';
import { frameworkErrorHandler, registerErrorHandling } from './http/error-handler.ts';
import { registerGauge, registerObservability, requestId, requestLogger } from './http/observability.ts';
import { registerDurableReplies } from './http/durable-replies.ts';
import { registerDocsPage } from './http/docs-page.ts';
import { recordOpenApi } from './http/openapi.ts';
import { STORAGE_FAILURE_TEXT } from './db/storage-health.ts';
import { operationsRoutes } from './http/operations.routes.ts';
import { buildLazyValidator, validatorCompiler } from './http/validation.ts';
import { buildLazySerializer } from './http/serialization.ts';
import { AppError } from './errors.ts';
import { jsonShape } from './json-shape.ts';
import { createLogger } from './logger.ts';
import { createSmtpMailer, type Mailer } from './mail/mailer.ts';
import { type Clock } from './time.ts';
import { developerApiClientRolesRoutes } from './api/developer_api_client_roles/developer_api_client_roles.routes.ts';
import { developerApiClientsRoutes } from './api/developer_api_clients/developer_api_clients.routes.ts';
import { usersRoutes } from './api/users/users.routes.ts';
import { createAccessTokenSigner } from './oauth2/access-token.ts';
import { createFailureLimiter } from './oauth2/failure-limiter.ts';
import { oauth2Routes } from './oauth2/token.routes.ts';
import { gatewayRoutes, type UpstreamResolver } from './gateway/gateway.routes.ts';
import { cachedUpstreams } from './gateway/upstream-cache.ts';
import { resolveConnectionCredentials } from './api/connections/connections.service.ts';
import { oauthCallbackRoutes } from './oauth/oauth-callback.routes.ts';
import type { OutboundPolicy } from './outbound/policy.ts';
import { apiCollectionsRoutes } from './api/api_collections/api_collections.routes.ts';
import { apiEndpointsRoutes } from './api/api_endpoints/api_endpoints.routes.ts';
import { apiClientsRoutes } from './api/api_clients/api_clients.routes.ts';
import { apiClientsV2Routes } from './api/api_clients/api_clients_v2.routes.ts';
import { apiAccessProfilesRoutes } from './api/api_access_profiles/api_access_profiles.routes.ts';
import { foldersRoutes } from './api/folders/folders.routes.ts';
import { projectsRoutes } from './api/projects/projects.routes.ts';
import { propertiesRoutes } from './api/properties/properties.routes.ts';
import { sdkRoutes } from './api/sdk/sdk.routes.ts';
import { rolesRoutes } from './api/roles/roles.routes.ts';
import { memberInvitationsRoutes } from './api/member_invitations/member_invitations.routes.ts';
import { connectionsRoutes } from './api/connections/connections.routes.ts';
import { customConnectorsRoutes } from './api/custom_connectors/custom_connectors.routes.ts';
import { customOauthProfilesRoutes } from './api/custom_oauth_profiles/custom_oauth_profiles.routes.ts';
import { secretsManagementRoutes } from './api/secrets_management/secrets_management.routes.ts';
import { lookupTablesRoutes } from './api/lookup_tables/lookup_tables.routes.ts';
import { dataTablesRoutes } from './api/data_tables/data_tables.routes.ts';
import { filesRoutes } from './api/files/files.routes.ts';
import { eventStreamsRoutes } from './api/event_streams/event_streams.routes.ts';
import { topicsRoutes } from './api/topics/topics.routes.ts';
import { createEventStreamsRuntime } from './api/topics/runtime.ts';
import { createAccessResolver } from './auth/access.ts';
import { recipesRoutes } from './api/recipes/recipes.routes.ts';
import { workflowTasksRoutes } from './api/workflow_tasks/workflow_tasks.routes.ts';
import { workflowAppsRoutes } from './api/workflow_apps/workflow_apps.routes.ts';
import { messageTemplatesRoutes } from './api/message_templates/message_templates.routes.ts';
import { jobsRoutes } from './api/jobs/jobs.routes.ts';
import { createJobRetentionSweeper } from './api/jobs/retention.ts';
import { createJobCountsFolder } from './api/recipes/job-counts-fold.ts';
import { createEngine, type RecipeEngine } from './engine/engine.ts';
import { builtInConnectors, findConnector } from './engine/catalog.ts';
import { webhooksRoutes } from './engine/webhooks.routes.ts';
import { consoleRoutes } from './console/console.routes.ts';
import { mcpRoutes } from './api/mcp/mcp.routes.ts';
import { mcpServerRoutes } from './mcp/mcp.routes.ts';
import { agenticRoutes } from './api/agentic/agentic.routes.ts';
import { activityLogsRoutes, registerActivityLog } from './api/activity_logs/activity_logs.routes.ts';
import { createActivityRetentionSweeper } from './api/activity_logs/retention.ts';
import { tagsRoutes } from './api/tags/tags.routes.ts';
import { tagsAssignmentsRoutes } from './api/tags_assignments/tags_assignments.routes.ts';
import { integrationsRoutes } from './api/integrations/integrations.routes.ts';
import { membersRoutes } from './api/members/members.routes.ts';

export interface AppDeps {
  config: Config;
  database: DbHandle;
  secretBox: SecretBox;
  notifier?: Notifier;
  /** The secret resolver (and its cache) to share with callers outside the app; built from config when absent. */
  secrets?: SecretResolver;
  clock?: Clock;
  logger?: Logger;
  /** Told of every route as it is registered (the route catalog test lists them this way). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
  resolveUpstream?: UpstreamResolver;
  /** The recipe engine; built here when absent. It starts when the app is ready and stops when it closes. */
  engine?: RecipeEngine;
  /** The outbound policy (the server passes its own, to add the ports it listens on); built from config when absent. */
  outbound?: OutboundPolicy;
}

/** Files in one package, and the largest file once uncompressed (recipes reach tens of megabytes). */
const PACKAGE_MAX_ENTRIES = 10_000;
const PACKAGE_MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/** Failed client authentications per minute before 429: per client id, and per source address. */
const TOKEN_FAILURE_LIMITS = { id: 10, ip: 100 };
/** Wrong tokens at the console's sign-in, per source address and minute (a person mistypes a few). */
const CONSOLE_SIGN_IN_FAILURE_LIMITS = { ip: 20 };

/** What a route group may need besides the service context (the recipes area starts and stops recipes). */
interface RouteRuntime {
  engine: RecipeEngine;
  /** Background exports and imports of packages. */
  packages: PackageRunner;
  /** Background runs of test cases. */
  tests: TestRunner;
  /** The engine's built-in connectors, for the connector catalog (loaded at its first request). */
  builtInConnectors: typeof builtInConnectors;
}

/** The service context's outbound agents and Ruby runtime of custom connectors close with the app. */
function closeContextParts(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onClose', async () => ctx.outbound.close());
  app.addHook('onClose', async () => ctx.rubyConnectors.close());
}

/** The API areas, in the order they appear in the OpenAPI document. */
const ROUTE_TABLE: ReadonlyArray<(app: FastifyInstance, ctx: ServiceContext, runtime: RouteRuntime) => void> = [
  developerApiClientsRoutes,
  developerApiClientRolesRoutes,
  usersRoutes,
  foldersRoutes,
  projectsRoutes,
  propertiesRoutes,
  sdkRoutes,
  rolesRoutes,
  memberInvitationsRoutes,
  membersRoutes,
  activityLogsRoutes,
  tagsRoutes,
  tagsAssignmentsRoutes,
  integrationsRoutes,
  connectionsRoutes,
  customConnectorsRoutes,
  customOauthProfilesRoutes,
  secretsManagementRoutes,
  apiCollectionsRoutes,
  apiEndpointsRoutes,
  apiClientsRoutes,
  apiClientsV2Routes,
  apiAccessProfilesRoutes,
  lookupTablesRoutes,
  dataTablesRoutes,
  filesRoutes,
  eventStreamsRoutes,
  recipesRoutes,
  jobsRoutes,
  workflowTasksRoutes,
  workflowAppsRoutes,
  messageTemplatesRoutes,
  exportManifestsRoutes,
  packagesRoutes,
  projectBuildsRoutes,
  deploymentsRoutes,
  testCasesRoutes,
  mcpRoutes,
  agenticRoutes,
];

/** The console's own parts: the connectors its editor offers, its CSRF key, its sign-in limiter. */
function consoleParts(secretBox: AppDeps['secretBox'], clock: ServiceContext['clock']) {
  return {
    connectors: { builtIn: builtInConnectors, find: findConnector },
    csrfKey: secretBox.deriveKey('console-csrf'),
    signInLimiter: createFailureLimiter(clock, { limits: CONSOLE_SIGN_IN_FAILURE_LIMITS, windowSeconds: 60 }),
  };
}

/** The OpenAPI document, generated from the routes' schemas at its first request (src/http/openapi.ts), and its page at /docs. */
function registerOpenApi(app: FastifyInstance, config: AppDeps['config']): void {
  const openApi = recordOpenApi(app, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '0.1.0',
        description:
          'Management API of Switchboard, compatible with the Workato developer API. Authenticate with `Authorization: Bearer <developer API client token>`.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Developer API client token' } },
      },
    },
  });
  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => (await openApi())());
  registerDocsPage(app, openApi);
}

/** Fastify's options: limits from the configuration, our request ids, logger and compilers. */
function serverOptions(config: Config, logger: Logger) {
  return {
    loggerInstance: logger,
    genReqId: requestId,
    requestIdHeader: false as const,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    // Long path values reach their route and its schema (a 400 naming the field) instead of
    // falling through to the gateway's catch-all route.
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: frameworkErrorHandler,
    childLoggerFactory: requestLogger,
    // Response serializers compile at a route's first reply (src/http/serialization.ts), request
    // validators at its first request (src/http/validation.ts); naming both keeps Fastify from
    // loading its default compilers (Ajv's, fast-json-stringify's) at start.
    schemaController: {
      compilersFactory: { buildSerializer: buildLazySerializer, buildValidator: buildLazyValidator },
    },
  };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const logger = deps.logger ?? createLogger(config.logLevel);
  const app = Fastify(serverOptions(config, logger)) as unknown as FastifyInstance;
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute);
  const mailer: Mailer | undefined =
    config.smtpUrl === undefined ? undefined : createSmtpMailer({ url: config.smtpUrl, from: config.smtpFrom });
  const ctx = createServiceContext({
    db: database.db,
    config,
    secretBox: deps.secretBox,
    log: logger,
    clock: deps.clock,
    secrets: deps.secrets,
    notifier: deps.notifier,
    mailer,
    outbound: deps.outbound,
  });
  const engine = deps.engine ?? createEngine(ctx);
  if (mailer) app.addHook('onClose', async () => mailer.close());
  closeContextParts(app, ctx);
  app.addHook('onReady', async () => {
    // The server migrates before it builds the app; a database that is not migrated (GET /ready
    // says 503) leaves the engine stopped rather than the server down.
    try {
      await engine.start();
    } catch (error) {
      logger.error({ err: error }, 'the recipe engine could not start');
    }
  });
  // Closing starts (preClose) when the server is asked to stop: from then, in-flight requests and
  // running jobs share SHUTDOWN_TIMEOUT_MS (the engine's close hook is added last, below).
  let closeDeadline: number | undefined;
  app.addHook('preClose', async () => {
    closeDeadline = Date.now() + config.shutdownTimeoutMs;
  });
  // Job retention: finished jobs older than JOB_RETENTION_HOURS are deleted in the background.
  const jobRetention = createJobRetentionSweeper(ctx, {
    intervalMs: config.jobsSweepIntervalMs,
    retentionMs: config.jobRetentionHours * 3600_000,
  });
  app.addHook('onReady', async () => jobRetention.start());
  app.addHook('preClose', async () => jobRetention.stop());
  // Job counters that job ends appended, added into their recipes' rows in the background.
  const jobCountsFolder = createJobCountsFolder(ctx);
  app.addHook('onReady', async () => jobCountsFolder.start());
  app.addHook('preClose', async () => jobCountsFolder.stop());
  // The activity log is kept as long as jobs are, and pruned the same way.
  const activityRetention = createActivityRetentionSweeper(ctx, {
    intervalMs: config.jobsSweepIntervalMs,
    retentionMs: config.jobRetentionHours * 3600_000,
  });
  app.addHook('onReady', async () => activityRetention.start());
  app.addHook('preClose', async () => activityRetention.stop());

  // Packages: exports and imports in the background, taken up again after a restart.
  const packages = createPackageRunner(ctx, engine, {
    maxEntries: PACKAGE_MAX_ENTRIES,
    maxEntryBytes: PACKAGE_MAX_ENTRY_BYTES,
    maxTotalBytes: config.packageMaxUncompressedBytes,
  });
  app.addHook('onReady', async () => packages.start());
  app.addHook('preClose', async () => packages.stop());
  // Export zips and completed run requests older than PACKAGE_RETENTION_HOURS, deleted in the background.
  const packageRetention = createPackageRetentionSweeper(ctx, {
    intervalMs: config.jobsSweepIntervalMs,
    retentionMs: config.packageRetentionHours * 3600_000,
  });
  app.addHook('onReady', async () => packageRetention.start());
  app.addHook('preClose', async () => packageRetention.stop());
  // Test case run requests in the background, taken up again after a restart.
  const tests = createTestRunner(ctx, engine);
  app.addHook('onReady', async () => tests.start());
  app.addHook('preClose', async () => tests.stop());
  // deployment.succeeded / deployment.failed when a deployment's import ends.
  const stopAnnouncing = announceDeployments(ctx);
  app.addHook('onClose', async () => stopAnnouncing());

  app.setValidatorCompiler(validatorCompiler);
  registerJsonParser(app);
  registerErrorHandling(app);
  registerLingeringClose(app);
  // Before durable replies: an activity entry written on the way out is on disk before the reply leaves.
  registerActivityLog(app, ctx);
  if (database.logSync) registerDurableReplies(app, database.logSync);
  const metrics = registerObservability(app);
  // Host routing first: on a host or listener of its own, what is not served there is a 404 before any 401.
  registerHostRouting(app, config);
  registerAuth(app, ctx);

  registerOpenApi(app, config);
  operationsRoutes(app, ctx, { dialect: database.dialect, metrics, storage: database.storage });
  database.storage?.onChange((problem) => {
    if (problem)
      logger.error(
        { failure: problem.failure },
        `storage unavailable: ${STORAGE_FAILURE_TEXT[problem.failure]}; writes answer 503 until it takes writes again`,
      );
    else logger.info('storage takes writes again');
  });
  for (const register of ROUTE_TABLE) register(app, ctx, { engine, packages, tests, builtInConnectors });

  // Credentials of the API platform (OAuth access tokens, auth tokens, callers' JWTs): one
  // resolver and one cache of profile state for the gateway and the event streams API.
  const signer = createAccessTokenSigner(deps.secretBox.deriveKey('oauth2-access-token'));
  const access = createAccessResolver(ctx, signer);

  // Event streams (PubSub) at run time: publish, consume, and the retention sweep.
  const eventStreams = createEventStreamsRuntime(ctx, access);
  topicsRoutes(app, ctx, eventStreams);
  // Recipes publish through the same publisher (schema check, ordering, group commit).
  engine.useEventStreams(eventStreams);
  registerGauge(metrics, 'switchboard_event_stream_consumers_waiting', 'Consumers waiting in a long poll', () =>
    eventStreams.waits.waiting(),
  );
  app.addHook('onReady', async () => eventStreams.start());
  app.addHook('preClose', async () => eventStreams.beginShutdown());
  app.addHook('onClose', async () => eventStreams.stop());

  // The API platform at run time: the token endpoint and the gateway, each with its own parsers and error format.
  const limiter = createFailureLimiter(ctx.clock, { limits: TOKEN_FAILURE_LIMITS, windowSeconds: 60 });
  await app.register(oauth2Routes({ ctx, signer, limiter }));
  await app.register(webhooksRoutes({ engine, maxBodyBytes: config.bodyLimitBytes }));
  // Where providers send the browser back after a connection's OAuth 2.0 authorization.
  await app.register(oauthCallbackRoutes({ ctx }));
  // The web console: HTML pages at /console/, its own form parser, headers and error pages.
  await app.register(
    consoleRoutes({
      ctx,
      engine,
      eventStreams,
      packages,
      tests,
      ...consoleParts(deps.secretBox, ctx.clock),
    }),
  );
  // MCP servers: the Model Context Protocol at /mcp/<handle>, tools run as recipe jobs.
  await app.register(
    mcpServerRoutes({
      ctx,
      access,
      engine,
      maxBodyBytes: config.bodyLimitBytes,
      callTimeoutMs: config.mcpCallTimeoutMs,
    }),
  );
  await app.register(
    gatewayRoutes({
      ctx,
      access,
      resolveUpstream:
        deps.resolveUpstream ??
        cachedUpstreams(async (scope, connectionId) => {
          const credentials = await resolveConnectionCredentials(ctx, scope, connectionId);
          if (!credentials.rest) throw new Error('the proxy connection is not a rest connection');
          return credentials.rest;
        }, ctx),
      maxBodyBytes: config.gatewayMaxBodyBytes,
      maxResponseBytes: config.gatewayMaxResponseBytes,
      timeoutMs: config.gatewayTimeoutMs,
      engine,
    }),
  );
  // Added last, so it runs first of the close hooks (they run last-in first-out), right after the
  // server stopped taking requests: running jobs finish and are recorded (and may still publish,
  // write lookup tables...) before anything they use closes. The caller closes the database after.
  app.addHook('onClose', async () =>
    engine.close(Math.max(0, (closeDeadline ?? Date.now() + config.shutdownTimeoutMs) - Date.now())),
  );
  return app;
}

/**
 * Deepest nesting of a management API body. Every later walk over a body (JSON.stringify among
 * them) recurses, so a body nested thousands of levels deep would overflow the stack there; 128
 * leaves room for a recipe event (MAX_EVENT_DEPTH) inside a request's own fields.
 */
export const MAX_BODY_DEPTH = 128;
/**
 * Most objects and arrays in a management API body: each costs tens of bytes once parsed, so a
 * 32 MiB recipe body of `{},{},…` would otherwise take the server's heap past a gigabyte.
 */
export const MAX_BODY_CONTAINERS = 1_000_000;

/**
 * JSON bodies only (other types answer 415). An empty body counts as no body: clients send
 * `Content-Type: application/json` with nothing on calls such as regenerate or start.
 */
function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    const shape = jsonShape(text);
    if (shape.depth > MAX_BODY_DEPTH) return done(new AppError('body_too_deep', { params: { max: MAX_BODY_DEPTH } }));
    if (shape.containers > MAX_BODY_CONTAINERS)
      return done(new AppError('body_too_complex', { params: { max: MAX_BODY_CONTAINERS } }));
    return parseJson(request, text, done);
  });
}
