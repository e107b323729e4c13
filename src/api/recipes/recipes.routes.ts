// Recipes (contract 14) and their versions (14 §11). Refusals of update/delete/start come back as
// 200 with success: false, as the vendor answers them (14 §5, §7, §9). Create and update take
// bodies up to RECIPE_BODY_LIMIT_BYTES (exported recipes reach megabytes); every other route
// keeps BODY_LIMIT_BYTES.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { actorOf } from '../activity_logs/activity_logs.routes.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, toId, type IdInput } from '../../http/schemas.ts';
import {
  CopyBody,
  CopyResult,
  CreateResult,
  GetQuery,
  ListQuery,
  MutationResult,
  Recipe,
  RecipeBody,
  RecipeIdParams,
  RecipeList,
  RecipeVersionDetail,
  RecipeVersionList,
  StartResult,
  VersionCommentBody,
  VersionListQuery,
  VersionParams,
  ConnectBody,
} from './recipes.schemas.ts';
import {
  commentRecipeVersion,
  copyRecipe,
  createRecipe,
  deleteRecipe,
  getRecipe,
  getRecipeVersion,
  listRecipes,
  listRecipeVersions,
  connectRecipe,
  pollNow,
  resetTrigger,
  startRecipe,
  stopRecipe,
  updateRecipe,
  type RecipeRuntime,
} from './recipes.service.ts';
import { type RecipeFields } from './recipes.input.ts';

const tags = ['Recipes'];

function includesTags(query: { 'includes[]'?: string | string[]; includes?: string | string[] }): boolean {
  return [query['includes[]'], query.includes].flat().some((v) => v === 'tags');
}

type BodyFields = NonNullable<RecipeBody['recipe']>;

/** The recipe fields of a body: wrapped in `recipe` or at the top level (both: `recipe` wins). */
function merged(body: RecipeBody | undefined): BodyFields {
  if (!body) return {};
  const { recipe, ...top } = body;
  return { ...top, ...(recipe ?? {}) };
}

function fieldsOf(f: BodyFields): RecipeFields {
  let code: unknown = f.code;
  const versionIsObject = typeof f.version === 'object' && f.version !== null && !Array.isArray(f.version);
  // The API read form {code, version: {config, ...}} and the {result: <code>} form are unwrapped by the service.
  if (code === undefined && f.result !== undefined) code = { result: f.result };
  else if (code !== undefined && versionIsObject)
    code = {
      code: f.code,
      version: f.version,
      ...(f.config !== undefined && f.config !== null ? { config: f.config } : {}),
    };
  const concurrency = f.concurrency ?? f.worker_concurrency;
  return {
    ...(f.name !== undefined ? { name: f.name } : {}),
    ...(f.description !== undefined ? { description: f.description } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(f.config !== undefined && !(code !== undefined && versionIsObject) ? { config: f.config } : {}),
    ...(f.folder_id !== undefined ? { folder_id: toId(f.folder_id) } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
  };
}

export function recipesRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  { engine }: { engine: RecipeRuntime },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/recipes',
    {
      config: { privilege: 'recipes:read' },
      schema: {
        tags,
        summary: 'List recipes (newest first)',
        querystring: ListQuery,
        response: { 200: RecipeList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const { page, per_page, ...query } = request.query;
      const items = await listRecipes(ctx, authOf(request), {
        ...query,
        withTags: includesTags(query),
        page: parsePage({ page, per_page }),
      });
      return { items };
    },
  );

  app.get(
    '/api/recipes/:id',
    {
      config: { privilege: 'recipes:read' },
      schema: {
        tags,
        summary: 'Get a recipe',
        params: IdParams,
        querystring: GetQuery,
        response: { 200: Recipe, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getRecipe(ctx, authOf(request), request.params.id, includesTags(request.query)),
  );

  app.post(
    '/api/recipes',
    {
      bodyLimit: ctx.config.recipeBodyLimitBytes,
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Create a recipe; with recipe_id and no code, copy that recipe',
        description:
          'Fields may be wrapped in `recipe` or sent at the top level. `code` and `config` may be JSON text or JSON values; the export form `{name, code, config, concurrency}` is accepted as the body.',
        body: RecipeBody,
        response: { 200: CreateResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const f = merged(request.body);
      if (f.recipe_id !== undefined && f.code === undefined && f.result === undefined) {
        const id = await copyRecipe(ctx, auth, toId(f.recipe_id), {
          ...(f.folder_id !== undefined ? { folderId: toId(f.folder_id) } : {}),
          ...(f.name !== undefined ? { name: f.name } : {}),
        });
        return { success: true, id, new_flow_id: id };
      }
      return { success: true, id: await createRecipe(ctx, auth, fieldsOf(f)) };
    },
  );

  app.post(
    '/api/recipes/:id/copy',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Copy a recipe (stopped, named "Copy of ...")',
        params: IdParams,
        body: CopyBody,
        response: { 200: CopyResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const folder: IdInput | undefined = body.recipe?.folder_id ?? body.folder_id;
      const name = body.recipe?.name ?? body.name;
      const id = await copyRecipe(ctx, authOf(request), request.params.id, {
        ...(folder !== undefined ? { folderId: toId(folder) } : {}),
        ...(name !== undefined ? { name } : {}),
      });
      return { success: true, new_flow_id: id };
    },
  );

  app.put(
    '/api/recipes/:id',
    {
      bodyLimit: ctx.config.recipeBodyLimitBytes,
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Update a stopped recipe (a change of code, config, name or description makes a new version)',
        params: IdParams,
        body: RecipeBody,
        response: { 200: MutationResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => updateRecipe(ctx, authOf(request), request.params.id, fieldsOf(merged(request.body))),
  );

  app.delete(
    '/api/recipes/:id',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Delete a stopped recipe, its versions and its jobs',
        params: IdParams,
        response: { 200: MutationResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => deleteRecipe(ctx, authOf(request), request.params.id),
  );

  app.put(
    '/api/recipes/:id/start',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Validate and start a recipe',
        params: IdParams,
        response: { 200: StartResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => startRecipe(ctx, engine, authOf(request), request.params.id),
  );

  app.put(
    '/api/recipes/:id/stop',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: 'Stop a recipe: its trigger stops; queued jobs wait for the next start',
        params: IdParams,
        response: { 200: MutationResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await stopRecipe(ctx, engine, authOf(request), request.params.id);
      return { success: true };
    },
  );

  app.put(
    '/api/recipes/:id/connect',
    {
      config: { privilege: 'recipes:write', activity: 'in_service' },
      schema: {
        tags,
        summary:
          "Point a stopped recipe's connector slot at a connection (a new version); {success:false} while it runs",
        params: IdParams,
        body: ConnectBody,
        response: { 200: MutationResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => connectRecipe(ctx, authOf(request), request.params.id, request.body, actorOf(request)),
  );

  app.post(
    '/api/recipes/:id/reset_trigger',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: "Forget where a stopped recipe's scheduled or topic trigger got to: the next start begins afresh",
        params: IdParams,
        response: { 200: MutationResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => resetTrigger(ctx, engine, authOf(request), request.params.id),
  );

  app.post(
    '/api/recipes/:id/poll_now',
    {
      config: { privilege: 'recipes:write' },
      schema: {
        tags,
        summary: "Fire a running recipe's scheduled trigger now (its schedule is unchanged)",
        params: IdParams,
        response: { 200: MutationResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => pollNow(ctx, engine, authOf(request), request.params.id),
  );

  app.get(
    '/api/recipes/:recipe_id/versions',
    {
      config: { privilege: 'recipes:read' },
      schema: {
        tags,
        summary: "List a recipe's versions (newest first), without their content",
        params: RecipeIdParams,
        querystring: VersionListQuery,
        response: { 200: RecipeVersionList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      data: await listRecipeVersions(ctx, authOf(request), request.params.recipe_id, parsePage(request.query)),
    }),
  );

  app.get(
    '/api/recipes/:recipe_id/versions/:id',
    {
      config: { privilege: 'recipes:read' },
      schema: {
        tags,
        summary: 'One version of a recipe, with the name, description, code and config it saved',
        params: VersionParams,
        response: { 200: RecipeVersionDetail, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getRecipeVersion(ctx, authOf(request), request.params.recipe_id, request.params.id),
  );

  const commentVersion = {
    config: { privilege: 'recipes:write' as const, activity: 'in_service' as const },
    schema: {
      tags,
      summary: "Set a version's comment (at most 255 characters; null clears it)",
      params: VersionParams,
      body: VersionCommentBody,
      response: { 200: RecipeVersionDetail, ...errorResponses(...AUTH_ERRORS, 404) },
    },
  };
  app.patch('/api/recipes/:recipe_id/versions/:id', commentVersion, async (request) =>
    commentRecipeVersion(
      ctx,
      authOf(request),
      request.params.recipe_id,
      request.params.id,
      request.body.comment,
      actorOf(request),
    ),
  );
  app.put('/api/recipes/:recipe_id/versions/:id', commentVersion, async (request) =>
    commentRecipeVersion(
      ctx,
      authOf(request),
      request.params.recipe_id,
      request.params.id,
      request.body.comment,
      actorOf(request),
    ),
  );
}
