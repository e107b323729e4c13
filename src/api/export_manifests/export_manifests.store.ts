// Export manifests: one row each, the asset list as JSON (contract 15 §3–§6).
import type { Db, ExportManifestRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import type { Asset } from './assets.ts';

export interface ManifestApi {
  id: number;
  name: string;
  folder_id: number | null;
  last_exported_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  project_path: string;
  status: 'working' | 'archived';
  include_data: boolean;
  include_test_cases: boolean;
  include_tags: boolean;
  assets: Asset[];
  package_id?: number;
}

export function assetsOf(row: Pick<ExportManifestRow, 'assets'>): Asset[] {
  return JSON.parse(row.assets) as Asset[];
}

/** An asset's status against the last export of the manifest: added, updated or no change. */
function withStatus(
  assets: Asset[],
  lastExport: string | null,
  current: ReadonlyMap<string, string>,
  versions: ReadonlyMap<number, number>,
): Asset[] {
  const last = lastExport === null ? {} : (JSON.parse(lastExport) as Record<string, string>);
  return assets.map((asset) => {
    const key = `${asset.type}:${asset.id}`;
    const before = last[key];
    const status = before === undefined ? 'added' : before === current.get(key) ? 'no change' : 'updated';
    const { version_pinned: pinned, ...shown } = asset;
    // A version the client did not pin is the recipe's version now, as an export would take it.
    const now = pinned === true ? undefined : versions.get(asset.id);
    return { ...shown, ...(asset.type === 'recipe' && now !== undefined ? { version: now } : {}), status };
  });
}

export function manifestToApi(
  row: ExportManifestRow,
  projectPath: string,
  current: ReadonlyMap<string, string>,
  versions: ReadonlyMap<number, number> = new Map(),
): ManifestApi {
  return {
    id: row.id,
    name: row.name,
    folder_id: row.folder_id,
    last_exported_at: toApiTimestamp(row.last_exported_at),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    deleted_at: toApiTimestamp(row.deleted_at),
    project_path: projectPath,
    status: row.status,
    include_data: row.include_data === 1,
    include_test_cases: row.include_test_cases === 1,
    include_tags: row.include_tags === 1,
    assets: withStatus(assetsOf(row), row.last_export, current, versions),
  };
}

export async function insertManifest(db: Db, values: Omit<ExportManifestRow, 'id'>): Promise<number> {
  const row = await db.insertInto('export_manifests').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A working (not archived) manifest of the environment. */
export async function findManifest(db: Db, environmentId: number, id: number): Promise<ExportManifestRow | undefined> {
  return db
    .selectFrom('export_manifests')
    .selectAll()
    .where('id', '=', id)
    .where('environment_id', '=', environmentId)
    .where('status', '=', 'working')
    .executeTakeFirst();
}

export async function updateManifest(
  db: Db,
  id: number,
  values: Partial<Omit<ExportManifestRow, 'id'>>,
): Promise<void> {
  await db.updateTable('export_manifests').set(values).where('id', '=', id).execute();
}

/** The version number of each of these recipes now, by id. */
export async function recipeVersionNumbers(
  db: Db,
  environmentId: number,
  assets: readonly Pick<Asset, 'type' | 'id'>[],
): Promise<Map<number, number>> {
  const ids = assets.filter((a) => a.type === 'recipe').map((a) => a.id);
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('recipes')
    .select(['id', 'version_no'])
    .where('environment_id', '=', environmentId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [Number(r.id), Number(r.version_no)]));
}

/** The updated_at of each asset, keyed "type:id", for the asset status of a manifest. */
export async function assetVersions(
  db: Db,
  environmentId: number,
  assets: readonly Pick<Asset, 'type' | 'id'>[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const idsOf = (type: string) => assets.filter((a) => a.type === type).map((a) => a.id);
  const tables = [
    ['recipe', 'recipes'],
    ['connection', 'connections'],
    ['lookup_table', 'lookup_tables'],
    ['workato_db_table', 'data_tables'],
    ['topic', 'event_topics'],
    ['api_group', 'api_collections'],
  ] as const;
  for (const [type, table] of tables) {
    const ids = idsOf(type);
    if (ids.length === 0) continue;
    const rows = await db
      .selectFrom(table)
      .select(['id', 'updated_at'])
      .where('environment_id', '=', environmentId)
      .where('id', 'in', ids)
      .execute();
    for (const r of rows) out.set(`${type}:${r.id}`, r.updated_at);
  }
  const endpoints = idsOf('api_endpoint');
  if (endpoints.length > 0) {
    const rows = await db
      .selectFrom('api_endpoints')
      .innerJoin('api_collections', 'api_collections.id', 'api_endpoints.collection_id')
      .select(['api_endpoints.id', 'api_endpoints.updated_at'])
      .where('api_collections.environment_id', '=', environmentId)
      .where('api_endpoints.id', 'in', endpoints)
      .execute();
    for (const r of rows) out.set(`api_endpoint:${r.id}`, r.updated_at);
  }
  const properties = [...idsOf('account_property'), ...idsOf('project_property')];
  if (properties.length > 0) {
    const rows = await db
      .selectFrom('properties')
      .select(['id', 'project_id', 'updated_at'])
      .where('environment_id', '=', environmentId)
      .where('id', 'in', properties)
      .execute();
    for (const r of rows)
      out.set(`${r.project_id === null ? 'account_property' : 'project_property'}:${r.id}`, r.updated_at);
  }
  return out;
}
