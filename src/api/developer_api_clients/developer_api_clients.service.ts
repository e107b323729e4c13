// Developer API clients: create, read, update, delete and token rotation (contract 02).
import type { ServiceContext } from '../../context.ts';
import type { Db, EnvironmentRow, EnvironmentType } from '../../db/types.ts';
import { AppError, assertFound, invalid, uniqueOr422 } from '../../errors.ts';
import { toStored } from '../../time.ts';
import { findProjectFolderIds } from '../folders/folders.store.ts';
import { findRole, nameKey, rolePrivileges } from '../developer_api_client_roles/developer_api_client_roles.store.ts';
import { findEnvironment, listEnvironments } from '../../workspaces/workspaces.store.ts';
import { generateToken, hashToken, parseIpAllowList, type AuthContext } from '../../auth/credentials.ts';
import {
  clientToApi,
  countClients,
  deleteClient as deleteClientRow,
  findClient,
  folderIdsOf,
  insertClient,
  type ClientWithEnvironment,
  listClients as listClientRows,
  updateClient as updateClientRow,
  type DeveloperApiClientApi,
} from './developer_api_clients.store.ts';

export interface ClientInput {
  name?: string;
  api_privilege_group_id?: number;
  all_folders?: boolean;
  folder_ids?: number[];
  environment_name?: string;
  environment?: string;
  ip_allow_list?: string | string[];
  description?: string;
}

/** The part of the caller that decides what it may grant; the CLI acts with no caller. */
export type Grantor = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'privileges' | 'allFolders' | 'folderIds'>;

const MAX_NAME = 255;
const MAX_DESCRIPTION = 1000;

export async function listClients(ctx: ServiceContext, workspaceId: number, page: { offset: number; perPage: number }) {
  const [rows, count] = await Promise.all([
    listClientRows(ctx.db, workspaceId, page),
    countClients(ctx.db, workspaceId),
  ]);
  return { count, items: rows.map((row) => clientToApi(row)) };
}

export async function getClient(ctx: ServiceContext, workspaceId: number, id: number): Promise<DeveloperApiClientApi> {
  return clientToApi(assertFound(await findClient(ctx.db, workspaceId, id)));
}

export async function createClient(
  ctx: ServiceContext,
  grantor: Grantor | null,
  workspaceId: number,
  input: ClientInput,
): Promise<DeveloperApiClientApi> {
  const errors: Record<string, string[]> = {};
  const name = checkName(input.name, errors);
  if (input.api_privilege_group_id === undefined) errors.api_privilege_group_id = ['is required'];
  if (input.all_folders === undefined) errors.all_folders = ['is required'];
  if (input.all_folders === false && (input.folder_ids ?? []).length === 0)
    errors.folder_ids = ['must list at least one project folder when all_folders is false'];
  const description = checkDescription(input.description, errors);
  const ipAllowList = checkIpAllowList(input.ip_allow_list, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  return ctx.db.transaction().execute(async (trx) => {
    const environment = await resolveEnvironment(trx, workspaceId, input, grantor?.environmentId);
    const roleId = await checkRole(trx, grantor, workspaceId, input.api_privilege_group_id as number);
    const allFolders = input.all_folders === true;
    const folderIds = allFolders ? [] : await checkFolders(trx, grantor, environment.id, input.folder_ids ?? []);
    if (allFolders && grantor && !grantor.allFolders) {
      throw new AppError('scoped_client_cannot_create_all_folders');
    }
    const now = toStored(ctx.clock.now());
    const token = generateToken(environment.type);
    const id = await uniqueOr422(() =>
      insertClient(trx, {
        workspace_id: workspaceId,
        environment_id: environment.id,
        role_id: roleId,
        name: name as string,
        name_key: nameKey(name as string),
        description: description ?? null,
        all_folders: allFolders ? 1 : 0,
        folder_ids: JSON.stringify(folderIds),
        ip_allow_list: ipAllowList ?? '',
        token_hash: hashToken(token),
        token_updated_at: now,
        created_at: now,
        updated_at: now,
      }),
    );
    return clientToApi(assertFound(await findClient(trx, workspaceId, id)), token);
  });
}

export async function updateClient(
  ctx: ServiceContext,
  grantor: Grantor,
  id: number,
  input: ClientInput,
): Promise<DeveloperApiClientApi> {
  const known: (keyof ClientInput)[] = [
    'name',
    'api_privilege_group_id',
    'all_folders',
    'folder_ids',
    'environment_name',
    'environment',
    'ip_allow_list',
    'description',
  ];
  if (!known.some((key) => input[key] !== undefined)) {
    throw new AppError('nothing_to_update', { errors: { body: [`must contain at least one of ${known.join(', ')}`] } });
  }
  const errors: Record<string, string[]> = {};
  const name = input.name === undefined ? undefined : checkName(input.name, errors);
  const description = checkDescription(input.description, errors);
  const ipAllowList = checkIpAllowList(input.ip_allow_list, errors);
  if (Object.keys(errors).length > 0) throw invalid(errors);

  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = assertFound(await findClient(trx, grantor.workspaceId, id));
    await assertTargetWithinGrantor(trx, grantor, current);
    if (input.environment !== undefined || input.environment_name !== undefined) {
      const wanted = await resolveEnvironment(trx, grantor.workspaceId, input, current.environment_id);
      if (wanted.id !== current.environment_id) {
        throw invalid({ environment: ['cannot be changed; delete the client and create it in the other environment'] });
      }
    }
    const roleId =
      input.api_privilege_group_id === undefined
        ? current.role_id
        : await checkRole(trx, grantor, grantor.workspaceId, input.api_privilege_group_id);
    // Sending folder_ids alone narrows an all-folders client to those projects.
    const allFolders = input.all_folders ?? (input.folder_ids !== undefined ? false : current.all_folders === 1);
    let folderIds: number[] = [];
    if (!allFolders) {
      const requested = input.folder_ids ?? folderIdsOf(current);
      if (requested.length === 0)
        throw invalid({ folder_ids: ['must list at least one project folder when all_folders is false'] });
      folderIds = await checkFolders(trx, grantor, current.environment_id, requested);
    } else if (!grantor.allFolders) {
      throw new AppError('scoped_client_cannot_grant_all_folders');
    }
    await uniqueOr422(() =>
      updateClientRow(trx, grantor.workspaceId, id, {
        ...(name !== undefined ? { name, name_key: nameKey(name) } : {}),
        ...(description !== undefined ? { description: description === '' ? null : description } : {}),
        ...(ipAllowList !== undefined ? { ip_allow_list: ipAllowList } : {}),
        role_id: roleId,
        all_folders: allFolders ? 1 : 0,
        folder_ids: JSON.stringify(folderIds),
        updated_at: toStored(ctx.clock.now()),
      }),
    );
    return clientToApi(assertFound(await findClient(trx, grantor.workspaceId, id)));
  });
  ctx.notifier.publish('developer_api_clients.changed', { workspaceId: grantor.workspaceId });
  return result;
}

export async function deleteClient(ctx: ServiceContext, grantor: Grantor, id: number): Promise<void> {
  const workspaceId = grantor.workspaceId;
  await ctx.db.transaction().execute(async (trx) => {
    await assertTargetWithinGrantor(trx, grantor, assertFound(await findClient(trx, workspaceId, id)));
    if (!(await deleteClientRow(trx, workspaceId, id))) throw new AppError('not_found');
  });
  ctx.notifier.publish('developer_api_clients.changed', { workspaceId });
}

/** A new token for the client; the old one stops working in the same statement. */
export async function regenerateToken(
  ctx: ServiceContext,
  grantor: Grantor,
  id: number,
): Promise<DeveloperApiClientApi> {
  const workspaceId = grantor.workspaceId;
  const result = await ctx.db.transaction().execute(async (trx) => {
    const current = assertFound(await findClient(trx, workspaceId, id));
    await assertTargetWithinGrantor(trx, grantor, current);
    const token = generateToken(current.environment_type);
    const now = toStored(ctx.clock.now());
    await updateClientRow(trx, workspaceId, id, {
      token_hash: hashToken(token),
      token_updated_at: now,
      updated_at: now,
    });
    return clientToApi(assertFound(await findClient(trx, workspaceId, id)), token);
  });
  ctx.notifier.publish('developer_api_clients.changed', { workspaceId: workspaceId });
  return result;
}

/** Set a client's token to a value chosen outside (SWITCHBOARD_ADMIN_TOKEN). */
export async function setClientToken(
  db: Db,
  workspaceId: number,
  id: number,
  token: string,
  now: string,
): Promise<void> {
  await updateClientRow(db, workspaceId, id, { token_hash: hashToken(token), token_updated_at: now, updated_at: now });
}

function checkName(name: string | undefined, errors: Record<string, string[]>): string | undefined {
  const trimmed = name?.trim();
  if (trimmed === undefined || trimmed === '') errors.name = ["can't be blank"];
  else if (trimmed.length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
  return trimmed;
}

function checkDescription(description: string | undefined, errors: Record<string, string[]>): string | undefined {
  if (description !== undefined && description.length > MAX_DESCRIPTION)
    errors.description = [`is too long (maximum is ${MAX_DESCRIPTION} characters)`];
  return description;
}

function checkIpAllowList(input: string | string[] | undefined, errors: Record<string, string[]>): string | undefined {
  if (input === undefined) return undefined;
  const parsed = parseIpAllowList(input);
  if ('invalid' in parsed) {
    errors.ip_allow_list = [
      `has entries that are not IP addresses or CIDR ranges: ${parsed.invalid.slice(0, 5).join(', ')}`,
    ];
    return undefined;
  }
  return parsed.value;
}

const ENVIRONMENT_ALIASES: Record<string, EnvironmentType> = {
  dev: 'dev',
  development: 'dev',
  test: 'test',
  testing: 'test',
  prod: 'prod',
  production: 'prod',
};

/** The environment named by `environment` (DEV/TEST/PROD) and/or `environment_name`; else the fallback. */
async function resolveEnvironment(
  db: Db,
  workspaceId: number,
  input: ClientInput,
  fallbackId: number | undefined,
): Promise<EnvironmentRow> {
  const environments = await listEnvironments(db, workspaceId);
  const byType = (field: 'environment' | 'environment_name', value: string | undefined): EnvironmentRow | undefined => {
    if (value === undefined) return undefined;
    const type = ENVIRONMENT_ALIASES[value.trim().toLowerCase()];
    const found = environments.find((e) => e.type === type || e.name.toLowerCase() === value.trim().toLowerCase());
    if (!found)
      throw invalid({
        [field]: [`must be one of ${environments.map((e) => `${e.type.toUpperCase()} (${e.name})`).join(', ')}`],
      });
    return found;
  };
  const a = byType('environment', input.environment);
  const b = byType('environment_name', input.environment_name);
  if (a && b && a.id !== b.id) throw invalid({ environment: ['does not match environment_name'] });
  const chosen =
    a ??
    b ??
    (fallbackId === undefined ? environments.find((e) => e.type === 'dev') : await findEnvironment(db, fallbackId));
  return assertFound(chosen);
}

/**
 * A caller never gains or touches more than it holds: updating, deleting or regenerating the
 * token of another client needs the target's role and project scope to lie within the caller's.
 */
async function assertTargetWithinGrantor(db: Db, grantor: Grantor, target: ClientWithEnvironment): Promise<void> {
  const role = await findRole(db, grantor.workspaceId, target.role_id);
  const missing = role ? rolePrivileges(role).filter((p) => !grantor.privileges.has(p)) : [];
  if (missing.length > 0) {
    throw new AppError('client_holds_unheld_privileges', {
      params: { privileges: `${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}` },
    });
  }
  if (grantor.allFolders) return;
  if (target.all_folders === 1) throw new AppError('client_reaches_all_folders');
  const outside = folderIdsOf(target).filter((folderId) => !grantor.folderIds.includes(folderId));
  if (outside.length > 0)
    throw new AppError('client_folders_out_of_scope', { params: { folders: outside.slice(0, 10).join(', ') } });
}

async function checkRole(db: Db, grantor: Grantor | null, workspaceId: number, roleId: number): Promise<number> {
  const role = await findRole(db, workspaceId, roleId);
  if (!role) throw invalid({ api_privilege_group_id: ['does not exist'] });
  if (grantor) {
    const missing = rolePrivileges(role).filter((p) => !grantor.privileges.has(p));
    if (missing.length > 0) {
      throw new AppError('api_client_role_exceeds_caller', {
        params: { privileges: `${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}` },
      });
    }
  }
  return role.id;
}

async function checkFolders(
  db: Db,
  grantor: Grantor | null,
  environmentId: number,
  requested: readonly number[],
): Promise<number[]> {
  const unique = [...new Set(requested)];
  const found = new Set(await findProjectFolderIds(db, environmentId, unique));
  const unknown = unique.filter((id) => !found.has(id));
  if (unknown.length > 0)
    throw invalid({
      folder_ids: [`are not project folders of the client's environment: ${unknown.slice(0, 10).join(', ')}`],
    });
  if (grantor && !grantor.allFolders) {
    const outside = unique.filter((id) => !grantor.folderIds.includes(id));
    if (outside.length > 0)
      throw new AppError('folders_out_of_scope', { params: { folders: outside.slice(0, 10).join(', ') } });
  }
  return unique.sort((x, y) => x - y);
}
