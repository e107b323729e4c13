// Connections (contract 04 part 1): list, get, create, update, disconnect, delete, and the
// resolution of a connection's credentials where they are used (the recipe engine, proxy
// collections). Connections belong to a folder of the caller's environment; project scope applies.
import { checkLength, checkName, emptyToNull } from './connections.input.ts';
import type { ServiceContext } from '../../context.ts';
import type { ConnectionRow, Db } from '../../db/types.ts';
import { AppError, assertFound, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { recordActivity, type Actor } from '../activity_logs/activity.ts';
import { tagsOfAssets } from '../tags/tags.store.ts';
import { findFolderInScope, folderIdsUnderProjects, type FolderScope } from '../folders/folder-scope.store.ts';
import { findHomeFolder } from '../folders/folders.store.ts';
import { findProfile } from '../custom_oauth_profiles/custom_oauth_profiles.store.ts';
import {
  inputProblems,
  mergeInput,
  openInput,
  resolveInput,
  restRequestSettings,
  sealInput,
  type ConnectionInput,
  type InputPatch,
  type ResolvedInput,
  type RestRequestSettings,
} from './connection-input.ts';
import {
  connectionToApi,
  countChildren,
  deleteConnection as deleteConnectionRow,
  findConnection,
  insertConnection,
  listConnections as listConnectionRows,
  recipesUsingConnection,
  updateConnection as updateConnectionRow,
  type ConnectionApi,
  type ConnectionScope,
} from './connections.store.ts';
import { isModelProvider, isRestProvider, providerProblem } from './providers.ts';
import { SecretResolutionError } from '../secrets_management/secret-resolver.ts';
import { loadCustomConnector, usesRedirectFor } from '../../connectors/custom.ts';
import { authorize } from './connection-authorization.ts';
import { connectionDefinitionOf, connectionRules } from '../../connectors/connection-rules.ts';
import { findSaasConnector } from '../../connectors/catalog.ts';
import { emptyAuthState, openAuthState, sealAuthState } from '../../connectors/connections.ts';
import type { AuthState, FieldValues } from '../../connectors/definition.ts';
import { isSecretReference } from './connection-input.ts';
import { storedFieldsOf, type ConnectionFormSpec, type StoredField } from './connection-fields.ts';

/** The caller as connections see it: its environment and its project scope. */
export type ConnectionCaller = ConnectionScope & FolderScope;

export interface ConnectionInputFields {
  name?: string;
  provider?: string;
  description?: string | null;
  folder_id?: number;
  parent_id?: number | null;
  external_id?: string | null;
  custom_oauth_profile_id?: number | null;
  shell_connection?: boolean;
  input?: InputPatch;
}

export interface ListFilters {
  folderId?: number;
  parentId?: number;
  externalId?: string;
  provider?: string;
  includeRuntime: boolean;
}

const MAX_DESCRIPTION = 10_000;
const MAX_EXTERNAL_ID = 255;

export async function listConnections(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  filters: ListFilters,
  page?: { offset: number; perPage: number },
): Promise<ConnectionApi[]> {
  const folderIds = caller.allFolders
    ? undefined
    : await folderIdsUnderProjects(ctx.db, caller.environmentId, caller.folderIds);
  const rows = await listConnectionRows(ctx.db, caller, { ...filters, ...(folderIds ? { folderIds } : {}) }, page);
  return withTags(ctx.db, rows.map(connectionToApi));
}

export async function getConnection(ctx: ServiceContext, caller: ConnectionCaller, id: number): Promise<ConnectionApi> {
  return (await withTags(ctx.db, [connectionToApi(await findVisible(ctx.db, caller, id))]))[0] as ConnectionApi;
}

/** The handles of the tags each connection carries (POST /api/tags_assignments). */
async function withTags(db: Db, connections: ConnectionApi[]): Promise<ConnectionApi[]> {
  const tags = await tagsOfAssets(
    db,
    'connection',
    connections.map((c) => c.id),
  );
  return connections.map((c) => ({ ...c, tags: (tags.get(c.id) ?? []).map((t) => t.handle) }));
}

export async function createConnection(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  body: ConnectionInputFields,
  actor: Actor,
): Promise<ConnectionApi> {
  const errors: FieldErrors = {};
  const name = checkName(body.name, errors);
  const providerError = providerProblem(body.provider);
  if (providerError) errors.provider = [providerError];
  checkLength(body.description, 'description', MAX_DESCRIPTION, errors);
  checkLength(body.external_id, 'external_id', MAX_EXTERNAL_ID, errors);
  const input = mergeInput({}, body.input ?? {});
  if (!providerError) Object.assign(errors, inputProblems(body.provider as string, input, ctx.secrets));
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const provider = body.provider as string;
  const rules = connectionRules(provider, presentFields(input));
  // A connector that connects through the provider's redirect is created as a shell, then
  // connected (contract 04 §1.4): by default when the body does not say, refused when it says not.
  const redirect = rules.known && rules.redirect;
  if (redirect && body.shell_connection === false) throw new AppError('oauth_connection_not_shell');
  if (body.custom_oauth_profile_id != null && body.shell_connection === false)
    throw new AppError('oauth_connection_not_shell');
  // Nothing to test without input: a body with neither input nor shell_connection makes a shell
  // (contract 23 §5: the vendor's CLI sends only name, provider and folder_id).
  const shell =
    body.shell_connection === true ||
    redirect ||
    body.custom_oauth_profile_id != null ||
    (body.shell_connection === undefined && body.input === undefined);
  if (!shell && rules.known) requireFields(rules.missing);
  const now = toStored(ctx.clock.now());
  const tested = shell
    ? null
    : await authorize(ctx, caller, { id: null, name: name as string, provider }, input, emptyAuthState(), null, now);

  const id = await ctx.db.transaction().execute(async (trx) => {
    const folderId = await resolveFolder(trx, caller, body.folder_id);
    const parentId = body.parent_id == null ? null : await checkParent(trx, caller, body.parent_id, provider, null);
    const profileId =
      body.custom_oauth_profile_id == null
        ? null
        : await checkProfile(trx, caller, body.custom_oauth_profile_id, provider);
    const newId = await insertConnection(trx, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      folder_id: folderId,
      parent_id: parentId,
      custom_oauth_profile_id: profileId,
      name: name as string,
      provider,
      description: emptyToNull(body.description),
      external_id: emptyToNull(body.external_id),
      input_sealed: sealInput(ctx.secretBox, input),
      input_fields: fieldsJson(input),
      ...(tested
        ? tested.authorization
        : { authorization_status: null, authorization_error: null, authorized_at: null }),
      auth_sealed: tested ? sealAuthState(ctx.secretBox, tested.auth) : null,
      connection_lost_at: null,
      connection_lost_reason: null,
      created_at: now,
      updated_at: now,
    });
    const created = assertFound(await findConnection(trx, caller, newId));
    await recordActivity(trx, ctx.clock, actor, {
      eventType: 'connection_created',
      resourceType: 'connection',
      resourceId: newId,
      resourceName: created.name,
      details: {
        provider,
        folder_id: created.folder_id,
        shell_connection: shell,
        authorization_status: created.authorization_status,
      },
    });
    return newId;
  });
  return connectionToApi(assertFound(await findConnection(ctx.db, caller, id)));
}

/**
 * Partial update. `input` is merged (keys sent replace, null removes, absent keys stay);
 * `shell_connection: false` tests the result. Changed input that is not tested loses its
 * authorization status, since nobody knows whether it still works.
 */
export async function updateConnection(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  body: ConnectionInputFields,
  actor: Actor,
): Promise<ConnectionApi> {
  const result = await updateConnectionUnpublished(ctx, caller, id, body, actor);
  ctx.notifier.publish('connections.changed', { workspaceId: caller.workspaceId });
  // What a running recipe's static webhook key is computed from may have changed (docs: src/connectors/README.md).
  if (body.input !== undefined || body.shell_connection === false || body.custom_oauth_profile_id !== undefined)
    ctx.notifier.publish('connection.credentials_changed', {
      connectionId: id,
      workspaceId: caller.workspaceId,
      environmentId: caller.environmentId,
    });
  return result;
}

async function updateConnectionUnpublished(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  body: ConnectionInputFields,
  actor: Actor,
): Promise<ConnectionApi> {
  const known: (keyof ConnectionInputFields)[] = [
    'name',
    'provider',
    'description',
    'folder_id',
    'parent_id',
    'external_id',
    'custom_oauth_profile_id',
    'shell_connection',
    'input',
  ];
  if (!known.some((key) => body[key] !== undefined)) {
    throw new AppError('nothing_to_update', {
      errors: { body: [`must contain at least one of ${known.filter((k) => k !== 'provider').join(', ')}`] },
    });
  }
  const errors: FieldErrors = {};
  const name = body.name === undefined ? undefined : checkName(body.name, errors);
  checkLength(body.description, 'description', MAX_DESCRIPTION, errors);
  checkLength(body.external_id, 'external_id', MAX_EXTERNAL_ID, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  // The test reaches the service: it runs before the transaction, never inside it.
  const before = await findVisible(ctx.db, caller, id);
  if (body.provider !== undefined && body.provider !== before.provider)
    throw invalid({ provider: ['cannot be changed; create a new connection'] });
  const mergedInput =
    body.input === undefined ? undefined : mergeInput(openInput(ctx.secretBox, before.input_sealed), body.input);
  if (mergedInput) {
    const problems = inputProblems(before.provider, mergedInput, ctx.secrets);
    if (Object.keys(problems).length > 0) throw invalid(problems);
  }
  const effectiveInput = mergedInput ?? openInput(ctx.secretBox, before.input_sealed);
  const rules = connectionRules(before.provider, presentFields(effectiveInput));
  const profileAfter =
    body.custom_oauth_profile_id === undefined ? before.custom_oauth_profile_id : body.custom_oauth_profile_id;
  // A connection of an unknown provider with an OAuth profile has no test here; one of the catalog is
  // tested with what its authorization left (an OAuth connection not connected yet fails its test).
  if (body.shell_connection === false && profileAfter !== null && !rules.known)
    throw new AppError('oauth_connection_not_shell');
  let tested: Awaited<ReturnType<typeof authorize>> | null = null;
  if (body.shell_connection === false) {
    if (rules.known) requireFields(rules.missing);
    tested = await authorize(
      ctx,
      caller,
      { id: before.id, name: name ?? before.name, provider: before.provider },
      effectiveInput,
      openAuthState(ctx.secretBox, before.auth_sealed),
      profileAfter,
      toStored(ctx.clock.now()),
    );
  }

  return ctx.db.transaction().execute(async (trx) => {
    const current = await findVisible(trx, caller, id);
    const input = mergedInput;
    const folderId = body.folder_id === undefined ? undefined : await resolveFolder(trx, caller, body.folder_id);
    const parentId =
      body.parent_id === undefined
        ? undefined
        : body.parent_id === null
          ? null
          : await checkParent(trx, caller, body.parent_id, current.provider, current.id);
    const profileId =
      body.custom_oauth_profile_id === undefined
        ? current.custom_oauth_profile_id
        : body.custom_oauth_profile_id === null
          ? null
          : await checkProfile(trx, caller, body.custom_oauth_profile_id, current.provider);

    const now = toStored(ctx.clock.now());
    let authorization: Partial<
      Pick<ConnectionRow, 'authorization_status' | 'authorization_error' | 'authorized_at' | 'auth_sealed'>
    > = {};
    if (tested) authorization = { ...tested.authorization, auth_sealed: sealAuthState(ctx.secretBox, tested.auth) };
    else if (input !== undefined) authorization = { authorization_status: null, authorization_error: null };

    await updateConnectionRow(trx, caller, id, {
      ...(name !== undefined ? { name } : {}),
      ...(body.description !== undefined ? { description: emptyToNull(body.description) } : {}),
      ...(body.external_id !== undefined ? { external_id: emptyToNull(body.external_id) } : {}),
      ...(folderId !== undefined ? { folder_id: folderId } : {}),
      ...(parentId !== undefined ? { parent_id: parentId } : {}),
      custom_oauth_profile_id: profileId,
      ...(input !== undefined
        ? { input_sealed: sealInput(ctx.secretBox, input), input_fields: fieldsJson(input) }
        : {}),
      ...authorization,
      ...(tested?.authorization.authorization_status === 'success'
        ? { connection_lost_at: null, connection_lost_reason: null }
        : {}),
      updated_at: now,
    });
    const updated = assertFound(await findConnection(trx, caller, id));
    await recordActivity(trx, ctx.clock, actor, {
      eventType: 'connection_updated',
      resourceType: 'connection',
      resourceId: id,
      resourceName: updated.name,
      // Which fields changed, never their values: input holds credentials.
      details: { fields: known.filter((key) => body[key] !== undefined) },
    });
    return (await withTags(trx, [connectionToApi(updated)]))[0] as ConnectionApi;
  });
}

/**
 * Drop the stored credentials and the authorisation (contract 04 §1.6). `force` is accepted; recipes
 * that use the connection do not refuse a disconnect (their steps then fail with a connection error).
 */
export async function disconnectConnection(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  actor: Actor,
): Promise<void> {
  const result = await disconnectConnectionUnpublished(ctx, caller, id, actor);
  ctx.notifier.publish('connections.changed', { workspaceId: caller.workspaceId });
  return result;
}

async function disconnectConnectionUnpublished(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  actor: Actor,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const current = await findVisible(trx, caller, id);
    await updateConnectionRow(trx, caller, id, {
      input_sealed: null,
      input_fields: '[]',
      auth_sealed: null,
      connection_lost_at: null,
      connection_lost_reason: null,
      authorized_at: null,
      authorization_status: null,
      authorization_error: null,
      updated_at: toStored(ctx.clock.now()),
    });
    await recordActivity(trx, ctx.clock, actor, {
      eventType: 'connection_disconnected',
      resourceType: 'connection',
      resourceId: id,
      resourceName: current.name,
      details: { provider: current.provider },
    });
  });
}

/** Delete, unless runtime user connections still hang from it (422). */
export async function deleteConnection(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  actor: Actor,
): Promise<void> {
  const result = await deleteConnectionUnpublished(ctx, caller, id, actor);
  ctx.notifier.publish('connections.changed', { workspaceId: caller.workspaceId });
  return result;
}

async function deleteConnectionUnpublished(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  actor: Actor,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const current = await findVisible(trx, caller, id);
    const children = await countChildren(trx, id);
    if (children > 0) throw new AppError('connection_in_use', { params: { count: children } });
    const recipes = await recipesUsingConnection(trx, caller, current);
    if (recipes.length > 0) {
      const names = recipes.slice(0, 5).map((r) => r.name);
      if (recipes.length > 5) names.push(`and ${recipes.length - 5} more`);
      throw new AppError('connection_used_by_recipes', { params: { count: recipes.length, names: names.join(', ') } });
    }
    await deleteConnectionRow(trx, caller, id);
    await recordActivity(trx, ctx.clock, actor, {
      eventType: 'connection_deleted',
      resourceType: 'connection',
      resourceId: id,
      resourceName: current.name,
      details: { provider: current.provider },
    });
  });
}

export interface ConnectionCredentials {
  connectionId: number;
  provider: string;
  name: string;
  /** What the connection's authorization left (tokens, instance URL...), opened. */
  auth: AuthState;
  /** The custom OAuth profile it names, if any. */
  oauthProfileId: number | null;
  /** Every field with its value; secret references replaced by what they point to now. */
  values: ResolvedInput;
  /** For `rest`/`http` connections: the base URL and authentication headers to send. */
  rest?: RestRequestSettings;
}

/**
 * The credentials of a connection in clear, for the one place that uses them (a recipe step, a
 * proxy call). Secret references are resolved here, through the resolver's cache. Throws
 * AppError('not_found'), SecretResolutionError or IncompleteCredentialsError; none carries a value.
 */
export async function resolveConnectionCredentials(
  ctx: ServiceContext,
  scope: ConnectionScope,
  id: number,
  db: Db = ctx.db,
): Promise<ConnectionCredentials> {
  return credentialsOfRow(ctx, scope, assertFound(await findConnection(db, scope, id)), db);
}

/** The credentials of a connection row already read in the scope (a job's step reads it once). */
export async function credentialsOfRow(
  ctx: ServiceContext,
  scope: ConnectionScope,
  row: ConnectionRow,
  db: Db = ctx.db,
): Promise<ConnectionCredentials> {
  const values = await resolveInput(db, ctx.secrets, scope, openInput(ctx.secretBox, row.input_sealed));
  return {
    connectionId: row.id,
    provider: row.provider,
    name: row.name,
    auth: openAuthState(ctx.secretBox, row.auth_sealed),
    oauthProfileId: row.custom_oauth_profile_id,
    values,
    ...(isRestProvider(row.provider) ? { rest: restRequestSettings(values) } : {}),
  };
}

/** The fields an input has (values or secret references), as the rules of a connector read them. */
function presentFields(input: ConnectionInput): FieldValues {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(input)) out[key] = isSecretReference(value) ? '(secret)' : value;
  return out;
}

/** Missing fields of a connection that is to be tested: 400 naming each. */
function requireFields(missing: readonly string[]): void {
  if (missing.length === 0) return;
  throw invalid(Object.fromEntries(missing.map((field) => [`input.${field}`, ["can't be blank"]])));
}

export async function findVisible(db: Db, caller: ConnectionCaller, id: number): Promise<ConnectionRow> {
  const row = assertFound(await findConnection(db, caller, id));
  if (!caller.allFolders && (await findFolderInScope(db, caller.environmentId, caller, row.folder_id)) === undefined)
    throw new AppError('not_found');
  return row;
}

/** The folder asked for (in the environment and the caller's scope), else the Home folder. */
async function resolveFolder(db: Db, caller: ConnectionCaller, folderId: number | undefined): Promise<number> {
  if (folderId === undefined) {
    // Home lies outside every project: a client limited to some projects must say where.
    if (!caller.allFolders) throw invalid({ folder_id: ['is required for a client limited to some projects'] });
    return assertFound(await findHomeFolder(db, caller.environmentId)).id;
  }
  const folder = await findFolderInScope(db, caller.environmentId, caller, folderId);
  if (!folder) throw invalid({ folder_id: ['is not a folder of this environment'] });
  return folder.id;
}

/** A parent is a visible top-level connection of the same provider; one level only, so no cycles. */
async function checkParent(
  db: Db,
  caller: ConnectionCaller,
  parentId: number,
  provider: string,
  selfId: number | null,
): Promise<number> {
  const parent = await findConnection(db, caller, parentId);
  const visible =
    parent !== undefined &&
    (caller.allFolders || (await findFolderInScope(db, caller.environmentId, caller, parent.folder_id)) !== undefined);
  if (!parent || !visible) throw invalid({ parent_id: ['is not a connection of this environment'] });
  if (parent.id === selfId) throw invalid({ parent_id: ['cannot be the connection itself'] });
  if (parent.provider !== provider) throw invalid({ parent_id: ['must be a connection of the same provider'] });
  if (parent.parent_id !== null) throw invalid({ parent_id: ['is itself a child connection'] });
  if (selfId !== null && (await countChildren(db, selfId)) > 0)
    throw invalid({ parent_id: ['cannot be set on a connection that has child connections'] });
  return parent.id;
}

async function checkProfile(db: Db, caller: ConnectionCaller, profileId: number, provider: string): Promise<number> {
  const profile = await findProfile(db, caller, profileId);
  if (!profile) throw invalid({ custom_oauth_profile_id: ['is not a custom OAuth profile of this environment'] });
  if (profile.provider !== provider)
    throw invalid({ custom_oauth_profile_id: [`belongs to provider ${profile.provider}, not ${provider}`] });
  return profile.id;
}

function fieldsJson(input: ConnectionInput): string {
  return JSON.stringify(Object.keys(input).sort());
}

export interface ConnectionDescription {
  connection: ConnectionApi;
  /** The connector's title, when the catalog knows the provider. */
  connectorTitle: string | null;
  /** Connected through the provider's OAuth 2.0 redirect (Connect) rather than tested with its fields. */
  redirect: boolean;
}

/** A connection and what its connector says of it, for the console's page (no value leaves here). */
export async function describeConnection(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
): Promise<ConnectionDescription> {
  const row = await findVisible(ctx.db, caller, id);
  const definition = connectionDefinitionOf(row.provider);
  const rules = connectionRules(row.provider, presentFields(openInput(ctx.secretBox, row.input_sealed)));
  if (!definition && !isRestProvider(row.provider) && !isModelProvider(row.provider)) {
    // A custom connector's connection: Connect when its authorization is OAuth 2.0 authorization code.
    const custom = await loadCustomConnector(ctx, caller.environmentId, caller.workspaceId, row.provider);
    if (custom) {
      // A `multi`'s selected option decides: its `selected` lambda reads the connection's fields.
      let values: Record<string, unknown>;
      try {
        values = await resolveInput(ctx.db, ctx.secrets, caller, openInput(ctx.secretBox, row.input_sealed));
      } catch (error) {
        if (!(error instanceof SecretResolutionError)) throw error;
        values = {};
      }
      return {
        connection: connectionToApi(row),
        connectorTitle: custom.title,
        redirect: await usesRedirectFor(custom, values),
      };
    }
  }
  return {
    connection: connectionToApi(row),
    connectorTitle: definition ? (findConnectorTitle(row.provider) ?? row.provider) : null,
    redirect: rules.known && rules.redirect,
  };
}

/** What a visible connection holds of each field, for its edit form: values that are not secrets, else only "set". */
export async function storedConnectionFields(
  ctx: ServiceContext,
  caller: ConnectionCaller,
  id: number,
  spec: ConnectionFormSpec | undefined,
): Promise<Record<string, StoredField>> {
  return storedFieldsOf(ctx, (await findVisible(ctx.db, caller, id)).input_sealed, spec);
}

function findConnectorTitle(provider: string): string | undefined {
  return findSaasConnector(provider)?.title;
}
