// Projects (contract 05 §3.7). Bare objects and arrays; delete answers { success: true }.
// Creating a project is POST /api/folders without a parent.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { emptyBodyAsObject } from '../../http/empty-body.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody } from '../../http/schemas.ts';
import { Project, ProjectList, ProjectListQuery, ProjectParams, UpdateProjectBody } from './projects.schemas.ts';
import { deleteProject, listProjects, updateProject } from './projects.service.ts';
import type { PackageRunner } from '../packages/runner.ts';
import {
  Build,
  BuildBody,
  DeployBody,
  DeployQuery,
  Deployment,
  ProjectRefParams,
} from '../project_builds/project_builds.schemas.ts';
import { buildProject } from '../project_builds/project_builds.service.ts';
import { buildAndDeploy } from '../deployments/deployments.service.ts';

const tags = ['Folders and projects'];

export function projectsRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { packages: PackageRunner },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/projects/:project_id/build',
    {
      config: { privilege: 'project_deployments:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags: ['Projects, builds and deployments'],
        summary: 'Build a project (dev only): a package of the whole project, made in the background',
        params: ProjectRefParams,
        body: BuildBody,
        response: { 200: Build, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      buildProject(ctx, runtime.packages, authOf(request), request.params.project_id, request.body ?? {}),
  );

  app.post(
    '/api/projects/:project_id/deploy',
    {
      config: { privilege: 'project_deployments:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags: ['Projects, builds and deployments'],
        summary: 'Build a project and deploy that build to test or prod; answers the deployment',
        params: ProjectRefParams,
        querystring: DeployQuery,
        body: DeployBody,
        response: { 200: Deployment, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      buildAndDeploy(
        ctx,
        runtime.packages,
        authOf(request),
        request.params.project_id,
        request.query,
        request.body ?? {},
      ),
  );

  app.get(
    '/api/projects',
    {
      config: { privilege: 'projects_folders:read' },
      schema: {
        tags,
        summary: 'List projects by ascending id',
        querystring: ProjectListQuery,
        response: { 200: ProjectList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listProjects(ctx, authOf(request), parsePage(request.query)),
  );

  app.put(
    '/api/projects/:project_id',
    {
      config: { privilege: 'projects_folders:write' },
      schema: {
        tags,
        summary: 'Rename a project (and its folder) or change its description; the path takes the project id',
        params: ProjectParams,
        body: UpdateProjectBody,
        response: { 200: Project, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return updateProject(ctx, authOf(request), request.params.project_id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.color !== undefined ? { color: body.color } : {}),
        ...(body.icon !== undefined ? { icon: body.icon } : {}),
      });
    },
  );

  app.delete(
    '/api/projects/:project_id',
    {
      config: { privilege: 'projects_folders:write' },
      schema: {
        tags,
        summary:
          'Delete a project with its folders, properties and stopped recipes (403 while one runs); the path takes the project id, not the folder id',
        params: ProjectParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteProject(ctx, authOf(request), request.params.project_id);
      return { success: true };
    },
  );
}
