import { isUniqueViolation } from './db/dialect.ts';

// One catalog of error codes: each has an HTTP status and the message the client sees.
// docs/errors.md lists the same codes; test/errors-doc.test.ts fails when they drift apart.

export const ERROR_CATALOG = {
  bad_request: { status: 400, message: 'Bad request' },
  validation_failed: { status: 400, message: 'Validation failed' },
  malformed_json: { status: 400, message: 'Malformed JSON in request body' },
  unauthorized: { status: 401, message: 'Unauthorized' },
  forbidden: { status: 403, message: 'Forbidden' },
  ip_not_allowed: { status: 403, message: 'IP address not allowed' },
  environment_not_allowed: { status: 403, message: 'Forbidden: this endpoint is only available to clients of the dev environment' },
  not_found: { status: 404, message: 'Not found' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  unsupported_media_type: { status: 415, message: 'Unsupported Content-Type' },
  name_taken: { status: 422, message: 'Name has already been taken' },
  recipe_not_running: { status: 422, message: 'Recipe must be running to enable the endpoint' },
  cannot_refresh_secret: { status: 400, message: 'Cannot refresh secret for JWT access profiles' },
  connection_in_use: { status: 422, message: 'Connection is in use' },
  custom_oauth_profile_in_use: { status: 422, message: 'Custom OAuth profile is in use' },
  lookup_table_full: { status: 400, message: 'Lookup table is full' },
  topic_not_found: { status: 404, message: 'Topic not found' },
  message_not_found: { status: 400, message: 'Message not found' },
  payload_not_object: { status: 400, message: 'Payload must be a JSON object' },
  payload_schema_mismatch: { status: 400, message: 'Payload does not match topic schema' },
  too_many_requests: { status: 429, message: 'Too many requests' },
  sample_required: { status: 400, message: 'sample is required' },
  sample_not_json: { status: 400, message: 'Sample is not valid JSON' },
  sample_not_csv: { status: 400, message: 'Sample is not valid CSV' },
  sample_not_object: { status: 400, message: 'Sample must be a JSON object or array' },
  sample_too_deep: { status: 400, message: 'Sample is nested too deeply' },
  sample_too_many_fields: { status: 400, message: 'Sample has too many fields' },
  sample_too_complex: { status: 400, message: 'Sample is too complex to analyse' },
  sample_too_large: { status: 413, message: 'Sample too large' },
  already_member: { status: 422, message: 'Already a member of this workspace' },
  invitation_too_soon: { status: 429, message: 'Invitation already sent recently' },
  invitation_not_delivered: { status: 502, message: 'The invitation was recorded but the e-mail could not be sent; try again' },
  server_error: { status: 500, message: 'Server error' },
  service_unavailable: { status: 503, message: 'Service unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Field name -> list of problems, the shape Workato clients parse. */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldErrors | undefined;
  /** Sent as the Retry-After header (seconds), e.g. with a 429. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, options: { message?: string; errors?: FieldErrors; retryAfterSeconds?: number } = {}) {
    super(options.message ?? ERROR_CATALOG[code].message);
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** Narrow a maybe-missing row, or answer the catalog's 404. */
export function assertFound<T>(value: T | undefined | null, code: ErrorCode = 'not_found'): T {
  if (value === undefined || value === null) throw new AppError(code);
  return value;
}

/** A 400 that names the offending field(s), in the contract's `errors` shape. */
export function invalid(errors: FieldErrors, message?: string): AppError {
  const first = Object.entries(errors)[0];
  const summary = first ? `${first[0]} ${first[1][0] ?? 'is invalid'}` : 'Validation failed';
  return new AppError('validation_failed', { message: message ?? capitalise(summary), errors });
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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
