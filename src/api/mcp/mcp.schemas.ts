// MCP servers as the vendor's CLI reads them (contract 23 §1): string handles, exact wrappers.
import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../http/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const McpServer = Type.Object({
  id: Type.String({ description: 'The handle, used in every path (mcps-...)' }),
  name: Type.String(),
  description: NullableString,
  asset_type: Type.String({ description: 'project_assets or api_collection' }),
  logo_url: NullableString,
  mcp_url: Type.String({
    description: 'Where MCP clients connect; carries ?token= only in the create and token_renew replies',
  }),
  auth_type: Type.String(),
  authentication_method: Type.String(),
  folder_id: Type.Integer(),
  project_id: Type.Integer(),
  folders: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
  has_vua_dependent_tools: Type.Boolean(),
  idp_user_group_ids: Type.Array(Type.String()),
  api_collection: Type.Union([
    Type.Object({
      id: Type.Integer(),
      type: Type.String(),
      name: Type.String(),
      created_at: Timestamp,
      updated_at: Timestamp,
    }),
    Type.Null(),
  ]),
  tools_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const McpServerEnvelope = Type.Object({ data: McpServer });
export const McpServerList = Type.Object({ data: Type.Array(McpServer) });

export const McpTool = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: NullableString,
  original_description: NullableString,
  trigger_application: NullableString,
  action_applications: Type.Array(Type.String()),
  flow_id: Type.Integer(),
  active: Type.Boolean(),
  enabled: Type.Boolean(),
  vua_required: Type.Boolean(),
  incompatibility_reasons: Type.Array(Type.String()),
});

export const McpToolList = Type.Object({ items: Type.Array(McpTool) });

const RateLimits = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  interval: Type.Literal('minute'),
});
const QuotaLimits = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  interval: Type.Union([
    Type.Literal('30 days'),
    Type.Literal('60 days'),
    Type.Literal('90 days'),
    Type.Literal('year'),
  ]),
});
const AddressList = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 });

export const McpPolicy = Type.Object({
  id: Type.Union([Type.Integer(), Type.Null()]),
  mcp_server_id: Type.String(),
  rate_limits: Type.Union([RateLimits, Type.Null()]),
  quota_limits: Type.Union([QuotaLimits, Type.Null()]),
  ip_allow_list: Type.Array(Type.String()),
  ip_deny_list: Type.Array(Type.String()),
  created_at: Type.Union([Timestamp, Type.Null()]),
  updated_at: Type.Union([Timestamp, Type.Null()]),
});

export const PolicyBody = Type.Object({
  mcp_server_policy: Type.Object({
    rate_limits: Type.Optional(Type.Union([RateLimits, Type.Null()])),
    quota_limits: Type.Optional(Type.Union([QuotaLimits, Type.Null()])),
    ip_allow_list: Type.Optional(Type.Union([AddressList, Type.Null()])),
    ip_deny_list: Type.Optional(Type.Union([AddressList, Type.Null()])),
  }),
});

export const UserGroup = Type.Object({
  id: Type.String(),
  name: Type.String(),
  users_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const UserGroupList = Type.Object({ data: Type.Array(UserGroup) });

export const HandleParams = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 64 }) });
export const ToolParams = Type.Object({
  handle: Type.String({ minLength: 1, maxLength: 64 }),
  tool_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

const FolderIdInput = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const ServerListQuery = Type.Object({
  project_id: Type.Optional(FolderIdInput),
  folder_id: Type.Optional(FolderIdInput),
  authentication_method: Type.Optional(Type.Union([Type.Literal('token'), Type.Literal('workato_idp')])),
  ...PageQuery,
});

export const CreateServerBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  folder_id: FolderIdInput,
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  asset_id: Type.Optional(Type.Union([FolderIdInput, Type.Null()])),
});

export const UpdateServerBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  auth_type: Type.Optional(Type.Union([Type.Literal('token'), Type.Literal('workato_idp')])),
  folder_id: Type.Optional(FolderIdInput),
});

export const AssignToolsBody = Type.Object({
  tools: Type.Array(
    Type.Object({
      trigger_application: Type.Optional(Type.String({ maxLength: 100 })),
      id: Type.Union([Type.String({ pattern: '^[0-9]{1,15}$' }), Type.Integer({ minimum: 1 })]),
    }),
    { minItems: 1, maxItems: 200 },
  ),
});

export const UpdateToolBody = Type.Object({ description: Type.String({ maxLength: 10_000 }) });

export const UserGroupsBody = Type.Object({
  idp_user_group_ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 }),
});

export const ListPageQuery = Type.Object({ ...PageQuery });
