// Access profiles (v1) of API clients: the credentials of published APIs.
import type { ApiAccessProfileRow, Db } from '../../db/types.ts';
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
  access_profile_claim?: string | null;
  required_claims?: string[];
  allowed_issuers?: string[];
  secret?: string;
  oauth_client_secret?: string;
  created_at: string;
  updated_at: string;
}

export function jsonList<T>(text: string): T[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? (parsed as T[]) : [];
}

export function profileToApi(row: ApiAccessProfileRow, secrets: { secret?: string; oauth_client_secret?: string } = {}): AccessProfileApi {
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
  if (row.auth_type === 'jwt') {
    out.jwt_method = row.jwt_method ?? 'hmac';
    out.access_profile_claim = row.access_profile_claim;
    out.required_claims = jsonList<string>(row.required_claims);
    out.allowed_issuers = jsonList<string>(row.allowed_issuers);
  }
  if (secrets.secret !== undefined) out.secret = secrets.secret;
  if (secrets.oauth_client_secret !== undefined) out.oauth_client_secret = secrets.oauth_client_secret;
  return out;
}

export async function insertProfile(db: Db, values: Omit<ApiAccessProfileRow, 'id'>): Promise<ApiAccessProfileRow> {
  return db.insertInto('api_access_profiles').values(values).returningAll().executeTakeFirstOrThrow();
}

export type ProfileWithClient = ApiAccessProfileRow & { environment_id: number; workspace_id: number; project_id: number | null; client_active: number; client_policy_id: number | null };

function withClient(db: Db) {
  return db
    .selectFrom('api_access_profiles as p')
    .innerJoin('api_clients as c', 'c.id', 'p.api_client_id')
    .selectAll('p')
    .select(['c.environment_id', 'c.workspace_id', 'c.project_id', 'c.active as client_active', 'c.api_policy_id as client_policy_id']);
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

export async function listProfiles(db: Db, environmentId: number, filter: { apiClientId?: number; scope: readonly number[] | null }, page: { offset: number; perPage: number }): Promise<ApiAccessProfileRow[]> {
  let query = withClient(db).where('c.environment_id', '=', environmentId);
  if (filter.apiClientId !== undefined) query = query.where('p.api_client_id', '=', filter.apiClientId);
  if (filter.scope !== null) {
    if (filter.scope.length === 0) return [];
    query = query.innerJoin('projects as pr', 'pr.id', 'c.project_id').where('pr.folder_id', 'in', filter.scope);
  }
  return query.orderBy('p.id').limit(page.perPage).offset(page.offset).execute();
}

export async function updateProfile(db: Db, id: number, values: Partial<Omit<ApiAccessProfileRow, 'id' | 'api_client_id' | 'created_at'>>): Promise<void> {
  await db.updateTable('api_access_profiles').set(values).where('id', '=', id).execute();
}
