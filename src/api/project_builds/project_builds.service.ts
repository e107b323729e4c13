// Project builds (contract 12 §4–§5): a build exports the whole project — its folders, recipes,
// connections (without credentials), lookup tables with their rows, topics, API collections and
// properties — into a package made once and never changed. Builds are made in dev only.
import { findProject, findProjectByFolder, projectIdsOfFolders } from '../projects/projects.store.ts';
import { clientName } from '../developer_api_clients/developer_api_clients.store.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db, ProjectRow } from '../../db/types.ts';
import { AppError, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import { scanFolder } from '../export_manifests/assets.ts';
import { assetScope } from '../export_manifests/export_manifests.service.ts';
import type { ExportOptions } from '../packages/export.ts';
import { insertPackage } from '../packages/packages.store.ts';
import type { PackageRunner } from '../packages/runner.ts';
import { projectInScope } from '../../auth/credentials.ts';
import { projectAssetInScope } from '../projects/project-scope.ts';
import {
  buildPackageOptions,
  buildToApi,
  findBuild,
  insertBuild,
  listBuilds as listBuildRows,
  type BuildApi,
  type BuildFilters,
  type BuildWithPackage,
} from './project_builds.store.ts';
import { folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import type { Asset } from '../export_manifests/assets.ts';

export type Caller = Pick<
  AuthContext,
  'clientId' | 'workspaceId' | 'environmentId' | 'environmentType' | 'allFolders' | 'folderIds'
>;

export interface BuildInput {
  description?: unknown;
  include_test_cases?: unknown;
  include_data?: unknown;
}

/** Builds and deployments start in dev only (contract 12 §1). */
export function assertDevelopment(caller: Pick<Caller, 'environmentType'>): void {
  if (caller.environmentType !== 'dev') throw new AppError('deployments_from_dev_only');
}

/** A project by its id, or by `f<folder id>` (the project rooted at that folder); 404 otherwise. */
export async function projectByRef(db: Db, caller: Caller, ref: string): Promise<ProjectRow> {
  const text = ref.trim();
  const byFolder = /^f(\d{1,15})$/i.exec(text);
  let project: ProjectRow | undefined;
  if (byFolder) project = await findProjectByFolder(db, caller.environmentId, Number(byFolder[1]));
  else if (/^\d{1,15}$/.test(text)) project = await findProject(db, caller.environmentId, Number(text));
  if (!project || !projectInScope(caller, project.folder_id)) throw new AppError('not_found');
  return project;
}

export async function performerName(db: Db, caller: Pick<Caller, 'clientId'>): Promise<string> {
  return (await clientName(db, caller.clientId)) ?? 'API client';
}

function checkInput(input: BuildInput): {
  description: string | null;
  includeTestCases: boolean | null;
  includeData: boolean;
} {
  const errors: Record<string, string[]> = {};
  if (input.description !== undefined && input.description !== null && typeof input.description !== 'string')
    errors.description = ['must be a string'];
  else if (typeof input.description === 'string' && input.description.length > 10_000)
    errors.description = ['is too long (maximum is 10000 characters)'];
  if (
    input.include_test_cases !== undefined &&
    input.include_test_cases !== null &&
    typeof input.include_test_cases !== 'boolean'
  )
    errors.include_test_cases = ['must be true or false'];
  if (input.include_data !== undefined && input.include_data !== null && typeof input.include_data !== 'boolean')
    errors.include_data = ['must be true or false'];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return {
    description: typeof input.description === 'string' ? input.description : null,
    includeTestCases: typeof input.include_test_cases === 'boolean' ? input.include_test_cases : null,
    includeData: input.include_data === true,
  };
}

/** Start a build; it is `pending` until its package is written. Returns the new build's row. */
export async function startBuild(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  projectRef: string,
  input: BuildInput,
): Promise<BuildWithPackage> {
  assertDevelopment(caller);
  const checked = checkInput(input);
  const project = await projectByRef(ctx.db, caller, projectRef);
  const assets = (await scanFolder(ctx.db, await assetScope(ctx.db, caller), project.folder_id))
    .filter((a) => !a.unreachable)
    .map(({ updatedAt: _, ...asset }) => asset);
  const performer = await performerName(ctx.db, caller);
  const now = toStored(ctx.clock.now());
  const options: ExportOptions = {
    manifestId: null,
    anchorFolderId: project.folder_id,
    assets,
    includeData: checked.includeData,
    includeTestCases: checked.includeTestCases === true,
  };
  const id = await ctx.db.transaction().execute(async (trx) => {
    const packageId = await insertPackage(trx, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      operation_type: 'export',
      status: 'in_progress',
      export_manifest_id: null,
      folder_id: project.folder_id,
      options: JSON.stringify(options),
      error: null,
      error_parts: null,
      recipe_status: null,
      content_size: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
    });
    return insertBuild(trx, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      project_id: project.id,
      project_name: project.name,
      project_description: project.description,
      package_id: packageId,
      description: checked.description,
      include_test_cases: checked.includeTestCases === null ? null : checked.includeTestCases ? 1 : 0,
      include_data: checked.includeData ? 1 : 0,
      performed_by_name: performer,
      created_at: now,
      updated_at: now,
    });
  });
  runner.kick();
  const row = await findBuild(ctx.db, caller.environmentId, id);
  if (!row) throw new AppError('not_found');
  return row;
}

export async function buildProject(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  projectRef: string,
  input: BuildInput,
): Promise<BuildApi> {
  return buildToApi(await startBuild(ctx, runner, caller, projectRef, input), ctx.config.publicBaseUrl);
}

export async function getBuild(ctx: ServiceContext, caller: Caller, id: number): Promise<BuildApi> {
  const row = await findBuild(ctx.db, caller.environmentId, id);
  if (!row || !(await projectAssetInScope(ctx.db, caller, row.project_id))) throw new AppError('not_found');
  return buildToApi(row, ctx.config.publicBaseUrl);
}

/** A build the caller may see, for a deployment. */
export async function visibleBuild(db: Db, caller: Caller, id: number): Promise<BuildWithPackage> {
  const row = await findBuild(db, caller.environmentId, id);
  if (!row || !(await projectAssetInScope(db, caller, row.project_id))) throw new AppError('not_found');
  return row;
}

/** The projects a token limited to some projects may see; null when it sees them all. */
async function visibleProjectIds(db: Db, caller: Caller): Promise<number[] | null> {
  if (caller.allFolders) return null;
  const folders = await folderIdsUnderProjects(db, caller.environmentId, caller.folderIds);
  return projectIdsOfFolders(db, caller.environmentId, folders);
}

export interface BuildListItem extends BuildApi {
  project_name: string;
}

/** The environment's builds the caller may see, newest first, optionally of one project (the web console's list). */
export async function listBuilds(
  ctx: ServiceContext,
  caller: Caller,
  projectId: number | undefined,
  page: { offset: number; perPage: number },
): Promise<BuildListItem[]> {
  const filters: BuildFilters = {};
  const visible = await visibleProjectIds(ctx.db, caller);
  if (visible) filters.projectIds = visible;
  if (projectId !== undefined) filters.projectId = projectId;
  const rows = await listBuildRows(ctx.db, caller.environmentId, filters, page);
  return rows.map((row) => ({ ...buildToApi(row, ctx.config.publicBaseUrl), project_name: row.project_name }));
}

/** A build with the project's name when built and the assets its package holds. */
export async function getBuildContents(
  ctx: ServiceContext,
  caller: Caller,
  id: number,
): Promise<{ build: BuildListItem; assets: Asset[] }> {
  const row = await visibleBuild(ctx.db, caller, id);
  const stored = await buildPackageOptions(ctx.db, row.package_id);
  let assets: Asset[] = [];
  try {
    const options = JSON.parse(stored ?? '{}') as Partial<ExportOptions>;
    if (Array.isArray(options.assets)) assets = options.assets;
  } catch {
    // A package's options are written by the server as JSON; nothing to list otherwise.
  }
  return { build: { ...buildToApi(row, ctx.config.publicBaseUrl), project_name: row.project_name }, assets };
}
