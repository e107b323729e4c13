// Packages (contract 15 §7–§11): start an export of a manifest, start an import of a zip into a
// folder, read a package's state, stream an export's zip. The work itself runs in the background
// (runner.ts); a POST answers at once with the package `in_progress`.
import { Readable } from 'node:stream';
import type { ServiceContext } from '../../context.ts';
import { AppError, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { findFolderInScope } from '../folders/folder-scope.store.ts';
import { assetsOf } from '../export_manifests/export_manifests.store.ts';
import { manifestForExport } from '../export_manifests/export_manifests.service.ts';
import {
  CHUNK_BYTES,
  countChunks,
  findPackage,
  insertChunk,
  insertPackage,
  packageToApi,
  readChunk,
  type PackageApi,
} from './packages.store.ts';
import type { ExportPackageOptions, ImportPackageOptions, PackageRunner } from './runner.ts';

export type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

/** The first bytes of a zip: a local file header, or the end record of an empty archive. */
function looksLikeZip(zip: Buffer): boolean {
  return (
    zip.length >= 4 &&
    zip[0] === 0x50 &&
    zip[1] === 0x4b &&
    (zip[2] === 3 || zip[2] === 5) &&
    (zip[3] === 4 || zip[3] === 6)
  );
}

export async function startExport(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  manifestId: number,
): Promise<PackageApi> {
  const manifest = await manifestForExport(ctx.db, caller, manifestId);
  const now = toStored(ctx.clock.now());
  const options: ExportPackageOptions = {
    manifestId: manifest.id,
    anchorFolderId: manifest.folder_id,
    assets: assetsOf(manifest),
    includeData: manifest.include_data === 1,
    includeTestCases: manifest.include_test_cases === 1,
    includeTags: manifest.include_tags === 1,
  };
  const id = await insertPackage(ctx.db, {
    workspace_id: caller.workspaceId,
    environment_id: caller.environmentId,
    operation_type: 'export',
    status: 'in_progress',
    export_manifest_id: manifest.id,
    folder_id: manifest.folder_id,
    options: JSON.stringify(options),
    error: null,
    error_parts: null,
    recipe_status: null,
    content_size: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  });
  runner.kick();
  return getPackage(ctx, caller, id);
}

export interface ImportQuery {
  restart_recipes?: string | boolean;
  include_tags?: string | boolean;
  folder_id_for_home_assets?: string | number;
}

function flag(value: string | boolean | undefined, field: string): boolean {
  if (value === undefined || value === '' || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw invalid({ [field]: ['must be true or false'] });
}

export async function startImport(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  folderId: number,
  query: ImportQuery,
  zip: Buffer,
): Promise<PackageApi> {
  const restartRecipes = flag(query.restart_recipes, 'restart_recipes');
  const includeTags = flag(query.include_tags, 'include_tags');
  let homeFolderId: number | null = null;
  if (query.folder_id_for_home_assets !== undefined && query.folder_id_for_home_assets !== '') {
    const text = String(query.folder_id_for_home_assets);
    if (!/^\d{1,15}$/.test(text)) throw invalid({ folder_id_for_home_assets: ['must be a folder id'] });
    const home = await findFolderInScope(ctx.db, caller.environmentId, caller, Number(text));
    if (!home) throw invalid({ folder_id_for_home_assets: ['is not a folder you can reach in this environment'] });
    if (home.parent_id === null) throw invalid({ folder_id_for_home_assets: ['must not be the Home folder itself'] });
    homeFolderId = home.id;
  }
  const folder = await findFolderInScope(ctx.db, caller.environmentId, caller, folderId);
  if (!folder) throw new AppError('folder_not_found');
  if (zip.length === 0) throw new AppError('package_body_empty');
  if (!looksLikeZip(zip)) throw new AppError('package_not_zip');
  const options: ImportPackageOptions = {
    folderId: folder.id,
    restartRecipes,
    includeTags,
    homeFolderId,
    restricted: !caller.allFolders,
  };
  const now = toStored(ctx.clock.now());
  // The package and its bytes commit together: an accepted import survives a restart.
  const id = await ctx.db.transaction().execute(async (trx) => {
    const packageId = await insertPackage(trx, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      operation_type: 'import',
      status: 'in_progress',
      export_manifest_id: null,
      folder_id: folder.id,
      options: JSON.stringify(options),
      error: null,
      error_parts: null,
      recipe_status: null,
      content_size: zip.length,
      created_at: now,
      updated_at: now,
      completed_at: null,
    });
    for (let offset = 0, seq = 0; offset < zip.length; offset += CHUNK_BYTES, seq += 1)
      await insertChunk(trx, packageId, seq, zip.subarray(offset, offset + CHUNK_BYTES));
    return packageId;
  });
  runner.kick();
  return getPackage(ctx, caller, id);
}

export async function getPackage(ctx: ServiceContext, caller: Caller, id: number): Promise<PackageApi> {
  const row = await findPackage(ctx.db, caller.environmentId, id);
  if (!row) throw new AppError('package_not_found');
  return packageToApi(row, ctx.config.publicBaseUrl);
}

/** An export's zip as a stream of its chunks, read one at a time. */
export async function packageZip(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
): Promise<{ stream: Readable; size: number | null; name: string }> {
  const row = await findPackage(ctx.db, caller.environmentId, id);
  if (!row) throw new AppError('package_not_found');
  if (row.operation_type !== 'export' || row.status !== 'completed' || row.content_size === null)
    throw new AppError('package_has_no_content');
  const count = await countChunks(ctx.db, id);
  async function* chunks() {
    for (let seq = 0; seq < count; seq += 1) {
      const chunk = await readChunk(ctx.db, id, seq);
      if (chunk) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  }
  return { stream: Readable.from(chunks()), size: row.content_size, name: `package_${id}.zip` };
}
