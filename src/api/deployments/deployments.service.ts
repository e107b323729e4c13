// Deployments (contract 12 §6–§10): a deployment imports a build's zip into the project of the
// same name in the target environment (created when absent), with the package import's one code
// path: all or nothing, running recipes restarted on the new version, stopped ones left stopped,
// connections matched by name and provider and keeping the target's credentials. A connection
// the target lacks fails the deployment before anything is applied.
import { projectFolderId, projectIdsOfFolders } from '../projects/projects.store.ts';
import type { ServiceContext } from '../../context.ts';
import type { EnvironmentType } from '../../db/types.ts';
import { AppError, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import type { ImportOptions } from '../packages/appliers/run.ts';
import { insertPackage } from '../packages/packages.store.ts';
import type { PackageRunner } from '../packages/runner.ts';
import {
  assertDevelopment,
  performerName,
  projectByRef,
  startBuild,
  visibleBuild,
  type BuildInput,
  type Caller,
} from '../project_builds/project_builds.service.ts';
import { stateOf, type BuildWithPackage } from '../project_builds/project_builds.store.ts';
import { folderIdsUnderProjects } from '../folders/folder-scope.store.ts';
import {
  deploymentToApi,
  findDeployment,
  findDeploymentByPackage,
  insertDeployment,
  listDeployments as listRows,
  type DeploymentApi,
  type DeploymentFilters,
} from './deployments.store.ts';

export interface DeployInput {
  environment_type?: unknown;
  description?: unknown;
  include_tags?: unknown;
  include_test_cases?: unknown;
  include_data?: unknown;
}

/** The target environment type: missing is a 400 naming it; anything but test or prod a 404 (contract 12 §6). */
function targetType(query: unknown, body: unknown): 'test' | 'prod' {
  const value = query ?? body;
  if (value === undefined || value === null || value === '')
    throw new AppError('environment_type_missing', { errors: { environment_type: ["can't be blank"] } });
  if (value !== 'test' && value !== 'prod') throw new AppError('not_found');
  return value;
}

function description(input: DeployInput): string | null {
  if (input.description === undefined || input.description === null) return null;
  if (typeof input.description !== 'string') throw invalid({ description: ['must be a string'] });
  if (input.description.length > 10_000) throw invalid({ description: ['is too long (maximum is 10000 characters)'] });
  return input.description;
}

async function deploy(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  build: BuildWithPackage,
  environmentType: 'test' | 'prod',
  input: DeployInput,
): Promise<DeploymentApi> {
  const target = await findEnvironmentByType(ctx.db, caller.workspaceId, environmentType as EnvironmentType);
  if (!target) throw new AppError('not_found');
  const text = description(input);
  const options: ImportOptions = {
    folderId: null,
    project: { name: build.project_name, description: build.project_description },
    restartRecipes: true,
    includeTags: input.include_tags === true,
    homeFolderId: null,
    connectionsMustExist: true,
    restricted: !caller.allFolders,
    sourcePackageId: build.package_id,
  };
  const performer = await performerName(ctx.db, caller);
  const now = toStored(ctx.clock.now());
  const folderId = await projectFolderId(ctx.db, build.project_id);
  const id = await ctx.db.transaction().execute(async (trx) => {
    const packageId = await insertPackage(trx, {
      workspace_id: caller.workspaceId,
      environment_id: target.id,
      operation_type: 'import',
      status: 'in_progress',
      export_manifest_id: null,
      folder_id: null,
      options: JSON.stringify(options),
      error: null,
      error_parts: null,
      recipe_status: null,
      content_size: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
    });
    return insertDeployment(trx, {
      workspace_id: caller.workspaceId,
      environment_id: caller.environmentId,
      project_id: build.project_id,
      folder_id: folderId ?? 0,
      project_build_id: build.id,
      environment_type: environmentType,
      target_environment_id: target.id,
      package_id: packageId,
      description: text,
      performed_by_name: performer,
      created_at: now,
      updated_at: now,
    });
  });
  runner.kick();
  return getDeployment(ctx, caller, id);
}

/** Deploy an existing build, which must have succeeded. */
export async function deployBuild(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  buildId: number,
  query: { environment_type?: unknown },
  input: DeployInput,
): Promise<DeploymentApi> {
  assertDevelopment(caller);
  const environmentType = targetType(query.environment_type, input.environment_type);
  const build = await visibleBuild(ctx.db, caller, buildId);
  const state = stateOf(build.package_status);
  if (state !== 'success') throw new AppError('build_not_successful', { params: { state } });
  return deploy(ctx, runner, caller, build, environmentType, input);
}

/** Build the project and deploy that build: the deployment waits for its build and fails with it. */
export async function buildAndDeploy(
  ctx: ServiceContext,
  runner: PackageRunner,
  caller: Caller,
  projectRef: string,
  query: { environment_type?: unknown },
  input: DeployInput,
): Promise<DeploymentApi> {
  assertDevelopment(caller);
  const environmentType = targetType(query.environment_type, input.environment_type);
  await projectByRef(ctx.db, caller, projectRef);
  const buildInput: BuildInput = {
    description: input.description,
    include_test_cases: input.include_test_cases,
    include_data: input.include_data,
  };
  const build = await startBuild(ctx, runner, caller, projectRef, buildInput);
  return deploy(ctx, runner, caller, build, environmentType, input);
}

export async function getDeployment(ctx: ServiceContext, caller: Caller, id: number): Promise<DeploymentApi> {
  const row = await findDeployment(ctx.db, caller.environmentId, id);
  if (!row) throw new AppError('not_found');
  if (
    !caller.allFolders &&
    !(await folderIdsUnderProjects(ctx.db, caller.environmentId, caller.folderIds)).includes(row.folder_id)
  )
    throw new AppError('not_found');
  return deploymentToApi(row);
}

export interface ListQuery {
  project_id?: string;
  folder_id?: string;
  environment_type?: string;
  state?: string;
  from?: string;
  to?: string;
}

const STATE_TO_STATUS = { pending: 'in_progress', success: 'completed', failed: 'failed' } as const;

function timestamp(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms))
    throw invalid({ [field]: ['must be an ISO 8601 timestamp'] });
  return new Date(ms).toISOString();
}

export async function listDeployments(
  ctx: ServiceContext,
  caller: Caller,
  query: ListQuery,
  page: { offset: number; perPage: number },
): Promise<{ items: DeploymentApi[] }> {
  const filters: DeploymentFilters = {};
  const errors: Record<string, string[]> = {};
  if (query.project_id !== undefined && query.project_id !== '') {
    if (/^\d{1,15}$/.test(query.project_id)) filters.projectId = Number(query.project_id);
    else errors.project_id = ['must be a project id'];
  }
  if (query.folder_id !== undefined && query.folder_id !== '') {
    const match = /^f?(\d{1,15})$/i.exec(query.folder_id);
    if (match) filters.folderId = Number(match[1]);
    else errors.folder_id = ['must be a folder id, as f<id> or <id>'];
  }
  if (query.environment_type !== undefined && query.environment_type !== '') {
    if (query.environment_type === 'test' || query.environment_type === 'prod')
      filters.environmentType = query.environment_type;
    else errors.environment_type = ['must be test or prod'];
  }
  if (query.state !== undefined && query.state !== '') {
    if (query.state in STATE_TO_STATUS)
      filters.packageStatus = STATE_TO_STATUS[query.state as keyof typeof STATE_TO_STATUS];
    else errors.state = ['must be pending, success or failed'];
  }
  try {
    const from = timestamp(query.from, 'from');
    if (from) filters.from = from;
  } catch {
    errors.from = ['must be an ISO 8601 timestamp'];
  }
  try {
    const to = timestamp(query.to, 'to');
    if (to) filters.to = to;
  } catch {
    errors.to = ['must be an ISO 8601 timestamp'];
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  if (!caller.allFolders) {
    const folders = await folderIdsUnderProjects(ctx.db, caller.environmentId, caller.folderIds);
    filters.projectIds = await projectIdsOfFolders(ctx.db, caller.environmentId, folders);
  }
  const rows = await listRows(ctx.db, caller.environmentId, filters, page);
  return { items: rows.map(deploymentToApi) };
}

/** Publish deployment.succeeded / deployment.failed when the import package of a deployment ends. */
/** The deployments of one build the caller may see, newest first (the web console's build page). */
export async function listBuildDeployments(
  ctx: ServiceContext,
  caller: Caller,
  buildId: number,
  page: { offset: number; perPage: number },
): Promise<DeploymentApi[]> {
  const build = await visibleBuild(ctx.db, caller, buildId);
  const rows = await listRows(ctx.db, caller.environmentId, { projectBuildId: build.id }, page);
  return rows.map(deploymentToApi);
}

export function announceDeployments(ctx: ServiceContext): () => void {
  return ctx.notifier.subscribe('package.finished', ({ packageId }) => {
    void findDeploymentByPackage(ctx.db, packageId).then(
      (row) => {
        if (!row) return;
        const api = deploymentToApi(row);
        if (api.state === 'success')
          ctx.notifier.publish('deployment.succeeded', {
            deploymentId: row.id,
            projectId: row.project_id,
            environmentType: row.environment_type,
          });
        else if (api.state === 'failed')
          ctx.notifier.publish('deployment.failed', {
            deploymentId: row.id,
            projectId: row.project_id,
            environmentType: row.environment_type,
            error: api.error ?? 'The deployment failed',
          });
      },
      (error: unknown) => ctx.log.error({ err: error, packageId }, 'could not announce the end of a deployment'),
    );
  });
}
