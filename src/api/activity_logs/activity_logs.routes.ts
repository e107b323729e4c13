// GET /api/activity_logs (contract 23 §6): what the management API changed, newest first.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { ActivityLogList, ActivityLogQuery } from './activity_logs.schemas.ts';
import { listActivityLogs } from './activity_logs.service.ts';

export function activityLogsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/activity_logs',
    {
      config: { privilege: 'activity_logs:read' },
      schema: {
        tags: ['Environment management'],
        summary: "The activity (audit) log of the caller's environment, newest first",
        querystring: ActivityLogQuery,
        response: { 200: ActivityLogList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listActivityLogs(ctx, authOf(request), request.query, parsePage(request.query)),
  );
}
