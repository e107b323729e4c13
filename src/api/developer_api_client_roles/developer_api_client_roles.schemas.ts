import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../http/schemas.ts';
import { ALL_PRIVILEGES } from '../../auth/privileges.ts';

export const Role = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  privileges: Type.Array(Type.String(), { description: `Privilege names: ${ALL_PRIVILEGES.join(', ')}` }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const RoleListResult = Type.Object({ result: Type.Object({ count: Type.Integer(), items: Type.Array(Role) }) });
export const RoleResult = Type.Object({ result: Role });
export const RoleListQuery = Type.Object(PageQuery);

export const CopyRoleBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  privileges: Type.Optional(
    Type.Array(Type.String({ maxLength: 100 }), {
      maxItems: 200,
      description: 'Privileges of the copy; default: those of the source role',
    }),
  ),
});
