// The privilege catalog of developer API client roles. Each route declares the one privilege
// it needs (`config.privilege`); a role is a set of these names. The groups follow the vendor's
// privilege catalog (contract 02 §3); `read` covers GET, `write` everything that changes state.

export const PRIVILEGE_GROUPS = {
  projects_folders: 'Project assets: Projects & Folders',
  connections: 'Project assets: Connections',
  recipes: 'Project assets: Recipes',
  jobs: 'Project assets: Jobs',
  test_cases: 'Project assets: Test Cases',
  recipe_lifecycle_management: 'Recipe lifecycle management: packages',
  export_manifests: 'Recipe lifecycle management: Export Manifests',
  project_deployments: 'Recipe lifecycle management: builds and deployments',
  lookup_tables: 'Workspace data: Lookup Tables',
  data_tables: 'Workspace data: Data Tables',
  files: 'Workspace data: Files',
  // Topics (manage with write) and their messages on the event streams API (consume with read, publish with write).
  event_streams: 'Workspace data: Event Streams and Event Streams Topics',
  environment_properties: 'Workspace data: Environment Properties',
  api_platform_collections: 'API platform: Collections & Endpoints',
  api_platform_clients: 'API platform: Clients & Access Profiles',
  connector_sdks: 'Connector SDKs: custom connectors',
  sdk_cli: 'Connector SDKs: SDK CLI (generate schema)',
  custom_oauth_profiles: 'Custom OAuth Profiles',
  collaborators: 'Workspace collaborators: Collaborators',
  collaborator_roles: 'Workspace collaborators: Collaborator Roles',
  workspace_details: 'Workspace details (GET /api/users/me)',
  secrets_management: 'Environment management: Secrets Management',
  developer_api_clients: 'Developer API clients: API Clients',
  developer_api_client_roles: 'Developer API clients: API Client Roles',
  mcp_servers: 'AI Hub: MCP servers (servers, tools, policies, user groups)',
  agentic: 'Agent Studio: Skills',
  tags: 'Environment management: Tags',
  activity_logs: 'Environment management: Activity audit log',
} as const;

export type PrivilegeGroup = keyof typeof PRIVILEGE_GROUPS;
export type Access = 'read' | 'write';
export type Privilege = `${PrivilegeGroup}:${Access}`;

export const ALL_PRIVILEGES: readonly Privilege[] = Object.keys(PRIVILEGE_GROUPS).flatMap((group) => [
  `${group}:read` as Privilege,
  `${group}:write` as Privilege,
]);

export const READ_PRIVILEGES: readonly Privilege[] = ALL_PRIVILEGES.filter((p) => p.endsWith(':read'));

export function isPrivilege(value: unknown): value is Privilege {
  return typeof value === 'string' && (ALL_PRIVILEGES as readonly string[]).includes(value);
}

/** Roles every new workspace starts with (contract README: an admin role and a read-only role). */
export const SEED_ROLES: ReadonlyArray<{ name: string; privileges: readonly Privilege[] }> = [
  { name: 'Admin', privileges: ALL_PRIVILEGES },
  { name: 'Read only', privileges: READ_PRIVILEGES },
];
