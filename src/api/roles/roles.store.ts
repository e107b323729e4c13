// Legacy collaborator roles (custom roles of type privilege_group), per workspace, and the
// folders each one reaches.
import type { CollaboratorRoleRow, Db } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';

export type RolePrivileges = Record<string, string[]>;

export interface CollaboratorRoleApi {
  id: number;
  name: string;
  inheritable: boolean;
  all_folders: boolean;
  folder_ids: number[];
  created_at: string;
  updated_at: string;
  privileges: RolePrivileges;
}

/**
 * The custom roles every new workspace lists (contract README: Analyst and Operator). Category
 * and action names follow the vendor's legacy role editor; beyond Recipes/read they are P.
 */
export const SEED_COLLABORATOR_ROLES: ReadonlyArray<{ name: string; privileges: RolePrivileges }> = [
  {
    name: 'Analyst',
    privileges: {
      Recipes: ['read'],
      Jobs: ['read'],
      Connections: ['read'],
      'Lookup tables': ['read'],
      'Projects & folders': ['read'],
    },
  },
  {
    name: 'Operator',
    privileges: {
      Recipes: ['read', 'create', 'update', 'run'],
      Jobs: ['read'],
      Connections: ['read', 'create', 'update'],
      'Lookup tables': ['read', 'update'],
      'Projects & folders': ['read'],
    },
  },
];

/** System roles: not listed, not copyable, but valid in invitations; their names are reserved. */
export const SYSTEM_ROLE_NAMES: readonly string[] = ['Admin'];

export function roleNameKey(name: string): string {
  return name.trim().toLowerCase();
}

export function roleToApi(row: CollaboratorRoleRow, folderIds: readonly number[]): CollaboratorRoleApi {
  return {
    id: row.id,
    name: row.name,
    inheritable: row.inheritable === 1,
    all_folders: row.all_folders === 1,
    folder_ids: row.all_folders === 1 ? [] : [...folderIds].sort((a, b) => a - b),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
    privileges: parsePrivileges(row.privileges),
  };
}

function parsePrivileges(text: string): RolePrivileges {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const out: RolePrivileges = {};
  for (const [category, actions] of Object.entries(parsed)) {
    if (Array.isArray(actions)) out[category] = actions.filter((a): a is string => typeof a === 'string');
  }
  return out;
}

export async function insertCollaboratorRole(
  db: Db,
  input: {
    workspaceId: number;
    name: string;
    inheritable: boolean;
    allFolders: boolean;
    privileges: RolePrivileges;
    now: string;
  },
): Promise<CollaboratorRoleRow> {
  return db
    .insertInto('collaborator_roles')
    .values({
      workspace_id: input.workspaceId,
      name: input.name.trim(),
      name_key: roleNameKey(input.name),
      inheritable: input.inheritable ? 1 : 0,
      all_folders: input.allFolders ? 1 : 0,
      privileges: JSON.stringify(input.privileges),
      created_at: input.now,
      updated_at: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function seedCollaboratorRoles(db: Db, workspaceId: number, now: string): Promise<void> {
  for (const role of SEED_COLLABORATOR_ROLES) {
    await insertCollaboratorRole(db, {
      workspaceId,
      name: role.name,
      inheritable: false,
      allFolders: true,
      privileges: role.privileges,
      now,
    });
  }
}

export async function findCollaboratorRole(
  db: Db,
  workspaceId: number,
  id: number,
): Promise<CollaboratorRoleRow | undefined> {
  return db
    .selectFrom('collaborator_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findCollaboratorRoleByName(
  db: Db,
  workspaceId: number,
  name: string,
): Promise<CollaboratorRoleRow | undefined> {
  return db
    .selectFrom('collaborator_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('name_key', '=', roleNameKey(name))
    .executeTakeFirst();
}

export async function listCollaboratorRoles(
  db: Db,
  workspaceId: number,
  page: { offset: number; perPage: number },
): Promise<CollaboratorRoleRow[]> {
  return db
    .selectFrom('collaborator_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}

export async function countCollaboratorRoles(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('collaborator_roles')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Folder ids of each role, for a page of roles at once. */
export async function folderIdsOfRoles(db: Db, roleIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return out;
  const rows = await db
    .selectFrom('collaborator_role_folders')
    .select(['role_id', 'folder_id'])
    .where('role_id', 'in', roleIds)
    .execute();
  for (const row of rows) out.get(row.role_id)?.push(row.folder_id);
  return out;
}

export async function replaceRoleFolders(db: Db, roleId: number, folderIds: readonly number[]): Promise<void> {
  await db.deleteFrom('collaborator_role_folders').where('role_id', '=', roleId).execute();
  if (folderIds.length > 0)
    await db
      .insertInto('collaborator_role_folders')
      .values(folderIds.map((folderId) => ({ role_id: roleId, folder_id: folderId })))
      .execute();
}

export async function setRoleAllFolders(
  db: Db,
  workspaceId: number,
  roleId: number,
  allFolders: boolean,
  now: string,
): Promise<void> {
  await db
    .updateTable('collaborator_roles')
    .set({ all_folders: allFolders ? 1 : 0, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', roleId)
    .execute();
}

/**
 * Which of these folder ids exist in the environment, each with the folder id of the project it
 * belongs to (null for the Home folder), so that the caller's project scope can be applied.
 */
export async function foldersOfEnvironment(
  db: Db,
  environmentId: number,
  ids: readonly number[],
): Promise<Array<{ id: number; projectFolderId: number | null }>> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('folders as f')
    .leftJoin('projects as p', 'p.id', 'f.project_id')
    .select(['f.id as id', 'p.folder_id as project_folder_id'])
    .where('f.environment_id', '=', environmentId)
    .where('f.id', 'in', ids)
    .execute();
  return rows.map((r) => ({ id: r.id, projectFolderId: r.project_folder_id }));
}

/** The project folder of each of these folder ids, wherever they are (for scope checks of copies). */
export async function projectFoldersOf(
  db: Db,
  ids: readonly number[],
): Promise<Array<{ id: number; projectFolderId: number | null }>> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('folders as f')
    .leftJoin('projects as p', 'p.id', 'f.project_id')
    .select(['f.id as id', 'p.folder_id as project_folder_id'])
    .where('f.id', 'in', ids)
    .execute();
  return rows.map((r) => ({ id: r.id, projectFolderId: r.project_folder_id }));
}
