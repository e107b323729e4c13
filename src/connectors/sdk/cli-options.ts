// The options and failures of `switchboard connector exec|check` (read without loading the runtime).

/** Bad usage: exit 2. */
export class ConnectorUsageError extends Error {
  override name = 'ConnectorUsageError';
}

/** The connector's code failed: exit 1, its message printed. */
export class ConnectorRunFailed extends Error {
  override name = 'ConnectorRunFailed';
}

export const EXEC_OPTIONS = {
  connector: { type: 'string', short: 'c' },
  settings: { type: 'string', short: 's' },
  connection: { type: 'string', short: 'n' },
  input: { type: 'string', short: 'i' },
  args: { type: 'string', short: 'a' },
  closure: { type: 'string' },
  continue: { type: 'string' },
  'config-fields': { type: 'string' },
  'extended-input-schema': { type: 'string' },
  'extended-output-schema': { type: 'string' },
  'webhook-payload': { type: 'string', short: 'w' },
  'webhook-params': { type: 'string' },
  'webhook-headers': { type: 'string' },
  'webhook-subscribe-output': { type: 'string' },
  'webhook-url': { type: 'string' },
  'oauth2-code': { type: 'string' },
  'redirect-url': { type: 'string' },
  'refresh-token': { type: 'string' },
  output: { type: 'string', short: 'o' },
  verbose: { type: 'boolean', short: 'v' },
  'timeout-ms': { type: 'string' },
} as const;
