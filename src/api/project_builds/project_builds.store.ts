// Project builds (contract 12 §3.1): a row pointing at the export package that holds the zip.
import type { Db, PackageStatus, ProjectBuildRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export type BuildState = 'pending' | 'success' | 'failed';

export interface BuildApi {
  id: number;
  project_build_id: number;
  created_at: string;
  updated_at: string;
  description: string | null;
  include_test_cases: boolean | null;
  include_data: boolean;
  project_id: string;
  state: BuildState;
  performed_by_name: string;
  download_url: string | null;
  error?: string;
}

export type BuildWithPackage = ProjectBuildRow & {
  package_status: PackageStatus;
  package_error: string | null;
  package_updated_at: string;
};

export function stateOf(status: PackageStatus): BuildState {
  return status === 'completed' ? 'success' : status === 'failed' ? 'failed' : 'pending';
}

export function buildToApi(row: BuildWithPackage, publicBaseUrl: string): BuildApi {
  const state = stateOf(row.package_status);
  return {
    id: row.id,
    project_build_id: row.id,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.package_updated_at > row.updated_at ? row.package_updated_at : row.updated_at),
    description: row.description,
    include_test_cases: row.include_test_cases === null ? null : row.include_test_cases === 1,
    include_data: row.include_data === 1,
    project_id: String(row.project_id),
    state,
    performed_by_name: row.performed_by_name,
    download_url:
      state === 'success' ? `${publicBaseUrl.replace(/\/+$/, '')}/api/packages/${row.package_id}/download` : null,
    ...(state === 'failed' ? { error: row.package_error ?? 'The build failed' } : {}),
  };
}

export async function insertBuild(db: Db, values: Omit<ProjectBuildRow, 'id'>): Promise<number> {
  const row = await db.insertInto('project_builds').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findBuild(db: Db, environmentId: number, id: number): Promise<BuildWithPackage | undefined> {
  return db
    .selectFrom('project_builds')
    .innerJoin('packages', 'packages.id', 'project_builds.package_id')
    .selectAll('project_builds')
    .select([
      'packages.status as package_status',
      'packages.error as package_error',
      'packages.updated_at as package_updated_at',
    ])
    .where('project_builds.id', '=', id)
    .where('project_builds.environment_id', '=', environmentId)
    .executeTakeFirst();
}

export interface BuildFilters {
  /** The projects the caller may see (a token limited to some projects); absent for all. */
  projectIds?: readonly number[];
  projectId?: number;
}

/** An environment's builds, newest first. */
export async function listBuilds(
  db: Db,
  environmentId: number,
  filters: BuildFilters,
  page: { offset: number; perPage: number },
): Promise<BuildWithPackage[]> {
  let query = db
    .selectFrom('project_builds')
    .innerJoin('packages', 'packages.id', 'project_builds.package_id')
    .selectAll('project_builds')
    .select([
      'packages.status as package_status',
      'packages.error as package_error',
      'packages.updated_at as package_updated_at',
    ])
    .where('project_builds.environment_id', '=', environmentId);
  if (filters.projectIds)
    query = query.where(
      'project_builds.project_id',
      'in',
      filters.projectIds.length > 0 ? [...filters.projectIds] : [-1],
    );
  if (filters.projectId !== undefined) query = query.where('project_builds.project_id', '=', filters.projectId);
  return query
    .orderBy('project_builds.created_at', 'desc')
    .orderBy('project_builds.id', 'desc')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}

/** The options a build's package was exported with (its list of assets), as stored. */
export async function buildPackageOptions(db: Db, packageId: number): Promise<string | null> {
  const row = await db.selectFrom('packages').select('options').where('id', '=', packageId).executeTakeFirst();
  return row?.options ?? null;
}
