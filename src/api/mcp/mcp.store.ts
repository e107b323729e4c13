// MCP servers, their tools (recipes) and policy counters (contract 23 §1).
import { sql } from 'kysely';
import type { Db, McpServerRow } from '../../db/types.ts';

export interface ServerScope {
  workspaceId: number;
  environmentId: number;
}

export type ServerWithFolder = McpServerRow & {
  folder_name: string;
  project_id: number | null;
  project_folder_id: number | null;
};

function selectServers(db: Db) {
  return db
    .selectFrom('mcp_servers as s')
    .innerJoin('folders as f', 'f.id', 's.folder_id')
    .leftJoin('projects as p', 'p.id', 'f.project_id')
    .selectAll('s')
    .select(['f.name as folder_name', 'f.project_id as project_id', 'p.folder_id as project_folder_id']);
}

export async function insertServer(db: Db, values: Omit<McpServerRow, 'id'>): Promise<void> {
  await db.insertInto('mcp_servers').values(values).execute();
}

export async function findServer(db: Db, scope: ServerScope, handle: string): Promise<ServerWithFolder | undefined> {
  return selectServers(db)
    .where('s.workspace_id', '=', scope.workspaceId)
    .where('s.environment_id', '=', scope.environmentId)
    .where('s.handle', '=', handle)
    .executeTakeFirst();
}

/** The server an MCP request names (any workspace: the handle is unique). */
export async function findServerByHandle(db: Db, handle: string): Promise<McpServerRow | undefined> {
  return db.selectFrom('mcp_servers').selectAll().where('handle', '=', handle).executeTakeFirst();
}

export interface ServerFilters {
  projectId?: number;
  folderId?: number;
  authType?: string;
  /** Project folder ids the caller may see; null: every project (and Home). */
  projectFolderIds: readonly number[] | null;
  page: { offset: number; perPage: number };
}

export async function listServers(db: Db, scope: ServerScope, filters: ServerFilters): Promise<ServerWithFolder[]> {
  if (filters.projectFolderIds !== null && filters.projectFolderIds.length === 0) return [];
  let query = selectServers(db)
    .where('s.workspace_id', '=', scope.workspaceId)
    .where('s.environment_id', '=', scope.environmentId);
  if (filters.projectId !== undefined) query = query.where('f.project_id', '=', filters.projectId);
  if (filters.folderId !== undefined) query = query.where('s.folder_id', '=', filters.folderId);
  if (filters.authType !== undefined) query = query.where('s.auth_type', '=', filters.authType);
  if (filters.projectFolderIds !== null) query = query.where('p.folder_id', 'in', [...filters.projectFolderIds]);
  return query.orderBy('s.id').offset(filters.page.offset).limit(filters.page.perPage).execute();
}

export async function updateServer(
  db: Db,
  id: number,
  values: Partial<
    Pick<
      McpServerRow,
      | 'name'
      | 'description'
      | 'auth_type'
      | 'folder_id'
      | 'token_hash'
      | 'idp_user_group_ids'
      | 'policy'
      | 'policy_created_at'
      | 'policy_updated_at'
      | 'updated_at'
    >
  >,
): Promise<void> {
  await db.updateTable('mcp_servers').set(values).where('id', '=', id).execute();
}

export async function deleteServer(db: Db, id: number): Promise<void> {
  await db.deleteFrom('mcp_servers').where('id', '=', id).execute();
}

/** A tool as listings need it: the tool row (or the endpoint, on a collection server) with its recipe. */
export interface ToolRecipe {
  /** mcp_tools.id, or the endpoint id on a collection server. */
  id: number;
  recipe_id: number;
  description: string | null;
  recipe_name: string;
  recipe_description: string;
  recipe_code: string;
  trigger_application: string | null;
  action_applications: string;
  running: number;
  /** The endpoint's own name and state (collection servers). */
  endpoint_name: string | null;
  endpoint_active: number | null;
}

export async function listServerTools(db: Db, serverId: number): Promise<ToolRecipe[]> {
  return db
    .selectFrom('mcp_tools as t')
    .innerJoin('recipes as r', 'r.id', 't.recipe_id')
    .select([
      't.id as id',
      't.recipe_id as recipe_id',
      't.description as description',
      'r.name as recipe_name',
      'r.description as recipe_description',
      'r.code as recipe_code',
      'r.trigger_application as trigger_application',
      'r.action_applications as action_applications',
      'r.running as running',
      sql<null>`null`.as('endpoint_name'),
      sql<null>`null`.as('endpoint_active'),
    ])
    .where('t.server_id', '=', serverId)
    .orderBy('t.id')
    .execute();
}

/** The recipe-backed endpoints of a collection, as tools. */
export async function listCollectionTools(db: Db, collectionId: number): Promise<ToolRecipe[]> {
  return db
    .selectFrom('api_endpoints as e')
    .innerJoin('recipes as r', 'r.id', 'e.flow_id')
    .select([
      'e.id as id',
      'r.id as recipe_id',
      'e.description as description',
      'r.name as recipe_name',
      'r.description as recipe_description',
      'r.code as recipe_code',
      'r.trigger_application as trigger_application',
      'r.action_applications as action_applications',
      'r.running as running',
      'e.name as endpoint_name',
      'e.active as endpoint_active',
    ])
    .where('e.collection_id', '=', collectionId)
    .orderBy('e.id')
    .execute();
}

export async function countServerTools(
  db: Db,
  server: Pick<McpServerRow, 'id' | 'api_collection_id'>,
): Promise<number> {
  const row =
    server.api_collection_id === null
      ? await db
          .selectFrom('mcp_tools')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('server_id', '=', server.id)
          .executeTakeFirst()
      : await db
          .selectFrom('api_endpoints')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('collection_id', '=', server.api_collection_id)
          .where('flow_id', 'is not', null)
          .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertTools(db: Db, serverId: number, recipeIds: number[], now: string): Promise<void> {
  if (recipeIds.length === 0) return;
  await db
    .insertInto('mcp_tools')
    .values(
      recipeIds.map((recipe_id) => ({
        server_id: serverId,
        recipe_id,
        description: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['server_id', 'recipe_id']).doNothing())
    .execute();
}

export async function updateToolDescription(
  db: Db,
  serverId: number,
  toolId: number,
  description: string,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('mcp_tools')
    .set({ description, updated_at: now })
    .where('server_id', '=', serverId)
    .where('id', '=', toolId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteTool(db: Db, serverId: number, toolId: number): Promise<number> {
  const result = await db
    .deleteFrom('mcp_tools')
    .where('server_id', '=', serverId)
    .where('id', '=', toolId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface McpWindow {
  serverId: number;
  kind: 'rate' | 'quota';
  windowStart: number;
}

/** Count one call in its window and give the count so far. */
export async function countMcpCall(db: Db, w: McpWindow): Promise<number> {
  const row = await db
    .insertInto('mcp_policy_counters')
    .values({ server_id: w.serverId, kind: w.kind, window_start: w.windowStart, count: 1 })
    .onConflict((oc) =>
      oc.columns(['server_id', 'kind', 'window_start']).doUpdateSet({ count: sql`mcp_policy_counters.count + 1` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function uncountMcpCall(db: Db, w: McpWindow): Promise<void> {
  await db
    .updateTable('mcp_policy_counters')
    .set({ count: sql`count - 1` })
    .where('server_id', '=', w.serverId)
    .where('kind', '=', w.kind)
    .where('window_start', '=', w.windowStart)
    .execute();
}

export async function deleteEndedMcpWindows(db: Db, w: McpWindow): Promise<void> {
  await db
    .deleteFrom('mcp_policy_counters')
    .where('server_id', '=', w.serverId)
    .where('kind', '=', w.kind)
    .where('window_start', '<', w.windowStart)
    .execute();
}

/** Of these recipes, those that back an active endpoint of one of these collections. */
export async function recipesServedToCollections(
  db: Db,
  recipeIds: readonly number[],
  collectionIds: readonly number[],
): Promise<Set<number>> {
  if (recipeIds.length === 0 || collectionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('api_endpoints')
    .select('flow_id')
    .where('flow_id', 'in', [...recipeIds])
    .where('collection_id', 'in', [...collectionIds])
    .where('active', '=', 1)
    .execute();
  return new Set(rows.map((r) => r.flow_id as number));
}
