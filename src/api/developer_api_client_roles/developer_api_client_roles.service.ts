// Developer API client roles: list, and copy (the only way to make a custom role over the API).
import type { ServiceContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/dialect.ts';
import { AppError, assertFound, invalid } from '../../errors.ts';
import { toStored } from '../../time.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import {
  countRoles,
  findRole,
  insertRole,
  listRoles as listRoleRows,
  rolePrivileges,
  roleToApi,
  type RoleApi,
} from './developer_api_client_roles.store.ts';
import { isPrivilege, type Privilege } from '../../auth/privileges.ts';

export async function listRoles(ctx: ServiceContext, workspaceId: number, page: { offset: number; perPage: number }) {
  const [rows, count] = await Promise.all([listRoleRows(ctx.db, workspaceId, page), countRoles(ctx.db, workspaceId)]);
  return { count, items: rows.map(roleToApi) };
}

/**
 * Copy a role under a new name, optionally with a different privilege list. Nobody can copy
 * a role into one that grants what they do not hold themselves.
 */
export async function copyRole(
  ctx: ServiceContext,
  auth: Pick<AuthContext, 'workspaceId' | 'privileges'>,
  id: number,
  input: { name: string; privileges?: string[] },
): Promise<RoleApi> {
  const name = input.name.trim();
  if (name === '') throw invalid({ name: ["can't be blank"] });
  if (name.length > 255) throw invalid({ name: ['is too long (maximum is 255 characters)'] });
  const unknown = (input.privileges ?? []).filter((p) => !isPrivilege(p));
  if (unknown.length > 0) throw invalid({ privileges: [`has unknown privileges: ${unknown.slice(0, 5).join(', ')}`] });

  return ctx.db.transaction().execute(async (trx) => {
    const source = assertFound(await findRole(trx, auth.workspaceId, id));
    const privileges = (input.privileges as Privilege[] | undefined) ?? rolePrivileges(source);
    const missing = privileges.filter((p) => !auth.privileges.has(p));
    if (missing.length > 0)
      throw new AppError('role_grants_unheld_privileges', { params: { privileges: missing.slice(0, 3).join(', ') } });
    try {
      return roleToApi(
        await insertRole(trx, { workspaceId: auth.workspaceId, name, privileges, now: toStored(ctx.clock.now()) }),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { name: ['has already been taken'] } });
      throw error;
    }
  });
}
