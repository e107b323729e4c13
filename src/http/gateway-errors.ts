// The gateway's catalog: published APIs answer errors as `{ "error": "<text>" }` (contract 03
// §9.4), a shape of their own, apart from the management API's `{ message }`. docs/errors.md
// lists the same codes; test/errors-doc.test.ts fails when they drift apart.
import type { ErrorCode } from '../errors.ts';
import type { PolicyVerdict } from '../auth/policies.ts';

export const GATEWAY_ERRORS = {
  bad_request: { status: 400, error: 'Bad request' },
  unauthorized: { status: 401, error: 'Unauthorized' },
  api_disallowed: { status: 403, error: 'Access to this API has been disallowed' },
  ip_not_allowed: { status: 403, error: 'Access from this IP address is not allowed' },
  not_found: { status: 404, error: 'Not found' },
  payload_too_large: { status: 413, error: 'Payload too large' },
  rate_limit_exceeded: { status: 429, error: 'Rate limit exceeded' },
  quota_exceeded: { status: 429, error: 'Quota exceeded' },
  backlog_full: { status: 429, error: 'Too many jobs are waiting to run; retry later' },
  internal_error: { status: 500, error: 'Internal error' },
  bad_gateway: { status: 502, error: 'Bad gateway' },
  response_too_large: { status: 502, error: 'Response too large' },
  storage_unavailable: { status: 503, error: 'Service unavailable; try again later' },
  gateway_timeout: { status: 504, error: 'Gateway timeout' },
} as const satisfies Record<string, { status: number; error: string }>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/** Each refusal of an access policy, as its code in both catalogs (the gateway's and the event streams API's). */
export const POLICY_ERROR_CODES = {
  'Rate limit exceeded': 'rate_limit_exceeded',
  'Quota exceeded': 'quota_exceeded',
} as const satisfies Record<Extract<PolicyVerdict, { ok: false }>['error'], GatewayErrorCode & ErrorCode>;
