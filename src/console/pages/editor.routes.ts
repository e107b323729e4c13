// The recipe editor's routes (src/console/README.md): a new recipe or a new version of one. The
// draft travels in the form; each button names one change (add, move, indent, delete a step, pick
// an operation, check), applied here and drawn again with the errors a start would give; Save
// creates the recipe, or saves a version with its comment, through the API's services.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, invalid } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  commentRecipeVersion,
  createRecipe,
  getRecipe,
  listRecipeVersions,
  updateRecipe,
} from '../../api/recipes/recipes.service.ts';
import { checkRecipeDraft } from '../../api/recipes/recipe-draft.service.ts';
import { listFolders } from '../../api/folders/folders.service.ts';
import { listConnections } from '../../api/connections/connections.service.ts';
import { connectorCatalog, catalogSources } from '../../api/integrations/catalog.ts';
import { loadCustomConnector } from '../../connectors/custom.ts';
import type { Connector } from '../../connectors/types.ts';
import type { SchemaField } from '../../connectors/definition.ts';
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import { checkFormula } from '../../recipe/formula/check.ts';
import { CATALOG_GROUPS, editorPage, formulaStatus, type ConnectorInfo, type OperationInfo } from './editor.ts';
import { applyEdit, draftOf, providersOf } from './editor-form.ts';
import { newRecipeCode, type StepDoc } from './editor-model.ts';
import type { ConsoleKit } from '../kit.ts';
import type { AuthContext } from '../../auth/credentials.ts';

/** A formula typed in formula mode (without its `=`), checked while the person types. */
const FormulaForm = Type.Object({
  _csrf: Type.String({ maxLength: 100 }),
  formula: Type.String({ maxLength: 100_000 }),
});

/** The editor's form: its named fields (step fields are `f:<path>:<key>` and the like). */
const EditorForm = Type.Object(
  { _csrf: Type.String({ maxLength: 100 }) },
  { additionalProperties: Type.String({ maxLength: 900_000 }) },
);

function fieldsOf(
  fields: readonly SchemaField[] | undefined,
  required: ReadonlyArray<{ path: string; label: string }> | undefined,
) {
  const out: Array<OperationInfo['fields'][number]> = [];
  for (const r of required ?? []) if (!r.path.includes('.')) out.push({ name: r.path, label: r.label, required: true });
  for (const f of fields ?? [])
    if (!out.some((o) => o.name === f.name))
      out.push({
        name: f.name,
        label: f.label ?? f.name,
        required: f.optional === false,
        hint: f.hint,
        options: f.pick_list?.map(([label, value]) => [label, value] as const),
      });
  return out;
}

function outputsOf(fields: readonly SchemaField[] | undefined, prefix: readonly string[] = []): string[][] {
  if (!fields || prefix.length > 2) return [];
  return fields.flatMap((f) => [[...prefix, f.name], ...outputsOf(f.properties, [...prefix, f.name])]);
}

export function connectorInfo(connector: Connector, source: ConnectorInfo['source']): ConnectorInfo {
  const ops = (defs: Connector['actions'] | Connector['triggers']) =>
    Object.fromEntries(
      Object.entries(defs).map(([name, def]) => [
        name,
        {
          title: def.title,
          description: def.description,
          fields: fieldsOf(def.inputFields, def.required),
          outputs:
            name === 'new_event' && connector.provider === 'workato_webhooks'
              ? [['payload'], ['headers'], ['query_params']]
              : outputsOf(def.outputFields),
        },
      ]),
    );
  return {
    name: connector.provider,
    title: connector.title,
    source,
    needsConnection: connector.needsConnection,
    triggers: ops(connector.triggers),
    actions: ops(connector.actions),
  };
}

export function consoleEditorRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, engine, connectors, frameOf, callerWith, can, send, csrfOf, hide, iconOf } = kit;

  async function describe(auth: AuthContext, providers: readonly string[]) {
    const scope = { workspaceId: auth.workspaceId, environmentId: auth.environmentId };
    // `http` is the older name of `rest`: offered once, as `rest` (a recipe naming it still opens).
    const catalog = (await connectorCatalog(ctx, scope, catalogSources(connectors.builtIn))).filter(
      (c) => c.name !== 'http' || providers.includes('http'),
    );
    const infos = new Map<string, ConnectorInfo>();
    for (const provider of new Set(providers)) {
      const listed = catalog.find((c) => c.name === provider);
      const builtIn = connectors.find(provider);
      if (builtIn) infos.set(provider, connectorInfo(builtIn, listed?.source === 'saas' ? 'saas' : 'built_in'));
      else if (listed?.source === 'custom') {
        const custom = await loadCustomConnector(ctx, auth.environmentId, auth.workspaceId, provider);
        if (custom) infos.set(provider, connectorInfo(custom.connector, 'custom'));
      }
    }
    return { catalog, infos };
  }

  /** The catalog as the script fills the pickers in: groups of `[name, title]`, and its version. */
  function catalogResource(catalog: Awaited<ReturnType<typeof describe>>['catalog']) {
    const body = JSON.stringify({
      groups: CATALOG_GROUPS.map(([source, label]) => ({
        label,
        connectors: catalog.filter((c) => c.source === source && c.name !== 'http').map((c) => [c.name, c.title]),
      })).filter((g) => g.connectors.length > 0),
    });
    const version = createHash('sha256').update(body).digest('base64url').slice(0, 16);
    return { body, version, url: `/console/recipes/catalog?v=${version}` };
  }

  async function showEditor(
    request: FastifyRequest,
    reply: FastifyReply,
    recipeId: number | null,
    draft: { name: string; comment: string; folderId?: number | undefined; root: StepDoc; config: unknown[] },
    message?: { text: string; kind: 'ok' | 'error' },
    status = 200,
    openPicker?: { path: string; query: string },
  ) {
    const auth = callerWith(request, 'recipes:write');
    const recipe = recipeId === null ? null : await getRecipe(ctx, auth, recipeId, false);
    const providers = providersOf(draft.root);
    const { catalog, infos } = await describe(auth, providers);
    const connections = new Map<string, Array<{ id: number; name: string }>>();
    if (can(request, 'connections:read'))
      for (const c of await listConnections(ctx, auth, { includeRuntime: false }, { offset: 0, perPage: 500 }))
        if (infos.has(c.provider)) connections.set(c.provider, [...(connections.get(c.provider) ?? []), c]);
    const errors = new Map<number, string[]>();
    for (const [step, details] of await checkRecipeDraft(ctx, engine, auth, {
      id: recipeId,
      code: JSON.stringify(draft.root),
      config: JSON.stringify(draft.config),
    }))
      errors.set(step, [
        ...(errors.get(step) ?? []),
        ...details.map((d) => {
          const [label, value, text, field] = d;
          const named = typeof value === 'string' && value !== '' ? `${label} “${value}”` : String(label);
          return `${named}: ${text}${typeof field === 'string' ? ` (field ${field})` : ''}`;
        }),
      ]);
    const folders =
      recipeId === null && can(request, 'projects_folders:read')
        ? await listFolders(ctx, auth, { nested: true, page: { offset: 0, perPage: 100 } }).catch(() => [])
        : [];
    return send(
      reply,
      editorPage(
        { ...frameOf(request, 'recipes'), title: recipe ? `Edit ${recipe.name}` : 'New recipe' },
        {
          recipe: recipe
            ? { id: recipe.id, name: recipe.name, version_no: recipe.version_no, running: recipe.running }
            : null,
          name: draft.name,
          comment: draft.comment,
          folders,
          folderId: draft.folderId,
          root: draft.root,
          config: draft.config,
          catalog,
          catalogUrl: catalogResource(catalog).url,
          openPicker,
          connectors: infos,
          connections,
          errors,
          iconOf,
          checkFormula: (source) => checkFormula(source, () => ctx.clock.now().getTime()),
          message,
        },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get('/console/recipes/new', { schema: hide }, async (request, reply) =>
    showEditor(request, reply, null, { name: '', comment: '', root: newRecipeCode(), config: [] }),
  );

  app.get('/console/recipes/:id/edit', { schema: { ...hide, params: IdParams } }, async (request, reply) => {
    const recipe = await getRecipe(ctx, callerWith(request, 'recipes:write'), request.params.id, false);
    const draft = draftOf(recipe.code, JSON.stringify(recipe.config));
    if (!draft)
      return showEditor(
        request,
        reply,
        recipe.id,
        { name: recipe.name, comment: '', root: newRecipeCode(), config: [] },
        {
          text: "This recipe's code is too large or not a step tree the editor can open: edit it through the API.",
          kind: 'error',
        },
        422,
      );
    return showEditor(request, reply, recipe.id, { name: recipe.name, comment: '', ...draft });
  });

  async function edit(request: FastifyRequest, reply: FastifyReply, recipeId: number | null) {
    const auth = callerWith(request, 'recipes:write');
    const body = request.body as Record<string, string>;
    const draft = draftOf(body.code ?? '', body.config ?? '[]');
    if (!draft) throw invalid({ code: ['is not a step tree the editor can open'] });
    const folderId = /^\d{1,15}$/.test(body.folder_id ?? '') ? Number(body.folder_id) : undefined;
    const state = {
      name: (body.name ?? '').slice(0, 255),
      comment: (body.comment ?? '').slice(0, 1000),
      folderId,
      ...draft,
    };
    const outcome = applyEdit(state.root, state.config, body);
    if (outcome.problem)
      return showEditor(request, reply, recipeId, state, { text: outcome.problem, kind: 'error' }, 400);
    if (body.op !== 'save') {
      const [verb, path] = (body.op ?? '').split(':');
      const open =
        (verb === 'apps' || verb === 'findapp') && path !== undefined
          ? { path, query: verb === 'findapp' ? (body[`appq:${path}`] ?? '').slice(0, 100) : '' }
          : undefined;
      return showEditor(request, reply, recipeId, state, undefined, 200, open);
    }
    if (state.name.trim() === '')
      return showEditor(
        request,
        reply,
        recipeId,
        state,
        { text: 'Give the recipe a name to save it.', kind: 'error' },
        400,
      );
    const fields = { name: state.name.trim(), code: JSON.stringify(state.root), config: JSON.stringify(state.config) };
    try {
      if (recipeId === null) {
        const id = await createRecipe(ctx, auth, {
          ...fields,
          ...(folderId !== undefined ? { folder_id: folderId } : {}),
        });
        return reply.redirect(`/console/recipes/${id}?done=saved`, 303);
      }
      const saved = await updateRecipe(ctx, auth, recipeId, fields);
      if (!saved.success)
        return showEditor(
          request,
          reply,
          recipeId,
          state,
          {
            text: `Not saved: ${Object.values(saved.errors).flat().join('; ')}. Stop the recipe to save a new version.`,
            kind: 'error',
          },
          409,
        );
      if (state.comment.trim() !== '') {
        const [latest] = await listRecipeVersions(ctx, auth, recipeId, { offset: 0, perPage: 1 });
        if (latest)
          await commentRecipeVersion(ctx, auth, recipeId, latest.id, state.comment.trim(), actorOf(request, 'console'));
      }
      return reply.redirect(`/console/recipes/${recipeId}?done=saved`, 303);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return showEditor(
        request,
        reply,
        recipeId,
        state,
        { text: `Not saved: ${error.message}`, kind: 'error' },
        error.status,
      );
    }
  }

  // The catalog once per page for the editor's script (a step's picker lists its own application
  // only); its URL names its version, so the browser keeps it until the catalog changes.
  app.get(
    '/console/recipes/catalog',
    { schema: { ...hide, querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64 })) }) } },
    async (request, reply) => {
      const auth = callerWith(request, 'recipes:write');
      const { body, version } = catalogResource((await describe(auth, [])).catalog);
      const etag = `"${version}"`;
      reply
        .header('cache-control', request.query.v === version ? 'private, max-age=86400' : 'private, no-cache')
        .header('etag', etag)
        .header('vary', 'cookie');
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  // The editor's script asks this as the person types a formula: the engine's parser and method
  // names, and the value when the formula reads no datapill. JSON for the script; nothing changes.
  app.post('/console/recipes/formula/check', { schema: { ...hide, body: FormulaForm } }, async (request, reply) => {
    callerWith(request, 'recipes:write');
    const source = request.body.formula.startsWith('=') ? request.body.formula.slice(1) : request.body.formula;
    if (source.trim() === '') return reply.type('application/json; charset=utf-8').send({ ok: true, text: '' });
    const check = checkFormula(source, () => ctx.clock.now().getTime());
    return reply.type('application/json; charset=utf-8').send({ ...check, text: formulaStatus(check) });
  });

  app.post('/console/recipes/new', { schema: { ...hide, body: EditorForm } }, async (request, reply) =>
    edit(request, reply, null),
  );
  app.post(
    '/console/recipes/:id/edit',
    { schema: { ...hide, params: IdParams, body: EditorForm } },
    async (request, reply) => edit(request, reply, request.params.id),
  );
}
