import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../http/schemas.ts';

const Data = {
  client_id: Type.String({ maxLength: 10_000, description: 'OAuth client id of the app (returned)' }),
  client_secret: Type.String({
    maxLength: 100_000,
    description: 'OAuth client secret: stored encrypted, never returned',
  }),
  token: Type.String({
    maxLength: 100_000,
    description: 'Extra provider secret (signing or verification token): stored encrypted, never returned',
  }),
};

// Unknown fields are ignored, as elsewhere in the API.
export const CreateProfileBody = Type.Object({
  name: Type.String({ maxLength: 10_000 }),
  provider: Type.String({ maxLength: 1000, description: 'Connector key, e.g. slack' }),
  data: Type.Object({ client_id: Data.client_id, client_secret: Data.client_secret, token: Type.Optional(Data.token) }),
});

export const UpdateProfileBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 10_000 })),
  provider: Type.Optional(Type.String({ maxLength: 1000 })),
  data: Type.Optional(
    Type.Object({
      client_id: Type.Optional(Data.client_id),
      client_secret: Type.Optional(
        Type.String({ ...Data.client_secret, description: 'Omit to keep the stored secret' }),
      ),
      token: Type.Optional(
        Type.Union([Data.token, Type.Null()], { description: 'Omit to keep; null or "" removes it' }),
      ),
    }),
  ),
});

export const CustomOauthProfile = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer({ description: 'Workspace id' }),
  name: Type.String(),
  provider: Type.String(),
  data: Type.Object({ client_id: Type.String() }, { description: 'Only client_id: secrets are never returned' }),
  shared_accounts_count: Type.Integer({ description: 'Connections using the profile' }),
  oem_customers_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ProfileListQuery = Type.Object(PageQuery);
export const ProfileListResult = Type.Object({ result: Type.Array(CustomOauthProfile) });
export const ProfileResult = Type.Object({ result: CustomOauthProfile });
export const ProfileDeleteResult = Type.Object({ result: Type.Object({ success: Type.Boolean() }) });
