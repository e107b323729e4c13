// API clients (v1): list and create (contract 03 §4).
import type { ServiceContext } from '../../context.ts';
import { AppError, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { projectInScope, scopeOf, type AuthContext } from '../developer_api_clients/credentials.ts';
import { findProject } from '../projects/projects.store.ts';
import { apiClientToApi, findPolicy, insertApiClient, listApiClients as listRows, type ApiClientApi } from './api_clients.store.ts';

export async function listApiClients(ctx: ServiceContext, auth: AuthContext, projectId: number | undefined, page: { offset: number; perPage: number }): Promise<ApiClientApi[]> {
  const rows = await listRows(ctx.db, auth.environmentId, { ...(projectId !== undefined ? { projectId } : {}), scope: scopeOf(auth) }, page);
  return rows.map(apiClientToApi);
}

export async function createApiClient(ctx: ServiceContext, auth: AuthContext, input: { name: string; project_id?: number; description?: string; api_policy_id?: number }): Promise<ApiClientApi> {
  const name = input.name.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  return ctx.db.transaction().execute(async (trx) => {
    let projectId: number | null = null;
    if (input.project_id !== undefined) {
      const project = await findProject(trx, auth.environmentId, input.project_id);
      if (!project || !projectInScope(auth, project.folder_id)) throw invalid({ project_id: ['does not name a project of this environment in your scope'] });
      projectId = project.id;
    } else if (!auth.allFolders) {
      throw new AppError('api_client_needs_project_in_scope');
    }
    if (input.api_policy_id !== undefined && !(await findPolicy(trx, auth.workspaceId, input.api_policy_id))) throw invalid({ api_policy_id: ['does not exist'] });
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
