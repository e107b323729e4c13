import { Type } from 'typebox';
import { Id, IdInput, PageQuery } from '../../http/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** A field value: given, or a reference to a secret resolved where the credential is used. */
const InputValue = Type.Union([
  Type.String({ maxLength: 65_536 }),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
  Type.Object(
    {
      secret: Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'NAME or store:NAME (built-in store), env:NAME, file:NAME',
      }),
    },
    { additionalProperties: false },
  ),
]);

const Input = Type.Record(Type.String(), InputValue, {
  maxProperties: 100,
  description:
    'Connector fields. Each value is given, or {"secret": "<reference>"}; null removes a field on update. Stored encrypted, never returned. rest/http: base_url, auth_type (none, basic, bearer, api_key), username, password, token, api_key, api_key_header.',
});

// Unknown fields are ignored (the contract does not close these bodies).
const fields = {
  name: Type.String({ maxLength: 10_000 }),
  provider: Type.String({
    maxLength: 1000,
    description: 'Connector key; any key is stored. rest (alias http) is the built-in HTTP connection',
  }),
  description: Nullable(Type.String({ maxLength: 100_000 })),
  folder_id: IdInput,
  parent_id: Nullable(IdInput),
  external_id: Nullable(Type.String({ maxLength: 10_000 })),
  custom_oauth_profile_id: Nullable(IdInput),
  shell_connection: Type.Boolean({ description: 'true: store without testing. false (default): store and test' }),
  input: Input,
};

export const CreateConnectionBody = Type.Object({
  name: fields.name,
  provider: fields.provider,
  description: Type.Optional(fields.description),
  folder_id: Type.Optional(fields.folder_id),
  parent_id: Type.Optional(fields.parent_id),
  external_id: Type.Optional(fields.external_id),
  custom_oauth_profile_id: Type.Optional(fields.custom_oauth_profile_id),
  shell_connection: Type.Optional(fields.shell_connection),
  input: Type.Optional(fields.input),
});

export const UpdateConnectionBody = Type.Partial(CreateConnectionBody);

export const DisconnectBody = Type.Object({
  force: Type.Optional(Type.Boolean({ description: 'Disconnect even when running recipes use the connection' })),
});

/** A pick list read through a connection (contract 04 §1.8). */
export const PickListBody = Type.Object(
  {
    pick_list_name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    pick_list_params: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
        maxProperties: 50,
        description: "The pick list's arguments, by name",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Entries `[label, value]`, possibly with more positions (C `spec`: up to 4). */
export const PickListResult = Type.Object({
  data: Type.Array(Type.Array(Type.Unknown(), { minItems: 2 })),
});

/** Non-numeric ids answer 404, not 400 (contract 04 §1.1). */
export const ConnectionIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'Connection id' }) });

export const ListConnectionsQuery = Type.Object({
  folder_id: Type.Optional(Id),
  parent_id: Type.Optional(Id),
  external_id: Type.Optional(Type.String({ maxLength: 255 })),
  provider: Type.Optional(Type.String({ maxLength: 100 })),
  include_runtime_connections: Type.Optional(Type.Boolean()),
  'includes[]': Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })),
  includes: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })),
  ...PageQuery,
});

export const Connection = Type.Object({
  id: Type.Integer(),
  application: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  authorized_at: Nullable(Type.String()),
  authorization_status: Nullable(Type.String({ description: 'success, failed, or null when never tested' })),
  authorization_error: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  external_id: Nullable(Type.String()),
  folder_id: Type.Integer(),
  connection_lost_at: Nullable(Type.String()),
  connection_lost_reason: Nullable(Type.String()),
  parent_id: Nullable(Type.Integer()),
  provider: Type.String(),
  tags: Type.Array(Type.String()),
  custom_oauth_profile_id: Nullable(Type.Integer()),
  input_fields: Type.Array(Type.String(), {
    description: 'Names of the stored input fields; their values are never returned',
  }),
});

export const ConnectionList = Type.Array(Connection);
export const DisconnectResult = Type.Object({ success: Type.Boolean(), status: Type.String() });
