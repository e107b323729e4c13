// Tenancy: creating a workspace with everything it starts with, the first start, and the
// admin credentials that the command line and SWITCHBOARD_ADMIN_TOKEN manage.
import type { ServiceContext } from '../context.ts';
import type { WorkspaceRow } from '../db/types.ts';
import { AppError } from '../errors.ts';
import { toStored } from '../time.ts';
import {
  findRoleByName,
  insertRole,
  nameKey,
} from '../api/developer_api_client_roles/developer_api_client_roles.store.ts';
import { SEED_ROLES } from '../auth/privileges.ts';
import { createClient, setClientToken } from '../api/developer_api_clients/developer_api_clients.service.ts';
import { findClientByName, updateClient } from '../api/developer_api_clients/developer_api_clients.store.ts';
import { hashToken } from '../auth/credentials.ts';
import { HOME_FOLDER_NAME, insertFolder } from '../api/folders/folders.store.ts';
import { seedCollaboratorRoles } from '../api/roles/roles.store.ts';
import {
  ENVIRONMENTS,
  findFirstWorkspace,
  insertEnvironment,
  insertOwner,
  insertWorkspace,
} from './workspaces.store.ts';

export const ADMIN_ROLE_NAME = 'Admin';
export const BOOTSTRAP_CLIENT_NAME = 'Bootstrap admin';
export const CONFIGURED_CLIENT_NAME = 'Admin (SWITCHBOARD_ADMIN_TOKEN)';

export const DEFAULT_WORKSPACE = { name: 'Switchboard', ownerEmail: 'owner@switchboard.local' } as const;

export interface NewWorkspace {
  name: string;
  ownerEmail: string;
  companyName?: string | null;
}

/**
 * A workspace with its owner, the dev/test/prod environments, a Home folder in each, the seed
 * developer API client roles and the seed collaborator roles (Analyst, Operator).
 */
export async function createWorkspace(ctx: ServiceContext, input: NewWorkspace): Promise<WorkspaceRow> {
  const now = toStored(ctx.clock.now());
  return ctx.db.transaction().execute(async (trx) => {
    const workspace = await insertWorkspace(trx, {
      name: input.name,
      companyName: input.companyName ?? input.name,
      ownerEmail: input.ownerEmail,
      planId: 'self_hosted',
      now,
    });
    await insertOwner(trx, { workspaceId: workspace.id, name: input.name, email: input.ownerEmail, now });
    for (const env of ENVIRONMENTS) {
      const environment = await insertEnvironment(trx, {
        workspaceId: workspace.id,
        type: env.type,
        name: env.name,
        now,
      });
      await insertFolder(trx, {
        workspace_id: workspace.id,
        environment_id: environment.id,
        parent_id: null,
        name: HOME_FOLDER_NAME,
        is_project: 0,
        project_id: null,
        created_at: now,
        updated_at: now,
      });
    }
    for (const role of SEED_ROLES)
      await insertRole(trx, { workspaceId: workspace.id, name: role.name, privileges: role.privileges, now });
    await seedCollaboratorRoles(trx, workspace.id, now);
    return workspace;
  });
}

/** A new developer API client with the named role, all projects in scope; its token is returned once. */
export async function createTokenForRole(
  ctx: ServiceContext,
  input: { workspaceId: number; roleName: string; clientName: string; environment: 'dev' | 'test' | 'prod' },
): Promise<{ clientId: number; token: string }> {
  const role = await findRoleByName(ctx.db, input.workspaceId, input.roleName);
  if (!role) throw new AppError('developer_api_client_role_unknown', { params: { name: input.roleName } });
  const client = await createClient(ctx, null, input.workspaceId, {
    name: input.clientName,
    api_privilege_group_id: role.id,
    all_folders: true,
    environment: input.environment,
  });
  return { clientId: client.id, token: client.token.value as string };
}

export interface FirstStart {
  workspace: WorkspaceRow;
  created: boolean;
  /** The token of the admin client created now, to print once; absent when nothing new was made. */
  printableToken?: string;
}

/**
 * What every start does after migrating: create the first workspace when there is none, and
 * make sure SWITCHBOARD_ADMIN_TOKEN (when configured) opens an admin client in dev.
 */
export async function prepareFirstWorkspace(
  ctx: ServiceContext,
  options: { adminToken?: string | undefined; workspace?: NewWorkspace } = {},
): Promise<FirstStart> {
  const existing = await findFirstWorkspace(ctx.db);
  const workspace = existing ?? (await createWorkspace(ctx, options.workspace ?? DEFAULT_WORKSPACE));
  let printableToken: string | undefined;
  if (options.adminToken !== undefined) {
    await ensureConfiguredAdmin(ctx, workspace.id, options.adminToken);
  } else if (!existing) {
    printableToken = (
      await createTokenForRole(ctx, {
        workspaceId: workspace.id,
        roleName: ADMIN_ROLE_NAME,
        clientName: BOOTSTRAP_CLIENT_NAME,
        environment: 'dev',
      })
    ).token;
  }
  return { workspace, created: !existing, ...(printableToken ? { printableToken } : {}) };
}

/** The configured admin token opens an admin client in dev: created once, re-keyed when the setting changes. */
async function ensureConfiguredAdmin(ctx: ServiceContext, workspaceId: number, token: string): Promise<void> {
  const existing = await findClientByName(ctx.db, workspaceId, nameKey(CONFIGURED_CLIENT_NAME));
  if (existing) {
    const admin = await findRoleByName(ctx.db, workspaceId, ADMIN_ROLE_NAME);
    if (admin && (existing.role_id !== admin.id || existing.all_folders !== 1)) {
      await updateClient(ctx.db, workspaceId, existing.id, { role_id: admin.id, all_folders: 1, folder_ids: '[]' });
    }
    if (existing.token_hash !== hashToken(token))
      await setClientToken(ctx.db, workspaceId, existing.id, token, toStored(ctx.clock.now()));
    return;
  }
  const { clientId } = await createTokenForRole(ctx, {
    workspaceId,
    roleName: ADMIN_ROLE_NAME,
    clientName: CONFIGURED_CLIENT_NAME,
    environment: 'dev',
  });
  await setClientToken(ctx.db, workspaceId, clientId, token, toStored(ctx.clock.now()));
}
