// Legacy collaborator roles (contract 05 §4): list, copy, and set the folders a role reaches.
// Roles belong to the workspace; the folders they name belong to the caller's environment.
import type { ServiceContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import type { Db } from '../../db/types.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import type { Page } from '../../http/pagination.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import {
  countCollaboratorRoles,
  findCollaboratorRole,
  folderIdsOfRoles,
  foldersOfEnvironment,
  insertCollaboratorRole,
  listCollaboratorRoles,
  projectFoldersOf,
  replaceRoleFolders,
  roleNameKey,
  roleToApi,
  setRoleAllFolders,
  SYSTEM_ROLE_NAMES,
  type CollaboratorRoleApi,
} from './roles.store.ts';

type Caller = Pick<AuthContext, 'workspaceId' | 'environmentId' | 'allFolders' | 'folderIds'>;

const MAX_NAME_LENGTH = 255;

export async function listRoles(ctx: ServiceContext, workspaceId: number, page: Page): Promise<CollaboratorRoleApi[]> {
  const rows = await listCollaboratorRoles(ctx.db, workspaceId, page);
  const folders = await folderIdsOfRoles(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => roleToApi(row, folders.get(row.id) ?? []));
}

export async function countRoles(ctx: ServiceContext, workspaceId: number): Promise<number> {
  return countCollaboratorRoles(ctx.db, workspaceId);
}

/**
 * A copy of a role under a new name, with the source's privileges and inheritance. Its folders
 * are `folder_ids` when given, otherwise the source's (all folders, or the same list).
 */
export async function copyRole(
  ctx: ServiceContext,
  auth: Caller,
  id: number,
  input: { name: string; folder_ids?: readonly number[] | undefined },
): Promise<CollaboratorRoleApi> {
  const name = validName(input.name);
  const requested = input.folder_ids === undefined ? undefined : [...new Set(input.folder_ids)];
  return ctx.db.transaction().execute(async (trx) => {
    const source = assertFound(await findCollaboratorRole(trx, auth.workspaceId, id));
    let allFolders: boolean;
    let folderIds: number[];
    if (requested !== undefined) {
      await assertFoldersUsable(trx, auth, requested);
      allFolders = false;
      folderIds = requested;
    } else {
      allFolders = source.all_folders === 1;
      folderIds = allFolders ? [] : ((await folderIdsOfRoles(trx, [source.id])).get(source.id) ?? []);
      await assertFoldersInScope(trx, auth, folderIds);
    }
    assertMayGrantAllFolders(auth, allFolders);
    const now = toStored(ctx.clock.now());
    let row;
    try {
      row = await insertCollaboratorRole(trx, {
        workspaceId: auth.workspaceId,
        name,
        inheritable: source.inheritable === 1,
        allFolders,
        privileges: JSON.parse(source.privileges) as Record<string, string[]>,
        now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
      throw error;
    }
    await replaceRoleFolders(trx, row.id, folderIds);
    return roleToApi(row, folderIds);
  });
}

/**
 * Set the folders a role reaches (05 §4.3). `all_folders` comes as a boolean or, as the vendor
 * documents, the string "true"/"false"; true clears the list. `folder_ids` alone restricts the
 * role to those folders; `all_folders: false` alone keeps the current list.
 */
export async function updateRoleFolders(
  ctx: ServiceContext,
  auth: Caller,
  id: number,
  input: { all_folders?: boolean | string | undefined; folder_ids?: readonly number[] | undefined },
): Promise<CollaboratorRoleApi> {
  const allFoldersInput = parseFlag(input.all_folders);
  if (allFoldersInput === undefined && input.folder_ids === undefined)
    throw invalid({ all_folders: ['or folder_ids is required'] });
  const requested = input.folder_ids === undefined ? undefined : [...new Set(input.folder_ids)];
  return ctx.db.transaction().execute(async (trx) => {
    const role = assertFound(await findCollaboratorRole(trx, auth.workspaceId, id));
    await assertRoleWithinScope(trx, auth, role);
    const allFolders = allFoldersInput ?? false;
    assertMayGrantAllFolders(auth, allFolders);
    let folderIds: number[] = [];
    if (!allFolders) {
      if (requested !== undefined) {
        await assertFoldersUsable(trx, auth, requested);
        folderIds = requested;
      } else {
        folderIds = role.all_folders === 1 ? [] : ((await folderIdsOfRoles(trx, [role.id])).get(role.id) ?? []);
      }
    }
    const now = toStored(ctx.clock.now());
    await setRoleAllFolders(trx, auth.workspaceId, role.id, allFolders, now);
    await replaceRoleFolders(trx, role.id, folderIds);
    return roleToApi({ ...role, all_folders: allFolders ? 1 : 0, updated_at: now }, folderIds);
  });
}

function validName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  if (name.length > MAX_NAME_LENGTH)
    throw invalid({ name: [`is too long (maximum is ${MAX_NAME_LENGTH} characters)`] });
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid({ name: ['must not contain control characters'] });
  if (SYSTEM_ROLE_NAMES.some((system) => roleNameKey(system) === roleNameKey(name))) {
    throw new AppError('name_taken', { errors: { name: ['is the name of a system role'] } });
  }
  return name;
}

function parseFlag(value: boolean | string | undefined): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalid({ all_folders: ['must be true or false'] });
}

/** Folder ids sent by the caller: folders of its environment, inside its projects when it is scoped. */
async function assertFoldersUsable(db: Db, auth: Caller, ids: readonly number[]): Promise<void> {
  const found = await foldersOfEnvironment(db, auth.environmentId, ids);
  const usable = new Set(
    found
      .filter((f) => auth.allFolders || (f.projectFolderId !== null && auth.folderIds.includes(f.projectFolderId)))
      .map((f) => f.id),
  );
  // Unknown and out-of-scope folders read the same, so that existence does not leak.
  const unknown = ids.filter((folderId) => !usable.has(folderId));
  if (unknown.length > 0) throw invalid({ folder_ids: [`has unknown folders: ${unknown.slice(0, 10).join(', ')}`] });
}

/** Folders copied from a source role: a scoped caller may not hand out folders beyond its projects. */
async function assertFoldersInScope(db: Db, auth: Caller, ids: readonly number[]): Promise<void> {
  if (auth.allFolders || ids.length === 0) return;
  const folders = await projectFoldersOf(db, ids);
  if (folders.some((f) => f.projectFolderId === null || !auth.folderIds.includes(f.projectFolderId))) {
    throw new AppError('role_folders_out_of_scope');
  }
}

/** A caller limited to some projects never touches a role that reaches beyond them. */
async function assertRoleWithinScope(db: Db, auth: Caller, role: { id: number; all_folders: number }): Promise<void> {
  if (auth.allFolders) return;
  if (role.all_folders === 1) throw new AppError('role_reaches_all_folders');
  const folders = await projectFoldersOf(db, (await folderIdsOfRoles(db, [role.id])).get(role.id) ?? []);
  if (folders.some((f) => f.projectFolderId === null || !auth.folderIds.includes(f.projectFolderId))) {
    throw new AppError('role_reaches_outside_scope');
  }
}

function assertMayGrantAllFolders(auth: Caller, allFolders: boolean): void {
  if (allFolders && !auth.allFolders) {
    throw new AppError('scoped_client_cannot_give_role_all_folders');
  }
}
