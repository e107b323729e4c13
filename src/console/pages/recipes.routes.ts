// The console's recipes section: its routes, rendered by ./recipes.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import {
  listRecipes,
  getRecipe,
  getRecipeVersion,
  listRecipeVersions,
  startRecipe,
  stopRecipe,
} from '../../api/recipes/recipes.service.ts';
import { listTestCases } from '../../api/test_cases/test_cases.service.ts';
import { listFolders } from '../../api/folders/folders.service.ts';
import { tagsByHandle } from '../../api/tags/tags.service.ts';
import { AppError } from '../../errors.ts';
import { recipeListPage, recipePage, startProblemOf, type StartProblem } from './recipes.ts';
import { type ConsoleKit, PAGE_SIZE, Form, NoticeQuery } from '../kit.ts';

export function consoleRecipesRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, engine, frameOf, callerWith, can, send, csrfOf, noticeOf, hide, iconOf, words } = kit;

  // Recipes
  app.get(
    '/console/recipes',
    {
      schema: {
        ...hide,
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 255 })),
          folder_id: Type.Optional(Type.Union([IdParams.properties.id, Type.Literal('')])),
          running: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('')])),
          application: Type.Optional(Type.String({ maxLength: 100, pattern: '^[A-Za-z0-9_. -]*$' })),
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        }),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'recipes:read');
      const q = request.query;
      const pageNo = q.page ?? 1;
      const folderId = typeof q.folder_id === 'number' ? q.folder_id : undefined;
      const [recipes, folders] = await Promise.all([
        listRecipes(ctx, auth, {
          ...(q.q ? { name_contains: q.q } : {}),
          ...(folderId !== undefined ? { folder_id: folderId } : {}),
          ...(q.running ? { running: q.running } : {}),
          ...(q.application ? { application_contains: q.application } : {}),
          exclude_code: true,
          withTags: true,
          page: { offset: (pageNo - 1) * PAGE_SIZE, perPage: PAGE_SIZE + 1 },
        }),
        can(request, 'projects_folders:read')
          ? listFolders(ctx, auth, { nested: true, page: { offset: 0, perPage: 100 } }).catch(() => [])
          : Promise.resolve([]),
      ]);
      return send(
        reply,
        recipeListPage(
          { ...frameOf(request, 'recipes'), title: 'Recipes' },
          {
            recipes: recipes.slice(0, PAGE_SIZE),
            tags: await tagsByHandle(
              ctx,
              auth,
              recipes.flatMap((r) => r.tags ?? []),
            ),
            hasMore: recipes.length > PAGE_SIZE,
            canWrite: can(request, 'recipes:write'),
            folders,
            filters: {
              q: q.q,
              folder_id: folderId,
              running: q.running || undefined,
              application: q.application || undefined,
              page: pageNo,
            },
          },
        ),
      );
    },
  );

  async function showRecipe(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    message?: { text: string; kind: 'ok' | 'error' },
    startErrors?: StartProblem[],
    status = 200,
  ) {
    const auth = callerWith(request, 'recipes:read');
    const recipe = await getRecipe(ctx, auth, id, false);
    const versions = await listRecipeVersions(ctx, auth, id, { offset: 0, perPage: 20 });
    const testCases = can(request, 'test_cases:read') ? (await listTestCases(ctx, auth, id)).data : null;
    return send(
      reply,
      recipePage(
        { ...frameOf(request, 'recipes'), title: recipe.name },
        {
          recipe,
          versions,
          canWrite: can(request, 'recipes:write'),
          canReadJobs: can(request, 'jobs:read'),
          message,
          startErrors,
          testCases,
          canRunTests: can(request, 'test_cases:write'),
          iconOf,
          words,
        },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get(
    '/console/recipes/:id',
    { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
    async (request, reply) => showRecipe(request, reply, request.params.id, noticeOf(request.query.done)),
  );

  app.get(
    '/console/recipes/:id/versions/diff',
    {
      schema: {
        ...hide,
        params: IdParams,
        querystring: Type.Object({
          from: Type.Optional(IdParams.properties.id),
          to: Type.Optional(IdParams.properties.id),
        }),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'recipes:read');
      const recipe = await getRecipe(ctx, auth, request.params.id, false);
      const versions = await listRecipeVersions(ctx, auth, recipe.id, { offset: 0, perPage: 100 });
      // By default the latest version against the one before it.
      const toId = request.query.to ?? versions[0]?.id;
      const fromId = request.query.from ?? versions[1]?.id ?? toId;
      if (toId === undefined || fromId === undefined) throw new AppError('recipe_version_not_found');
      const [from, to] = await Promise.all([
        getRecipeVersion(ctx, auth, recipe.id, fromId),
        getRecipeVersion(ctx, auth, recipe.id, toId),
      ]);
      // The page and its diff library load at the first comparison.
      const { recipeDiffPage } = await import('./recipe-diff.ts');
      return send(
        reply,
        recipeDiffPage(
          { ...frameOf(request, 'recipes'), title: `${recipe.name}: version ${from.version_no} → ${to.version_no}` },
          recipe,
          versions,
          from,
          to,
        ),
      );
    },
  );

  app.post(
    '/console/recipes/:id/start',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      const auth = callerWith(request, 'recipes:write');
      const result = await startRecipe(ctx, engine, auth, request.params.id);
      if (result.success) return reply.redirect(`/console/recipes/${request.params.id}?done=started`, 303);
      const problems = [...result.code_errors, ...result.config_errors].flatMap(([step, details]) =>
        details.map((d) => startProblemOf(step, d)),
      );
      return showRecipe(request, reply, request.params.id, undefined, problems, 422);
    },
  );

  app.post(
    '/console/recipes/:id/stop',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      await stopRecipe(ctx, engine, callerWith(request, 'recipes:write'), request.params.id);
      return reply.redirect(`/console/recipes/${request.params.id}?done=stopped`, 303);
    },
  );
}
