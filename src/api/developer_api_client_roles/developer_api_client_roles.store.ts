// Developer API client roles (privilege groups), per workspace.
import type { Db, RoleRow } from '../../db/types.ts';
import { toApiTimestamp } from '../../time.ts';
import { isPrivilege, type Privilege } from '../../auth/privileges.ts';

export interface RoleApi {
  id: number;
  name: string;
  privileges: Privilege[];
  created_at: string;
  updated_at: string;
}

export function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

export function rolePrivileges(row: Pick<RoleRow, 'privileges'>): Privilege[] {
  const parsed: unknown = JSON.parse(row.privileges);
  return Array.isArray(parsed) ? parsed.filter(isPrivilege) : [];
}

export function roleToApi(row: RoleRow): RoleApi {
  return {
    id: row.id,
    name: row.name,
    privileges: rolePrivileges(row),
    created_at: toApiTimestamp(row.created_at),
    updated_at: toApiTimestamp(row.updated_at),
  };
}

export async function insertRole(
  db: Db,
  input: { workspaceId: number; name: string; privileges: readonly Privilege[]; now: string },
): Promise<RoleRow> {
  return db
    .insertInto('developer_api_client_roles')
    .values({
      workspace_id: input.workspaceId,
      name: input.name.trim(),
      name_key: nameKey(input.name),
      privileges: JSON.stringify([...new Set(input.privileges)].sort()),
      created_at: input.now,
      updated_at: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findRole(db: Db, workspaceId: number, id: number): Promise<RoleRow | undefined> {
  return db
    .selectFrom('developer_api_client_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findRoleByName(db: Db, workspaceId: number, name: string): Promise<RoleRow | undefined> {
  return db
    .selectFrom('developer_api_client_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('name_key', '=', nameKey(name))
    .executeTakeFirst();
}

export async function listRoles(
  db: Db,
  workspaceId: number,
  page: { offset: number; perPage: number },
): Promise<RoleRow[]> {
  return db
    .selectFrom('developer_api_client_roles')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .limit(page.perPage)
    .offset(page.offset)
    .execute();
}

export async function countRoles(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('developer_api_client_roles')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
