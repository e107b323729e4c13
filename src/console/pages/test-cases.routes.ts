// A recipe's test case in the console (src/console/README.md): its page, the form that edits it (as
// PUT /api/recipes/:recipe_id/test_cases/:id), and its deletion (as DELETE). Rendered by
// ./test-case.ts; Run posts to /console/test-runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, invalid } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { getRecipe } from '../../api/recipes/recipes.service.ts';
import { deleteTestCase, getTestCase, updateTestCase } from '../../api/test_cases/test_cases.service.ts';
import { refusalOf, type Refusal } from './form-fields.ts';
import { draftOf, onRows, readTestCaseForm, stepOptions, testCasePage, type TestCaseDraft } from './test-case.ts';
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

export function consoleTestCaseRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, can, send, csrfOf, noticeOf, hide, words } = kit;

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
