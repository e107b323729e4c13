// GET /api/integrations (contract 23 §4): the connector catalog, `{"items": [...]}`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { catalogSources, connectorCatalog, type LoadBuiltInConnectors } from './catalog.ts';
import { IntegrationList, IntegrationsQuery } from './integrations.schemas.ts';

export function integrationsRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { builtInConnectors: LoadBuiltInConnectors },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const sources = catalogSources(runtime.builtInConnectors);
  app.get(
    '/api/integrations',
    {
      config: { privilege: 'connections:read' },
      schema: {
        tags: ['Connections'],
        summary: 'The connectors recipes and connections of this environment can use: built-in and custom',
        querystring: IntegrationsQuery,
        response: { 200: IntegrationList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const { applications } = request.query;
      const names =
        applications === undefined
          ? undefined
          : applications
              .split(',')
              .map((n) => n.trim())
              .filter((n) => n !== '');
      // An empty list names nothing: the whole catalog, as without the parameter.
      return { items: await connectorCatalog(ctx, authOf(request), sources, names?.length === 0 ? undefined : names) };
    },
  );
}
