// Export manifests (contract 15 §1–§6): the assets to move, picked by hand or generated from a
// folder with its dependencies. A manifest is anchored at a folder: asset paths are relative to it.
import type { ServiceContext } from '../../context.ts';
import type { Db, ExportManifestRow } from '../../db/types.ts';
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { findFolderInScope, folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import { findHomeFolder } from '../folders/folders.store.ts';
import { FolderIndex, assetVisible, scanFolder, zipNameProblem, type Asset, type AssetScope } from './assets.ts';
import { ASSET_TYPES, isPackagedType, type AssetType } from './asset-types.ts';
import { findAsset } from './assets.store.ts';
import {
  assetVersions,
  assetsOf,
  findManifest,
  insertManifest,
  manifestToApi,
  recipeVersionNumbers,
  updateManifest as updateManifestRow,
  type ManifestApi,
} from './export_manifests.store.ts';

export type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

/** At most this many assets in one manifest. */
export const MAX_ASSETS = 10_000;
const MAX_NAME = 255;

export interface ManifestInput {
  name?: unknown;
  assets?: unknown;
  folder_id?: unknown;
  auto_generate_assets?: unknown;
  include_test_cases?: unknown;
  include_data?: unknown;
  include_tags?: unknown;
  auto_run?: unknown;
}

/** Starts an export of a manifest (the packages area), for auto_run. */
export type StartExport = (ctx: ServiceContext, caller: Caller, manifestId: number) => Promise<{ id: number }>;

export async function assetScope(db: Db, caller: Caller): Promise<AssetScope> {
  return {
    environmentId: caller.environmentId,
    visibleFolderIds: caller.allFolders
      ? null
      : new Set(await folderIdsUnderProjects(db, caller.environmentId, caller.folderIds)),
  };
}

/** The folder a manifest or a scan is anchored at: the given one in scope, or Home for an all-folders caller. */
async function anchorFolder(db: Db, caller: Caller, folderId: number | undefined, field: string): Promise<number> {
  if (folderId === undefined) {
    if (!caller.allFolders) throw invalid({ [field]: ['is required for a client limited to some projects'] });
    const home = await findHomeFolder(db, caller.environmentId);
    if (!home) throw new AppError('folder_not_found');
    return home.id;
  }
  const folder = await findFolderInScope(db, caller.environmentId, caller, folderId);
  if (!folder) throw new AppError('folder_not_found');
  return folder.id;
}

function flagOf(value: unknown, field: string, errors: FieldErrors): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  errors[field] = ['must be true or false'];
  return undefined;
}

function idOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^[0-9]{1,15}$/.test(value) && Number(value) > 0) return Number(value);
  return undefined;
}

export async function folderAssets(
  ctx: ServiceContext,
  caller: Caller,
  query: { folder_id?: number; include_data?: unknown; include_test_cases?: unknown },
): Promise<{ assets: Asset[] }> {
  const errors: FieldErrors = {};
  flagOf(query.include_data, 'include_data', errors);
  flagOf(query.include_test_cases, 'include_test_cases', errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const anchor = await anchorFolder(ctx.db, caller, query.folder_id, 'folder_id');
  const scanned = await scanFolder(ctx.db, await assetScope(ctx.db, caller), anchor);
  return { assets: scanned.map(({ updatedAt: _, ...asset }) => asset) };
}

/** The assets a client listed, checked against the environment and completed with their defaults. */
async function checkAssets(
  db: Db,
  caller: Caller,
  anchorId: number,
  raw: unknown,
  errors: FieldErrors,
): Promise<Asset[]> {
  if (!Array.isArray(raw)) {
    errors.assets = ['must be an array of assets'];
    return [];
  }
  if (raw.length > MAX_ASSETS) {
    errors.assets = [`has ${raw.length} entries; at most ${MAX_ASSETS} fit in a manifest`];
    return [];
  }
  const scope = await assetScope(db, caller);
  const folders = await FolderIndex.load(db, caller.environmentId);
  const out: Asset[] = [];
  const zipNames = new Set<string>();
  for (const [i, entry] of raw.entries()) {
    const at = `assets[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      errors[at] = ['must be an object'];
      continue;
    }
    const given = entry as Record<string, unknown>;
    const id = idOf(given.id);
    const type = given.type;
    if (id === undefined) errors[`${at}.id`] = ['must be a positive whole number'];
    if (typeof type !== 'string' || !(ASSET_TYPES as readonly string[]).includes(type)) {
      errors[`${at}.type`] = [`must be one of ${ASSET_TYPES.join(', ')}`];
      continue;
    }
    if (!isPackagedType(type)) {
      errors[`${at}.type`] = [`${type} assets are not held by this server`];
      continue;
    }
    if (id === undefined) continue;
    const found = await findAsset(db, caller.environmentId, type, id);
    if (!found || !assetVisible(folders, scope.visibleFolderIds, found)) {
      errors[at] = [`${type} ${id} does not exist in this environment`];
      continue;
    }
    const checked = flagOf(given.checked, `${at}.checked`, errors) ?? true;
    const place = folders.placement(anchorId, found.folderId);
    const folder = typeof given.folder === 'string' ? given.folder.replace(/^\/+|\/+$/g, '') : place.folder;
    let zipName =
      typeof given.zip_name === 'string' && given.zip_name !== ''
        ? given.zip_name
        : `${folder === '' ? '' : `${folder}/`}asset_${i}.${type}.json`;
    zipName = zipName.replace(/^\/+/, '');
    const problem = zipNameProblem(zipName, type);
    if (problem) errors[`${at}.zip_name`] = [problem];
    else if (zipNames.has(zipName.toLowerCase()))
      errors[`${at}.zip_name`] = ['is used by another asset of the manifest'];
    zipNames.add(zipName.toLowerCase());
    let version = found.version;
    if (given.version !== undefined && given.version !== null) {
      const v = idOf(given.version);
      if (v === undefined || type !== 'recipe' || found.version === undefined || v > found.version)
        errors[`${at}.version`] = [
          type === 'recipe' ? `must be a version of the recipe, 1 to ${found.version}` : 'applies to recipes only',
        ];
      else version = v;
    }
    out.push({
      id,
      name: found.name,
      type: type as AssetType,
      ...(version !== undefined ? { version } : {}),
      ...(version !== undefined && given.version !== undefined && given.version !== null
        ? { version_pinned: true as const }
        : {}),
      folder,
      absolute_path: place.absolute_path,
      root_folder: place.root_folder,
      unreachable: false,
      zip_name: zipName,
      checked,
    });
  }
  return out;
}

interface CheckedManifest {
  name?: string;
  folderId?: number;
  assets?: Asset[];
  includeData?: boolean;
  includeTestCases?: boolean;
  includeTags?: boolean;
  autoRun: boolean;
}

async function checkInput(
  db: Db,
  caller: Caller,
  input: ManifestInput,
  creating: boolean,
  current?: ExportManifestRow,
): Promise<CheckedManifest> {
  const errors: FieldErrors = {};
  const out: CheckedManifest = { autoRun: false };
  if (input.name !== undefined) {
    if (typeof input.name !== 'string') errors.name = ['must be a string'];
    else if (input.name.trim() === '') errors.name = ["can't be blank"];
    else if (input.name.length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
    else out.name = input.name.trim();
  } else if (creating) errors.name = ["can't be blank"];
  let folderId: number | undefined;
  if (input.folder_id !== undefined && input.folder_id !== null) {
    folderId = idOf(input.folder_id);
    if (folderId === undefined) errors.folder_id = ['must be a positive whole number'];
  }
  const autoGenerate = flagOf(input.auto_generate_assets, 'auto_generate_assets', errors) ?? false;
  const includeData = flagOf(input.include_data, 'include_data', errors);
  const includeTestCases = flagOf(input.include_test_cases, 'include_test_cases', errors);
  const includeTags = flagOf(input.include_tags, 'include_tags', errors);
  out.autoRun = flagOf(input.auto_run, 'auto_run', errors) ?? false;
  if (includeData !== undefined) out.includeData = includeData;
  if (includeTestCases !== undefined) out.includeTestCases = includeTestCases;
  if (includeTags !== undefined) out.includeTags = includeTags;
  if (!autoGenerate && input.assets === undefined && creating)
    errors.assets = ["can't be blank unless auto_generate_assets is true"];
  if (Object.keys(errors).length > 0) throw invalid(errors);

  const anchorId =
    folderId !== undefined || current?.folder_id == null
      ? await anchorFolder(db, caller, folderId, 'folder_id')
      : current.folder_id;
  if (folderId !== undefined || creating) out.folderId = anchorId;
  if (autoGenerate) {
    const scanned = await scanFolder(db, await assetScope(db, caller), anchorId);
    if (scanned.length > MAX_ASSETS)
      throw invalid({ folder_id: [`holds ${scanned.length} assets; at most ${MAX_ASSETS} fit in a manifest`] });
    out.assets = scanned.map(({ updatedAt: _, ...asset }) => asset);
  } else if (input.assets !== undefined) {
    out.assets = await checkAssets(db, caller, anchorId, input.assets, errors);
    if (Object.keys(errors).length > 0) throw invalid(errors);
  }
  return out;
}

async function output(db: Db, row: ExportManifestRow): Promise<ManifestApi> {
  const folders = await FolderIndex.load(db, row.environment_id);
  const names = row.folder_id === null ? [] : folders.names(row.folder_id);
  const projectPath = names.length <= 1 ? (names[0] ?? '') : names.slice(1).join('/');
  const assets = assetsOf(row);
  return manifestToApi(
    row,
    projectPath,
    await assetVersions(db, row.environment_id, assets),
    await recipeVersionNumbers(db, row.environment_id, assets),
  );
}

async function visibleManifest(db: Db, caller: Caller, id: number): Promise<ExportManifestRow> {
  const row = await findManifest(db, caller.environmentId, id);
  if (!row) throw new AppError('export_manifest_not_found');
  if (
    !caller.allFolders &&
    (row.folder_id === null || (await findFolderInScope(db, caller.environmentId, caller, row.folder_id)) === undefined)
  )
    throw new AppError('export_manifest_not_found');
  return row;
}

export async function createManifest(
  ctx: ServiceContext,
  caller: Caller,
  input: ManifestInput,
  startExport: StartExport,
): Promise<ManifestApi> {
  const checked = await checkInput(ctx.db, caller, input, true);
  const now = toStored(ctx.clock.now());
  const id = await insertManifest(ctx.db, {
    workspace_id: caller.workspaceId,
    environment_id: caller.environmentId,
    folder_id: checked.folderId ?? null,
    name: checked.name ?? '',
    assets: JSON.stringify(checked.assets ?? []),
    include_data: checked.includeData ? 1 : 0,
    include_test_cases: checked.includeTestCases ? 1 : 0,
    include_tags: checked.includeTags ? 1 : 0,
    status: 'working',
    last_export: null,
    last_exported_at: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  });
  const packageId = checked.autoRun ? (await startExport(ctx, caller, id)).id : undefined;
  return withPackage(await getManifest(ctx, caller, id), packageId);
}

function withPackage(manifest: ManifestApi, packageId: number | undefined): ManifestApi {
  return packageId === undefined ? manifest : { ...manifest, package_id: packageId };
}

export async function updateManifest(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
  input: ManifestInput,
  startExport: StartExport,
): Promise<ManifestApi> {
  const current = await visibleManifest(ctx.db, caller, id);
  const checked = await checkInput(ctx.db, caller, input, false, current);
  await updateManifestRow(ctx.db, id, {
    ...(checked.name !== undefined ? { name: checked.name } : {}),
    ...(checked.folderId !== undefined ? { folder_id: checked.folderId } : {}),
    ...(checked.assets !== undefined ? { assets: JSON.stringify(checked.assets) } : {}),
    ...(checked.includeData !== undefined ? { include_data: checked.includeData ? 1 : 0 } : {}),
    ...(checked.includeTestCases !== undefined ? { include_test_cases: checked.includeTestCases ? 1 : 0 } : {}),
    ...(checked.includeTags !== undefined ? { include_tags: checked.includeTags ? 1 : 0 } : {}),
    updated_at: toStored(ctx.clock.now()),
  });
  const packageId = checked.autoRun ? (await startExport(ctx, caller, id)).id : undefined;
  return withPackage(await getManifest(ctx, caller, id), packageId);
}

export async function getManifest(ctx: ServiceContext, caller: Caller, id: number): Promise<ManifestApi> {
  return output(ctx.db, await visibleManifest(ctx.db, caller, id));
}

/** Archive a manifest: it leaves the API (404) and keeps its packages. */
export async function deleteManifest(ctx: ServiceContext, caller: Caller, id: number): Promise<void> {
  await visibleManifest(ctx.db, caller, id);
  const now = toStored(ctx.clock.now());
  await updateManifestRow(ctx.db, id, { status: 'archived', deleted_at: now, updated_at: now });
}

/** The manifest an export reads, for the packages area. */
export async function manifestForExport(db: Db, caller: Caller, id: number): Promise<ExportManifestRow> {
  return visibleManifest(db, caller, id);
}
