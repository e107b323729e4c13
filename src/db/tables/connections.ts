// Row types of connections and what they need: custom OAuth profiles, custom connectors, secrets.
import type { Generated } from 'kysely';

export interface CustomOauthProfilesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  /** Lower-cased trimmed name: unique per environment. */
  name_key: string;
  provider: string;
  client_id: string;
  /** Secret box values; the plaintext is never stored nor returned. */
  client_secret_sealed: string;
  token_sealed: string | null;
  created_at: string;
  updated_at: string;
}

export type AuthorizationStatus = 'success' | 'failed' | 'exception';

export interface ConnectionsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  parent_id: number | null;
  custom_oauth_profile_id: number | null;
  name: string;
  provider: string;
  description: string | null;
  external_id: string | null;
  /** Secret box value of the JSON `input` object (values and secret references); null when empty. */
  input_sealed: string | null;
  /** JSON array of the input field names (shown in replies; the values never are). */
  input_fields: string;
  authorization_status: AuthorizationStatus | null;
  authorization_error: string | null;
  authorized_at: string | null;
  connection_lost_at: string | null;
  connection_lost_reason: string | null;
  created_at: string;
  updated_at: string;
  /** Secret box value of what the authorization left (tokens, expiry, instance URL...); null before one. */
  auth_sealed: string | null;
}

export interface OauthStatesTable {
  id: Generated<number>;
  /** SHA-256 of the `state` sent to the provider (the value itself is never stored). */
  state_hash: string;
  workspace_id: number;
  environment_id: number;
  connection_id: number;
  /** The developer API client that asked, and its token hash then: a regenerated token ends the flow. */
  client_id: number;
  token_hash: string;
  /** SHA-256 of the cookie set in the browser that asked: the callback must come from it. */
  browser_hash: string;
  code_verifier_sealed: string | null;
  created_at: string;
  expires_at: string;
}

export interface CustomConnectorsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  title: string;
  description: string | null;
  oem_shared_version: number | null;
  oem_shared_at: string | null;
  static_webhook_url: string | null;
  created_at: string;
  updated_at: string;
}

/** Another name of a custom connector in its environment (the provider name an imported package gives it). */
export interface CustomConnectorAliasesTable {
  id: Generated<number>;
  environment_id: number;
  name: string;
  connector_id: number;
  created_at: string;
}

export interface CustomConnectorVersionsTable {
  id: Generated<number>;
  connector_id: number;
  version: number;
  code: string;
  note: string | null;
  created_at: string;
  released_at: string | null;
}

export interface SecretsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  /** Secret box value. */
  value_sealed: string;
  created_at: string;
  updated_at: string;
}
