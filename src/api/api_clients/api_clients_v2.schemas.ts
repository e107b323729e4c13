// API clients v2 (contract 03 §7): `{data: ...}` envelopes; ids in bodies as integers or decimal strings.
import { Type } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

const IpList = Type.Union([
  Type.Array(Type.String({ maxLength: 100 }), { maxItems: 500 }),
  Type.String({ maxLength: 10_000 }),
]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ApiKey = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    auth_type: Type.String({ description: 'token, jwt, oauth2 or oidc' }),
    ip_allow_list: Type.Array(Type.String()),
    ip_deny_list: Type.Array(Type.String()),
    active: Type.Boolean(),
    active_since: Timestamp,
    auth_token: Type.String({
      description:
        'The token in create and refresh_secret replies; elsewhere its masked form (first 8 characters, …, last 4). jwt/oidc: the access profile key the JWT carries; oauth2: the client secret',
    }),
    oauth_client_id: Type.Optional(Type.String({ description: 'oauth2 keys: the client_id for POST /oauth2/token' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'API key (a v1 access profile)' },
);

const IdName = Type.Object({ id: Type.Integer(), name: Type.String() });

export const ApiClientV2 = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    project_id: Nullable(Type.Integer()),
    active_api_keys_count: Type.Integer(),
    total_api_keys_count: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
    logo: Nullable(Type.String()),
    logo_2x: Nullable(Type.String()),
    is_legacy: Type.Boolean({ description: 'true for clients made through the v1 API' }),
    email: Nullable(Type.String()),
    auth_type: Type.String({ description: 'token, jwt, oauth2 or oidc' }),
    api_token: Type.Optional(
      Type.String({
        description: 'token clients, create reply only: the token of the first API key, made with the client',
      }),
    ),
    mtls_enabled: Type.Boolean(),
    validation_formula: Nullable(Type.String()),
    cert_bundle_ids: Type.Array(Type.Integer()),
    api_policies: Type.Array(IdName),
    api_collections: Type.Array(IdName),
    api_portal_id: Nullable(Type.Integer()),
    jwt_method: Type.Optional(Nullable(Type.String())),
    oidc_issuer: Type.Optional(Nullable(Type.String())),
    oidc_jwks_uri: Type.Optional(Nullable(Type.String())),
    access_profile_claim: Type.Optional(Nullable(Type.String())),
    required_claims: Type.Optional(Type.Array(Type.String())),
    allowed_issuers: Type.Optional(Type.Array(Type.String())),
    allowed_audiences: Type.Optional(Type.Array(Type.String())),
    api_keys: Type.Optional(Type.Array(ApiKey, { description: 'In GET /api/v2/api_clients/:id (tokens masked)' })),
  },
  { description: 'API client (v2)' },
);

const clientFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  api_collection_ids: Type.Array(IdInput, { maxItems: 1000 }),
  auth_type: Type.String({ maxLength: 20, description: 'token, jwt, oauth2 or oidc' }),
  project_id: IdInput,
  api_portal_id: Nullable(IdInput),
  email: Nullable(Type.String({ maxLength: 255 })),
  api_policy_id: Nullable(IdInput),
  jwt_method: Type.String({ maxLength: 10, description: 'jwt: hmac, rsa or ecdsa' }),
  jwt_secret: Type.String({
    maxLength: 20_000,
    description: 'jwt: the HMAC secret (32+ bytes), or an RSA or EC public key (PEM); never shown again',
  }),
  oidc_issuer: Type.String({
    maxLength: 2000,
    description: 'oidc: the issuer URL; its keys come from <issuer>/.well-known/openid-configuration',
  }),
  oidc_jwks_uri: Type.String({ maxLength: 2000, description: 'oidc, or jwt with rsa/ecdsa: a JWKS URL' }),
  access_profile_claim: Nullable(
    Type.String({
      maxLength: 255,
      description:
        'the claim that carries the API key; default: https://www.workato.com/sub, workato_sub, sub, then the kid header',
    }),
  ),
  required_claims: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }),
  allowed_issuers: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 }),
  allowed_audiences: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 }),
  mtls_enabled: Type.Boolean(),
  validation_formula: Nullable(Type.String({ maxLength: 10_000 })),
  cert_bundle_ids: Type.Array(IdInput, { maxItems: 100 }),
};

export const CreateApiClientV2Body = Type.Object({
  ...(Object.fromEntries(Object.entries(clientFields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof clientFields]: ReturnType<typeof Type.Optional<(typeof clientFields)[K]>>;
  }),
  name: clientFields.name,
  api_collection_ids: clientFields.api_collection_ids,
  auth_type: clientFields.auth_type,
});

export const UpdateApiClientV2Body = Type.Partial(Type.Object(clientFields));

export const ApiClientV2ListQuery = Type.Object({
  project_id: Type.Optional(Id),
  'cert_bundle_ids[]': Type.Optional(Type.Union([Id, Type.Array(Id, { maxItems: 100 })])),
  cert_bundle_ids: Type.Optional(Type.Union([Id, Type.Array(Id, { maxItems: 100 })])),
  ...PageQuery,
});

export const ApiClientV2Data = Type.Object({ data: ApiClientV2 });
export const ApiClientV2List = Type.Object({
  data: Type.Array(ApiClientV2),
  count: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
});
export const DataSuccess = Type.Object({ data: Type.Object({ success: Type.Boolean() }) });
export const ClientParams = Type.Object({ api_client_id: Id });

export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  active: Type.Boolean(),
  ip_allow_list: Type.Optional(IpList),
  ip_deny_list: Type.Optional(IpList),
});
export const UpdateApiKeyBody = Type.Partial(CreateApiKeyBody);
export const KeyParams = Type.Object({ api_client_id: Id, api_key_id: Id });
export const ApiKeyData = Type.Object({ data: ApiKey });
export const ApiKeyList = Type.Object({
  data: Type.Array(ApiKey),
  count: Type.Integer(),
  page: Type.Integer(),
  per_page: Type.Integer(),
});
export const KeyListQuery = Type.Object({ ...PageQuery });
export const ResultSuccess = Type.Object({ result: Type.Literal('success') });
