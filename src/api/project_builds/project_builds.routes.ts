// Project builds (contract 12 §5–§6): bare objects. Building and build-and-deploy live on the
// projects paths (src/api/projects/projects.routes.ts) and call this area's service.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { emptyBodyAsObject } from '../../http/empty-body.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { deployBuild } from '../deployments/deployments.service.ts';
import type { PackageRunner } from '../packages/runner.ts';
import { Build, BuildParams, DeployBody, DeployQuery, Deployment } from './project_builds.schemas.ts';
import { getBuild } from './project_builds.service.ts';

const tags = ['Projects, builds and deployments'];

export function projectBuildsRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { packages: PackageRunner },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/project_builds/:id',
    {
      config: { privilege: 'project_deployments:read' },
      schema: {
        tags,
        summary: 'A build: pending, then success (with its zip) or failed',
        params: BuildParams,
        response: { 200: Build, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getBuild(ctx, authOf(request), request.params.id),
  );

  app.post(
    '/api/project_builds/:id/deploy',
    {
      config: { privilege: 'project_deployments:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: 'Deploy a successful build to test or prod (environment_type in the query or the body)',
        params: BuildParams,
        querystring: DeployQuery,
        body: DeployBody,
        response: { 200: Deployment, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) =>
      deployBuild(ctx, runtime.packages, authOf(request), request.params.id, request.query, request.body ?? {}),
  );
}
