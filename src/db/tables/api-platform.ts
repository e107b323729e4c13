// Row types of the API platform: collections, endpoints, clients, access profiles, policies and their counters.
import type { Generated } from 'kysely';
import type { Flag } from './workspaces.ts';

export interface ApiPoliciesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  rate_limit_requests: number | null;
  rate_limit_interval_seconds: number | null;
  quota_requests: number | null;
  quota_interval_seconds: number | null;
  created_at: string;
  updated_at: string;
}

export interface ApiCollectionsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number | null;
  name: string;
  version: string;
  slug: string;
  proxy_connection_id: number | null;
  public_access: Flag;
  doc_token: string;
  created_at: string;
  updated_at: string;
}

export interface ApiEndpointsTable {
  id: Generated<number>;
  collection_id: number;
  flow_id: number | null;
  name: string;
  method: string;
  path: string;
  description: string | null;
  active: Flag;
  /** Requests are checked against the recipe's request schema before a job is stored. */
  validate_request: Generated<Flag>;
  created_at: string;
  updated_at: string;
}

export interface ApiClientsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number | null;
  name: string;
  description: string | null;
  active: Flag;
  api_policy_id: number | null;
  created_at: string;
  updated_at: string;
  /** 1 for clients made through v1 (contract 03 §7 `is_legacy`). */
  is_legacy: Generated<Flag>;
  /** v2 clients: their auth type, collections (JSON array) and JWT/OIDC settings; null on v1 clients. */
  auth_type: Generated<ApiAuthType | null>;
  email: Generated<string | null>;
  api_portal_id: Generated<number | null>;
  api_collection_ids: Generated<string | null>;
  jwt_method: Generated<JwtMethod | null>;
  jwt_secret_sealed: Generated<string | null>;
  oidc_issuer: Generated<string | null>;
  oidc_jwks_uri: Generated<string | null>;
  access_profile_claim: Generated<string | null>;
  /** JSON arrays. */
  required_claims: Generated<string | null>;
  allowed_issuers: Generated<string | null>;
  allowed_audiences: Generated<string | null>;
  validation_formula: Generated<string | null>;
  cert_bundle_ids: Generated<string | null>;
  mtls_enabled: Generated<Flag>;
}

/** hmac: HS256/384/512 with a shared secret; rsa: RS256/384/512; ecdsa: ES256/384/512 (a PEM key or a JWKS URL). */
export type JwtMethod = 'hmac' | 'rsa' | 'ecdsa';

export type ApiAuthType = 'token' | 'oauth2' | 'jwt' | 'oidc';

export interface ApiAccessProfilesTable {
  id: Generated<number>;
  api_client_id: number;
  name: string;
  auth_type: ApiAuthType;
  active: Flag;
  /** JSON array of granted collection ids. */
  api_collection_ids: string;
  api_policy_id: number | null;
  /** JSON arrays of addresses/CIDR ranges. */
  ip_allow_list: string;
  ip_deny_list: string;
  secret_hash: string | null;
  oauth_client_id: string | null;
  oauth_secret_hash: string | null;
  secret_generation: number;
  jwt_method: JwtMethod | null;
  /** The HMAC secret or the PEM public key, sealed; null when keys come from a JWKS URL. */
  jwt_secret_sealed: string | null;
  /** oidc: the issuer (keys from its discovery document) or a JWKS URL; jwt rsa/ecdsa: a JWKS URL instead of a key. */
  oidc_issuer: Generated<string | null>;
  oidc_jwks_uri: Generated<string | null>;
  /** JSON array of accepted `aud` values; null or empty accepts any. */
  allowed_audiences: Generated<string | null>;
  /** The token as v2 lists show it: first 8 characters, an ellipsis, the last 4. */
  token_mask: Generated<string | null>;
  /** When the key last became active (creation, or enable after a disable). */
  active_since: Generated<string | null>;
  access_profile_claim: string | null;
  required_claims: string;
  allowed_issuers: string;
  /** JSON arrays of event topic ids this profile may publish to / consume from. */
  publish_topic_ids: Generated<string>;
  consume_topic_ids: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface ApiPolicyCountersTable {
  profile_id: number;
  kind: 'rate' | 'quota';
  window_start: number;
  count: number;
}
