// The operation catalog of the specification (../shared/spec/automation-platform-api.md), plus
// the routes the contract documents beyond it. test/route-catalog.test.ts compares the routes the
// app registers with these lists: nothing unplanned may appear, and what is missing is reported.

/** Every operation of the specification, as METHOD and path (any :param name). */
export const SPEC_OPERATIONS: readonly string[] = [
  // Token endpoint (served at {auth_url})
  'POST /oauth2/token',
  // Developer API clients
  'GET /api/developer_api_clients',
  'POST /api/developer_api_clients',
  'GET /api/developer_api_clients/:id',
  'PUT /api/developer_api_clients/:id',
  'DELETE /api/developer_api_clients/:id',
  'POST /api/developer_api_clients/:id/regenerate',
  'GET /api/developer_api_client_roles',
  // API platform
  'GET /api/api_collections',
  'POST /api/api_collections',
  'GET /api/api_endpoints',
  'PUT /api/api_endpoints/:id/enable',
  'PUT /api/api_endpoints/:id/disable',
  'GET /api/api_clients',
  'POST /api/api_clients',
  'GET /api/api_access_profiles',
  'POST /api/api_access_profiles',
  'PUT /api/api_access_profiles',
  'PUT /api/api_access_profiles/:id',
  'PUT /api/api_access_profiles/:id/enable',
  'PUT /api/api_access_profiles/:id/disable',
  'PUT /api_access_profiles/:id/enable',
  'PUT /api_access_profiles/:id/disable',
  'PUT /api/api_access_profiles/:id/refresh_secret',
  // Connections
  'GET /api/connections',
  // Custom connectors
  'GET /api/custom_connectors',
  'POST /api/sdk/generate_schema/json',
  'POST /api/sdk/generate_schema/csv',
  // Custom OAuth profiles
  'GET /api/custom_oauth_profiles',
  'GET /api/custom_oauth_profiles/:id',
  'POST /api/custom_oauth_profiles',
  'PUT /api/custom_oauth_profiles/:id',
  'DELETE /api/custom_oauth_profiles/:id',
  // Environment and project properties
  'GET /api/properties',
  'POST /api/properties',
  // Folders and projects
  'GET /api/folders',
  'GET /api/projects',
  'POST /api/folders',
  // Jobs
  'GET /api/recipes/:recipe_id/jobs',
  'GET /api/recipes/:recipe_id/jobs/:job_handle',
  // Lookup tables
  'GET /api/lookup_tables',
  'GET /api/lookup_tables/:id/lookup',
  'GET /api/lookup_tables/:id/rows',
  'GET /api/lookup_tables/:id/rows/:row_id',
  'POST /api/lookup_tables/:id/rows',
  'POST /api/lookup_tables',
  'POST /api/lookup_tables/batch_delete',
  'PUT /api/lookup_tables/:id/rows/:row_id',
  'DELETE /api/lookup_tables/:id/rows/:row_id',
  // Projects, builds and deployments
  'POST /api/projects/:id/build',
  'GET /api/project_builds/:id',
  'POST /api/project_builds/:id/deploy',
  'POST /api/projects/:id/deploy',
  'GET /api/deployments/:id',
  'GET /api/deployments',
  // PubSub (served at {event_streams_url})
  'POST /api/v1/topics/:topic_id/consume',
  'POST /api/v1/topics/:topic_id/publish',
  'POST /api/v1/batch/topics/:topic_id/publish',
  // Recipes (create and copy share POST /api/recipes)
  'GET /api/recipes/:id',
  'POST /api/recipes',
  'PUT /api/recipes/:id',
  'GET /api/recipes',
  'PUT /api/recipes/:id/start',
  'PUT /api/recipes/:id/stop',
  'DELETE /api/recipes/:id',
  // Recipe lifecycle management
  'POST /api/export_manifests',
  'PUT /api/export_manifests/:id',
  'GET /api/export_manifests/:id',
  'POST /api/packages/export/:manifest_id',
  'POST /api/packages/import/:folder_id',
  'GET /api/packages/:id',
  'GET /api/packages/:id/download',
  // Roles, secrets management, team collaborators, users
  'GET /api/roles',
  'POST /api/roles/:role_id/copy',
  'POST /api/secrets_management/clear_cache',
  'POST /api/member_invitations',
  'GET /api/users/me',
  // Test automation
  'POST /api/test_cases/run_requests',
  'GET /api/test_cases/run_requests/:id',
  'GET /api/recipes/:recipe_id/test_cases',
];

/** Routes the contract documents beyond the specification; an area may add them. */
export const CONTRACT_EXTRAS: readonly string[] = [
  // Issue 21: data tables (workato_db_table) and the file store (workato_files), managed through our own API.
  'GET /api/data_tables',
  'POST /api/data_tables',
  'GET /api/data_tables/:data_table_id',
  'PUT /api/data_tables/:data_table_id',
  'DELETE /api/data_tables/:data_table_id',
  'POST /api/data_tables/:data_table_id/truncate',
  'GET /api/data_tables/:data_table_id/records',
  'POST /api/data_tables/:data_table_id/records',
  'POST /api/data_tables/:data_table_id/records/batch',
  'GET /api/data_tables/:data_table_id/records/:record_id',
  'PUT /api/data_tables/:data_table_id/records/:record_id',
  'DELETE /api/data_tables/:data_table_id/records/:record_id',
  'GET /api/files',
  'GET /api/files/content',
  'DELETE /api/files',
  'GET /api/files/shared/:token',
  'PUT /api/files/shared/:token',
  'POST /api/files/shared/:token',
  'POST /api/developer_api_client_roles/:id/copy',
  'POST /api/recipes/:id/copy',
  // 14 §12: connect, reset_trigger and poll_now (D-rec, C-pcli, C-wk).
  'PUT /api/recipes/:id/connect',
  'POST /api/recipes/:id/reset_trigger',
  'POST /api/recipes/:id/poll_now',
  // 10 §5: job control (D-jobs quick reference, C-wk RepeatJobsResult).
  'POST /api/recipes/:recipe_id/repeat_jobs',
  'POST /api/recipes/:recipe_id/cancel_jobs',
  // Issue 21: workflow tasks that waiting jobs stopped at (src/api/workflow_tasks/README.md).
  'GET /api/workflow_tasks',
  'GET /api/workflow_tasks/:id',
  'POST /api/workflow_tasks/:id/complete',
  'POST /api/workflow_tasks/:id/cancel',
  // Issue 34: Workflow apps (data tables of requests with stages) and their app functions (src/api/workflow_apps/README.md).
  'GET /api/workflow_apps',
  'POST /api/workflow_apps',
  'GET /api/workflow_apps/:id',
  'PUT /api/workflow_apps/:id',
  'DELETE /api/workflow_apps/:id',
  'GET /api/workflow_apps/:id/requests/:record_id',
  'POST /api/workflow_apps/app_functions/:recipe_id',
  // Issue 34: message templates stored in an environment, named by template_id (src/api/message_templates/README.md).
  'GET /api/message_templates',
  'POST /api/message_templates',
  'GET /api/message_templates/:id',
  'PUT /api/message_templates/:id',
  'DELETE /api/message_templates/:id',
  // 16 §6 and issue 18: writing a recipe's test cases (our own API beside the catalog's list).
  'POST /api/recipes/:recipe_id/test_cases',
  'GET /api/recipes/:recipe_id/test_cases/:id',
  'PUT /api/recipes/:recipe_id/test_cases/:id',
  'DELETE /api/recipes/:recipe_id/test_cases/:id',
  // 15 §2, §6: folder assets (needed by the vendor's CLI) and manifest delete (D-rlcm, C-met).
  'GET /api/export_manifests/folder_assets',
  'DELETE /api/export_manifests/:id',
  // 14 §11: recipe versions (D-rec quick reference, C-wk ListVersions / GetVersion / UpdateVersionComment).
  'GET /api/recipes/:recipe_id/versions',
  'GET /api/recipes/:recipe_id/versions/:id',
  'PATCH /api/recipes/:recipe_id/versions/:id',
  'PUT /api/recipes/:recipe_id/versions/:id',
  'GET /api/folders/:id',
  'PUT /api/folders/:id',
  'DELETE /api/folders/:id',
  'PUT /api/projects/:id',
  'DELETE /api/projects/:id',
  'GET /api/connections/:id',
  'POST /api/connections',
  'PUT /api/connections/:id',
  'POST /api/connections/:id/disconnect',
  'DELETE /api/connections/:id',
  // 04 §1.5: the vendor's permission list (perm) names POST for the connection update.
  'POST /api/connections/:id',
  // 04 §1.8: a connector's pick list read through a connection (C spec, perm).
  'POST /api/connections/:id/pick_list',
  // 04 §2.1-2.4: custom connector search, create, update, release and code (D-cc, C rk).
  'GET /api/custom_connectors/search',
  'POST /api/custom_connectors',
  'PUT /api/custom_connectors/:id',
  'POST /api/custom_connectors/:id/release',
  'GET /api/custom_connectors/:id/code',
  // Not in the contract: how a self-hoster fills the built-in secret store over the API (05 §5 is
  // silent on it; see src/api/secrets_management/README.md). The CLI has "switchboard secrets".
  'GET /api/secrets_management/secrets',
  'PUT /api/secrets_management/secrets/:name',
  'DELETE /api/secrets_management/secrets/:name',
  // 03 §7: API clients v2 and their API keys (D-ap; C spec, wk, perm).
  'GET /api/v2/api_clients',
  'POST /api/v2/api_clients',
  'GET /api/v2/api_clients/:api_client_id',
  'PUT /api/v2/api_clients/:api_client_id',
  'DELETE /api/v2/api_clients/:api_client_id',
  'GET /api/v2/api_clients/:api_client_id/api_keys',
  'POST /api/v2/api_clients/:api_client_id/api_keys',
  'PUT /api/v2/api_clients/:api_client_id/api_keys/:api_key_id',
  'PUT /api/v2/api_clients/:api_client_id/api_keys/:api_key_id/enable',
  'PUT /api/v2/api_clients/:api_client_id/api_keys/:api_key_id/disable',
  'PUT /api/v2/api_clients/:api_client_id/api_keys/:api_key_id/refresh_secret',
  'DELETE /api/v2/api_clients/:api_client_id/api_keys/:api_key_id',
  'PUT /api/api_collections/:id',
  'DELETE /api/api_collections/:id',
  'POST /api/api_collections/:id/api_endpoints',
  'GET /api/lookup_tables/:id',
  'PUT /api/roles/:id',
  // 13 §6: the legacy PubSub paths on {base_url} (D-topics note, D-pub; slug of D-api-pub).
  'POST /api/pubsub/topics/:topic_id/consume',
  'POST /api/pubsub/topics/:topic_id/publish',
  // 23 §3-§6: what the vendor's CLI (wk) calls: tags and their assignments, the connector catalog,
  // members and the activity log (C-wk internal/api/tags.go, connectors.go, workspace.go).
  'GET /api/tags',
  'POST /api/tags',
  'PUT /api/tags/:handle',
  'DELETE /api/tags/:handle',
  'POST /api/tags_assignments',
  'GET /api/integrations',
  'GET /api/members',
  'GET /api/activity_logs',
  // 13 §7: topic management through the developer API (D-topics, C-met).
  'GET /api/event_streams/topics',
  'POST /api/event_streams/topics',
  'GET /api/event_streams/topics/:id',
  'PUT /api/event_streams/topics/:id',
  'PUT /api/event_streams/topics/:id/purge',
  'DELETE /api/event_streams/topics/:id',
  // 23 §1: MCP servers as the vendor's CLI manages them (C-wk mcp_servers.go).
  'GET /api/mcp/mcp_servers',
  'POST /api/mcp/mcp_servers',
  'GET /api/mcp/mcp_servers/:handle',
  'PUT /api/mcp/mcp_servers/:handle',
  'DELETE /api/mcp/mcp_servers/:handle',
  'POST /api/mcp/mcp_servers/:handle/token_renew',
  'GET /api/mcp/mcp_servers/:handle/tools',
  'POST /api/mcp/mcp_servers/:handle/assign_tools',
  'PUT /api/mcp/mcp_servers/:handle/tools/:tool_id',
  'DELETE /api/mcp/mcp_servers/:handle/tools/:tool_id',
  'GET /api/mcp/mcp_servers/:handle/server_policies',
  'PUT /api/mcp/mcp_servers/:handle/server_policies',
  'POST /api/mcp/mcp_servers/:handle/assign_user_groups',
  'POST /api/mcp/mcp_servers/:handle/remove_user_groups',
  'GET /api/mcp/user_groups',
  // 23 §2: skills (C-wk skills.go).
  'GET /api/agentic/skills',
  'GET /api/agentic/skills/:id',
  'POST /api/agentic/skills',
];

/** Served for operations, documentation and tooling; not part of the catalog. */
export const OPERATIONS_ROUTES: readonly RegExp[] = [
  // The web console (src/console/): HTML pages under /console/, and / sending the browser there.
  /^(GET|HEAD) \/(favicon\.ico)?$/,
  /^(GET|HEAD|POST) \/console(\/|$)/,
  /^(GET|HEAD) \/(health|ready|metrics)$/,
  /^(GET|HEAD) \/docs(\/|$)/,
  /^(GET|HEAD) \/api\/openapi\.json$/,
  // Other methods on the token endpoint answer 405 with Allow: POST (contract 01 §6).
  /^(GET|PUT|PATCH|DELETE|OPTIONS) \/oauth2\/token$/,
  // The gateway: published APIs under /<api-prefix>/<collection-slug>/... (contract 03 §8).
  /^(GET|POST|PUT|PATCH|DELETE|OPTIONS) \/\*$/,
  // Inbound webhooks of running recipes (contract 20 §10.3): /webhooks/rest/<recipe key>/<event>.
  /^(GET|POST|PUT|PATCH|DELETE) \/webhooks\/rest\/:key\/:event$/,
  // A custom connector's static webhook (`webhook_keys`, src/connectors/README.md): one URL per connector.
  /^(GET|POST|PUT|PATCH|DELETE) \/webhooks\/connectors\/:id\/event$/,
  // MCP servers at run time (src/mcp/): the Streamable HTTP transport, and its protected resource metadata (RFC 9728).
  /^(GET|POST|DELETE) \/mcp\/:handle$/,
  /^(GET|HEAD) \/\.well-known\/oauth-protected-resource\/mcp\/:handle$/,
  // Where providers send the browser back after a connection's OAuth 2.0 authorization (contract 21 §4).
  /^(GET|HEAD) \/oauth\/callback$/,
];

/** 'PUT /api/x/:foo/y' -> 'PUT /api/x/:/y', so parameter names do not matter. */
export function normaliseRoute(route: string): string {
  return route.replace(/:[A-Za-z_]+/g, ':').replace(/\{[A-Za-z_]+\}/g, ':');
}
