// The console's jobs section: its routes, rendered by ./jobs.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, invalid } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { getRecipe } from '../../api/recipes/recipes.service.ts';
import {
  cancelJobs,
  getJobLineValue,
  getJobTriggerEvent,
  getJobWithSteps,
  listJobs,
  repeatJobs,
} from '../../api/jobs/jobs.service.ts';
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import { createTestCase } from '../../api/test_cases/test_cases.service.ts';
import { recordActivity } from '../../api/activity_logs/activity.ts';
import { searchJobs } from '../../api/jobs/job-search.service.ts';
import { controlStepsOf, jobListPage, jobPage, truncatedSize } from './jobs.ts';
import { refusalOf, type Refusal } from './form-fields.ts';
import { defaultMock, testCaseFormPage, type JobStepChoice, type MockChoice } from './test-case-form.ts';
import { type ConsoleKit, PAGE_SIZE, Form, HandleParams } from '../kit.ts';

export function consoleJobsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, engine, connectors, frameOf, callerWith, can, send, csrfOf, hide, iconOf, words } = kit;

  /** The job's trigger event and the steps it ran, as a test case can reuse them. */
  async function jobForTestCase(request: FastifyRequest, recipeId: number, handle: string) {
    callerWith(request, 'jobs:read');
    const auth = callerWith(request, 'test_cases:write');
    const recipe = await getRecipe(ctx, auth, recipeId, false);
    const { job, lines, event } = await getJobTriggerEvent(ctx, auth, recipeId, handle);
    // A trigger that masks its data gives nothing to reuse (as its download).
    if (lines.some((line) => line.recipe_line_number === 0 && line.mask_data === 1)) throw new AppError('not_found');
    let trigger: unknown;
    try {
      trigger = JSON.parse(event);
    } catch {
      throw new AppError('not_found');
    }
    const refs = stepRefs(recipe.code);
    const steps: JobStepChoice[] = [];
    for (const line of lines) {
      const ref = refs.get(line.recipe_line_number);
      // A step of the job that the recipe no longer has, or one seen already (a loop's next pass).
      if (line.recipe_line_number === 0 || !ref || steps.some((s) => s.number === line.recipe_line_number)) continue;
      const kept = line.output !== null && line.mask_data !== 1 && truncatedSize(line.output) === null;
      let output: unknown = null;
      if (kept)
        try {
          output = JSON.parse(line.output as string);
        } catch {
          output = line.output;
        }
      steps.push({
        number: line.recipe_line_number,
        ref,
        provider: line.adapter_name,
        operation: line.adapter_operation,
        output,
        outputKept: kept,
        error: line.mask_data === 1 ? null : line.error,
      });
    }
    return { auth, recipe, job, trigger, steps };
  }

  const reachesOutside = (provider: string) => connectors.find(provider)?.reachesOutside ?? true;

  async function showTestCaseForm(
    request: FastifyRequest,
    reply: FastifyReply,
    recipeId: number,
    handle: string,
    typed?: Record<string, string>,
    refusal?: Refusal,
  ) {
    const { recipe, job, steps } = await jobForTestCase(request, recipeId, handle);
    const mocks: Record<number, MockChoice> = {};
    for (const step of steps) {
      const chosen = typed?.[`mock:${step.number}`];
      mocks[step.number] =
        chosen === 'output' || chosen === 'error' || chosen === 'run'
          ? chosen
          : defaultMock(step, reachesOutside(step.provider));
    }
    return send(
      reply,
      testCaseFormPage(
        { ...frameOf(request, 'recipes'), title: 'New test case from a job' },
        {
          recipe: { id: recipe.id, name: recipe.name },
          job: { handle: job.handle, status: job.status, title: job.title },
          steps,
          draft: {
            name: typed?.name ?? `From job ${job.handle}`,
            description: typed?.description ?? (job.title ? `Job “${job.title}”` : ''),
            mocks,
            expectStatus: typed ? typed.expect_status === '1' : true,
            allowExternal: typed ? typed.allow_external === '1' : false,
          },
          refusal,
          iconOf,
          words,
        },
        csrfOf(request),
      ),
      refusal?.status ?? 200,
    );
  }

  app.get(
    '/console/recipes/:id/jobs/:handle/test-case',
    { schema: { ...hide, params: HandleParams } },
    async (request, reply) => showTestCaseForm(request, reply, request.params.id, request.params.handle),
  );

  app.post(
    '/console/recipes/:id/jobs/:handle/test-case',
    { schema: { ...hide, params: HandleParams, body: TestCaseForm } },
    async (request, reply) => {
      const body = request.body as Record<string, string>;
      const { auth, job, trigger, steps } = await jobForTestCase(request, request.params.id, request.params.handle);
      const mocks = [];
      for (const step of steps) {
        const chosen = body[`mock:${step.number}`] ?? 'run';
        if (chosen === 'output' && step.outputKept) mocks.push({ step: step.ref, output: step.output });
        else if (chosen === 'error' && step.error !== null)
          mocks.push({ step: step.ref, error: { type: 'Error', message: step.error } });
        else if (chosen !== 'run')
          throw invalid({ [`mock:${step.number}`]: ['is not what this step can be mocked with'] });
      }
      try {
        const { data } = await createTestCase(ctx, auth, request.params.id, {
          name: body.name ?? '',
          description: body.description ?? '',
          trigger_output: trigger,
          mocks,
          expectations:
            body.expect_status === '1' && (job.status === 'succeeded' || job.status === 'failed')
              ? [{ job_status: job.status }]
              : [],
          allow_external: body.allow_external === '1',
        });
        // Recorded here as the API records POST /api/recipes/:recipe_id/test_cases: the redirect
        // goes to the recipe's page, whose id is not the test case's.
        await ctx.groupCommit.run((trx) =>
          recordActivity(trx, ctx.clock, actorOf(request, 'console'), {
            eventType: 'test_case_created',
            resourceType: 'test_case',
            resourceId: data.id,
            details: { route: `POST ${request.routeOptions.url}`, params: { id: String(request.params.id) } },
          }),
        );
        return reply.redirect(`/console/recipes/${request.params.id}?done=test_case_created`, 303);
      } catch (error) {
        return showTestCaseForm(request, reply, request.params.id, request.params.handle, body, refusalOf(error));
      }
    },
  );

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
          q: Type.Optional(Type.String({ maxLength: 200 })),
          date: Type.Optional(Type.String({ maxLength: 10 })),
        }),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'jobs:read');
      const { status, after, before } = request.query;
      const q = (request.query.q ?? '').trim();
      const date = request.query.date ?? '';
      const tests = request.query.tests === 'true';
      const recipe = await getRecipe(ctx, auth, request.params.id, false).catch((error: unknown) => {
        throw error instanceof AppError ? error : new AppError('not_found');
      });
      const listed = q !== '' || date !== '' ? await searched() : await paged();
      return send(
        reply,
        jobListPage(
          { ...frameOf(request, 'recipes'), title: 'Jobs' },
          { recipe: { id: recipe.id, name: recipe.name }, status: status || undefined, tests, ...listed },
        ),
      );

      /** A search by id, title or status from a day: older pages from the last job found. */
      async function searched() {
        const found = await searchJobs(ctx, auth, recipe.id, {
          q,
          date,
          after,
          status: status || undefined,
          testJobs: tests ? 'only' : 'exclude',
          perPage: PAGE_SIZE,
        });
        const jobs = found.items.slice(0, PAGE_SIZE);
        // The recipe's counters, as the list without a search shows them.
        const totals = await listJobs(ctx, auth, recipe.id, { per_page: '1' });
        return {
          jobs,
          counts: { succeeded: totals.job_succeeded_count, failed: totals.job_failed_count, all: totals.job_count },
          older: found.items.length > PAGE_SIZE ? jobs[jobs.length - 1]?.id : undefined,
          search: { q, date, byId: found.byId, searchedTo: found.searchedTo },
        };
      }

      /** The latest jobs, paged both ways from a cursor. */
      async function paged() {
        const cursor = before ? { offset_job_id: before, prev: 'true' } : after ? { offset_job_id: after } : {};
        // One more than a page tells whether there is a page beyond.
        const list = await listJobs(ctx, auth, recipe.id, {
          ...(status ? { status } : {}),
          ...cursor,
          per_page: String(PAGE_SIZE + 1),
          test_jobs: tests ? 'only' : 'exclude',
        });
        const more = list.items.length > PAGE_SIZE;
        const jobs = before ? list.items.slice(-PAGE_SIZE) : list.items.slice(0, PAGE_SIZE);
        const olderExists = before ? true : more;
        const newerExists = before ? more : after !== undefined;
        return {
          jobs,
          counts: { succeeded: list.job_succeeded_count, failed: list.job_failed_count, all: list.job_count },
          older: olderExists && jobs.length > 0 ? jobs[jobs.length - 1]?.id : undefined,
          newer: newerExists && jobs.length > 0 ? jobs[0]?.id : undefined,
        };
      }
    },
  );

  async function showJob(
    request: FastifyRequest,
    reply: FastifyReply,
    recipeId: number,
    handle: string,
    message?: { text: string; kind: 'ok' | 'error' },
  ) {
    const { recipe, job, lines, wholeValues, version } = await getJobWithSteps(
      ctx,
      callerWith(request, 'jobs:read'),
      recipeId,
      handle,
    );
    return send(
      reply,
      jobPage(
        { ...frameOf(request, 'recipes'), title: job.title || job.handle },
        {
          recipe: { id: recipe.id, name: recipe.name, running: recipe.running === 1 },
          job,
          lines,
          wholeValues,
          steps: controlStepsOf(version.code),
          version: { number: version.versionNo, own: version.own },
          canWrite: can(request, 'jobs:write'),
          canCreateTestCase: can(request, 'test_cases:write'),
          message,
          iconOf,
          words,
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

  // A step's input or output over 100,000 characters (its line keeps the size only), kept whole
  // beside the line (job_line_values).
  app.get(
    '/console/recipes/:id/jobs/:handle/lines/:seq/:field',
    {
      schema: {
        ...hide,
        params: Type.Object({
          ...HandleParams.properties,
          seq: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
          field: Type.Union([Type.Literal('input'), Type.Literal('output')]),
        }),
      },
    },
    async (request, reply) => {
      const { seq, field } = request.params;
      const { job, value } = await getJobLineValue(
        ctx,
        callerWith(request, 'jobs:read'),
        request.params.id,
        request.params.handle,
        seq,
        field,
      );
      return reply
        .type('application/json; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${job.handle.replace(/[^A-Za-z0-9_-]/g, '')}-line-${seq}-${field}.json"`,
        )
        .send(value);
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

/** The test-case form: name, description, `mock:<step number>` (run, output or error), two boxes. */
const TestCaseForm = Type.Object(
  {
    _csrf: Type.String({ maxLength: 100 }),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: Type.String({ maxLength: 20 }) },
);

/** How a test case names each step of the recipe: its alias, else `#<number>`. */
function stepRefs(code: string): Map<number, string> {
  const refs = new Map<number, string>();
  let root: unknown;
  try {
    root = JSON.parse(code);
  } catch {
    return refs;
  }
  const pending = [root];
  for (let step = pending.pop(); step !== undefined && refs.size < 10_000; step = pending.pop()) {
    if (typeof step !== 'object' || step === null) continue;
    const { number, as, block } = step as { number?: unknown; as?: unknown; block?: unknown };
    if (typeof number === 'number') refs.set(number, typeof as === 'string' && as !== '' ? as : `#${number}`);
    if (Array.isArray(block)) pending.push(...(block as unknown[]));
  }
  return refs;
}
