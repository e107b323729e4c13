import { isUniqueViolation, storageFailureOf } from './db/dialect.ts';
import { STORAGE_FAILURE_TEXT } from './db/storage-health.ts';

// One catalog of error codes: each has an HTTP status and the message the client sees. A message
// that carries values names them as `{placeholders}`; AppError fills them from its `params`, so
// the text itself lives only here. docs/errors.md lists the same codes; test/errors-doc.test.ts
// fails when they drift apart.

export const ERROR_CATALOG = {
  // Requests the server cannot read
  bad_request: { status: 400, message: 'Bad request' },
  url_invalid: { status: 400, message: 'Bad request: the URL is not valid' },
  path_segment_too_long: { status: 400, message: 'Bad request: a path segment is too long' },
  malformed_json: { status: 400, message: 'Malformed JSON in request body' },
  body_too_deep: { status: 400, message: 'The JSON body nests objects and arrays more than {max} levels deep' },
  body_too_complex: { status: 400, message: 'The JSON body holds more than {max} objects and arrays' },
  text_has_nul: { status: 400, message: 'Text must not contain the NUL character (\\u0000)' },
  content_length_mismatch: { status: 400, message: 'Request body size did not match Content-Length' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  unsupported_media_type: { status: 415, message: 'Unsupported Content-Type: {content_type}; send application/json' },
  // Validation
  validation_failed: { status: 400, message: 'Validation failed' },
  body_invalid: { status: 400, message: 'Validation failed: {field} {problem}' },
  query_parameter_invalid: { status: 400, message: 'Validation failed: query parameter {field} {problem}' },
  path_parameter_invalid: { status: 400, message: 'Validation failed: path parameter {field} {problem}' },
  nothing_to_update: { status: 400, message: 'Nothing to update' },
  id_required: { status: 400, message: 'id is required' },
  since_time_invalid: {
    status: 400,
    message: 'Validation failed: since_time must be an RFC 3339 date-time, e.g. 2025-05-06T14:02:11Z',
  },
  // Authentication and authorisation
  unauthorized: { status: 401, message: 'Unauthorized' },
  privilege_missing: { status: 403, message: 'Forbidden: your role lacks the {privilege} privilege' },
  ip_not_allowed: { status: 403, message: 'IP address not allowed' },
  environment_not_allowed: {
    status: 403,
    message: 'Forbidden: this endpoint is only available to clients of the dev environment',
  },
  folders_out_of_scope: { status: 403, message: 'Forbidden: projects outside your scope: {folders}' },
  project_creation_needs_all_folders: {
    status: 403,
    message: 'Forbidden: creating a project needs a client with access to all projects (all_folders)',
  },
  api_client_needs_project_in_scope: {
    status: 403,
    message: 'Forbidden: a client limited to some projects must name one of them in project_id',
  },
  lookup_table_needs_project_in_scope: {
    status: 403,
    message: 'Forbidden: a client limited to some projects must give the project_id of one of them',
  },
  data_table_needs_folder_in_scope: {
    status: 403,
    message: 'Forbidden: a client limited to some projects must give the folder_id of a folder in one of them',
  },
  scoped_client_cannot_create_all_folders: {
    status: 403,
    message: 'Forbidden: a client limited to some projects cannot create a client with all_folders',
  },
  scoped_client_cannot_grant_all_folders: {
    status: 403,
    message: 'Forbidden: a client limited to some projects cannot grant all_folders',
  },
  api_client_role_exceeds_caller: {
    status: 403,
    message: 'Forbidden: the role grants privileges you do not hold ({privileges})',
  },
  secrets_need_all_folders: {
    status: 403,
    message:
      'Forbidden: built-in secrets serve every project of the environment; a client limited to some projects cannot change them',
  },
  client_holds_unheld_privileges: {
    status: 403,
    message: 'Forbidden: the client holds privileges you do not hold ({privileges})',
  },
  client_reaches_all_folders: {
    status: 403,
    message: 'Forbidden: the client reaches all projects, and you are limited to some',
  },
  client_folders_out_of_scope: {
    status: 403,
    message: 'Forbidden: the client reaches projects outside your scope: {folders}',
  },
  role_reaches_all_folders: {
    status: 403,
    message: 'Forbidden: the role reaches all folders, and you are limited to some projects',
  },
  role_reaches_outside_scope: { status: 403, message: 'Forbidden: the role reaches folders outside your projects' },
  role_grants_unheld_privileges: {
    status: 403,
    message: 'Forbidden: the role would grant privileges you do not hold ({privileges})',
  },
  role_folders_out_of_scope: {
    status: 403,
    message: 'Forbidden: the role reaches folders outside your projects; send folder_ids',
  },
  scoped_client_cannot_give_role_all_folders: {
    status: 403,
    message: 'Forbidden: a client limited to some projects cannot give a role all folders; send folder_ids',
  },
  topic_publish_not_granted: { status: 403, message: 'Forbidden: this access profile may not publish to this topic' },
  topic_consume_not_granted: { status: 403, message: 'Forbidden: this access profile may not consume from this topic' },
  // Not found
  not_found: { status: 404, message: 'Not found' },
  shared_link_invalid: { status: 404, message: 'The link is not valid or has expired' },
  shared_link_scope: { status: 405, message: 'This link allows {scope} only' },
  project_not_found: { status: 404, message: 'Project not found' },
  project_id_not_found: { status: 404, message: 'Project {project_id} not found' },
  folder_not_found: { status: 404, message: 'Folder not found' },
  parent_folder_not_found: { status: 404, message: 'Parent folder not found' },
  offset_job_not_found: { status: 404, message: 'Job not found' },
  recipe_version_not_found: { status: 404, message: 'Recipe version not found' },
  lookup_table_not_found: { status: 404, message: 'Lookup table not found: {ids}; nothing was deleted' },
  lookup_tables_not_found: { status: 404, message: 'Lookup tables not found: {ids}; nothing was deleted' },
  lookup_row_not_found: { status: 404, message: 'No row matches the lookup' },
  secret_not_found: { status: 404, message: 'Not found: no secret named {name}' },
  developer_api_client_role_unknown: { status: 404, message: 'No developer API client role named "{name}"' },
  topic_not_found: { status: 404, message: 'Topic not found' },
  export_manifest_not_found: { status: 404, message: 'Export manifest not found' },
  package_not_found: { status: 404, message: 'Package not found' },
  test_case_not_found: { status: 404, message: 'Test case not found' },
  run_request_not_found: { status: 404, message: 'Run request not found' },
  tag_not_found: { status: 404, message: 'Tag not found' },
  tags_not_found: { status: 404, message: 'Tags not found: {handles}; nothing was changed' },
  assets_not_found: { status: 404, message: '{kind} not found: {ids}; nothing was changed' },
  package_has_no_content: {
    status: 404,
    message: 'The package has no zip to download: only a completed export has one, for PACKAGE_RETENTION_HOURS',
  },
  // Conflicts and refused changes
  name_taken: { status: 422, message: 'Name has already been taken' },
  endpoint_path_taken: {
    status: 422,
    message: 'An endpoint with this method and path already exists in the collection',
  },
  tag_title_taken: { status: 422, message: 'A tag with this title already exists in the environment' },
  recipe_not_running: { status: 422, message: 'Recipe must be running to enable the endpoint' },
  mcp_tool_not_a_recipe: { status: 422, message: 'Tool {id} is not a recipe of this environment' },
  mcp_tool_not_callable: {
    status: 422,
    message:
      'Recipe {id} cannot be a tool: its trigger is {trigger}; tools are skill recipes (workato_skill) and recipe-backed API endpoints (workato_api_platform)',
  },
  mcp_tool_trigger_mismatch: { status: 422, message: 'Recipe {id} has trigger_application {actual}, not {given}' },
  mcp_collection_server_tools: {
    status: 422,
    message:
      "The tools of a server backed by an API collection are the collection's recipe-backed endpoints: change the collection",
  },
  mcp_user_group_unknown: {
    status: 422,
    message: 'User group {id} does not exist: this server has no identity provider, so it has no user groups',
  },
  mcp_collection_unknown: { status: 422, message: 'asset_id {id} is not an API collection of this environment' },
  skill_recipe_not_skill: {
    status: 422,
    message: 'Recipe {id} is not a skill: its trigger is {trigger}, not workato_skill start_workflow',
  },
  recipe_already_running: { status: 400, message: "Can't change the recipe state: invalid state running" },
  recipe_already_stopped: { status: 400, message: "Can't change the recipe state: invalid state stopped" },
  trigger_without_cursor: {
    status: 400,
    message: 'reset_trigger applies to scheduled, topic and polling triggers; this recipe is triggered by {provider}',
  },
  trigger_not_pollable: {
    status: 400,
    message: 'poll_now applies to scheduled and polling triggers; this recipe is triggered by {provider}',
  },
  cannot_refresh_secret: { status: 400, message: 'Cannot refresh secret for JWT access profiles' },
  api_key_limit_reached: { status: 422, message: 'An API client has at most {max} API keys' },
  api_client_grants_nothing: {
    status: 422,
    message: 'The API client grants no API collection: give it api_collection_ids first',
  },
  oauth_connection_not_shell: { status: 400, message: 'OAuth connections can only be created as shell connections' },
  connection_in_use: { status: 422, message: 'Connection is in use: {count} connection(s) have it as parent' },
  pick_list_unknown: {
    status: 400,
    message: 'Unknown pick list: the {provider} connector has no pick list named {name}',
  },
  pick_list_failed: { status: 422, message: 'The pick list {name} failed: {reason}' },
  connection_used_by_recipes: { status: 422, message: 'Connection is in use: {count} recipe(s) use it ({names})' },
  connection_not_oauth: {
    status: 422,
    message: "This connection is not connected through the provider's OAuth 2.0 redirect: test it instead",
  },
  oauth_app_missing: {
    status: 422,
    message:
      'No OAuth app for {provider}: create a custom OAuth profile for it, or give the connection client_id and client_secret',
  },
  oauth_authorization_url_failed: {
    status: 422,
    message: 'The connector did not give an authorization URL: {reason}',
  },
  oauth_state_invalid: {
    status: 400,
    message: 'This authorization is unknown, was already used, or was started in another browser: connect again',
  },
  oauth_state_expired: { status: 400, message: 'This authorization expired: connect again' },
  oauth_caller_changed: {
    status: 403,
    message: 'The client that started this authorization can no longer change connections: connect again',
  },
  custom_oauth_profile_in_use: { status: 422, message: 'Custom OAuth profile is in use by {count} connection(s)' },
  custom_oauth_profile_provider_locked: {
    status: 422,
    message: 'Custom OAuth profile is in use: its provider cannot change while connections use it',
  },
  home_folder_immutable: { status: 400, message: 'The Home folder cannot be renamed or moved' },
  home_folder_undeletable: { status: 400, message: 'The Home folder cannot be deleted' },
  folder_is_project: { status: 400, message: 'Use DELETE /api/projects/:project_id to delete a project' },
  folder_has_running_recipes: { status: 422, message: 'Folder contains running recipes' },
  project_has_running_recipes: { status: 403, message: 'Cannot destroy folder' },
  project_cannot_move_into_folder: { status: 400, message: 'A project cannot be moved into a folder' },
  folder_cannot_move_to_top_level: {
    status: 400,
    message: 'A folder cannot be moved to the top level; create a project instead',
  },
  folder_cannot_move_into_itself: { status: 400, message: 'A folder cannot be moved into itself' },
  folder_cannot_move_into_descendant: {
    status: 400,
    message: 'A folder cannot be moved into one of its own sub-folders',
  },
  openapi_spec_invalid: { status: 400, message: 'Invalid OpenAPI specification' },
  property_invalid: { status: 400, message: '1 property is invalid; nothing was saved' },
  properties_invalid: { status: 400, message: '{count} properties are invalid; nothing was saved' },
  too_many_properties: { status: 400, message: 'Too many properties: at most {max} per {level}' },
  lookup_table_full: { status: 400, message: 'Lookup table is full: it holds the maximum of {max} rows' },
  lookup_needs_filter: { status: 400, message: 'A lookup needs at least one by[column] value' },
  unknown_column: { status: 400, message: 'Unknown column: {column}' },
  unknown_columns: { status: 400, message: 'Unknown columns: {columns}' },
  data_table_full: { status: 400, message: 'Data table is full: it holds the maximum of {max} records' },
  // Builds and deployments
  deployments_from_dev_only: {
    status: 400,
    message: 'Deployments can only be started from the development environment',
  },
  environment_type_missing: { status: 400, message: 'Missing parameter environment_type' },
  build_not_successful: { status: 422, message: 'The build is {state}: only a build in state success can be deployed' },
  // Test automation
  run_request_selector: {
    status: 400,
    message: 'Give exactly one of recipe_id, test_case_ids, folder_id, project_id or manifest_id',
  },
  too_many_test_cases: {
    status: 400,
    message: 'The run would hold {count} test cases; at most {max} run in one request',
  },
  // Packages
  package_media_type: {
    status: 415,
    message:
      'Unsupported Content-Type: {content_type}; send the zip as application/octet-stream, application/zip or multipart/form-data',
  },
  package_body_empty: { status: 400, message: 'The request body is empty: send the package zip' },
  package_not_zip: { status: 400, message: 'The request body is not a zip archive' },
  package_multipart_invalid: { status: 400, message: 'The multipart body must hold one file part with the zip' },
  package_too_large: { status: 413, message: 'The package is too large: at most {max} bytes' },
  // Event streams
  message_not_found: { status: 400, message: 'Message not found: {id}' },
  payload_not_object: { status: 400, message: 'Payload must be a JSON object' },
  payload_too_deep: { status: 400, message: 'Payload is nested too deeply' },
  payload_schema_mismatch: { status: 400, message: 'Payload does not match topic schema' },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded' },
  quota_exceeded: { status: 429, message: 'Quota exceeded' },
  // Connector SDK
  sample_required: { status: 400, message: 'sample is required' },
  sample_not_json: { status: 400, message: 'Sample is not valid JSON' },
  sample_not_csv: { status: 400, message: 'Sample is not valid CSV' },
  sample_not_object: { status: 400, message: 'Sample must be a JSON object or array' },
  sample_too_deep: { status: 400, message: 'Sample is nested too deeply' },
  sample_too_many_fields: { status: 400, message: 'Sample has too many fields' },
  sample_too_complex: { status: 400, message: 'Sample is too complex to analyse' },
  sample_too_large: { status: 413, message: 'Sample too large' },
  samples_queue_full: { status: 429, message: 'Too many samples are waiting to be analysed' },
  samples_shutting_down: { status: 503, message: 'The server is shutting down' },
  // Message templates
  message_template_not_found: { status: 404, message: 'Message template not found' },
  // Workflow apps and their app functions
  workflow_app_not_found: { status: 404, message: 'Workflow app not found' },
  app_function_not_found: {
    status: 404,
    message: 'No running app function recipe with that id (its trigger must be a workato_workflow_task app function)',
  },
  app_function_timeout: { status: 504, message: 'The app function did not answer in time' },
  app_function_failed: { status: 422, message: 'The app function failed: {error}' },
  app_function_busy: { status: 429, message: 'Too many jobs of this app function are waiting to run; retry later' },
  // Workflow tasks
  workflow_task_not_found: { status: 404, message: 'Workflow task not found' },
  workflow_task_not_open: { status: 409, message: 'The workflow task has already ended ({status})' },
  // Workspace members
  already_member: { status: 422, message: 'Already a member of this workspace' },
  invitation_too_soon: { status: 429, message: 'Invitation already sent recently' },
  invitation_not_delivered: {
    status: 502,
    message: 'The invitation was recorded but the e-mail could not be sent; try again',
  },
  // Web console (HTML pages with the same status and text)
  console_token_invalid: {
    status: 401,
    message: 'That token is not a developer API token of this server, or it was revoked',
  },
  console_session_ended: { status: 401, message: 'Your console session has ended: sign in again' },
  console_sign_in_throttled: {
    status: 429,
    message: 'Too many wrong tokens from this address: try again in {seconds} seconds',
  },
  console_form_media_type: { status: 415, message: 'Console forms are sent as application/x-www-form-urlencoded' },
  console_csrf_invalid: {
    status: 403,
    message: 'The form was not sent by this console page, or the page is out of date: reload it and try again',
  },
  // The server
  server_error: { status: 500, message: 'Server error' },
  storage_unavailable: { status: 503, message: 'Storage unavailable: {reason}; try again later' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Field name -> list of problems, the shape Workato clients parse. */
export type FieldErrors = Record<string, string[]>;

/**
 * Add a problem to a field. Field names may come from the caller (a query parameter, a key of a
 * payload): only the object's own entries count, so `constructor` or `__proto__` is a field like
 * any other, never something inherited.
 */
export function addFieldError(errors: FieldErrors, field: string, problem: string): void {
  const list = Object.hasOwn(errors, field) ? errors[field] : undefined;
  if (list === undefined) {
    Object.defineProperty(errors, field, { value: [problem], enumerable: true, writable: true, configurable: true });
    return;
  }
  if (!list.includes(problem)) list.push(problem);
}

/** The names of the `{placeholders}` in a catalog text. */
export type Placeholders<Text extends string> = Text extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The values a code's message needs, by placeholder name; `never` for a fixed message. */
export type ErrorParams<C extends ErrorCode> = Placeholders<(typeof ERROR_CATALOG)[C]['message']>;

/** A code whose message has no placeholders: it can be raised without values. */
export type PlainErrorCode = { [C in ErrorCode]: [ErrorParams<C>] extends [never] ? C : never }[ErrorCode];

interface CommonOptions {
  errors?: FieldErrors;
  /** Sent as the Retry-After header (seconds), e.g. with a 429. */
  retryAfterSeconds?: number;
  /** The text comes from the catalog, never from the caller. */
  message?: never;
}

export type AppErrorOptions<C extends ErrorCode> = [ErrorParams<C>] extends [never]
  ? CommonOptions & { params?: never }
  : CommonOptions & { params: Record<ErrorParams<C>, string | number> };

type OptionsArgument<C extends ErrorCode> = [ErrorParams<C>] extends [never]
  ? [options?: AppErrorOptions<C>]
  : [options: AppErrorOptions<C>];

/**
 * An error a client reads: its status and message come from the catalog. A message with
 * `{placeholders}` takes their values in `params`; the type checker asks for exactly those.
 * `validation_failed` with field errors reads as its first field error (see `invalid`).
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'AppError';
  readonly code: C;
  readonly status: number;
  readonly errors: FieldErrors | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: C, ...[options]: OptionsArgument<C>) {
    super(
      code === 'validation_failed' && options?.errors
        ? firstFieldError(options.errors)
        : fillPlaceholders(ERROR_CATALOG[code].message, options?.params),
    );
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.errors = options?.errors;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** A catalog text with its `{placeholders}` replaced by their values. */
export function fillPlaceholders(template: string, params: Record<string, string | number> | undefined): string {
  if (params === undefined) return template;
  return template.replace(/\{([a-z_]+)\}/g, (placeholder, name: string) =>
    name in params ? String(params[name]) : placeholder,
  );
}

/** `{ name: ["can't be blank"] }` reads "Name can't be blank". */
function firstFieldError(errors: FieldErrors): string {
  const first = Object.entries(errors)[0];
  if (!first) return ERROR_CATALOG.validation_failed.message;
  const summary = `${first[0]} ${first[1][0] ?? 'is invalid'}`;
  return summary.charAt(0).toUpperCase() + summary.slice(1);
}

/** Narrow a maybe-missing row, or answer the catalog's 404. */
export function assertFound<T>(value: T | undefined | null, code: PlainErrorCode = 'not_found'): T {
  if (value === undefined || value === null) throw new AppError(code);
  return value;
}

/** A 400 that names the offending field(s), in the contract's `errors` shape; its message is the first field error. */
export function invalid(errors: FieldErrors): AppError<'validation_failed'> {
  return new AppError('validation_failed', { errors });
}

/**
 * Run a write whose uniqueness the database decides (a unique index, never a prior read) and
 * answer a clash as 422 `name_taken` naming the field.
 */
export async function uniqueOr422<T>(write: () => Promise<T>, field = 'name'): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('name_taken', { errors: { [field]: ['has already been taken'] } });
    throw error;
  }
}

/** How long a client is asked to wait after a 503 of the storage (Retry-After). */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * A storage failure (a full disk, a read-only data directory, an I/O error; told by the driver's
 * error code in storageFailureOf) as the catalog's 503; undefined for any other error.
 */
export function storageUnavailable(error: unknown): AppError<'storage_unavailable'> | undefined {
  const failure = storageFailureOf(error);
  if (failure === undefined) return undefined;
  return new AppError('storage_unavailable', {
    params: { reason: STORAGE_FAILURE_TEXT[failure] },
    retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS,
  });
}
