import { Type } from 'typebox';
import { IdInput } from '../../http/schemas.ts';

const EnvRole = Type.Object({
  environment_type: Type.String({ maxLength: 20, description: 'dev, test or prod' }),
  name: Type.Optional(Type.String({ maxLength: 255, description: 'Role name: Admin or a custom role' })),
  role_name: Type.Optional(Type.String({ maxLength: 255, description: 'Older form of name' })),
  role_type: Type.Optional(Type.String({ maxLength: 50, description: 'privilege_group or environment' })),
});

export const InvitationBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: 'Display name of the invitee' }),
  email: Type.String({ maxLength: 1000 }),
  role_name: Type.Optional(
    Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
      description: 'One role for every environment: Admin or a custom role (deprecated by the vendor, still accepted)',
    }),
  ),
  env_roles: Type.Optional(
    Type.Array(EnvRole, { maxItems: 10, description: 'A role per environment; overrides role_name there' }),
  ),
  user_group_ids: Type.Optional(
    Type.Array(IdInput, { maxItems: 100, description: 'Collaborator groups to join (none exist in Switchboard)' }),
  ),
});

export const InvitationResult = Type.Object({ result: Type.Literal('ok') });
