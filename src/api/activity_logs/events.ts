// Which change a management API route makes, named the vendor's way (`<resource>_<what happened>`,
// e.g. `recipe_started`, `connection_deleted`). The name is derived from the route's method and
// literal path, so a new route is recorded without a line here; the tables below hold the routes
// the rule would name badly and those that change nothing worth an entry. The activity log
// README lists every route's event (a test keeps the list and the routes in step).

export interface RouteChange {
  eventType: string;
  resourceType: string;
  /** The path parameter naming the resource, if any; otherwise the reply's `id` names a created one. */
  idParam?: string;
  /** A console change whose success is a page (200: it shows a secret once) rather than a redirect (303). */
  answersWithPage?: true;
}

/** Routes whose calls change nothing, or only data (rows, records, messages): not recorded. */
const NOT_RECORDED = new Set([
  // Computations: nothing is stored.
  'POST /api/sdk/generate_schema/json',
  'POST /api/sdk/generate_schema/csv',
  // A read through a connection (its refreshed tokens are the connection's, as after a job).
  'POST /api/connections/:id/pick_list',
  // Data written by recipes and scripts, row by row: the tables' own changes are recorded.
  'POST /api/lookup_tables/:id/rows',
  'PUT /api/lookup_tables/:id/rows/:row_id',
  'DELETE /api/lookup_tables/:id/rows/:row_id',
  'POST /api/data_tables/:data_table_id/records',
  'POST /api/data_tables/:data_table_id/records/batch',
  'PUT /api/data_tables/:data_table_id/records/:record_id',
  'DELETE /api/data_tables/:data_table_id/records/:record_id',
  // A call of an app function runs its recipe: the job records it.
  'POST /api/workflow_apps/app_functions/:recipe_id',
]);

/** Routes the rule would name badly. */
const NAMED: Record<string, RouteChange> = {
  'POST /api/packages/export/:manifest_id': {
    eventType: 'package_exported',
    resourceType: 'export_manifest',
    idParam: 'manifest_id',
  },
  'POST /api/packages/import/:folder_id': {
    eventType: 'package_imported',
    resourceType: 'folder',
    idParam: 'folder_id',
  },
  'POST /api/properties': { eventType: 'properties_updated', resourceType: 'property' },
  'POST /api/mcp/mcp_servers/:handle/assign_tools': {
    eventType: 'mcp_server_tools_assigned',
    resourceType: 'mcp_server',
    idParam: 'handle',
  },
  'POST /api/mcp/mcp_servers/:handle/assign_user_groups': {
    eventType: 'mcp_server_user_groups_assigned',
    resourceType: 'mcp_server',
    idParam: 'handle',
  },
  'POST /api/mcp/mcp_servers/:handle/remove_user_groups': {
    eventType: 'mcp_server_user_groups_removed',
    resourceType: 'mcp_server',
    idParam: 'handle',
  },
  'POST /api/mcp/mcp_servers/:handle/token_renew': {
    eventType: 'mcp_server_token_renewed',
    resourceType: 'mcp_server',
    idParam: 'handle',
  },
  'POST /api/test_cases/run_requests': { eventType: 'test_run_requested', resourceType: 'run_request' },
  'POST /api/secrets_management/clear_cache': { eventType: 'secrets_cache_cleared', resourceType: 'secret' },
  'PUT /api/secrets_management/secrets/:name': { eventType: 'secret_updated', resourceType: 'secret', idParam: 'name' },
  'POST /api/recipes/:recipe_id/repeat_jobs': {
    eventType: 'jobs_repeated',
    resourceType: 'recipe',
    idParam: 'recipe_id',
  },
  'POST /api/recipes/:recipe_id/cancel_jobs': {
    eventType: 'jobs_canceled',
    resourceType: 'recipe',
    idParam: 'recipe_id',
  },
  'PUT /api/recipes/:id/connect': { eventType: 'recipe_connection_updated', resourceType: 'recipe', idParam: 'id' },
  'PATCH /api/recipes/:recipe_id/versions/:id': {
    eventType: 'recipe_version_updated',
    resourceType: 'recipe_version',
    idParam: 'id',
  },
  'PUT /api/recipes/:recipe_id/versions/:id': {
    eventType: 'recipe_version_updated',
    resourceType: 'recipe_version',
    idParam: 'id',
  },
  'POST /api/tags_assignments': { eventType: 'tags_assigned', resourceType: 'tag' },
  'POST /api/lookup_tables/batch_delete': { eventType: 'lookup_tables_deleted', resourceType: 'lookup_table' },
};

const NOT_RECORDED_KEYS = new Set(
  [...NOT_RECORDED].map((route) => {
    const [method, url] = route.split(' ') as [string, string];
    return routeKey(method, url);
  }),
);
const NAMED_KEYS = keyed(NAMED);

/**
 * The route's own name for a parameter the table names: the table writes the parameter's place
 * (`:id` in `/api/recipes/:id/connect`), the route may call it otherwise.
 */
function paramAt(url: string, tableName: string): string {
  const own = url.split('/').filter((s) => s.startsWith(':'));
  return own.length === 1 ? (own[0] as string).slice(1) : tableName;
}

/** Past tense of the verbs that end a path (`PUT /api/recipes/:id/start` → `recipe_started`). */
const ACTIONS: Record<string, string> = {
  start: 'started',
  stop: 'stopped',
  enable: 'enabled',
  disable: 'disabled',
  refresh_secret: 'secret_refreshed',
  regenerate: 'token_regenerated',
  copy: 'copied',
  release: 'released',
  build: 'built',
  deploy: 'deployed',
  purge: 'purged',
  truncate: 'truncated',
  disconnect: 'disconnected',
  reset_trigger: 'trigger_reset',
  poll_now: 'polled',
  complete: 'completed',
  cancel: 'canceled',
};

/** Segments that are not resources: API versions. */
const VERSION_SEGMENT = /^v\d+$/;

export function singular(segment: string): string {
  if (segment.endsWith('ies')) return `${segment.slice(0, -3)}y`;
  if (segment.endsWith('s') && !segment.endsWith('ss')) return segment.slice(0, -1);
  return segment;
}

/** `PUT /api/x/:foo/y` → `PUT /api/x/:/y`: the tables below match whatever a parameter is named. */
function routeKey(method: string, url: string): string {
  return `${method} ${url.replace(/:[A-Za-z_]+/g, ':')}`;
}

function keyed<T>(entries: Record<string, T>): Map<string, T> {
  return new Map(
    Object.entries(entries).map(([route, value]) => {
      const [method, url] = route.split(' ') as [string, string];
      return [routeKey(method, url), value];
    }),
  );
}

/**
 * The change a call of `method url` makes when it succeeds, or null when it is not recorded (reads,
 * computations, row-level data). `url` is the route's literal path, `:param` and all.
 */
export function changeOfRoute(method: string, url: string): RouteChange | null {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return null;
  const key = routeKey(method, url);
  if (NOT_RECORDED_KEYS.has(key)) return null;
  const named = NAMED_KEYS.get(key);
  if (named) return { ...named, ...(named.idParam !== undefined ? { idParam: paramAt(url, named.idParam) } : {}) };
  const segments = url
    .replace(/^\/api\//, '')
    .split('/')
    .filter((s) => s !== '' && !VERSION_SEGMENT.test(s));
  const last = segments.at(-1);
  if (last === undefined) return null;
  const isParam = (s: string | undefined) => s !== undefined && s.startsWith(':');
  const past = method === 'DELETE' ? 'deleted' : 'updated';

  // .../things/:id → thing_updated | thing_deleted
  if (isParam(last)) {
    const resource = singular(segments.at(-2) ?? 'resource');
    return { eventType: `${resource}_${past}`, resourceType: resource, idParam: last.slice(1) };
  }
  const action = ACTIONS[last];
  // .../things/:id/start → thing_started
  if (action !== undefined && isParam(segments.at(-2))) {
    const resource = singular(segments.at(-3) ?? 'resource');
    return {
      eventType: `${resource}_${action}`,
      resourceType: resource,
      idParam: (segments.at(-2) as string).slice(1),
    };
  }
  // POST .../things → thing_created; PUT/DELETE on a collection → thing_updated | thing_deleted
  const resource = singular(last);
  const eventType = method === 'POST' ? `${resource}_created` : `${resource}_${past}`;
  // A nested collection is named by itself: POST /api/recipes/:recipe_id/test_cases → test_case_created.
  return { eventType, resourceType: resource };
}

/** The console's changes, named as the API routes that make the same change. */
export const CONSOLE_CHANGES: Readonly<Record<string, RouteChange>> = {
  'POST /console/recipes/new': { eventType: 'recipe_created', resourceType: 'recipe' },
  'POST /console/recipes/:id/edit': { eventType: 'recipe_updated', resourceType: 'recipe', idParam: 'id' },
  'POST /console/recipes/:id/start': { eventType: 'recipe_started', resourceType: 'recipe', idParam: 'id' },
  'POST /console/recipes/:id/stop': { eventType: 'recipe_stopped', resourceType: 'recipe', idParam: 'id' },
  'POST /console/api-platform/access-profiles/:id/refresh-secret': {
    eventType: 'api_access_profile_secret_refreshed',
    resourceType: 'api_access_profile',
    idParam: 'id',
    answersWithPage: true,
  },
  'POST /console/workflow-tasks/:id/complete': {
    eventType: 'workflow_task_completed',
    resourceType: 'workflow_task',
    idParam: 'id',
  },
  'POST /console/builds': { eventType: 'project_built', resourceType: 'project' },
  'POST /console/builds/:id/deploy': {
    eventType: 'project_build_deployed',
    resourceType: 'project_build',
    idParam: 'id',
  },
  'POST /console/test-runs': { eventType: 'test_run_requested', resourceType: 'run_request' },
  'POST /console/recipes/:id/test-cases/:case_id': {
    eventType: 'test_case_updated',
    resourceType: 'test_case',
    idParam: 'case_id',
  },
  'POST /console/recipes/:id/test-cases/:case_id/delete': {
    eventType: 'test_case_deleted',
    resourceType: 'test_case',
    idParam: 'case_id',
  },
  'POST /console/lookup-tables/new': { eventType: 'lookup_table_created', resourceType: 'lookup_table' },
  'POST /console/data-tables/new': { eventType: 'data_table_created', resourceType: 'data_table' },
  'POST /console/data-tables/:id/schema': {
    eventType: 'data_table_updated',
    resourceType: 'data_table',
    idParam: 'id',
  },
  'POST /console/data-tables/:id/delete': {
    eventType: 'data_table_deleted',
    resourceType: 'data_table',
    idParam: 'id',
  },
  'POST /console/api-platform/clients/new': { eventType: 'api_client_created', resourceType: 'api_client' },
  'POST /console/api-platform/clients/:id/keys/:key_id/revoke': {
    eventType: 'api_key_deleted',
    resourceType: 'api_key',
    idParam: 'key_id',
  },
  'POST /console/properties': { eventType: 'properties_updated', resourceType: 'property' },
  'POST /console/topics/new': { eventType: 'topic_created', resourceType: 'topic' },
  'POST /console/topics/:id/delete': { eventType: 'topic_deleted', resourceType: 'topic', idParam: 'id' },
  'POST /console/lookup-tables/:id/delete': {
    eventType: 'lookup_tables_deleted',
    resourceType: 'lookup_table',
    idParam: 'id',
  },
};
