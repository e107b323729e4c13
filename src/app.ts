// buildApp: plugins, then the route table. It never listens: server.ts does, tests inject.
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { ServiceContext } from './context.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { DbHandle } from './db/index.ts';
import { createGroupCommit } from './db/group-commit.ts';
import { registerAuth } from './http/auth.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { registerObservability, requestId } from './http/observability.ts';
import { operationsRoutes } from './http/operations.routes.ts';
import { validatorCompiler } from './http/validation.ts';
import { createLogger } from './logger.ts';
import { systemClock, type Clock } from './time.ts';
import { developerApiClientRolesRoutes } from './api/developer_api_client_roles/developer_api_client_roles.routes.ts';
import { developerApiClientsRoutes } from './api/developer_api_clients/developer_api_clients.routes.ts';
import { usersRoutes } from './api/users/users.routes.ts';
import { lookupTablesRoutes } from './api/lookup_tables/lookup_tables.routes.ts';

export interface AppDeps {
  config: Config;
  database: DbHandle;
  secretBox: SecretBox;
  clock?: Clock;
  logger?: Logger;
  /** Told of every route as it is registered (the route catalog test lists them this way). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
}

/** The API areas, in the order they appear in the OpenAPI document. */
const ROUTE_TABLE: ReadonlyArray<(app: FastifyInstance, ctx: ServiceContext) => void> = [
  developerApiClientsRoutes,
  developerApiClientRolesRoutes,
  usersRoutes,
  lookupTablesRoutes,
];

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const logger = deps.logger ?? createLogger(config.logLevel);
  const app = Fastify({
    loggerInstance: logger,
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
  }) as unknown as FastifyInstance;
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute);
  const ctx: ServiceContext = { db: database.db, clock: deps.clock ?? systemClock, log: logger, secretBox: deps.secretBox, config, groupCommit: createGroupCommit(database.db) };

  app.setValidatorCompiler(validatorCompiler);
  registerJsonParser(app);
  registerErrorHandling(app);
  const metrics = registerObservability(app);
  registerAuth(app, ctx);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard API',
        version: '0.1.0',
        description: 'Management API of Switchboard, compatible with the Workato developer API. Authenticate with `Authorization: Bearer <developer API client token>`.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Developer API client token' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  operationsRoutes(app, ctx, { dialect: database.dialect, metrics });
  for (const register of ROUTE_TABLE) register(app, ctx);
  return app;
}

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
    return parseJson(request, text, done);
  });
}
