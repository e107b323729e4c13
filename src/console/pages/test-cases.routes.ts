// A recipe's test case in the console (src/console/README.md): its page, the form that edits it (as
// PUT /api/recipes/:recipe_id/test_cases/:id), and its deletion (as DELETE). Rendered by
// ./test-case.ts; Run posts to /console/test-runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, invalid } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { getRecipe } from '../../api/recipes/recipes.service.ts';
import {
  createTestCase,
  deleteTestCase,
  getTestCase,
  updateTestCase,
} from '../../api/test_cases/test_cases.service.ts';
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import { recordActivity } from '../../api/activity_logs/activity.ts';
import { parseCode, stepsOf } from '../../api/export_manifests/references.ts';
import { refusalOf, type Refusal } from './form-fields.ts';
import {
  draftOf,
  exampleOfSchema,
  newTestCasePage,
  onRows,
  readTestCaseForm,
  stepOptions,
  testCasePage,
  type StepPaths,
  type TestCaseDraft,
} from './test-case.ts';
import { schemaPaths } from './editor.ts';
import { connectorInfo } from './editor.routes.ts';
import { notice as noticeMarkup } from '../layout.ts';
import { NoticeQuery, type ConsoleKit } from '../kit.ts';

const CaseParams = Type.Object({
  id: IdParams.properties.id,
  case_id: Type.String({ minLength: 1, maxLength: 100 }),
});

/**
 * The edit form: name, description, trigger_output (JSON text), allow_external, and per row
 * `mock:<i>:step|kind|value|type|remove` and `exp:<i>:kind|step|path|value|remove`.
 */
const TestCaseEditForm = Type.Object(
  {
    _csrf: Type.String({ maxLength: 100 }),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
    trigger_output: Type.Optional(Type.String({ maxLength: 1_000_000 })),
  },
  { additionalProperties: Type.String({ maxLength: 1_000_000 }) },
);

const NOT_SAVED = 'The test case was not saved: each problem is shown on its field.';
const NOT_CREATED = 'The test case was not created: each problem is shown on its field.';

export function consoleTestCaseRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, connectors, frameOf, callerWith, can, send, csrfOf, noticeOf, hide, words } = kit;

  /** Each step's output fields as the editor's datapills know them: the connector's, then the step's own schema. */
  function pathsOf(code: string): StepPaths {
    const paths = new Map<string, string[]>();
    for (const step of stepsOf(parseCode(code))) {
      if (typeof step.number !== 'number' || paths.size >= 10_000) continue;
      const ref = typeof step.as === 'string' && step.as !== '' ? step.as : `#${step.number}`;
      const connector = typeof step.provider === 'string' ? connectors.find(step.provider) : undefined;
      const info = connector ? connectorInfo(connector, 'built_in') : undefined;
      const op =
        typeof step.name === 'string'
          ? (step.keyword === 'trigger' ? info?.triggers : info?.actions)?.[step.name]
          : undefined;
      const all = [...(op?.outputs ?? []), ...schemaPaths(step.extended_output_schema, [])].map((p) => p.join('.'));
      paths.set(ref, [...new Set(all)].slice(0, 500));
    }
    return paths;
  }

  /** The trigger's output schema as an example of its output (JSON text), or `{}` when it has none. */
  function triggerExample(code: string): { text: string; fromSchema: boolean } {
    const trigger = stepsOf(parseCode(code)).find((step) => step.keyword === 'trigger');
    const connector = typeof trigger?.provider === 'string' ? connectors.find(trigger.provider) : undefined;
    const def = typeof trigger?.name === 'string' ? connector?.triggers[trigger.name] : undefined;
    const example = {
      ...exampleOfSchema(def?.outputFields),
      ...exampleOfSchema(trigger?.extended_output_schema),
    };
    const fromSchema = Object.keys(example).length > 0;
    return { text: fromSchema ? JSON.stringify(example, null, 2) : '{}', fromSchema };
  }

  async function showNew(
    request: FastifyRequest,
    reply: FastifyReply,
    recipeId: number,
    typed?: { draft: TestCaseDraft; refusal: Refusal },
  ) {
    const auth = callerWith(request, 'test_cases:write');
    const recipe = await getRecipe(ctx, auth, recipeId, false).catch((error: unknown) => {
      throw error instanceof AppError ? error : new AppError('not_found');
    });
    const example = triggerExample(recipe.code);
    return send(
      reply,
      newTestCasePage(
        { ...frameOf(request, 'recipes'), title: 'New test case' },
        {
          recipe: { id: recipe.id, name: recipe.name },
          draft: typed?.draft ?? {
            name: '',
            description: '',
            triggerOutput: example.text,
            allowExternal: false,
            mocks: [],
            expectations: [],
          },
          steps: stepOptions(recipe.code, words),
          paths: pathsOf(recipe.code),
          fromSchema: example.fromSchema && typed === undefined,
          refusal: typed?.refusal,
        },
        csrfOf(request),
      ),
      typed?.refusal.status ?? 200,
    );
  }

  app.get('/console/recipes/:id/test-cases/new', { schema: { ...hide, params: IdParams } }, async (request, reply) =>
    showNew(request, reply, request.params.id),
  );

  app.post(
    '/console/recipes/:id/test-cases/new',
    { schema: { ...hide, params: IdParams, body: TestCaseEditForm } },
    async (request, reply) => {
      const auth = callerWith(request, 'test_cases:write');
      const { id } = request.params;
      const form = readTestCaseForm(request.body as Record<string, string>);
      let created: string;
      try {
        // Text that is not JSON is refused here, the rest by the service (as POST /api/recipes/:id/test_cases).
        if (Object.keys(form.errors).length > 0) throw invalid(form.errors);
        created = (await createTestCase(ctx, auth, id, form.input)).data.id;
      } catch (error) {
        const refusal = refusalOf(error);
        const errors =
          Object.keys(form.errors).length > 0
            ? refusal.errors
            : onRows(refusal.errors, form.mockRows, form.expectationRows);
        return showNew(request, reply, id, {
          draft: form.draft,
          refusal: { ...refusal, message: NOT_CREATED, errors },
        });
      }
      // Recorded here as the API records POST /api/recipes/:recipe_id/test_cases (a test case's id is
      // not a number, so the activity hook cannot read it from the redirect).
      await ctx.groupCommit.run((trx) =>
        recordActivity(trx, ctx.clock, actorOf(request, 'console'), {
          eventType: 'test_case_created',
          resourceType: 'test_case',
          resourceId: created,
          details: { route: `POST ${request.routeOptions.url}`, params: { id: String(id) } },
        }),
      );
      return reply.redirect(
        `/console/recipes/${id}/test-cases/${encodeURIComponent(created)}?done=test_case_written`,
        303,
      );
    },
  );

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    recipeId: number,
    caseId: string,
    typed?: { draft: TestCaseDraft; refusal: Refusal },
    done?: string,
  ) {
    const auth = callerWith(request, 'test_cases:read');
    const recipe = await getRecipe(ctx, auth, recipeId, false).catch((error: unknown) => {
      throw error instanceof AppError ? error : new AppError('not_found');
    });
    const { data } = await getTestCase(ctx, auth, recipeId, caseId);
    const notice = noticeOf(done);
    return send(
      reply,
      testCasePage(
        { ...frameOf(request, 'recipes'), title: data.name },
        {
          recipe: { id: recipe.id, name: recipe.name },
          testCase: data,
          draft: typed?.draft ?? draftOf(data),
          steps: stepOptions(recipe.code, words),
          paths: pathsOf(recipe.code),
          canWrite: can(request, 'test_cases:write'),
          refusal: typed?.refusal,
          notice: notice ? noticeMarkup(notice.text, notice.kind) : '',
        },
        csrfOf(request),
      ),
      typed?.refusal.status ?? 200,
    );
  }

  app.get(
    '/console/recipes/:id/test-cases/:case_id',
    { schema: { ...hide, params: CaseParams, querystring: NoticeQuery } },
    async (request, reply) =>
      show(request, reply, request.params.id, request.params.case_id, undefined, request.query.done),
  );

  app.post(
    '/console/recipes/:id/test-cases/:case_id',
    { schema: { ...hide, params: CaseParams, body: TestCaseEditForm } },
    async (request, reply) => {
      const auth = callerWith(request, 'test_cases:write');
      const { id, case_id: caseId } = request.params;
      const form = readTestCaseForm(request.body as Record<string, string>);
      try {
        // Text that is not JSON is refused here, the rest by the service: nothing is saved either way.
        if (Object.keys(form.errors).length > 0) throw invalid(form.errors);
        await updateTestCase(ctx, auth, id, caseId, form.input);
      } catch (error) {
        const refusal = refusalOf(error);
        // Problems found here are keyed by the form's rows already; the service's by the items sent.
        const errors =
          Object.keys(form.errors).length > 0
            ? refusal.errors
            : onRows(refusal.errors, form.mockRows, form.expectationRows);
        return show(request, reply, id, caseId, {
          draft: form.draft,
          refusal: { ...refusal, message: NOT_SAVED, errors },
        });
      }
      return reply.redirect(
        `/console/recipes/${id}/test-cases/${encodeURIComponent(caseId)}?done=test_case_saved`,
        303,
      );
    },
  );

  app.post(
    '/console/recipes/:id/test-cases/:case_id/delete',
    { schema: { ...hide, params: CaseParams, body: Type.Object({ _csrf: Type.String({ maxLength: 100 }) }) } },
    async (request, reply) => {
      await deleteTestCase(ctx, callerWith(request, 'test_cases:write'), request.params.id, request.params.case_id);
      return reply.redirect(`/console/recipes/${request.params.id}?done=test_case_deleted`, 303);
    },
  );
}
