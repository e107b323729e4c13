// The console's builds section: its routes, rendered by ./builds.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { deployBuild, listBuildDeployments } from '../../api/deployments/deployments.service.ts';
import { getBuildContents, listBuilds, startBuild } from '../../api/project_builds/project_builds.service.ts';
import { listProjects } from '../../api/projects/projects.service.ts';
import { buildPage, buildsPage, deploymentNotice } from './builds.ts';
import { type ConsoleKit, PAGE_SIZE, NoticeQuery } from '../kit.ts';

export function consoleBuildsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, packages, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

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
          include_data: Type.Optional(Type.Literal('true')),
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
          include_data: request.body.include_data === 'true',
        },
      );
      return reply.redirect(`/console/builds/${build.id}?done=build_started`, 303);
    },
  );

  async function showBuild(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    message?: { text: string; kind: 'ok' | 'error' | 'pending' },
    status = 200,
    deploymentId?: number,
  ) {
    const auth = callerWith(request, 'project_deployments:read');
    const { build, assets } = await getBuildContents(ctx, auth, id);
    const deployments = await listBuildDeployments(ctx, auth, id, { offset: 0, perPage: 100 });
    // The deployment just started, as it stands now (pending, then succeeded or failed).
    const deployed = deploymentId === undefined ? undefined : deployments.find((d) => d.id === deploymentId);
    if (deployed) message = deploymentNotice(deployed);
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
    {
      schema: {
        ...hide,
        params: IdParams,
        querystring: Type.Object({
          ...NoticeQuery.properties,
          deployment: Type.Optional(IdParams.properties.id),
        }),
      },
    },
    async (request, reply) =>
      showBuild(request, reply, request.params.id, noticeOf(request.query.done), 200, request.query.deployment),
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
      let deployment: { id: number };
      try {
        deployment = await deployBuild(
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
      return reply.redirect(`/console/builds/${request.params.id}?deployment=${deployment.id}`, 303);
    },
  );
}
