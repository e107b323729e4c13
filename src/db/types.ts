// Row types, one per table. Timestamps are ISO 8601 UTC strings with milliseconds, booleans
// are 0/1 integers and lists are JSON text, so that SQLite and PostgreSQL store the same values.
import type { Generated, Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';

export type Flag = 0 | 1;

export interface WorkspacesTable {
  id: Generated<number>;
  name: string;
  company_name: string | null;
  owner_email: string;
  plan_id: string;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  email: string;
  role: string;
  created_at: string;
  updated_at: string;
}

export type EnvironmentType = 'dev' | 'test' | 'prod';

export interface EnvironmentsTable {
  id: Generated<number>;
  workspace_id: number;
  type: EnvironmentType;
  name: string;
  /** First path segment of this environment's APIs on the gateway; assigned on first use. */
  api_prefix: string | null;
  created_at: string;
}

export interface FoldersTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  parent_id: number | null;
  name: string;
  /** The name trimmed and lower-cased: unique among siblings (folders_sibling_name_unique). */
  name_key: string;
  is_project: Flag;
  project_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface PropertiesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** null: an environment property; otherwise a property of this project. */
  project_id: number | null;
  name: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface DeveloperApiClientRolesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  name_key: string;
  /** JSON array of privilege names, e.g. ["recipes:read", "recipes:write"]. */
  privileges: string;
  created_at: string;
  updated_at: string;
}

export interface DeveloperApiClientsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  role_id: number;
  name: string;
  name_key: string;
  description: string | null;
  all_folders: Flag;
  /** JSON array of project folder ids; [] when all_folders is 1. */
  folder_ids: string;
  /** Comma-separated addresses and CIDR ranges; '' allows any address. */
  ip_allow_list: string;
  /** SHA-256 (hex) of the API token; the token itself is never stored. */
  token_hash: string;
  token_updated_at: string;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CollaboratorRolesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  name_key: string;
  inheritable: Flag;
  /** 1: the role reaches every folder (collaborator_role_folders is empty). */
  all_folders: Flag;
  /** JSON object: privilege category -> allowed actions, e.g. {"Recipes": ["read", "run"]}. */
  privileges: string;
  created_at: string;
  updated_at: string;
}

export interface CollaboratorRoleFoldersTable {
  role_id: number;
  folder_id: number;
}

export type InvitationStatus = 'pending' | 'sending' | 'sent' | 'failed';

export interface MemberInvitationsTable {
  id: Generated<number>;
  workspace_id: number;
  email: string;
  /** Lower-cased e-mail: one invitation per address and workspace. */
  email_key: string;
  name: string;
  /** JSON array of { environment_type, role_name, role_type }, one entry per environment. */
  roles: string;
  /** JSON array of collaborator group ids. */
  user_group_ids: string;
  status: InvitationStatus;
  /** Why the last e-mail failed (SMTP reply code and text, never credentials). */
  delivery_error: string | null;
  invited_by_client_id: number | null;
  /** When the invitation was last made; the 20-minute rule counts from here. */
  invited_at: string;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

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

export interface LookupTablesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number | null;
  name: string;
  /** Lower-cased name (unique per environment); null once the table is deleted. */
  name_key: string | null;
  /** JSON array of the column labels, by position (col1 first). */
  columns: string;
  row_count: number;
  /** Set by batch delete: the table is gone for the API while its rows are purged. */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Cells by position; null is an empty cell. */
export interface LookupTableRowsTable {
  id: Generated<number>;
  table_id: number;
  col1: string | null;
  col2: string | null;
  col3: string | null;
  col4: string | null;
  col5: string | null;
  col6: string | null;
  col7: string | null;
  col8: string | null;
  col9: string | null;
  col10: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventTopicsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  /** Trimmed lower-cased name, unique per environment; null once deleted. */
  name_key: string | null;
  description: string | null;
  /** JSON array of schema fields; null: no schema. */
  schema: string | null;
  retention_seconds: number;
  /** Sequence number of the last message published; 0 when none. */
  last_seq: Generated<number>;
  /** Messages up to this sequence number were purged. */
  purged_seq: Generated<number>;
  last_message_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventMessagesTable {
  topic_id: number;
  seq: number;
  published_at: string;
  /** JSON text of the message object. */
  payload: string;
}

export interface RecipesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  description: string;
  /** The step tree exactly as the client sent it. */
  code: string;
  /** The config array, JSON text. */
  config: string;
  trigger_application: string | null;
  /** JSON list of providers used by actions, in first-use order. */
  action_applications: string;
  /** Event name of a webhook trigger (its URL's last segment); null for other triggers. */
  webhook_event: string | null;
  concurrency: number;
  running: Flag;
  version_no: number;
  copy_count: number;
  job_succeeded_count: number;
  job_failed_count: number;
  lifetime_task_count: number;
  last_run_at: string | null;
  stopped_at: string | null;
  stop_cause: string | null;
  trigger_closure: string | null;
  webhook_key: string;
  author_name: string;
  author_email: string;
  created_at: string;
  updated_at: string;
}

export interface RecipeVersionsTable {
  id: Generated<number>;
  recipe_id: number;
  version_no: number;
  name: string;
  description: string;
  code: string;
  config: string;
  comment: string | null;
  author_name: string;
  author_email: string;
  created_at: string;
  updated_at: string;
}

/** Engine states; the API shows queued and running as `pending`, canceled as `failed`. */
/** `waiting`: stopped at a workflow task until it ends (API: pending). */
export type JobState = 'queued' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled';

export interface SmartListsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  name: string;
  columns: string;
  primary_index: string | null;
  row_count: number;
  created_at: string;
  updated_at: string;
}

export interface SmartListRowsTable {
  list_id: number;
  seq: number;
  data: string;
}

export type WorkflowTaskStatus = 'open' | 'completed' | 'expired' | 'canceled';

export interface WorkflowTasksTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  recipe_id: number;
  job_id: number;
  step_number: number;
  name: string;
  assignee: string | null;
  record_id: string | null;
  status: WorkflowTaskStatus;
  task_type: 'approval' | 'form';
  form_fields: string;
  checkpoint: string;
  result: string | null;
  completed_by: string | null;
  created_at: string;
  expires_at: string | null;
  completed_at: string | null;
}

/** Always empty: GET /ready's write probe (migration 0013). */
export interface StorageChecksTable {
  id: Generated<number>;
  checked_at: string;
  filler: string;
}

export interface JobsTable {
  id: Generated<number>;
  recipe_id: number;
  handle: string;
  status: JobState;
  title: string;
  trigger_output: string;
  error: string | null;
  error_parts: string | null;
  is_poll_error: Flag;
  is_repeat: Flag;
  is_test: Flag;
  master_job_handle: string | null;
  calling_recipe_id: number | null;
  calling_job_handle: string | null;
  root_recipe_id: number | null;
  root_job_handle: string | null;
  task_count: number;
  created_at: string;
  started_at: string;
  completed_at: string | null;
  /** The node that claimed the job (ServiceContext.nodeId); null while queued. */
  claimed_by: string | null;
  /** Until when the claim holds unless renewed (several nodes: a job past it was left by a dead node). */
  lease_expires_at: string | null;
}

/** A claim on a piece of work by name (`package:12`), held by one node until it expires. */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

export interface JobLinesTable {
  job_id: number;
  seq: number;
  recipe_line_number: number;
  adapter_name: string;
  adapter_operation: string;
  pass: number | null;
  input: string | null;
  output: string | null;
  error: string | null;
  mask_data: Flag;
  started_at: string;
  completed_at: string;
}

export interface ExportManifestsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number | null;
  name: string;
  /** JSON array of assets (contract 15 §1). */
  assets: string;
  include_data: Flag;
  include_test_cases: Flag;
  include_tags: Flag;
  status: 'working' | 'archived';
  /** JSON object "type:id" -> the asset's updated_at when it was last exported. */
  last_export: string | null;
  last_exported_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export type PackageStatus = 'in_progress' | 'completed' | 'failed';

export interface PackagesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  operation_type: 'export' | 'import';
  status: PackageStatus;
  export_manifest_id: number | null;
  folder_id: number | null;
  /** JSON: the export's assets and flags, or the import's flags. */
  options: string;
  error: string | null;
  /** JSON array of strings. */
  error_parts: string | null;
  /** JSON array of {id, import_result}. */
  recipe_status: string | null;
  content_size: number | null;
  /** How many times the work was started (a restart in the middle starts it again). */
  attempts: Generated<number>;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** The zip of a package, in order. */
export interface PackageChunksTable {
  package_id: number;
  seq: number;
  data: Uint8Array;
}

export interface DataTablesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  folder_id: number;
  name: string;
  /** Lower-cased name, unique per environment. */
  name_key: string;
  /** JSON array of {field_id, name, type, optional, default_value, hint}. */
  columns: string;
  record_count: number;
  created_at: string;
  updated_at: string;
}

export interface DataTableRecordsTable {
  id: Generated<number>;
  table_id: number;
  /** The Record ID (a UUID). */
  record_id: string;
  /** JSON object: column UUID -> value. */
  data: string;
  created_at: string;
  updated_at: string;
}

/** One value of a record, for equality searches. */
export interface DataTableValuesTable {
  table_id: number;
  field_id: string;
  /** The value as text, at most 200 characters. */
  value_key: string;
  record_pk: number;
}

export interface FilesTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** Normalised absolute path, e.g. `/reports/q1.csv`. */
  path: string;
  /** The path's directory, e.g. `/reports` (`/` at the root). */
  directory: string;
  name: string;
  size: number;
  created_at: string;
  updated_at: string;
}

export interface FileChunksTable {
  file_id: number;
  seq: number;
  data: Uint8Array;
}

export interface ProjectBuildsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  project_id: number;
  project_name: string;
  project_description: string;
  /** The export package holding the build's zip: its status is the build's state. */
  package_id: number;
  description: string | null;
  include_test_cases: Flag | null;
  performed_by_name: string;
  created_at: string;
  updated_at: string;
}

export interface DeploymentsTable {
  id: Generated<number>;
  workspace_id: number;
  /** The development environment the build came from. */
  environment_id: number;
  project_id: number;
  folder_id: number;
  project_build_id: number;
  environment_type: 'test' | 'prod';
  target_environment_id: number;
  /** The import package that applies the build in the target: its status is the deployment's state. */
  package_id: number;
  description: string | null;
  performed_by_name: string;
  created_at: string;
  updated_at: string;
}

export interface TestCasesTable {
  id: string;
  recipe_id: number;
  name: string;
  description: string;
  /** JSON: { trigger_output, mocks, expectations, allow_external }. */
  body: string;
  /** Order within the recipe: created or imported later, higher. */
  position: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface ConsoleSessionsTable {
  id: Generated<number>;
  /** SHA-256 of the cookie's value (the value itself is never stored). */
  session_hash: string;
  client_id: number;
  /** The developer API client's token_hash at sign-in: a regenerated token ends the session. */
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export interface TestRunRequestsTable {
  id: string;
  workspace_id: number;
  environment_id: number;
  client_id: number;
  status: 'running' | 'completed';
  /** JSON array of results. */
  results: string;
  coverage: number | null;
  created_at: string;
  updated_at: string;
}

export interface TagsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  /** The tag's id outside: `tag-<random>`, unique everywhere. */
  handle: string;
  title: string;
  /** The title trimmed and lower-cased: unique in the environment (tags_title_unique). */
  title_key: string;
  description: string | null;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface RecipeTagsTable {
  tag_id: number;
  recipe_id: number;
  created_at: string;
}

export interface ConnectionTagsTable {
  tag_id: number;
  connection_id: number;
  created_at: string;
}

export type ActivityVia = 'api' | 'console';

export interface ActivityLogsTable {
  id: Generated<number>;
  workspace_id: number;
  environment_id: number;
  occurred_at: string;
  event_type: string;
  resource_type: string;
  resource_id: string | null;
  resource_name: string | null;
  /** The workspace owner at the time (developer API clients act on the owner's behalf); names copied. */
  user_id: number | null;
  user_name: string;
  user_email: string;
  client_id: number | null;
  client_name: string;
  via: ActivityVia;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  /** JSON object: what changed (never a credential or a request body). */
  details: string;
}

export interface Database {
  console_sessions: ConsoleSessionsTable;
  data_tables: DataTablesTable;
  data_table_records: DataTableRecordsTable;
  data_table_values: DataTableValuesTable;
  files: FilesTable;
  file_chunks: FileChunksTable;
  test_cases: TestCasesTable;
  test_run_requests: TestRunRequestsTable;
  project_builds: ProjectBuildsTable;
  deployments: DeploymentsTable;
  export_manifests: ExportManifestsTable;
  packages: PackagesTable;
  package_chunks: PackageChunksTable;
  storage_checks: StorageChecksTable;
  workspaces: WorkspacesTable;
  users: UsersTable;
  environments: EnvironmentsTable;
  folders: FoldersTable;
  projects: ProjectsTable;
  properties: PropertiesTable;
  developer_api_client_roles: DeveloperApiClientRolesTable;
  developer_api_clients: DeveloperApiClientsTable;
  collaborator_roles: CollaboratorRolesTable;
  collaborator_role_folders: CollaboratorRoleFoldersTable;
  member_invitations: MemberInvitationsTable;
  custom_oauth_profiles: CustomOauthProfilesTable;
  connections: ConnectionsTable;
  custom_connectors: CustomConnectorsTable;
  custom_connector_versions: CustomConnectorVersionsTable;
  secrets: SecretsTable;
  api_policies: ApiPoliciesTable;
  api_collections: ApiCollectionsTable;
  api_endpoints: ApiEndpointsTable;
  api_clients: ApiClientsTable;
  api_access_profiles: ApiAccessProfilesTable;
  api_policy_counters: ApiPolicyCountersTable;
  lookup_tables: LookupTablesTable;
  lookup_table_rows: LookupTableRowsTable;
  event_topics: EventTopicsTable;
  event_messages: EventMessagesTable;
  recipes: RecipesTable;
  recipe_versions: RecipeVersionsTable;
  jobs: JobsTable;
  job_lines: JobLinesTable;
  workflow_tasks: WorkflowTasksTable;
  smart_lists: SmartListsTable;
  smart_list_rows: SmartListRowsTable;
  leases: LeasesTable;
  tags: TagsTable;
  recipe_tags: RecipeTagsTable;
  connection_tags: ConnectionTagsTable;
  activity_logs: ActivityLogsTable;
}

/** The database handle or an open transaction: stores accept either. */
export type Db = Kysely<Database> | Transaction<Database>;

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type TagRow = Selectable<TagsTable>;
export type ActivityLogRow = Selectable<ActivityLogsTable>;
export type NewActivityLog = Insertable<ActivityLogsTable>;
export type WorkflowTaskRow = Selectable<WorkflowTasksTable>;
export type NewWorkflowTask = Insertable<WorkflowTasksTable>;
export type SmartListRow = Selectable<SmartListsTable>;
export type DataTableRow = Selectable<DataTablesTable>;
export type DataTableRecordRow = Selectable<DataTableRecordsTable>;
export type FileRow = Selectable<FilesTable>;
export type EnvironmentRow = Selectable<EnvironmentsTable>;
export type FolderRow = Selectable<FoldersTable>;
export type NewFolder = Insertable<FoldersTable>;
export type FolderUpdate = Updateable<FoldersTable>;
export type ProjectRow = Selectable<ProjectsTable>;
export type PropertyRow = Selectable<PropertiesTable>;
export type RoleRow = Selectable<DeveloperApiClientRolesTable>;
export type DeveloperApiClientRow = Selectable<DeveloperApiClientsTable>;
export type DeveloperApiClientUpdate = Updateable<DeveloperApiClientsTable>;
export type CollaboratorRoleRow = Selectable<CollaboratorRolesTable>;
export type MemberInvitationRow = Selectable<MemberInvitationsTable>;
export type CustomOauthProfileRow = Selectable<CustomOauthProfilesTable>;
export type ConnectionRow = Selectable<ConnectionsTable>;
export type NewConnection = Insertable<ConnectionsTable>;
export type ConnectionUpdate = Updateable<ConnectionsTable>;
export type CustomConnectorRow = Selectable<CustomConnectorsTable>;
export type CustomConnectorVersionRow = Selectable<CustomConnectorVersionsTable>;
export type SecretRow = Selectable<SecretsTable>;
export type ApiCollectionRow = Selectable<ApiCollectionsTable>;
export type ApiEndpointRow = Selectable<ApiEndpointsTable>;
export type ApiClientRow = Selectable<ApiClientsTable>;
export type ApiAccessProfileRow = Selectable<ApiAccessProfilesTable>;
export type ApiPolicyRow = Selectable<ApiPoliciesTable>;
export type LookupTableRow = Selectable<LookupTablesTable>;
export type LookupRowRecord = Selectable<LookupTableRowsTable>;
export type EventTopicRow = Selectable<EventTopicsTable>;
export type EventMessageRow = Selectable<EventMessagesTable>;
export type RecipeRow = Selectable<RecipesTable>;
export type RecipeUpdate = Updateable<RecipesTable>;
export type RecipeVersionRow = Selectable<RecipeVersionsTable>;
export type JobRow = Selectable<JobsTable>;
export type ExportManifestRow = Selectable<ExportManifestsTable>;
export type PackageRow = Selectable<PackagesTable>;
export type ProjectBuildRow = Selectable<ProjectBuildsTable>;
export type TestCaseRow = Selectable<TestCasesTable>;
export type TestRunRequestRow = Selectable<TestRunRequestsTable>;
export type DeploymentRow = Selectable<DeploymentsTable>;
export type JobLineRow = Selectable<JobLinesTable>;
