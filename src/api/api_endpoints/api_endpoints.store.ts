// API endpoints of collections.
import type { ApiCollectionRow, ApiEndpointRow, Db, Flag } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import { collectionBasePath, type PublicUrls } from '../api_collections/api_collections.store.ts';

export interface EndpointApi {
  id: number;
  api_collection_id: number;
  flow_id: number | null;
  name: string;
  method: string;
  url: string;
  legacy_url: string | null;
  base_path: string;
  path: string;
  active: boolean;
  legacy: boolean;
  validate_request: boolean;
  created_at: string;
  updated_at: string;
}

export function endpointToApi(
  row: ApiEndpointRow,
  collection: Pick<ApiCollectionRow, 'slug'>,
  prefix: string,
  urls: PublicUrls,
): EndpointApi {
  const basePath = `${collectionBasePath(prefix, collection.slug)}/${row.path}`;
  return {
    id: row.id,
    api_collection_id: row.collection_id,
    flow_id: row.flow_id,
    name: row.name,
    method: row.method,
    url: `${urls.gateway}${basePath}`,
    legacy_url: null,
    base_path: basePath,
    path: row.path,
    active: row.active === 1,
    legacy: false,
    validate_request: row.validate_request === 1,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertEndpoint(
  db: Db,
  values: Omit<ApiEndpointRow, 'id' | 'validate_request'> & { validate_request?: Flag },
): Promise<ApiEndpointRow> {
  return db.insertInto('api_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

export type EndpointWithCollection = ApiEndpointRow & {
  slug: string;
  environment_id: number;
  project_id: number | null;
  proxy_connection_id: number | null;
};

function withCollection(db: Db) {
  return db
    .selectFrom('api_endpoints as e')
    .innerJoin('api_collections as c', 'c.id', 'e.collection_id')
    .selectAll('e')
    .select(['c.slug', 'c.environment_id', 'c.project_id', 'c.proxy_connection_id']);
}

export async function findEndpoint(
  db: Db,
  environmentId: number,
  id: number,
): Promise<EndpointWithCollection | undefined> {
  return withCollection(db).where('c.environment_id', '=', environmentId).where('e.id', '=', id).executeTakeFirst();
}

export async function listEndpoints(
  db: Db,
  environmentId: number,
  filter: { collectionId?: number; scope: readonly number[] | null },
  page: { offset: number; perPage: number },
): Promise<EndpointWithCollection[]> {
  let query = withCollection(db).where('c.environment_id', '=', environmentId);
  if (filter.collectionId !== undefined) query = query.where('e.collection_id', '=', filter.collectionId);
  if (filter.scope !== null) {
    if (filter.scope.length === 0) return [];
    query = query.innerJoin('projects as p', 'p.id', 'c.project_id').where('p.folder_id', 'in', filter.scope);
  }
  return query.orderBy('e.id').limit(page.perPage).offset(page.offset).execute();
}

export async function setEndpointActive(db: Db, id: number, active: boolean, now: string): Promise<void> {
  await db
    .updateTable('api_endpoints')
    .set({ active: active ? 1 : 0, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Every endpoint of an environment with its collection: the gateway's routing table. */
export async function routingTable(db: Db, environmentId: number): Promise<EndpointWithCollection[]> {
  return withCollection(db).where('c.environment_id', '=', environmentId).execute();
}
