// Row types, one per table. Timestamps are ISO 8601 UTC strings with milliseconds, booleans
// are 0/1 integers and lists are JSON text, so that SQLite and PostgreSQL store the same values.
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
// Each area's tables are in tables/; every table and row type is exported here, so a store imports from one place.
export type * from './tables/workspaces.ts';
export type * from './tables/connections.ts';
export type * from './tables/api-platform.ts';
export type * from './tables/data.ts';
export type * from './tables/recipes.ts';
export type * from './tables/lifecycle.ts';
export type * from './tables/agents.ts';
export type * from './tables/tags-activity.ts';
import type {
  WorkspacesTable,
  UsersTable,
  EnvironmentsTable,
  FoldersTable,
  ProjectsTable,
  PropertiesTable,
  DeveloperApiClientRolesTable,
  DeveloperApiClientsTable,
  CollaboratorRolesTable,
  CollaboratorRoleFoldersTable,
  MemberInvitationsTable,
  StorageChecksTable,
  LeasesTable,
  ConsoleSessionsTable,
} from './tables/workspaces.ts';
import type {
  CustomOauthProfilesTable,
  ConnectionsTable,
  OauthStatesTable,
  CustomConnectorsTable,
  CustomConnectorVersionsTable,
  CustomConnectorAliasesTable,
  SecretsTable,
} from './tables/connections.ts';
import type {
  ApiPoliciesTable,
  ApiCollectionsTable,
  ApiEndpointsTable,
  ApiClientsTable,
  ApiAccessProfilesTable,
  ApiPolicyCountersTable,
} from './tables/api-platform.ts';
import type {
  LookupTablesTable,
  LookupTableRowsTable,
  EventTopicsTable,
  EventMessagesTable,
  SmartListsTable,
  SmartListRowsTable,
  DataTablesTable,
  DataTableRecordsTable,
  DataTableValuesTable,
  FilesTable,
  FileChunksTable,
  FileDirectoriesTable,
  MessageTemplatesTable,
  WorkflowAppsTable,
  WorkflowAppRequestsTable,
} from './tables/data.ts';
import type {
  RecipesTable,
  RecipeJobCountsTable,
  RecipeVersionsTable,
  WorkflowTasksTable,
  JobsTable,
  JobLinesTable,
  JobLineSetsTable,
  JobLineValuesTable,
  StaticWebhookKeysTable,
  TestCasesTable,
  TestRunRequestsTable,
} from './tables/recipes.ts';
import type {
  ExportManifestsTable,
  PackagesTable,
  PackageChunksTable,
  PackageKeptFilesTable,
  ProjectBuildsTable,
  DeploymentsTable,
} from './tables/lifecycle.ts';
import type { AgenticSkillsTable, McpServersTable, McpToolsTable, McpPolicyCountersTable } from './tables/agents.ts';
import type { TagsTable, RecipeTagsTable, ConnectionTagsTable, ActivityLogsTable } from './tables/tags-activity.ts';

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
  package_kept_files: PackageKeptFilesTable;
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
  oauth_states: OauthStatesTable;
  custom_connectors: CustomConnectorsTable;
  custom_connector_versions: CustomConnectorVersionsTable;
  custom_connector_aliases: CustomConnectorAliasesTable;
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
  recipe_job_counts: RecipeJobCountsTable;
  agentic_skills: AgenticSkillsTable;
  mcp_servers: McpServersTable;
  mcp_tools: McpToolsTable;
  mcp_policy_counters: McpPolicyCountersTable;
  recipe_versions: RecipeVersionsTable;
  jobs: JobsTable;
  job_lines: JobLinesTable;
  job_line_sets: JobLineSetsTable;
  /** A view: the lines of job_line_sets and job_lines, one row each (0083). */
  job_line_rows: JobLinesTable;
  job_line_values: JobLineValuesTable;
  static_webhook_keys: StaticWebhookKeysTable;
  workflow_tasks: WorkflowTasksTable;
  smart_lists: SmartListsTable;
  workflow_apps: WorkflowAppsTable;
  message_templates: MessageTemplatesTable;
  file_directories: FileDirectoriesTable;
  workflow_app_requests: WorkflowAppRequestsTable;
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
export type WorkflowAppRow = Selectable<WorkflowAppsTable>;
export type MessageTemplateRow = Selectable<MessageTemplatesTable>;
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
