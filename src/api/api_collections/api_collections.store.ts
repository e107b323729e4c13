// API collections and the environment's API prefix.
import type { ApiCollectionRow, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface CollectionApi {
  id: number;
  name: string;
  version: string;
  url: string;
  api_spec_url: string;
  project_id: number | null;
  proxy_connection_id: number | null;
  public_access: boolean;
  created_at: string;
  updated_at: string;
}

export interface PublicUrls {
  gateway: string;
  app: string;
}

export function collectionBasePath(prefix: string, slug: string): string {
  return `/${prefix}/${slug}`;
}

export function collectionToApi(row: ApiCollectionRow, prefix: string, urls: PublicUrls): CollectionApi {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    url: `${urls.gateway}${collectionBasePath(prefix, row.slug)}`,
    api_spec_url: `${urls.app}/doc/service/${row.slug}/swagger?token=${row.doc_token}`,
    project_id: row.project_id,
    proxy_connection_id: row.proxy_connection_id,
    public_access: row.public_access === 1,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

/** The environment's prefix on the gateway, assigned on first use: `w<workspace>-<env>`. */
export async function apiPrefixOf(db: Db, environmentId: number): Promise<string> {
  const env = await db
    .selectFrom('environments')
    .select(['api_prefix', 'workspace_id', 'type'])
    .where('id', '=', environmentId)
    .executeTakeFirstOrThrow();
  if (env.api_prefix) return env.api_prefix;
  const prefix = `w${env.workspace_id}-${env.type}`;
  await db
    .updateTable('environments')
    .set({ api_prefix: prefix })
    .where('id', '=', environmentId)
    .where('api_prefix', 'is', null)
    .execute();
  return prefix;
}

/** The environment that serves this prefix on the gateway. */
export async function findEnvironmentByApiPrefix(
  db: Db,
  prefix: string,
): Promise<{ id: number; workspace_id: number } | undefined> {
  return db
    .selectFrom('environments')
    .select(['id', 'workspace_id'])
    .where('api_prefix', '=', prefix)
    .executeTakeFirst();
}

/** Every collection of the environment (the gateway's routing table). */
export async function listEnvironmentCollections(db: Db, environmentId: number): Promise<ApiCollectionRow[]> {
  return db.selectFrom('api_collections').selectAll().where('environment_id', '=', environmentId).execute();
}

export async function insertCollection(db: Db, values: Omit<ApiCollectionRow, 'id'>): Promise<ApiCollectionRow> {
  return db.insertInto('api_collections').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findCollection(db: Db, environmentId: number, id: number): Promise<ApiCollectionRow | undefined> {
  return db
    .selectFrom('api_collections')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findCollectionsByIds(
  db: Db,
  environmentId: number,
  ids: readonly number[],
): Promise<ApiCollectionRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('api_collections')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', 'in', ids)
    .execute();
}

export async function slugTaken(db: Db, environmentId: number, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_collections')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row !== undefined;
}

/** Collections of the environment, limited to projects whose folders are listed (null: all). */
export async function listCollections(
  db: Db,
  environmentId: number,
  scope: readonly number[] | null,
  page: { offset: number; perPage: number },
): Promise<ApiCollectionRow[]> {
  let query = db.selectFrom('api_collections as c').selectAll('c').where('c.environment_id', '=', environmentId);
  if (scope !== null) {
    if (scope.length === 0) return [];
    query = query.innerJoin('projects as p', 'p.id', 'c.project_id').where('p.folder_id', 'in', scope);
  }
  return query.orderBy('c.id').limit(page.perPage).offset(page.offset).execute();
}

export async function updateCollection(
  db: Db,
  id: number,
  values: Partial<Pick<ApiCollectionRow, 'name' | 'proxy_connection_id' | 'public_access' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('api_collections').set(values).where('id', '=', id).execute();
}

export async function deleteCollection(db: Db, id: number): Promise<void> {
  await db.deleteFrom('api_collections').where('id', '=', id).execute();
}
