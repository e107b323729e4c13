// Environment and project properties (contract 05 §2; README: project_id selects the project level).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody, toId } from '../../http/schemas.ts';
import { invalid } from '../../errors.ts';
import { queryId } from '../folders/folders.schemas.ts';
import { PropertiesQuery, PropertyMap, UpsertBody, UpsertQuery } from './properties.schemas.ts';
import { listProperties, upsertProperties } from './properties.service.ts';

const tags = ['Properties'];

export function propertiesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/properties',
    {
      config: { privilege: 'environment_properties:read' },
      schema: {
        tags,
        summary:
          'Environment properties (full names), or with project_id the project properties (names without the prefix)',
        querystring: PropertiesQuery,
        response: { 200: PropertyMap, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const projectId = queryId(request.query.project_id);
      return listProperties(ctx, authOf(request), {
        ...(request.query.prefix !== undefined ? { prefix: request.query.prefix } : {}),
        ...(projectId !== undefined ? { projectId } : {}),
      });
    },
  );

  app.post(
    '/api/properties',
    {
      config: { privilege: 'environment_properties:write' },
      schema: {
        tags,
        summary: 'Upsert environment properties, or with project_id (query or body) project properties; all or nothing',
        querystring: UpsertQuery,
        body: UpsertBody,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const fromQuery = queryId(request.query.project_id);
      const fromBody = request.body.project_id === undefined ? undefined : toId(request.body.project_id);
      if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
        throw invalid({ project_id: ['differs between the query string and the body'] });
      }
      const projectId = fromQuery ?? fromBody;
      await upsertProperties(ctx, authOf(request), {
        properties: request.body.properties,
        ...(projectId !== undefined ? { projectId } : {}),
      });
      return { success: true };
    },
  );
}
