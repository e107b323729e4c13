import { Type, type Static } from 'typebox';
import { IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

const IpAllowList = Type.Union(
  [Type.String({ maxLength: 10_000 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 500 })],
  {
    description: 'Allowed addresses and CIDR ranges: an array, or one comma-separated string; empty allows any address',
  },
);

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  api_privilege_group_id: IdInput,
  all_folders: Type.Boolean({ description: 'true: every project, including future ones' }),
  folder_ids: Type.Array(IdInput, {
    maxItems: 1000,
    description: 'Project folder ids in scope when all_folders is false',
  }),
  environment_name: Type.String({ maxLength: 100, description: 'Development, Test or Production' }),
  environment: Type.String({ maxLength: 20, description: 'DEV, TEST or PROD (alternative to environment_name)' }),
  ip_allow_list: IpAllowList,
  description: Type.String({ maxLength: 1000 }),
};

// Unknown fields are ignored, as the vendor does: the contract does not close these bodies.
export const CreateClientBody = Type.Object({
  name: fields.name,
  api_privilege_group_id: fields.api_privilege_group_id,
  all_folders: fields.all_folders,
  folder_ids: Type.Optional(fields.folder_ids),
  environment_name: Type.Optional(fields.environment_name),
  environment: Type.Optional(fields.environment),
  ip_allow_list: Type.Optional(fields.ip_allow_list),
  description: Type.Optional(fields.description),
});
export type CreateClientBody = Static<typeof CreateClientBody>;

export const UpdateClientBody = Type.Partial(CreateClientBody);
export type UpdateClientBody = Static<typeof UpdateClientBody>;

export const DeveloperApiClient = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  api_privilege_group_id: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  all_folders: Type.Boolean(),
  folder_ids: Type.Array(Type.Integer()),
  environment_name: Type.Union([Type.String(), Type.Null()]),
  environment_id: Type.Union([Type.Integer(), Type.Null()]),
  ip_allow_list: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  token: Type.Object({
    value: Type.Optional(Type.String({ description: 'The API token: only in the create and regenerate replies' })),
    updated_at: Type.String(),
  }),
});

export const ClientResult = Type.Object({ result: DeveloperApiClient });
export const ClientListResult = Type.Object({
  result: Type.Object({ count: Type.Integer(), items: Type.Array(DeveloperApiClient) }),
});
export const DeleteResult = Type.Object({ result: Type.Object({ success: Type.Boolean() }) });
export const ListQuery = Type.Object(PageQuery);
