// MCP servers (contract 23 §1): created in a folder, with tools (skill recipes and recipe-backed
// API endpoints, or the endpoints of one API collection), a token shown once, a policy, and IdP
// user groups. What MCP clients call lives in src/mcp/.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { McpServerRow } from '../../db/types.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { toApiTimestamp, toStored } from '../../time.ts';
import { hashToken, parseIpAllowList, projectInScope, scopeOf, type AuthContext } from '../../auth/credentials.ts';
import { findFolder } from '../folders/folders.store.ts';
import { findCollection } from '../api_collections/api_collections.store.ts';
import { findRecipeInEnvironment } from '../recipes/recipes.store.ts';
import { recipeTool, uniqueNames } from '../../recipe/tool-schema.ts';
import {
  countServerTools,
  deleteServer as deleteServerRow,
  deleteTool as deleteToolRow,
  findServer,
  insertServer,
  insertTools,
  listCollectionTools,
  listServers as listServerRows,
  listServerTools,
  updateServer as updateServerRow,
  updateToolDescription,
  type ServerWithFolder,
  type ToolRecipe,
} from './mcp.store.ts';
import { EMPTY_POLICY, parsePolicy, type McpServerPolicy } from './policy.ts';

type Page = { offset: number; perPage: number };

/** The server's token: recognisable by secret scanners, 256 bits of randomness. */
export function generateServerToken(): string {
  return `wkmcp-${randomBytes(32).toString('hex')}`;
}

function generateHandle(): string {
  return `mcps-${randomBytes(9).toString('base64url')}`;
}

/** Where MCP clients connect to a server. */
export function mcpUrlOf(ctx: ServiceContext, handle: string, token?: string): string {
  const base = `${ctx.config.publicBaseUrl.replace(/\/+$/, '')}/mcp/${handle}`;
  return token === undefined ? base : `${base}?token=${token}`;
}

async function serverApi(ctx: ServiceContext, row: ServerWithFolder, token?: string) {
  const collection =
    row.api_collection_id === null
      ? undefined
      : await findCollection(ctx.db, row.environment_id, row.api_collection_id);
  return {
    id: row.handle,
    name: row.name,
    description: row.description,
    asset_type: row.api_collection_id === null ? 'project_assets' : 'api_collection',
    logo_url: null,
    mcp_url: mcpUrlOf(ctx, row.handle, token),
    auth_type: row.auth_type,
    authentication_method: row.auth_type,
    folder_id: row.folder_id,
    project_id: row.project_id ?? 0,
    folders: [{ id: row.folder_id, name: row.folder_name }],
    has_vua_dependent_tools: false,
    idp_user_group_ids: JSON.parse(row.idp_user_group_ids) as string[],
    api_collection: collection
      ? {
          id: collection.id,
          type: 'api_collection',
          name: collection.name,
          created_at: toApiTimestamp(collection.created_at),
          updated_at: toApiTimestamp(collection.updated_at),
        }
      : null,
    tools_count: await countServerTools(ctx.db, row),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export type McpServerApi = Awaited<ReturnType<typeof serverApi>>;

/** A server of the caller's environment and project scope, or 404. */
async function visibleServer(ctx: ServiceContext, auth: AuthContext, handle: string): Promise<ServerWithFolder> {
  const row = assertFound(await findServer(ctx.db, auth, handle));
  if (!auth.allFolders && (row.project_folder_id === null || !projectInScope(auth, row.project_folder_id)))
    throw new AppError('not_found');
  return row;
}

/** A folder of the environment in the caller's scope, or a 400 naming folder_id. */
async function folderInScope(ctx: ServiceContext, auth: AuthContext, folderId: number) {
  const folder = await findFolder(ctx.db, auth.environmentId, folderId);
  const inScope =
    folder !== undefined &&
    (auth.allFolders || (folder.project_folder_id !== null && projectInScope(auth, folder.project_folder_id)));
  if (!inScope) throw invalid({ folder_id: ['is not a folder of this environment'] });
  return folder;
}

export async function listServers(
  ctx: ServiceContext,
  auth: AuthContext,
  query: { project_id?: number; folder_id?: number; authentication_method?: string },
  page: Page,
): Promise<McpServerApi[]> {
  const rows = await listServerRows(ctx.db, auth, {
    ...(query.project_id !== undefined ? { projectId: query.project_id } : {}),
    ...(query.folder_id !== undefined ? { folderId: query.folder_id } : {}),
    ...(query.authentication_method !== undefined ? { authType: query.authentication_method } : {}),
    projectFolderIds: scopeOf(auth),
    page,
  });
  return Promise.all(rows.map((row) => serverApi(ctx, row)));
}

export async function getServer(ctx: ServiceContext, auth: AuthContext, handle: string): Promise<McpServerApi> {
  return serverApi(ctx, await visibleServer(ctx, auth, handle));
}

export async function createServer(
  ctx: ServiceContext,
  auth: AuthContext,
  body: { name: string; folder_id: number; description?: string | null; asset_id?: number | null },
): Promise<McpServerApi> {
  if (body.name.trim() === '') throw invalid({ name: ["can't be blank"] });
  await folderInScope(ctx, auth, body.folder_id);
  const collectionId = body.asset_id ?? null;
  if (collectionId !== null && !(await findCollection(ctx.db, auth.environmentId, collectionId)))
    throw new AppError('mcp_collection_unknown', { params: { id: collectionId } });
  const token = generateServerToken();
  const handle = generateHandle();
  const now = toStored(ctx.clock.now());
  await insertServer(ctx.db, {
    handle,
    workspace_id: auth.workspaceId,
    environment_id: auth.environmentId,
    folder_id: body.folder_id,
    name: body.name.trim(),
    description: body.description ?? null,
    api_collection_id: collectionId,
    auth_type: 'token',
    token_hash: hashToken(token),
    idp_user_group_ids: '[]',
    policy: null,
    policy_created_at: null,
    policy_updated_at: null,
    created_at: now,
    updated_at: now,
  });
  return serverApi(ctx, assertFound(await findServer(ctx.db, auth, handle)), token);
}

export async function updateServer(
  ctx: ServiceContext,
  auth: AuthContext,
  handle: string,
  body: { name?: string; description?: string | null; auth_type?: 'token' | 'workato_idp'; folder_id?: number },
): Promise<McpServerApi> {
  const row = await visibleServer(ctx, auth, handle);
  if (body.name !== undefined && body.name.trim() === '') throw invalid({ name: ["can't be blank"] });
  if (body.folder_id !== undefined) await folderInScope(ctx, auth, body.folder_id);
  const changes: Parameters<typeof updateServerRow>[2] = { updated_at: toStored(ctx.clock.now()) };
  if (body.name !== undefined) changes.name = body.name.trim();
  if (body.description !== undefined) changes.description = body.description;
  if (body.folder_id !== undefined) changes.folder_id = body.folder_id;
  if (body.auth_type !== undefined && body.auth_type !== row.auth_type) {
    changes.auth_type = body.auth_type;
    // Leaving token access revokes the token (as the vendor does); coming back needs token_renew.
    if (body.auth_type === 'workato_idp') changes.token_hash = hashToken(generateServerToken());
  }
  await updateServerRow(ctx.db, row.id, changes);
  return getServer(ctx, auth, handle);
}

export async function deleteServer(ctx: ServiceContext, auth: AuthContext, handle: string): Promise<void> {
  const row = await visibleServer(ctx, auth, handle);
  await deleteServerRow(ctx.db, row.id);
}

/** A new token replaces the old one at once; the reply's mcp_url carries it (shown this once). */
export async function renewToken(ctx: ServiceContext, auth: AuthContext, handle: string): Promise<McpServerApi> {
  const row = await visibleServer(ctx, auth, handle);
  const token = generateServerToken();
  await updateServerRow(ctx.db, row.id, { token_hash: hashToken(token), updated_at: toStored(ctx.clock.now()) });
  return serverApi(ctx, assertFound(await findServer(ctx.db, auth, handle)), token);
}

/** The tools of a server with their names as MCP clients see them (unique within the server). */
export async function serverTools(
  ctx: ServiceContext,
  row: Pick<McpServerRow, 'id' | 'api_collection_id'>,
): Promise<Array<{ tool: ToolRecipe; name: string }>> {
  const tools =
    row.api_collection_id === null
      ? await listServerTools(ctx.db, row.id)
      : await listCollectionTools(ctx.db, row.api_collection_id);
  const names = uniqueNames(
    tools,
    (t) => t.endpoint_name ?? t.recipe_name,
    (t) => t.id,
  );
  return tools.map((tool) => ({ tool, name: names.get(tool) as string }));
}

/** The description a tool shows: its own, else its skill trigger's, else its recipe's. */
export function toolDescription(tool: ToolRecipe): string {
  if (tool.description !== null && tool.description !== '') return tool.description;
  return originalDescription(tool);
}

function originalDescription(tool: ToolRecipe): string {
  const fromTrigger = recipeTool({
    trigger_application: tool.trigger_application,
    code: tool.recipe_code,
  })?.description;
  return fromTrigger || tool.recipe_description;
}

function toolApi(tool: ToolRecipe, name: string) {
  const callable = recipeTool({ trigger_application: tool.trigger_application, code: tool.recipe_code }) !== null;
  const reasons: string[] = [];
  if (!callable) reasons.push('the recipe is neither a skill nor a recipe-backed API endpoint');
  if (tool.running !== 1) reasons.push('the recipe is not running');
  if (tool.endpoint_active === 0) reasons.push('the endpoint is disabled');
  return {
    id: tool.id,
    name,
    description: toolDescription(tool),
    original_description: originalDescription(tool) || null,
    trigger_application: tool.trigger_application,
    action_applications: JSON.parse(tool.action_applications) as string[],
    flow_id: tool.recipe_id,
    active: tool.running === 1 && tool.endpoint_active !== 0,
    enabled: tool.endpoint_active !== 0,
    vua_required: false,
    incompatibility_reasons: reasons,
  };
}

export async function listTools(ctx: ServiceContext, auth: AuthContext, handle: string, page: Page) {
  const row = await visibleServer(ctx, auth, handle);
  const tools = await serverTools(ctx, row);
  return tools.slice(page.offset, page.offset + page.perPage).map(({ tool, name }) => toolApi(tool, name));
}

export async function assignTools(
  ctx: ServiceContext,
  auth: AuthContext,
  handle: string,
  tools: Array<{ trigger_application?: string; id: string | number }>,
): Promise<void> {
  const row = await visibleServer(ctx, auth, handle);
  if (row.api_collection_id !== null) throw new AppError('mcp_collection_server_tools');
  const recipeIds: number[] = [];
  for (const entry of tools) {
    const id = Number(entry.id);
    const recipe = await findRecipeInEnvironment(ctx.db, auth.environmentId, id);
    if (!recipe) throw new AppError('mcp_tool_not_a_recipe', { params: { id } });
    if (recipeTool(recipe) === null)
      throw new AppError('mcp_tool_not_callable', { params: { id, trigger: recipe.trigger_application ?? 'none' } });
    if (entry.trigger_application !== undefined && entry.trigger_application !== recipe.trigger_application)
      throw new AppError('mcp_tool_trigger_mismatch', {
        params: { id, actual: recipe.trigger_application ?? 'none', given: entry.trigger_application },
      });
    recipeIds.push(recipe.id);
  }
  const now = toStored(ctx.clock.now());
  await ctx.db.transaction().execute(async (trx) => {
    await insertTools(trx, row.id, [...new Set(recipeIds)], now);
    await updateServerRow(trx, row.id, { updated_at: now });
  });
}

export async function updateTool(
  ctx: ServiceContext,
  auth: AuthContext,
  handle: string,
  toolId: number,
  description: string,
) {
  const row = await visibleServer(ctx, auth, handle);
  if (row.api_collection_id !== null) throw new AppError('mcp_collection_server_tools');
  const changed = await updateToolDescription(ctx.db, row.id, toolId, description, toStored(ctx.clock.now()));
  if (changed === 0) throw new AppError('not_found');
  const found = (await serverTools(ctx, row)).find(({ tool }) => tool.id === toolId);
  const { tool, name } = assertFound(found);
  return toolApi(tool, name);
}

export async function deleteTool(
  ctx: ServiceContext,
  auth: AuthContext,
  handle: string,
  toolId: number,
): Promise<void> {
  const row = await visibleServer(ctx, auth, handle);
  if (row.api_collection_id !== null) throw new AppError('mcp_collection_server_tools');
  if ((await deleteToolRow(ctx.db, row.id, toolId)) === 0) throw new AppError('not_found');
}

function policyApi(row: ServerWithFolder) {
  const policy = parsePolicy(row.policy);
  return {
    id: row.policy === null ? null : row.id,
    mcp_server_id: row.handle,
    ...policy,
    created_at: toApiTimestamp(row.policy_created_at),
    updated_at: toApiTimestamp(row.policy_updated_at),
  };
}

export async function getPolicy(ctx: ServiceContext, auth: AuthContext, handle: string) {
  return policyApi(await visibleServer(ctx, auth, handle));
}

export async function setPolicy(
  ctx: ServiceContext,
  auth: AuthContext,
  handle: string,
  body: Partial<{ [K in keyof McpServerPolicy]: McpServerPolicy[K] | null }>,
) {
  const row = await visibleServer(ctx, auth, handle);
  const current = row.policy === null ? EMPTY_POLICY : parsePolicy(row.policy);
  const next: McpServerPolicy = { ...current };
  if (body.rate_limits !== undefined) next.rate_limits = body.rate_limits;
  if (body.quota_limits !== undefined) next.quota_limits = body.quota_limits;
  for (const key of ['ip_allow_list', 'ip_deny_list'] as const) {
    const list = body[key];
    if (list === undefined) continue;
    if (list === null || list.length === 0) {
      next[key] = [];
      continue;
    }
    const parsed = parseIpAllowList(list);
    if ('invalid' in parsed)
      throw invalid({
        [`mcp_server_policy.${key}`]: [
          `has entries that are not addresses or CIDR ranges: ${parsed.invalid.slice(0, 5).join(', ')}`,
        ],
      });
    next[key] = parsed.value.split(',');
  }
  const now = toStored(ctx.clock.now());
  await updateServerRow(ctx.db, row.id, {
    policy: JSON.stringify(next),
    policy_created_at: row.policy_created_at ?? now,
    policy_updated_at: now,
    updated_at: now,
  });
  return policyApi(assertFound(await findServer(ctx.db, auth, handle)));
}

/**
 * User groups come from an identity provider (Workato Identity at the vendor); this server has
 * none, so there are no groups: assigning one is refused, removing one that is assigned works.
 */
export async function changeUserGroups(
  ctx: ServiceContext,
  auth: AuthContext,
  handle: string,
  ids: string[],
  mode: 'assign' | 'remove',
): Promise<void> {
  const row = await visibleServer(ctx, auth, handle);
  const current = JSON.parse(row.idp_user_group_ids) as string[];
  if (mode === 'assign') throw new AppError('mcp_user_group_unknown', { params: { id: ids[0] ?? '' } });
  const next = current.filter((id) => !ids.includes(id));
  await updateServerRow(ctx.db, row.id, {
    idp_user_group_ids: JSON.stringify(next),
    updated_at: toStored(ctx.clock.now()),
  });
}
