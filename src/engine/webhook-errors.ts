// The catalog of inbound webhooks (/webhooks/rest/<key>/<event>): errors are `{ "error": "<text>" }`,
// the shape of the gateway's replies. docs/errors.md lists the same codes; test/errors-doc.test.ts
// fails when they drift apart.
export const WEBHOOK_ERRORS = {
  bad_request: { status: 400, error: 'Bad request' },
  malformed_json: { status: 400, error: 'Malformed JSON in request body' },
  payload_too_deep: { status: 400, error: 'Payload is nested more than 100 levels deep' },
  payload_too_complex: { status: 400, error: 'Payload holds more than 500000 objects and lists' },
  not_found: { status: 404, error: 'Not found' },
  payload_too_large: { status: 413, error: 'Payload too large' },
  backlog_full: { status: 429, error: 'Too many jobs are waiting to run; retry later' },
  internal_error: { status: 500, error: 'Internal error' },
  storage_unavailable: { status: 503, error: 'Service unavailable; try again later' },
} as const satisfies Record<string, { status: number; error: string }>;

export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS;
