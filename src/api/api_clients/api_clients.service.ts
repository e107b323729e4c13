// API clients (v1): list and create (contract 03 §4).
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../db/types.ts';
import { AppError, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { projectInScope, scopeOf, type AuthContext } from '../../auth/credentials.ts';
import { findProject } from '../projects/projects.store.ts';
import {
  apiClientToApi,
  findPolicy,
  insertApiClient,
  listApiClients as listRows,
  type ApiClientApi,
} from './api_clients.store.ts';

export async function listApiClients(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: number | undefined,
  page: { offset: number; perPage: number },
): Promise<ApiClientApi[]> {
  const rows = await listRows(
    ctx.db,
    auth.environmentId,
    { ...(projectId !== undefined ? { projectId } : {}), scope: scopeOf(auth) },
    page,
  );
  return rows.map(apiClientToApi);
}

/** The project a new client belongs to: one in the caller's scope, or none (Home) for a caller reaching all folders. */
export async function clientProjectId(
  db: Db,
  auth: AuthContext,
  requested: number | undefined,
): Promise<number | null> {
  if (requested === undefined) {
    if (!auth.allFolders) throw new AppError('api_client_needs_project_in_scope');
    return null;
  }
  const project = await findProject(db, auth.environmentId, requested);
  if (!project || !projectInScope(auth, project.folder_id))
    throw invalid({ project_id: ['does not name a project of this environment in your scope'] });
  return project.id;
}

export async function createApiClient(
  ctx: ServiceContext,
  auth: AuthContext,
  input: { name: string; project_id?: number; description?: string; api_policy_id?: number },
): Promise<ApiClientApi> {
  const name = input.name.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  return ctx.db.transaction().execute(async (trx) => {
    const projectId = await clientProjectId(trx, auth, input.project_id);
    if (input.api_policy_id !== undefined && !(await findPolicy(trx, auth.workspaceId, input.api_policy_id)))
      throw invalid({ api_policy_id: ['does not exist'] });
    const now = toStored(ctx.clock.now());
    const row = await insertApiClient(trx, {
      workspace_id: auth.workspaceId,
      environment_id: auth.environmentId,
      project_id: projectId,
      name,
      description: input.description ?? null,
      active: 1,
      api_policy_id: input.api_policy_id ?? null,
      created_at: now,
      updated_at: now,
    });
    return apiClientToApi(row);
  });
}
