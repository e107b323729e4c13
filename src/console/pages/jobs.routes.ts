// The console's jobs section: its routes, rendered by ./jobs.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { getRecipe } from '../../api/recipes/recipes.service.ts';
import { cancelJobs, getJobTriggerEvent, getJobWithSteps, listJobs, repeatJobs } from '../../api/jobs/jobs.service.ts';
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import { jobListPage, jobPage } from './jobs.ts';
import { type ConsoleKit, PAGE_SIZE, Form, HandleParams } from '../kit.ts';

export function consoleJobsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, engine, frameOf, callerWith, can, send, csrfOf, hide, iconOf } = kit;

  // Jobs
  app.get(
    '/console/recipes/:id/jobs',
    {
      schema: {
        ...hide,
        params: IdParams,
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('pending'), Type.Literal('')]),
          ),
          after: Type.Optional(Type.String({ maxLength: 100 })),
          before: Type.Optional(Type.String({ maxLength: 100 })),
          tests: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('')])),
        }),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'jobs:read');
      const { status, after, before } = request.query;
      const tests = request.query.tests === 'true';
      const recipe = await getRecipe(ctx, callerWith(request, 'jobs:read'), request.params.id, false).catch(
        (error: unknown) => {
          throw error instanceof AppError ? error : new AppError('not_found');
        },
      );
      const cursor = before ? { offset_job_id: before, prev: 'true' } : after ? { offset_job_id: after } : {};
      // One more than a page tells whether there is a page beyond.
      const list = await listJobs(ctx, auth, request.params.id, {
        ...(status ? { status } : {}),
        ...cursor,
        per_page: String(PAGE_SIZE + 1),
        test_jobs: tests ? 'only' : 'exclude',
      });
      const more = list.items.length > PAGE_SIZE;
      const jobs = before ? list.items.slice(-PAGE_SIZE) : list.items.slice(0, PAGE_SIZE);
      const olderExists = before ? true : more;
      const newerExists = before ? more : after !== undefined;
      return send(
        reply,
        jobListPage(
          { ...frameOf(request, 'recipes'), title: 'Jobs' },
          {
            recipe: { id: recipe.id, name: recipe.name },
            jobs,
            counts: { succeeded: list.job_succeeded_count, failed: list.job_failed_count, all: list.job_count },
            status: status || undefined,
            tests,
            older: olderExists && jobs.length > 0 ? jobs[jobs.length - 1]?.id : undefined,
            newer: newerExists && jobs.length > 0 ? jobs[0]?.id : undefined,
          },
        ),
      );
    },
  );

  async function showJob(
    request: FastifyRequest,
    reply: FastifyReply,
    recipeId: number,
    handle: string,
    message?: { text: string; kind: 'ok' | 'error' },
  ) {
    const { recipe, job, lines } = await getJobWithSteps(ctx, callerWith(request, 'jobs:read'), recipeId, handle);
    return send(
      reply,
      jobPage(
        { ...frameOf(request, 'recipes'), title: job.title || job.handle },
        {
          recipe: { id: recipe.id, name: recipe.name, running: recipe.running === 1 },
          job,
          lines,
          canWrite: can(request, 'jobs:write'),
          message,
          iconOf,
        },
        csrfOf(request),
      ),
    );
  }

  app.get('/console/recipes/:id/jobs/:handle', { schema: { ...hide, params: HandleParams } }, async (request, reply) =>
    showJob(request, reply, request.params.id, request.params.handle),
  );

  // A trigger's event in full (a step line keeps 100 KB of it): the job stores it whole.
  app.get(
    '/console/recipes/:id/jobs/:handle/trigger-output',
    { schema: { ...hide, params: HandleParams } },
    async (request, reply) => {
      const { job, lines, event } = await getJobTriggerEvent(
        ctx,
        callerWith(request, 'jobs:read'),
        request.params.id,
        request.params.handle,
      );
      if (lines.some((line) => line.recipe_line_number === 0 && line.mask_data === 1)) throw new AppError('not_found');
      return reply
        .type('application/json; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${job.handle.replace(/[^A-Za-z0-9_-]/g, '')}-trigger.json"`,
        )
        .send(event);
    },
  );

  app.post(
    '/console/recipes/:id/jobs/:handle/repeat',
    { schema: { ...hide, params: HandleParams, body: Form({}) } },
    async (request, reply) => {
      const { results } = await repeatJobs(
        ctx,
        engine,
        callerWith(request, 'jobs:write'),
        request.params.id,
        { job_ids: [request.params.handle] },
        actorOf(request, 'console'),
      );
      const result = results[0];
      if (result?.status === 'enqueued' && result.new_job_id)
        return reply.redirect(
          `/console/recipes/${request.params.id}/jobs/${encodeURIComponent(result.new_job_id)}`,
          303,
        );
      return showJob(request, reply, request.params.id, request.params.handle, {
        text: `Not run again: ${result?.error ?? 'unknown job'}`,
        kind: 'error',
      });
    },
  );

  app.post(
    '/console/recipes/:id/jobs/:handle/cancel',
    { schema: { ...hide, params: HandleParams, body: Form({}) } },
    async (request, reply) => {
      const { results } = await cancelJobs(
        ctx,
        engine,
        callerWith(request, 'jobs:write'),
        request.params.id,
        { job_ids: [request.params.handle] },
        actorOf(request, 'console'),
      );
      const result = results[0];
      const ok = result?.status === 'canceled' || result?.status === 'canceling';
      return showJob(
        request,
        reply,
        request.params.id,
        request.params.handle,
        ok
          ? {
              text: result.status === 'canceled' ? 'Job canceled.' : 'The job stops after its current step.',
              kind: 'ok',
            }
          : { text: `Not canceled: ${result?.error ?? 'unknown job'}`, kind: 'error' },
      );
    },
  );
}
