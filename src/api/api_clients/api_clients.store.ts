// API clients (v1): the consumers of published APIs.
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { ApiClientRow, ApiClientsTable, ApiPolicyRow, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export interface ApiClientApi {
  id: number;
  name: string;
  description: string | null;
  project_id: number | null;
  active: boolean;
  api_policy_id: number | null;
  created_at: string;
  updated_at: string;
}

export function apiClientToApi(row: ApiClientRow): ApiClientApi {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    project_id: row.project_id,
    active: row.active === 1,
    api_policy_id: row.api_policy_id,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertApiClient(db: Db, values: Insertable<ApiClientsTable>): Promise<ApiClientRow> {
  return db.insertInto('api_clients').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findApiClient(db: Db, environmentId: number, id: number): Promise<ApiClientRow | undefined> {
  return db
    .selectFrom('api_clients')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listApiClients(
  db: Db,
  environmentId: number,
  filter: { projectId?: number; scope: readonly number[] | null },
  page: { offset: number; perPage: number },
): Promise<ApiClientRow[]> {
  let query = db.selectFrom('api_clients as c').selectAll('c').where('c.environment_id', '=', environmentId);
  if (filter.projectId !== undefined) query = query.where('c.project_id', '=', filter.projectId);
  if (filter.scope !== null) {
    if (filter.scope.length === 0) return [];
    query = query.innerJoin('projects as p', 'p.id', 'c.project_id').where('p.folder_id', 'in', filter.scope);
  }
  return query.orderBy('c.id').limit(page.perPage).offset(page.offset).execute();
}

export async function findPolicy(db: Db, workspaceId: number, id: number) {
  return db
    .selectFrom('api_policies')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Access policies have no management API at the vendor (03 §6): the CLI makes them. */
export async function insertPolicy(
  db: Db,
  values: {
    workspaceId: number;
    name: string;
    rate?: { requests: number; seconds: number };
    quota?: { requests: number; seconds: number };
    now: string;
  },
) {
  return db
    .insertInto('api_policies')
    .values({
      workspace_id: values.workspaceId,
      name: values.name,
      rate_limit_requests: values.rate?.requests ?? null,
      rate_limit_interval_seconds: values.rate?.seconds ?? null,
      quota_requests: values.quota?.requests ?? null,
      quota_interval_seconds: values.quota?.seconds ?? null,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listPolicies(db: Db, workspaceId: number) {
  return db.selectFrom('api_policies').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
}

/** A policy by id, whatever its workspace (the gateway reads the policy of an access profile). */
export async function findPolicyById(db: Db, id: number): Promise<ApiPolicyRow | undefined> {
  return db.selectFrom('api_policies').selectAll().where('id', '=', id).executeTakeFirst();
}

type PolicyWindow = { profileId: number; kind: 'rate' | 'quota'; windowStart: number };

/** Count one request in a policy window of an access profile; the window's count after it. */
export async function countPolicyRequest(db: Db, w: PolicyWindow): Promise<number> {
  const row = await db
    .insertInto('api_policy_counters')
    .values({ profile_id: w.profileId, kind: w.kind, window_start: w.windowStart, count: 1 })
    .onConflict((oc) =>
      oc.columns(['profile_id', 'kind', 'window_start']).doUpdateSet({ count: sql`api_policy_counters.count + 1` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Drop the counters of the windows of this kind that started before the current one. */
export async function deleteEndedPolicyWindows(db: Db, w: PolicyWindow): Promise<void> {
  await db
    .deleteFrom('api_policy_counters')
    .where('profile_id', '=', w.profileId)
    .where('kind', '=', w.kind)
    .where('window_start', '<', w.windowStart)
    .execute();
}

/** Take back one counted request (a refused request does not use up its window). */
export async function uncountPolicyRequest(db: Db, w: PolicyWindow): Promise<void> {
  await db
    .updateTable('api_policy_counters')
    .set({ count: sql`count - 1` })
    .where('profile_id', '=', w.profileId)
    .where('kind', '=', w.kind)
    .where('window_start', '=', w.windowStart)
    .execute();
}

type ClientFilter = { projectId?: number; certBundleIds?: readonly number[]; scope: readonly number[] | null };

function filteredClients(db: Db, environmentId: number, filter: ClientFilter) {
  let query = db.selectFrom('api_clients as c').where('c.environment_id', '=', environmentId);
  if (filter.projectId !== undefined) query = query.where('c.project_id', '=', filter.projectId);
  if (filter.scope !== null)
    query = query
      .innerJoin('projects as p', 'p.id', 'c.project_id')
      .where('p.folder_id', 'in', filter.scope.length > 0 ? filter.scope : [-1]);
  if (filter.certBundleIds && filter.certBundleIds.length > 0) {
    // A JSON array of ids: match any of them as a whole element.
    const ids = filter.certBundleIds;
    query = query.where((eb) =>
      eb.or(
        ids.map((id) =>
          eb.or([
            eb('c.cert_bundle_ids', 'like', `[${id}]`),
            eb('c.cert_bundle_ids', 'like', `[${id},%`),
            eb('c.cert_bundle_ids', 'like', `%,${id},%`),
            eb('c.cert_bundle_ids', 'like', `%,${id}]`),
          ]),
        ),
      ),
    );
  }
  return query;
}

/** One page of the clients of an environment (v2 list), and how many there are in all. */
export async function pageApiClients(
  db: Db,
  environmentId: number,
  filter: ClientFilter,
  page: { offset: number; perPage: number },
): Promise<{ rows: ApiClientRow[]; count: number }> {
  const rows = await filteredClients(db, environmentId, filter)
    .selectAll('c')
    .orderBy('c.id')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
  const total = await filteredClients(db, environmentId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, count: Number(total.n) };
}

export async function updateApiClient(
  db: Db,
  id: number,
  values: Partial<Omit<ApiClientRow, 'id' | 'workspace_id' | 'environment_id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('api_clients').set(values).where('id', '=', id).execute();
}

/** Deletes the client; its access profiles (API keys) and their policy counters go with it (cascade). */
export async function deleteApiClient(db: Db, id: number): Promise<void> {
  await db.deleteFrom('api_clients').where('id', '=', id).execute();
}

export async function policyNames(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_policies')
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function collectionNames(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_collections')
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
