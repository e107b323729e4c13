import { Type } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

export const CollaboratorRole = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  inheritable: Type.Boolean({ description: 'Shared with child workspaces' }),
  all_folders: Type.Boolean({ description: 'The role reaches every folder (then folder_ids is empty)' }),
  folder_ids: Type.Array(Type.Integer()),
  created_at: Timestamp,
  updated_at: Timestamp,
  privileges: Type.Record(Type.String(), Type.Array(Type.String()), {
    description: 'Category -> allowed actions, e.g. {"Recipes": ["read", "run"]}',
  }),
});

export const CollaboratorRoleList = Type.Array(CollaboratorRole, {
  description: 'Custom (non-system) roles, a bare array',
});

export const RoleListQuery = Type.Object(PageQuery);

export const RoleIdParams = Type.Object({ role_id: Id });

const FolderIds = Type.Array(IdInput, {
  maxItems: 1000,
  description: "Folder ids of the caller's environment (integers or decimal strings)",
});

export const CopyRoleBody = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  folder_ids: Type.Optional(FolderIds),
});

export const UpdateRoleBody = Type.Object({
  all_folders: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ maxLength: 10 })], {
      description: 'true or false, as a boolean or the string "true"/"false"',
    }),
  ),
  folder_ids: Type.Optional(FolderIds),
});
