// Deployments (contract 12 §8–§9): one object, or the list wrapped in `items`, newest first.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import {
  Deployment,
  DeploymentList,
  DeploymentListQuery,
  DeploymentParams,
} from '../project_builds/project_builds.schemas.ts';
import { getDeployment, listDeployments } from './deployments.service.ts';

const tags = ['Projects, builds and deployments'];

export function deploymentsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/deployments',
    {
      config: { privilege: 'project_deployments:read' },
      schema: {
        tags,
        summary: 'Deployments made from this environment, newest first, with filters',
        querystring: DeploymentListQuery,
        response: { 200: DeploymentList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listDeployments(ctx, authOf(request), request.query, parsePage(request.query)),
  );

  app.get(
    '/api/deployments/:id',
    {
      config: { privilege: 'project_deployments:read' },
      schema: {
        tags,
        summary: 'A deployment: pending, then success or failed (with the reason)',
        params: DeploymentParams,
        response: { 200: Deployment, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getDeployment(ctx, authOf(request), request.params.id),
  );
}
