// Developer API clients: the credentials of the management API. Tokens are stored as SHA-256.
import type { Db, DeveloperApiClientRow, DeveloperApiClientUpdate, EnvironmentType } from '../../db/types.ts';
import { toApiTimestamp, toApiUtcTimestamp } from '../../time.ts';

export type ClientWithEnvironment = DeveloperApiClientRow & {
  environment_name: string;
  environment_type: EnvironmentType;
};

export interface DeveloperApiClientApi {
  id: number;
  name: string;
  api_privilege_group_id: number;
  created_at: string;
  updated_at: string;
  all_folders: boolean;
  folder_ids: number[];
  environment_name: string;
  environment_id: number;
  ip_allow_list?: string;
  description?: string;
  token: { updated_at: string; value?: string };
}

export function folderIdsOf(row: Pick<DeveloperApiClientRow, 'folder_ids'>): number[] {
  const parsed: unknown = JSON.parse(row.folder_ids);
  return Array.isArray(parsed) ? parsed.filter((n): n is number => Number.isInteger(n)) : [];
}

export function clientToApi(row: ClientWithEnvironment, tokenValue?: string): DeveloperApiClientApi {
  const out: DeveloperApiClientApi = {
    id: row.id,
    name: row.name,
    api_privilege_group_id: row.role_id,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    all_folders: row.all_folders === 1,
    folder_ids: row.all_folders === 1 ? [] : folderIdsOf(row),
    environment_name: row.environment_name,
    environment_id: row.environment_id,
    token:
      tokenValue === undefined
        ? { updated_at: toApiUtcTimestamp(row.token_updated_at) }
        : { value: tokenValue, updated_at: toApiUtcTimestamp(row.token_updated_at) },
  };
  if (row.ip_allow_list !== '') out.ip_allow_list = row.ip_allow_list;
  if (row.description) out.description = row.description;
  return out;
}

function selectWithEnvironment(db: Db) {
  return db
    .selectFrom('developer_api_clients as c')
    .innerJoin('environments as e', 'e.id', 'c.environment_id')
    .selectAll('c')
    .select(['e.name as environment_name', 'e.type as environment_type']);
}

export async function insertClient(
  db: Db,
  values: Omit<DeveloperApiClientRow, 'id' | 'last_used_at'>,
): Promise<number> {
  const row = await db
    .insertInto('developer_api_clients')
    .values({ ...values, last_used_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findClient(db: Db, workspaceId: number, id: number): Promise<ClientWithEnvironment | undefined> {
  return selectWithEnvironment(db).where('c.workspace_id', '=', workspaceId).where('c.id', '=', id).executeTakeFirst();
}

export async function findClientByName(
  db: Db,
  workspaceId: number,
  nameKey: string,
): Promise<ClientWithEnvironment | undefined> {
  return selectWithEnvironment(db)
    .where('c.workspace_id', '=', workspaceId)
    .where('c.name_key', '=', nameKey)
    .executeTakeFirst();
}

export async function listClients(
  db: Db,
  workspaceId: number,
  page: { offset: number; perPage: number },
): Promise<ClientWithEnvironment[]> {
  return selectWithEnvironment(db)
    .where('c.workspace_id', '=', workspaceId)
    .orderBy('c.id')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}

export async function countClients(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('developer_api_clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateClient(
  db: Db,
  workspaceId: number,
  id: number,
  values: DeveloperApiClientUpdate,
): Promise<boolean> {
  const result = await db
    .updateTable('developer_api_clients')
    .set(values)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteClient(db: Db, workspaceId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('developer_api_clients')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Everything authentication needs, in one indexed lookup by token hash. */
export async function findCredentialByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('developer_api_clients as c')
    .innerJoin('environments as e', 'e.id', 'c.environment_id')
    .innerJoin('developer_api_client_roles as r', 'r.id', 'c.role_id')
    .select([
      'c.id',
      'c.workspace_id',
      'c.environment_id',
      'c.token_hash',
      'c.all_folders',
      'c.folder_ids',
      'c.ip_allow_list',
      'c.last_used_at',
      'e.type as environment_type',
      'r.privileges',
    ])
    .where('c.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchLastUsed(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('developer_api_clients').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function lastUsedInWorkspace(db: Db, workspaceId: number): Promise<string | null> {
  const row = await db
    .selectFrom('developer_api_clients')
    .select((eb) => eb.fn.max('last_used_at').as('at'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/** Drop a deleted project folder from the scope of every client that listed it. */
export async function removeFolderFromScopes(db: Db, workspaceId: number, folderId: number): Promise<void> {
  const rows = await db
    .selectFrom('developer_api_clients')
    .select(['id', 'folder_ids'])
    .where('workspace_id', '=', workspaceId)
    .where('all_folders', '=', 0)
    .execute();
  for (const row of rows) {
    const ids = folderIdsOf(row);
    if (!ids.includes(folderId)) continue;
    await db
      .updateTable('developer_api_clients')
      .set({ folder_ids: JSON.stringify(ids.filter((id) => id !== folderId)) })
      .where('id', '=', row.id)
      .execute();
  }
}

/** A client's name, as shown where it performed something. */
export async function clientName(db: Db, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('developer_api_clients').select('name').where('id', '=', id).executeTakeFirst();
  return row?.name;
}
