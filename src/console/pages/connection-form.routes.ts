// Connections created, edited and deleted in the console, through the same services as
// /api/connections (rendered by ./connection-form.ts; src/console/README.md). A refusal shows the
// form again as typed, each problem on its field; secrets typed are never sent back.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  createConnection,
  deleteConnection,
  describeConnection,
  storedConnectionFields,
  updateConnection,
  type ConnectionCaller,
} from '../../api/connections/connections.service.ts';
import type { InputPatch } from '../../api/connections/connection-input.ts';
import {
  connectionFormOf,
  type ConnectionFormSpec,
  type StoredField,
} from '../../api/connections/connection-fields.ts';
import { connectorCatalog, catalogSources } from '../../api/integrations/catalog.ts';
import { homeFolderId, listFolders } from '../../api/folders/folders.service.ts';
import { MODEL_PROVIDER } from '../../api/connections/providers.ts';
import {
  connectionFormPage,
  connectionPickerPage,
  type CatalogEntry,
  type ConnectionDraft,
} from './connection-form.ts';
import { connectionPage } from './connection.ts';
import { type ConsoleKit, Form } from '../kit.ts';

const ConnectionForm = Type.Object(
  {
    _csrf: Type.String({ maxLength: 100 }),
    provider: Type.Optional(Type.String({ maxLength: 100 })),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    folder_id: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: Type.String({ maxLength: 65_536 }) },
);
type ConnectionFormBody = Record<string, string | undefined>;

const NewQuery = Type.Object({
  provider: Type.Optional(Type.String({ maxLength: 100 })),
  q: Type.Optional(Type.String({ maxLength: 100 })),
});

const FOLDER_ID = /^[1-9][0-9]{0,14}$/;

/** What was typed in the connector's fields, blanks left out (a secret is never trimmed). */
function typedValues(spec: ConnectionFormSpec | undefined, body: ConnectionFormBody): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of spec?.fields ?? []) {
    const value = body[`input.${f.name}`];
    if (typeof value === 'string' && value.trim() !== '') out[f.name] = f.kind === 'password' ? value : value.trim();
  }
  return out;
}

/** The form shown again: what was typed, never a secret. */
function draftOf(spec: ConnectionFormSpec | undefined, body: ConnectionFormBody): ConnectionDraft {
  const typed = typedValues(spec, body);
  const values: Record<string, string> = {};
  for (const f of spec?.fields ?? [])
    if (f.kind !== 'password' && typed[f.name] !== undefined) values[f.name] = typed[f.name]!;
  return {
    name: body.name ?? '',
    folder_id: (body.folder_id ?? '').trim(),
    values,
    clear: new Set((spec?.fields ?? []).filter((f) => body[`clear.${f.name}`] === '1').map((f) => f.name)),
  };
}

/** Problems the console finds before the service: a folder id that is no number, required fields left blank. */
function formProblems(
  spec: ConnectionFormSpec,
  draft: ConnectionDraft,
  values: Record<string, string>,
  stored: Readonly<Record<string, StoredField>>,
  checkRequired: boolean,
): FieldErrors {
  const errors: FieldErrors = {};
  if (draft.name.trim() === '') errors.name = ["can't be blank"];
  if (draft.folder_id !== '' && !FOLDER_ID.test(draft.folder_id)) errors.folder_id = ['must be an integer'];
  if (checkRequired && spec.requiredChecked)
    for (const f of spec.fields)
      if (!f.optional && values[f.name] === undefined && (stored[f.name]?.set !== true || draft.clear.has(f.name)))
        errors[`input.${f.name}`] = ["can't be blank"];
  return errors;
}

export function consoleConnectionFormRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, connectors, frameOf, callerWith, can, send, csrfOf, iconOf, hide } = kit;

  /** The applications a connection can be made for: SaaS services, custom connectors, the built-in HTTP and model connections. */
  async function catalogOf(caller: ConnectionCaller): Promise<CatalogEntry[]> {
    const catalog = await connectorCatalog(ctx, caller, catalogSources(connectors.builtIn));
    const listed: CatalogEntry[] = catalog.filter((c) => c.source !== 'built_in' || c.name === 'rest');
    listed.push({ name: MODEL_PROVIDER, title: 'OpenAI-compatible model', source: 'built_in' });
    return listed;
  }

  async function foldersOf(request: FastifyRequest, caller: ConnectionCaller & Parameters<typeof listFolders>[1]) {
    if (!can(request, 'projects_folders:read')) return null;
    const folders = await listFolders(ctx, caller, { nested: true, page: { offset: 0, perPage: 100 } });
    // Home lies outside every project: a token limited to some projects picks one of its folders.
    return caller.allFolders ? [{ id: await homeFolderId(ctx, caller), name: 'Home' }, ...folders] : folders;
  }

  async function showPicker(request: FastifyRequest, reply: FastifyReply, query: string, problem?: string) {
    const caller = callerWith(request, 'connections:write');
    return send(
      reply,
      connectionPickerPage(
        { ...frameOf(request, 'connections'), title: 'New connection' },
        { catalog: await catalogOf(caller), query, iconOf, problem },
      ),
      problem ? 400 : 200,
    );
  }

  async function titleOf(caller: ConnectionCaller, provider: string): Promise<string> {
    return (await catalogOf(caller)).find((c) => c.name === provider)?.title ?? provider;
  }

  app.get('/console/connections/new', { schema: { ...hide, querystring: NewQuery } }, async (request, reply) => {
    const caller = callerWith(request, 'connections:write');
    const provider = request.query.provider?.trim() ?? '';
    if (provider === '') return showPicker(request, reply, request.query.q ?? '');
    const spec = await connectionFormOf(ctx, caller, provider);
    if (!spec) return showPicker(request, reply, '', unknownApplication(provider));
    const values: Record<string, string> = {};
    for (const f of spec.fields) if (f.default !== null && f.kind !== 'password') values[f.name] = f.default;
    const folders = await foldersOf(request, caller);
    const draft = { name: '', folder_id: folders?.[0] ? String(folders[0].id) : '', values, clear: new Set<string>() };
    return showNew(request, reply, caller, provider, spec, draft, folders);
  });

  app.post('/console/connections/new', { schema: { ...hide, body: ConnectionForm } }, async (request, reply) => {
    const caller = callerWith(request, 'connections:write');
    const body = request.body as ConnectionFormBody;
    const provider = body.provider?.trim() ?? '';
    const spec = provider === '' ? undefined : await connectionFormOf(ctx, caller, provider);
    if (!spec) return showPicker(request, reply, '', unknownApplication(provider));
    const draft = draftOf(spec, body);
    const values = typedValues(spec, body);
    try {
      const redirect = await spec.redirect(values);
      const errors = formProblems(spec, draft, values, {}, !redirect);
      if (Object.keys(errors).length > 0) throw invalid(errors);
      const created = await createConnection(
        ctx,
        caller,
        {
          name: draft.name,
          provider,
          ...(draft.folder_id !== '' ? { folder_id: Number(draft.folder_id) } : {}),
          input: values,
          // Connected through the provider's sign-in afterwards (Connect): stored without a test.
          ...(redirect ? { shell_connection: true } : {}),
        },
        actorOf(request, 'console'),
      );
      return reply.redirect(`/console/connections/${created.id}?done=connection_created`, 303);
    } catch (error) {
      const refusal = refusalOf(error);
      return showNew(request, reply, caller, provider, spec, draft, await foldersOf(request, caller), refusal);
    }
  });

  /** The new connection's form: empty, or as typed with the refusal on its fields. */
  async function showNew(
    request: FastifyRequest,
    reply: FastifyReply,
    caller: Parameters<typeof titleOf>[0],
    provider: string,
    spec: NonNullable<Awaited<ReturnType<typeof connectionFormOf>>>,
    draft: ReturnType<typeof draftOf>,
    folders: Awaited<ReturnType<typeof foldersOf>>,
    refusal?: ReturnType<typeof refusalOf>,
  ) {
    const title = await titleOf(caller, provider);
    return send(
      reply,
      connectionFormPage(
        { ...frameOf(request, 'connections'), title: `New ${title} connection` },
        {
          connection: null,
          provider,
          title,
          spec,
          folders,
          draft,
          stored: {},
          iconOf,
          ...(refusal ? { refusal } : {}),
        },
        csrfOf(request),
      ),
      refusal?.status,
    );
  }

  async function showEdit(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    body?: ConnectionFormBody,
    refusal?: ReturnType<typeof refusalOf>,
  ) {
    const caller = callerWith(request, 'connections:write');
    const described = await describeConnection(ctx, caller, id);
    const connection = described.connection;
    const spec = await connectionFormOf(ctx, caller, connection.provider);
    const stored = await storedConnectionFields(ctx, caller, id, spec);
    const shown: Record<string, string> = {};
    for (const [name, field] of Object.entries(stored))
      if (field.set && field.value !== null) shown[name] = field.value;
    const draft: ConnectionDraft = body
      ? draftOf(spec, body)
      : { name: connection.name, folder_id: String(connection.folder_id), values: shown, clear: new Set() };
    const title = described.connectorTitle ?? (await titleOf(caller, connection.provider));
    return send(
      reply,
      connectionFormPage(
        { ...frameOf(request, 'connections'), title: `Edit ${connection.name}` },
        {
          connection,
          provider: connection.provider,
          title,
          spec,
          folders: await foldersOf(request, caller),
          draft,
          stored,
          iconOf,
          refusal,
        },
        csrfOf(request),
      ),
      refusal?.status ?? 200,
    );
  }

  app.get('/console/connections/:id/edit', { schema: { ...hide, params: IdParams } }, async (request, reply) =>
    showEdit(request, reply, request.params.id),
  );

  app.post(
    '/console/connections/:id/edit',
    { schema: { ...hide, params: IdParams, body: ConnectionForm } },
    async (request, reply) => {
      const caller = callerWith(request, 'connections:write');
      const id = request.params.id;
      const body = request.body as ConnectionFormBody;
      const described = await describeConnection(ctx, caller, id);
      const spec = await connectionFormOf(ctx, caller, described.connection.provider);
      const stored = await storedConnectionFields(ctx, caller, id, spec);
      const draft = draftOf(spec, body);
      const values = typedValues(spec, body);
      try {
        const patch = inputPatch(spec, values, stored, draft.clear);
        const changed = Object.keys(patch).length > 0;
        const redirect = spec !== undefined && (await spec.redirect(values));
        const test = changed && spec !== undefined && !described.redirect && !redirect;
        const errors = spec
          ? formProblems(spec, draft, values, stored, test)
          : formProblems(noFields, draft, {}, {}, false);
        if (Object.keys(errors).length > 0) throw invalid(errors);
        await updateConnection(
          ctx,
          caller,
          id,
          {
            name: draft.name,
            ...(draft.folder_id !== '' ? { folder_id: Number(draft.folder_id) } : {}),
            ...(changed ? { input: patch } : {}),
            // Changed fields of a connector that authenticates with them are tested again.
            ...(test ? { shell_connection: false } : {}),
          },
          actorOf(request, 'console'),
        );
        return reply.redirect(
          `/console/connections/${id}?done=${test ? 'connection_tested' : 'connection_saved'}`,
          303,
        );
      } catch (error) {
        return showEdit(request, reply, id, body, refusalOf(error));
      }
    },
  );

  app.post(
    '/console/connections/:id/delete',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      const caller = callerWith(request, 'connections:write');
      try {
        await deleteConnection(ctx, caller, request.params.id, actorOf(request, 'console'));
      } catch (error) {
        if (
          !(error instanceof AppError) ||
          (error.code !== 'connection_in_use' && error.code !== 'connection_used_by_recipes')
        )
          throw error;
        // Refused: the connection's page again, saying why in words.
        const described = await describeConnection(ctx, caller, request.params.id);
        return send(
          reply,
          connectionPage(
            { ...frameOf(request, 'connections'), title: described.connection.name },
            described.connection,
            { connectorTitle: described.connectorTitle, redirect: described.redirect, canWrite: true },
            csrfOf(request),
            {
              text: `Not deleted. ${error.message}. ${error.code === 'connection_in_use' ? 'Delete those connections first.' : 'Give those recipes another connection first.'}`,
              kind: 'error',
            },
          ),
          error.status,
        );
      }
      return reply.redirect('/console/connections?done=connection_deleted', 303);
    },
  );
}

const noFields: ConnectionFormSpec = { provider: '', fields: [], requiredChecked: false, redirect: async () => false };

function unknownApplication(provider: string): string {
  return provider === ''
    ? 'Pick an application.'
    : `“${provider}” is not an application of this environment, or a custom connector with no released version: pick one below.`;
}

/**
 * The change to the stored fields: a value typed replaces; a secret left blank stays (unless its
 * *Remove* box is ticked); a field that is not a secret emptied is removed.
 */
function inputPatch(
  spec: ConnectionFormSpec | undefined,
  values: Record<string, string>,
  stored: Readonly<Record<string, StoredField>>,
  clear: ReadonlySet<string>,
): InputPatch {
  const patch: Record<string, string | null> = {};
  for (const f of spec?.fields ?? []) {
    const before = stored[f.name];
    const typed = values[f.name];
    const hidden = f.kind === 'password' || (before?.set === true && before.value === null);
    if (typed !== undefined) {
      if (hidden || before?.set !== true || before.value !== typed) patch[f.name] = typed;
    } else if (before?.set === true && (hidden ? clear.has(f.name) : true)) patch[f.name] = null;
  }
  return patch;
}

/** A service's refusal of what was typed; the console's form module shows it. */
function refusalOf(error: unknown) {
  if (error instanceof AppError && error.status >= 400 && error.status < 500 && error.errors !== undefined)
    return {
      status: error.status,
      message: error.code === 'validation_failed' ? 'Not saved: see the problems below.' : error.message,
      errors: error.errors,
    };
  if (error instanceof AppError && error.code === 'oauth_connection_not_shell')
    return { status: error.status, message: error.message, errors: {} };
  throw error;
}
