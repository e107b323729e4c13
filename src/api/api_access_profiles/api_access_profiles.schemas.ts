import { Type } from 'typebox';
import { Id, IdInput, PageQuery, Timestamp } from '../../http/schemas.ts';

const IpList = Type.Union([
  Type.Array(Type.String({ maxLength: 100 }), { maxItems: 500 }),
  Type.String({ maxLength: 10_000 }),
]);

export const AccessProfile = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  api_client_id: Type.Integer(),
  api_collection_ids: Type.Array(Type.Integer()),
  publish_topic_ids: Type.Array(Type.Integer(), { description: 'Event topics this profile may publish to' }),
  consume_topic_ids: Type.Array(Type.Integer(), { description: 'Event topics this profile may consume from' }),
  active: Type.Boolean(),
  auth_type: Type.String({ description: 'token, oauth2, jwt or oidc' }),
  api_policy_id: Type.Union([Type.Integer(), Type.Null()]),
  ip_allow_list: Type.Array(Type.String()),
  ip_deny_list: Type.Array(Type.String()),
  oauth_client_id: Type.Optional(Type.String({ description: 'oauth2 profiles: the client_id for POST /oauth2/token' })),
  jwt_method: Type.Optional(Type.String()),
  oidc_issuer: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  oidc_jwks_uri: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  access_profile_claim: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  required_claims: Type.Optional(Type.Array(Type.String())),
  allowed_issuers: Type.Optional(Type.Array(Type.String())),
  allowed_audiences: Type.Optional(Type.Array(Type.String())),
  secret: Type.Optional(
    Type.String({
      description: 'token/jwt profiles: the auth token (access profile key); only in create and refresh replies',
    }),
  ),
  oauth_client_secret: Type.Optional(
    Type.String({ description: 'oauth2 profiles: the client secret; only in create and refresh replies' }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const profileFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  api_client_id: IdInput,
  api_collection_ids: Type.Array(IdInput, { maxItems: 1000 }),
  publish_topic_ids: Type.Array(IdInput, {
    maxItems: 1000,
    description: 'Event topics of the environment this profile may publish to',
  }),
  consume_topic_ids: Type.Array(IdInput, {
    maxItems: 1000,
    description: 'Event topics of the environment this profile may consume from',
  }),
  auth_type: Type.String({ maxLength: 20, description: 'token, oauth2, jwt or oidc' }),
  api_policy_id: Type.Union([IdInput, Type.Null()]),
  ip_allow_list: IpList,
  ip_deny_list: IpList,
  jwt_method: Type.String({ maxLength: 10, description: 'hmac, rsa or ecdsa' }),
  jwt_secret: Type.String({
    maxLength: 20_000,
    description: 'HMAC secret (32+ bytes), or an RSA or EC public key (PEM)',
  }),
  oidc_issuer: Type.String({
    maxLength: 2000,
    description: 'oidc: the issuer URL; its keys come from its discovery document',
  }),
  oidc_jwks_uri: Type.String({ maxLength: 2000, description: 'oidc, or jwt with rsa/ecdsa: a JWKS URL' }),
  access_profile_claim: Type.String({ maxLength: 255 }),
  required_claims: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }),
  allowed_issuers: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 }),
  allowed_audiences: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 }),
};

export const CreateProfileBody = Type.Object({
  name: profileFields.name,
  api_client_id: profileFields.api_client_id,
  api_collection_ids: Type.Optional(profileFields.api_collection_ids),
  publish_topic_ids: Type.Optional(profileFields.publish_topic_ids),
  consume_topic_ids: Type.Optional(profileFields.consume_topic_ids),
  auth_type: profileFields.auth_type,
  api_policy_id: Type.Optional(profileFields.api_policy_id),
  ip_allow_list: Type.Optional(profileFields.ip_allow_list),
  ip_deny_list: Type.Optional(profileFields.ip_deny_list),
  jwt_method: Type.Optional(profileFields.jwt_method),
  jwt_secret: Type.Optional(profileFields.jwt_secret),
  oidc_issuer: Type.Optional(profileFields.oidc_issuer),
  oidc_jwks_uri: Type.Optional(profileFields.oidc_jwks_uri),
  access_profile_claim: Type.Optional(profileFields.access_profile_claim),
  required_claims: Type.Optional(profileFields.required_claims),
  allowed_issuers: Type.Optional(profileFields.allowed_issuers),
  allowed_audiences: Type.Optional(profileFields.allowed_audiences),
});

export const UpdateProfileBody = Type.Partial(CreateProfileBody);
export const UpdateProfileBodyWithId = Type.Intersect([Type.Object({ id: Type.Optional(IdInput) }), UpdateProfileBody]);

export const ProfileListQuery = Type.Object({ api_client_id: Type.Optional(Id), ...PageQuery });
export const ResultSuccess = Type.Object({ result: Type.Literal('success') });
