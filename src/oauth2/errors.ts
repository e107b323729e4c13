// The token endpoint's catalog: RFC 6749 §5.2 errors, `{ "error", "error_description" }`, each
// with its status and description. docs/errors.md lists the same codes; test/errors-doc.test.ts
// fails when they drift apart.
import { fillPlaceholders, type Placeholders } from '../errors.ts';

/** The `error` values of RFC 6749 §5.2 this endpoint uses. */
export type Rfc6749Error =
  | 'invalid_request'
  | 'invalid_client'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'server_error'
  | 'temporarily_unavailable';

export const OAUTH_ERRORS = {
  method_not_allowed: { status: 405, error: 'invalid_request', description: 'Use POST.' },
  parameters_in_url: {
    status: 400,
    error: 'invalid_request',
    description: 'Parameters must be sent in the body, never in the URL.',
  },
  content_type_unsupported: {
    status: 400,
    error: 'invalid_request',
    description:
      'Content-Type must be application/x-www-form-urlencoded, application/json or multipart/form-data, and match the body.',
  },
  body_too_large: { status: 413, error: 'invalid_request', description: 'The request body is too large.' },
  request_unreadable: { status: 400, error: 'invalid_request', description: 'The request could not be read.' },
  json_invalid: { status: 400, error: 'invalid_request', description: 'The body is not valid JSON.' },
  json_not_object: { status: 400, error: 'invalid_request', description: 'The JSON body must be an object.' },
  json_member_not_string: {
    status: 400,
    error: 'invalid_request',
    description: 'The {member} member must be a string.',
  },
  multipart_no_boundary: { status: 400, error: 'invalid_request', description: 'The multipart body has no boundary.' },
  multipart_part_too_long: { status: 400, error: 'invalid_request', description: 'The {part} part is too long.' },
  multipart_file_part: { status: 400, error: 'invalid_request', description: 'File parts are not accepted.' },
  multipart_too_many_parts: { status: 400, error: 'invalid_request', description: 'Too many parts.' },
  multipart_unreadable: { status: 400, error: 'invalid_request', description: 'The multipart body could not be read.' },
  parameter_repeated: { status: 400, error: 'invalid_request', description: 'The {name} parameter is repeated.' },
  parameter_too_long: { status: 400, error: 'invalid_request', description: 'The {name} parameter is too long.' },
  grant_type_missing: { status: 400, error: 'invalid_request', description: 'The grant_type parameter is missing.' },
  grant_type_unsupported: {
    status: 400,
    error: 'unsupported_grant_type',
    description: 'Only the client_credentials grant is supported.',
  },
  authorization_not_basic: {
    status: 400,
    error: 'invalid_request',
    description: 'Only HTTP Basic client authentication is accepted in the Authorization header.',
  },
  basic_not_base64: {
    status: 400,
    error: 'invalid_request',
    description: 'The Basic credentials are not valid Base64.',
  },
  basic_without_colon: {
    status: 400,
    error: 'invalid_request',
    description: 'The Basic credentials must be client_id:client_secret.',
  },
  basic_not_percent_encoded: {
    status: 400,
    error: 'invalid_request',
    description: 'The Basic credentials are not validly percent-encoded.',
  },
  basic_incomplete: { status: 400, error: 'invalid_request', description: 'The Basic credentials are incomplete.' },
  credentials_differ: {
    status: 400,
    error: 'invalid_request',
    description: 'Client credentials were sent both in the Authorization header and in the body, and they differ.',
  },
  credentials_missing: {
    status: 400,
    error: 'invalid_request',
    description: 'Client credentials are missing: use HTTP Basic or client_id and client_secret in the body.',
  },
  client_id_missing: { status: 400, error: 'invalid_request', description: 'The client_id parameter is missing.' },
  client_secret_missing: {
    status: 400,
    error: 'invalid_request',
    description: 'The client_secret parameter is missing.',
  },
  too_many_token_requests: { status: 429, error: 'invalid_request', description: 'Too many token requests.' },
  client_authentication_failed: { status: 401, error: 'invalid_client', description: 'Client authentication failed.' },
  profile_not_oauth2: {
    status: 400,
    error: 'unauthorized_client',
    description: 'This access profile does not use OAuth 2.0.',
  },
  profile_disabled: {
    status: 400,
    error: 'unauthorized_client',
    description: 'This access profile or its API client is disabled.',
  },
  server_error: { status: 500, error: 'server_error', description: 'The server could not issue a token.' },
  storage_unavailable: {
    status: 503,
    error: 'temporarily_unavailable',
    description: 'The server cannot use its storage right now; try again later.',
  },
} as const satisfies Record<string, { status: number; error: Rfc6749Error; description: string }>;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

type DescriptionParams<C extends OAuthErrorCode> = Placeholders<(typeof OAUTH_ERRORS)[C]['description']>;

type OAuthErrorOptions<C extends OAuthErrorCode> = { headers?: Record<string, string> } & ([
  DescriptionParams<C>,
] extends [never]
  ? { params?: never }
  : { params: Record<DescriptionParams<C>, string> });

type OptionsArgument<C extends OAuthErrorCode> = [DescriptionParams<C>] extends [never]
  ? [options?: OAuthErrorOptions<C>]
  : [options: OAuthErrorOptions<C>];

/** A refusal of the token endpoint; its status, `error` and description come from the catalog. */
export class OAuthError<C extends OAuthErrorCode = OAuthErrorCode> extends Error {
  override name = 'OAuthError';
  readonly code: C;
  readonly error: Rfc6749Error;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: C, ...[options]: OptionsArgument<C>) {
    super(fillPlaceholders(OAUTH_ERRORS[code].description, options?.params));
    this.code = code;
    this.error = OAUTH_ERRORS[code].error;
    this.status = OAUTH_ERRORS[code].status;
    this.headers = options?.headers ?? {};
  }
}
