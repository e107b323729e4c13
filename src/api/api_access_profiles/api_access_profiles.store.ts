// Access profiles (v1) of API clients: the credentials of published APIs.
import type { Insertable } from 'kysely';
import type { ApiAccessProfileRow, ApiAccessProfilesTable, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface AccessProfileApi {
  id: number;
  name: string;
  api_client_id: number;
  api_collection_ids: number[];
  publish_topic_ids: number[];
  consume_topic_ids: number[];
  active: boolean;
  auth_type: string;
  api_policy_id: number | null;
  ip_allow_list: string[];
  ip_deny_list: string[];
  oauth_client_id?: string;
  jwt_method?: string;
  oidc_issuer?: string | null;
  oidc_jwks_uri?: string | null;
  access_profile_claim?: string | null;
  required_claims?: string[];
  allowed_issuers?: string[];
  allowed_audiences?: string[];
  secret?: string;
  oauth_client_secret?: string;
  created_at: string;
  updated_at: string;
}

export function jsonList<T>(text: string | null): T[] {
  if (text === null) return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? (parsed as T[]) : [];
}

export function profileToApi(
  row: ApiAccessProfileRow,
  secrets: { secret?: string; oauth_client_secret?: string } = {},
): AccessProfileApi {
  const out: AccessProfileApi = {
    id: row.id,
    name: row.name,
    api_client_id: row.api_client_id,
    api_collection_ids: jsonList<number>(row.api_collection_ids),
    publish_topic_ids: jsonList<number>(row.publish_topic_ids),
    consume_topic_ids: jsonList<number>(row.consume_topic_ids),
    active: row.active === 1,
    auth_type: row.auth_type,
    api_policy_id: row.api_policy_id,
    ip_allow_list: jsonList<string>(row.ip_allow_list),
    ip_deny_list: jsonList<string>(row.ip_deny_list),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
  if (row.auth_type === 'oauth2' && row.oauth_client_id) out.oauth_client_id = row.oauth_client_id;
  if (row.auth_type === 'jwt' || row.auth_type === 'oidc') {
    if (row.auth_type === 'jwt') out.jwt_method = row.jwt_method ?? 'hmac';
    out.oidc_issuer = row.oidc_issuer;
    out.oidc_jwks_uri = row.oidc_jwks_uri;
    out.access_profile_claim = row.access_profile_claim;
    out.required_claims = jsonList<string>(row.required_claims);
    out.allowed_issuers = jsonList<string>(row.allowed_issuers);
    out.allowed_audiences = jsonList<string>(row.allowed_audiences);
  }
  if (secrets.secret !== undefined) out.secret = secrets.secret;
  if (secrets.oauth_client_secret !== undefined) out.oauth_client_secret = secrets.oauth_client_secret;
  return out;
}

export interface ApiKeyApi {
  id: number;
  name: string;
  auth_type: string;
  ip_allow_list: string[];
  ip_deny_list: string[];
  active: boolean;
  active_since: string;
  auth_token: string;
  oauth_client_id?: string;
  created_at: string;
  updated_at: string;
}

/** An access profile as a v2 API key: the token only when just issued, its masked form otherwise. */
export function keyToApi(
  row: ApiAccessProfileRow,
  issued?: { secret?: string; oauth_client_secret?: string },
): ApiKeyApi {
  const out: ApiKeyApi = {
    id: row.id,
    name: row.name,
    auth_type: row.auth_type,
    ip_allow_list: jsonList<string>(row.ip_allow_list),
    ip_deny_list: jsonList<string>(row.ip_deny_list),
    active: row.active === 1,
    active_since: toApiTimestamp(row.active_since ?? row.created_at),
    // A profile issued before masks were kept shows the ellipsis alone.
    auth_token: issued?.secret ?? issued?.oauth_client_secret ?? row.token_mask ?? '…',
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
  if (row.auth_type === 'oauth2' && row.oauth_client_id) out.oauth_client_id = row.oauth_client_id;
  return out;
}

export async function insertProfile(db: Db, values: Insertable<ApiAccessProfilesTable>): Promise<ApiAccessProfileRow> {
  return db.insertInto('api_access_profiles').values(values).returningAll().executeTakeFirstOrThrow();
}

export type ProfileWithClient = ApiAccessProfileRow & {
  environment_id: number;
  workspace_id: number;
  project_id: number | null;
  client_active: number;
  client_policy_id: number | null;
};

function withClient(db: Db) {
  return db
    .selectFrom('api_access_profiles as p')
    .innerJoin('api_clients as c', 'c.id', 'p.api_client_id')
    .selectAll('p')
    .select([
      'c.environment_id',
      'c.workspace_id',
      'c.project_id',
      'c.active as client_active',
      'c.api_policy_id as client_policy_id',
    ]);
}

export async function findProfile(db: Db, environmentId: number, id: number): Promise<ProfileWithClient | undefined> {
  return withClient(db).where('c.environment_id', '=', environmentId).where('p.id', '=', id).executeTakeFirst();
}

export async function findProfileById(db: Db, id: number): Promise<ProfileWithClient | undefined> {
  return withClient(db).where('p.id', '=', id).executeTakeFirst();
}

export async function findProfileBySecretHash(db: Db, hash: string): Promise<ProfileWithClient | undefined> {
  return withClient(db).where('p.secret_hash', '=', hash).executeTakeFirst();
}

export async function findProfileByOAuthClientId(db: Db, clientId: string): Promise<ProfileWithClient | undefined> {
  return withClient(db).where('p.oauth_client_id', '=', clientId).executeTakeFirst();
}

export async function listProfiles(
  db: Db,
  environmentId: number,
  filter: { apiClientId?: number; scope: readonly number[] | null },
  page: { offset: number; perPage: number },
): Promise<ApiAccessProfileRow[]> {
  let query = withClient(db).where('c.environment_id', '=', environmentId);
  if (filter.apiClientId !== undefined) query = query.where('p.api_client_id', '=', filter.apiClientId);
  if (filter.scope !== null) {
    if (filter.scope.length === 0) return [];
    query = query.innerJoin('projects as pr', 'pr.id', 'c.project_id').where('pr.folder_id', 'in', filter.scope);
  }
  return query.orderBy('p.id').limit(page.perPage).offset(page.offset).execute();
}

export async function updateProfile(
  db: Db,
  id: number,
  values: Partial<Omit<ApiAccessProfileRow, 'id' | 'api_client_id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('api_access_profiles').set(values).where('id', '=', id).execute();
}

export async function countClientProfiles(db: Db, clientId: number): Promise<number> {
  const row = await db
    .selectFrom('api_access_profiles')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('api_client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The keys of each of these clients (at most 20 each), oldest first. */
export async function profilesOfClients(
  db: Db,
  clientIds: readonly number[],
): Promise<Map<number, ApiAccessProfileRow[]>> {
  const out = new Map<number, ApiAccessProfileRow[]>(clientIds.map((id) => [id, []]));
  if (clientIds.length === 0) return out;
  const rows = await db
    .selectFrom('api_access_profiles')
    .selectAll()
    .where('api_client_id', 'in', clientIds)
    .orderBy('id')
    .execute();
  for (const row of rows) out.get(row.api_client_id)?.push(row);
  return out;
}

/** The keys of one client, oldest first; `page` absent: all of them (at most 20). */
export async function listClientProfiles(
  db: Db,
  clientId: number,
  page?: { offset: number; perPage: number },
): Promise<ApiAccessProfileRow[]> {
  const query = db.selectFrom('api_access_profiles').selectAll().where('api_client_id', '=', clientId).orderBy('id');
  return page ? query.limit(page.perPage).offset(page.offset).execute() : query.execute();
}

export async function findClientProfile(
  db: Db,
  clientId: number,
  id: number,
): Promise<ApiAccessProfileRow | undefined> {
  return db
    .selectFrom('api_access_profiles')
    .selectAll()
    .where('api_client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Mirror a v2 client's settings (grants, auth type, verification) onto every one of its keys. */
export async function updateClientProfiles(
  db: Db,
  clientId: number,
  values: Partial<Omit<ApiAccessProfileRow, 'id' | 'api_client_id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('api_access_profiles').set(values).where('api_client_id', '=', clientId).execute();
}

export async function deleteProfile(db: Db, id: number): Promise<void> {
  await db.deleteFrom('api_access_profiles').where('id', '=', id).execute();
}
