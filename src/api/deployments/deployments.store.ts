// Deployments (contract 12 §3.2): a row pointing at the import package that applies the build.
import type { Db, DeploymentRow, PackageStatus } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import { stateOf, type BuildState } from '../project_builds/project_builds.store.ts';

export interface DeploymentApi {
  id: number;
  created_at: string;
  updated_at: string;
  description: string | null;
  project_build_id: number;
  environment_type: 'test' | 'prod';
  project_id: string;
  target_project_id: string | null;
  state: BuildState;
  performed_by_name: string;
  error?: string;
}

export type DeploymentWithPackage = DeploymentRow & {
  package_status: PackageStatus;
  package_error: string | null;
  package_error_parts: string | null;
  package_updated_at: string;
  target_project_id: number | null;
};

export function deploymentToApi(row: DeploymentWithPackage): DeploymentApi {
  const state = stateOf(row.package_status);
  const parts = row.package_error_parts === null ? [] : (JSON.parse(row.package_error_parts) as string[]);
  return {
    id: row.id,
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.package_updated_at > row.updated_at ? row.package_updated_at : row.updated_at),
    description: row.description,
    project_build_id: row.project_build_id,
    environment_type: row.environment_type,
    project_id: String(row.project_id),
    target_project_id: row.target_project_id === null ? null : String(row.target_project_id),
    state,
    performed_by_name: row.performed_by_name,
    ...(state === 'failed'
      ? { error: `${row.package_error ?? 'The deployment failed'}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}` }
      : {}),
  };
}

export async function insertDeployment(db: Db, values: Omit<DeploymentRow, 'id'>): Promise<number> {
  const row = await db.insertInto('deployments').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

function withPackage(db: Db) {
  return db
    .selectFrom('deployments')
    .innerJoin('packages', 'packages.id', 'deployments.package_id')
    .innerJoin('project_builds', 'project_builds.id', 'deployments.project_build_id')
    .leftJoin('projects as target_projects', (join) =>
      join
        .onRef('target_projects.environment_id', '=', 'deployments.target_environment_id')
        .onRef('target_projects.name', '=', 'project_builds.project_name'),
    )
    .selectAll('deployments')
    .select('target_projects.id as target_project_id')
    .select([
      'packages.status as package_status',
      'packages.error as package_error',
      'packages.error_parts as package_error_parts',
      'packages.updated_at as package_updated_at',
    ]);
}

export async function findDeployment(
  db: Db,
  environmentId: number,
  id: number,
): Promise<DeploymentWithPackage | undefined> {
  return withPackage(db)
    .where('deployments.id', '=', id)
    .where('deployments.environment_id', '=', environmentId)
    .executeTakeFirst();
}

export async function findDeploymentByPackage(db: Db, packageId: number): Promise<DeploymentWithPackage | undefined> {
  return withPackage(db).where('deployments.package_id', '=', packageId).executeTakeFirst();
}

export interface DeploymentFilters {
  projectIds?: readonly number[];
  projectId?: number;
  projectBuildId?: number;
  folderId?: number;
  environmentType?: 'test' | 'prod';
  packageStatus?: PackageStatus;
  from?: string;
  to?: string;
}

export async function listDeployments(
  db: Db,
  environmentId: number,
  filters: DeploymentFilters,
  page: { offset: number; perPage: number },
): Promise<DeploymentWithPackage[]> {
  let query = withPackage(db).where('deployments.environment_id', '=', environmentId);
  if (filters.projectIds)
    query = query.where('deployments.project_id', 'in', filters.projectIds.length > 0 ? [...filters.projectIds] : [-1]);
  if (filters.projectId !== undefined) query = query.where('deployments.project_id', '=', filters.projectId);
  if (filters.projectBuildId !== undefined)
    query = query.where('deployments.project_build_id', '=', filters.projectBuildId);
  if (filters.folderId !== undefined) query = query.where('deployments.folder_id', '=', filters.folderId);
  if (filters.environmentType) query = query.where('deployments.environment_type', '=', filters.environmentType);
  if (filters.packageStatus) query = query.where('packages.status', '=', filters.packageStatus);
  if (filters.from) query = query.where('deployments.created_at', '>=', filters.from);
  if (filters.to) query = query.where('deployments.created_at', '<=', filters.to);
  return query
    .orderBy('deployments.created_at', 'desc')
    .orderBy('deployments.id', 'desc')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}
