// Connections: rows and the one mapper to the API shape. The sealed input never leaves this
// layer except through openInput in the service; the mapper shows only the field names.
import type { ConnectionRow, ConnectionUpdate, Db, NewConnection } from '../../db/types.ts';
import { toApiUtcTimestamp } from '../../time.ts';

export interface ConnectionScope {
  readonly workspaceId: number;
  readonly environmentId: number;
}

export interface ConnectionApi {
  id: number;
  application: string;
  name: string;
  description: string | null;
  authorized_at: string | null;
  authorization_status: string | null;
  authorization_error: string | null;
  created_at: string;
  updated_at: string;
  external_id: string | null;
  folder_id: number;
  connection_lost_at: string | null;
  connection_lost_reason: string | null;
  parent_id: number | null;
  provider: string;
  tags: string[];
  custom_oauth_profile_id: number | null;
  input_fields: string[];
}

export interface ConnectionFilters {
  folderId?: number;
  parentId?: number;
  externalId?: string;
  provider?: string;
  includeRuntime: boolean;
  /** Folders the caller may see; undefined: all folders of the environment. */
  folderIds?: readonly number[];
}

export function connectionToApi(row: ConnectionRow): ConnectionApi {
  const utc = (value: string | null) => (value === null ? null : toApiUtcTimestamp(value));
  return {
    id: row.id,
    application: row.provider,
    name: row.name,
    description: row.description,
    authorized_at: utc(row.authorized_at),
    authorization_status: row.authorization_status,
    authorization_error: row.authorization_error,
    created_at: toApiUtcTimestamp(row.created_at),
    updated_at: toApiUtcTimestamp(row.updated_at),
    external_id: row.external_id,
    folder_id: row.folder_id,
    connection_lost_at: utc(row.connection_lost_at),
    connection_lost_reason: row.connection_lost_reason,
    parent_id: row.parent_id,
    provider: row.provider,
    // Filled by the service (tagsOfAssets); the key is always there because clients read it.
    tags: [],
    custom_oauth_profile_id: row.custom_oauth_profile_id,
    input_fields: inputFieldsOf(row),
  };
}

export function inputFieldsOf(row: Pick<ConnectionRow, 'input_fields'>): string[] {
  const parsed: unknown = JSON.parse(row.input_fields);
  return Array.isArray(parsed) ? parsed.filter((n): n is string => typeof n === 'string') : [];
}

export async function insertConnection(db: Db, values: Omit<NewConnection, 'id'>): Promise<number> {
  const row = await db.insertInto('connections').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function findConnection(db: Db, scope: ConnectionScope, id: number): Promise<ConnectionRow | undefined> {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The connection of a name and provider in the scope (an export reference names its connection). */
export async function findConnectionByName(
  db: Db,
  scope: ConnectionScope,
  name: string,
  provider: string,
): Promise<Pick<ConnectionRow, 'id' | 'authorization_status'> | undefined> {
  return db
    .selectFrom('connections')
    .select(['id', 'authorization_status'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('name', '=', name)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

/** The oldest authorized connection of a provider in the environment (the model connection AI steps use by default). */
export async function findFirstAuthorizedConnection(
  db: Db,
  scope: ConnectionScope,
  provider: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('connections')
    .select('id')
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('provider', '=', provider)
    .where('authorization_status', '=', 'success')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Ascending id; a page only when asked for one. */
export async function listConnections(
  db: Db,
  scope: ConnectionScope,
  filters: ConnectionFilters,
  page?: { offset: number; perPage: number },
): Promise<ConnectionRow[]> {
  let query = db
    .selectFrom('connections')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId);
  if (filters.folderIds !== undefined) {
    if (filters.folderIds.length === 0) return [];
    query = query.where('folder_id', 'in', filters.folderIds);
  }
  if (filters.folderId !== undefined) query = query.where('folder_id', '=', filters.folderId);
  if (filters.parentId !== undefined) query = query.where('parent_id', '=', filters.parentId);
  if (filters.externalId !== undefined) query = query.where('external_id', '=', filters.externalId);
  if (filters.provider !== undefined) query = query.where('provider', '=', filters.provider);
  // A runtime user connection is a child connection for one end user: a parent and an external id.
  if (!filters.includeRuntime)
    query = query.where((eb) => eb.or([eb('parent_id', 'is', null), eb('external_id', 'is', null)]));
  query = query.orderBy('id');
  if (page) query = query.limit(page.perPage).offset(page.offset);
  return query.execute();
}

export async function updateConnection(
  db: Db,
  scope: ConnectionScope,
  id: number,
  values: ConnectionUpdate,
): Promise<void> {
  await db
    .updateTable('connections')
    .set(values)
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .execute();
}

export async function deleteConnection(db: Db, scope: ConnectionScope, id: number): Promise<void> {
  await db
    .deleteFrom('connections')
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .execute();
}

export async function countChildren(db: Db, id: number): Promise<number> {
  const row = await db
    .selectFrom('connections')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('parent_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Stores what an authorization left (sealed), and optionally its status, in one statement. */
export async function saveConnectionAuth(
  db: Db,
  scope: ConnectionScope,
  id: number,
  values: Partial<
    Pick<
      ConnectionUpdate,
      | 'auth_sealed'
      | 'authorization_status'
      | 'authorization_error'
      | 'authorized_at'
      | 'connection_lost_at'
      | 'connection_lost_reason'
      | 'updated_at'
    >
  >,
): Promise<void> {
  await updateConnection(db, scope, id, values);
}

/** The sealed authorization state alone (a session checks whether another job refreshed first). */
export async function findConnectionAuth(db: Db, scope: ConnectionScope, id: number): Promise<string | null> {
  const row = await db
    .selectFrom('connections')
    .select('auth_sealed')
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.auth_sealed ?? null;
}

/** Why the connection is marked lost (a refused refresh; connecting it again clears it), or null. */
export async function findConnectionLoss(db: Db, scope: ConnectionScope, id: number): Promise<string | null> {
  const row = await db
    .selectFrom('connections')
    .select(['connection_lost_at', 'connection_lost_reason'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row?.connection_lost_at) return null;
  return row.connection_lost_reason ?? 'its authorization was refused';
}

/**
 * The recipes of the environment whose connections name this one: a slot of its provider (`rest`
 * and `http` are one) holding its id, or its name (a reference an import left). A text match on
 * the provider narrows the rows; each config is then read.
 */
export async function recipesUsingConnection(
  db: Db,
  scope: ConnectionScope,
  connection: Pick<ConnectionRow, 'id' | 'name' | 'provider'>,
): Promise<Array<{ id: number; name: string }>> {
  const aliases = ['rest', 'http'].includes(connection.provider) ? ['rest', 'http'] : [connection.provider];
  const rows = await db
    .selectFrom('recipes')
    .select(['id', 'name', 'config'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('environment_id', '=', scope.environmentId)
    .where((eb) => eb.or(aliases.map((p) => eb('config', 'like', `%${p}%`))))
    .orderBy('id')
    .execute();
  return rows
    .filter((row) => configNames(row.config, aliases, connection))
    .map((row) => ({ id: row.id, name: row.name }));
}

function configNames(
  text: string,
  aliases: readonly string[],
  connection: Pick<ConnectionRow, 'id' | 'name'>,
): boolean {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    return false;
  }
  if (!Array.isArray(config)) return false;
  return config.some((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return false;
    const { provider, account_id: account } = entry as { provider?: unknown; account_id?: unknown };
    if (typeof provider !== 'string' || !aliases.includes(provider)) return false;
    if (account === connection.id) return true;
    return typeof account === 'object' && account !== null && (account as { name?: unknown }).name === connection.name;
  });
}
