// API collections: list, create (optionally from an OpenAPI document), update, delete, and
// endpoints added to a collection (contract 03 §2, §3.4).
import { findRecipe } from '../recipes/recipes.store.ts';
import { findFolderInScope } from '../folders/folder-scope.store.ts';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { ServiceContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import type { ApiCollectionRow, Db } from '../../db/types.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { projectInScope, scopeOf, type AuthContext } from '../../auth/credentials.ts';
import { findProject } from '../projects/projects.store.ts';
import { findConnection } from '../connections/connections.store.ts';
import { projectAssetInScope } from '../projects/project-scope.ts';
import { isRestProvider } from '../connections/providers.ts';
import { endpointToApi, insertEndpoint, type EndpointApi } from '../api_endpoints/api_endpoints.store.ts';
import {
  apiPrefixOf,
  collectionToApi,
  deleteCollection as deleteCollectionRow,
  findCollection,
  insertCollection,
  listCollections as listCollectionRows,
  slugTaken,
  updateCollection as updateCollectionRow,
  type CollectionApi,
  type PublicUrls,
} from './api_collections.store.ts';

// yaml loads at the first YAML document imported, not at start: an idle server parses none.
const load = createRequire(import.meta.url);
const parseYaml = (
  text: string,
  options: Yaml.ParseOptions & Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.ToJSOptions,
): unknown => (load('yaml') as typeof Yaml).parse(text, options);

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function publicUrls(ctx: ServiceContext): PublicUrls {
  return { gateway: ctx.config.publicGatewayUrl, app: ctx.config.publicBaseUrl };
}

export async function listCollections(
  ctx: ServiceContext,
  auth: AuthContext,
  page: { offset: number; perPage: number },
): Promise<CollectionApi[]> {
  const rows = await listCollectionRows(ctx.db, auth.environmentId, scopeOf(auth), page);
  const prefix = await apiPrefixOf(ctx.db, auth.environmentId);
  return rows.map((row) => collectionToApi(row, prefix, publicUrls(ctx)));
}

export interface CreateCollectionInput {
  name: string;
  version?: string;
  project_id?: number;
  proxy_connection_id?: number | null;
  public_access?: boolean;
  openapi_spec?: { content: string; format: 'json' | 'yaml' };
}

export type CreatedCollection = CollectionApi & {
  message?: string;
  import_results?: { success: boolean; total_endpoints: number; failed_endpoints: number; failed_actions: string[] };
};

export async function createCollection(
  ctx: ServiceContext,
  auth: AuthContext,
  input: CreateCollectionInput,
): Promise<CreatedCollection> {
  const name = input.name.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  const version = (input.version ?? '1.0').trim() || '1.0';
  const operations = input.openapi_spec ? readOpenApi(input.openapi_spec) : undefined;

  return ctx.db.transaction().execute(async (trx) => {
    const projectId = await checkProject(trx, auth, input.project_id);
    if (input.proxy_connection_id != null) await checkProxyConnection(trx, auth, input.proxy_connection_id);
    const prefix = await apiPrefixOf(trx, auth.environmentId);
    const slug = await uniqueSlug(trx, auth.environmentId, name, version);
    const now = toStored(ctx.clock.now());
    let row: ApiCollectionRow;
    try {
      row = await insertCollection(trx, {
        workspace_id: auth.workspaceId,
        environment_id: auth.environmentId,
        project_id: projectId,
        name,
        version,
        slug,
        proxy_connection_id: input.proxy_connection_id ?? null,
        public_access: input.public_access ? 1 : 0,
        doc_token: randomBytes(16).toString('hex'),
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
      throw error;
    }
    const out: CreatedCollection = collectionToApi(row, prefix, publicUrls(ctx));
    if (operations) {
      const failed: string[] = [...operations.failed];
      for (const op of operations.ok) {
        try {
          await insertEndpoint(trx, {
            collection_id: row.id,
            flow_id: null,
            name: op.name,
            method: op.method,
            path: op.path,
            description: op.description,
            active: 0,
            created_at: now,
            updated_at: now,
          });
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          failed.push(`${op.method} ${op.path}: duplicate method and path`);
        }
      }
      const total = operations.ok.length + operations.failed.length;
      out.message = failed.length === 0 ? 'Import completed successfully' : 'Import completed with errors';
      out.import_results = {
        success: true,
        total_endpoints: total,
        failed_endpoints: failed.length,
        failed_actions: failed,
      };
    }
    ctx.notifier.publish('api_routes.changed', { environmentId: auth.environmentId });
    return out;
  });
}

export async function updateCollection(
  ctx: ServiceContext,
  auth: AuthContext,
  id: number,
  input: { name?: string; proxy_connection_id?: number | null; public_access?: boolean },
): Promise<CollectionApi> {
  if (input.name === undefined && input.proxy_connection_id === undefined && input.public_access === undefined) {
    throw new AppError('nothing_to_update', {
      errors: { body: ['must contain at least one of name, proxy_connection_id, public_access'] },
    });
  }
  const name = input.name?.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  return ctx.db.transaction().execute(async (trx) => {
    await visibleCollection(trx, auth, id);
    if (input.proxy_connection_id != null) await checkProxyConnection(trx, auth, input.proxy_connection_id);
    try {
      await updateCollectionRow(trx, id, {
        ...(name !== undefined ? { name } : {}),
        ...(input.proxy_connection_id !== undefined ? { proxy_connection_id: input.proxy_connection_id } : {}),
        ...(input.public_access !== undefined ? { public_access: input.public_access ? 1 : 0 } : {}),
        updated_at: toStored(ctx.clock.now()),
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
      throw error;
    }
    ctx.notifier.publish('api_routes.changed', { environmentId: auth.environmentId });
    return collectionToApi(
      assertFound(await findCollection(trx, auth.environmentId, id)),
      await apiPrefixOf(trx, auth.environmentId),
      publicUrls(ctx),
    );
  });
}

export async function deleteCollection(ctx: ServiceContext, auth: AuthContext, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await visibleCollection(trx, auth, id);
    await deleteCollectionRow(trx, id);
  });
  ctx.notifier.publish('api_routes.changed', { environmentId: auth.environmentId });
}

export interface EndpointInput {
  name: string;
  method: string;
  path: string;
  flow_id?: number;
  description?: string;
  validate_request?: boolean;
}

export async function addEndpoint(
  ctx: ServiceContext,
  auth: AuthContext,
  collectionId: number,
  input: EndpointInput,
): Promise<EndpointApi> {
  const errors: Record<string, string[]> = {};
  const method = input.method.trim().toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(method))
    errors.method = [`must be one of ${HTTP_METHODS.join(', ')}`];
  const path = normalisePath(input.path);
  if (path === null) errors.path = ['must be a relative path of letters, digits, -._~ and {param} segments'];
  if (input.name.trim() === '') errors.name = ["can't be blank"];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return ctx.db.transaction().execute(async (trx) => {
    const collection = await visibleCollection(trx, auth, collectionId);
    let flowId: number | null = null;
    if (collection.proxy_connection_id === null) {
      // A recipe-backed endpoint: flow_id names a recipe of the environment with the API request trigger.
      if (input.flow_id === undefined)
        throw invalid({ flow_id: ['is required for a collection without proxy_connection_id'] });
      const recipe = await findRecipe(trx, auth.environmentId, input.flow_id);
      const visible =
        recipe !== undefined &&
        (auth.allFolders || (await findFolderInScope(trx, auth.environmentId, auth, recipe.folder_id)) !== undefined);
      if (!recipe || !visible) throw invalid({ flow_id: ['does not name a recipe of this environment'] });
      if (recipe.trigger_application !== 'workato_api_platform')
        throw invalid({ flow_id: ['names a recipe whose trigger is not a new API request (workato_api_platform)'] });
      flowId = recipe.id;
    }
    const now = toStored(ctx.clock.now());
    try {
      const row = await insertEndpoint(trx, {
        collection_id: collectionId,
        flow_id: flowId,
        name: input.name.trim(),
        method,
        path: path as string,
        description: input.description ?? null,
        active: 0,
        validate_request: input.validate_request === true && flowId !== null ? 1 : 0,
        created_at: now,
        updated_at: now,
      });
      ctx.notifier.publish('api_routes.changed', { environmentId: auth.environmentId });
      return endpointToApi(row, collection, await apiPrefixOf(trx, auth.environmentId), publicUrls(ctx));
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('endpoint_path_taken', { errors: { path: ['has already been taken for this method'] } });
      throw error;
    }
  });
}

/** A collection of the caller's environment and scope, else 404. */
export async function visibleCollection(db: Db, auth: AuthContext, id: number): Promise<ApiCollectionRow> {
  const row = assertFound(await findCollection(db, auth.environmentId, id));
  if (!(await projectAssetInScope(db, auth, row.project_id))) throw new AppError('not_found');
  return row;
}

async function checkProject(db: Db, auth: AuthContext, projectId: number | undefined): Promise<number | null> {
  if (projectId === undefined) {
    if (!auth.allFolders) throw invalid({ project_id: ['is required for a client limited to some projects'] });
    return null;
  }
  const project = await findProject(db, auth.environmentId, projectId);
  if (!project || !projectInScope(auth, project.folder_id))
    throw invalid({ project_id: ['does not name a project of this environment in your scope'] });
  return project.id;
}

/** A proxy collection forwards to a `rest` connection of the same environment (contract README). */
async function checkProxyConnection(db: Db, auth: AuthContext, connectionId: number): Promise<void> {
  const connection = await findConnection(db, auth, connectionId);
  if (!connection) throw invalid({ proxy_connection_id: ['does not name a connection of this environment'] });
  if (!isRestProvider(connection.provider))
    throw invalid({ proxy_connection_id: ['must name a rest (HTTP) connection'] });
}

export async function uniqueSlug(db: Db, environmentId: number, name: string, version: string): Promise<string> {
  const major = /^\d+/.exec(version)?.[0] ?? '1';
  const base = `${
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'api'
  }-v${major}`;
  for (let n = 1; n < 1000; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if (!(await slugTaken(db, environmentId, slug))) return slug;
  }
  throw new AppError('name_taken');
}

/** 'orders/{id}' stays; '/orders/{id}/' -> 'orders/{id}'; anything odd -> null. */
export function normalisePath(raw: string): string | null {
  const path = raw.trim().replace(/^\/+|\/+$/g, '');
  if (path === '' || path.length > 1000) return null;
  const segmentOk = (seg: string) =>
    (/^[A-Za-z0-9._~-]+$/.test(seg) && seg !== '.' && seg !== '..') || /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(seg);
  return path.split('/').every(segmentOk) ? path : null;
}

interface ImportedOperation {
  name: string;
  method: string;
  path: string;
  description: string | null;
}

/** The operations of an OpenAPI 3 (or Swagger 2) document, JSON or YAML. */
export function readOpenApi(spec: { content: string; format: 'json' | 'yaml' }): {
  ok: ImportedOperation[];
  failed: string[];
} {
  let doc: unknown;
  try {
    doc = spec.format === 'json' ? JSON.parse(spec.content) : parseYaml(spec.content, { maxAliasCount: 100 });
  } catch (error) {
    throw new AppError('openapi_spec_invalid', {
      errors: {
        openapi_spec: [
          `is not valid ${spec.format.toUpperCase()}: ${(error as Error).message.split('\n')[0]?.slice(0, 200)}`,
        ],
      },
    });
  }
  const root = doc as { openapi?: unknown; swagger?: unknown; paths?: unknown };
  const version =
    typeof root?.openapi === 'string' ? root.openapi : typeof root?.swagger === 'string' ? root.swagger : undefined;
  if (!version || !/^(3\.[01]|2\.0)/.test(version))
    throw new AppError('openapi_spec_invalid', {
      errors: { openapi_spec: ['must be an OpenAPI 3.0/3.1 or Swagger 2.0 document'] },
    });
  if (typeof root.paths !== 'object' || root.paths === null)
    throw new AppError('openapi_spec_invalid', { errors: { openapi_spec: ['has no paths'] } });
  const ok: ImportedOperation[] = [];
  const failed: string[] = [];
  for (const [rawPath, item] of Object.entries(root.paths as Record<string, unknown>)) {
    if (typeof item !== 'object' || item === null) continue;
    for (const [key, op] of Object.entries(item as Record<string, unknown>)) {
      const method = key.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'].includes(method)) continue;
      const label = `${method} ${rawPath}`;
      if (!(HTTP_METHODS as readonly string[]).includes(method)) {
        failed.push(`${label}: unsupported method`);
        continue;
      }
      const path = normalisePath(rawPath);
      if (path === null) {
        failed.push(`${label}: unsupported path`);
        continue;
      }
      const o = (op ?? {}) as { summary?: unknown; operationId?: unknown; description?: unknown };
      const name =
        typeof o.summary === 'string' && o.summary.trim()
          ? o.summary.trim()
          : typeof o.operationId === 'string' && o.operationId.trim()
            ? o.operationId.trim()
            : label;
      ok.push({
        name: name.slice(0, 255),
        method,
        path,
        description: typeof o.description === 'string' ? o.description : null,
      });
    }
  }
  return { ok, failed };
}
