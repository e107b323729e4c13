// The only reader of process.env: parse once, validate, freeze, pass down.
import path from 'node:path';
import { isAddressRange } from './outbound/addresses.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export type SqliteSynchronous = 'FULL' | 'NORMAL';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** PostgreSQL: connections the pool opens at most. */
  readonly databasePoolMax: number;
  /** PostgreSQL: how long opening a connection may take before the attempt fails. */
  readonly databaseConnectTimeoutMs: number;
  /** PostgreSQL: an idle connection of the pool is closed after this long. */
  readonly databaseIdleTimeoutMs: number;
  readonly logLevel: LogLevel;
  readonly adminToken: string | undefined;
  readonly secretKey: string | undefined;
  readonly publicBaseUrl: string;
  readonly publicAuthUrl: string;
  readonly publicEventStreamsUrl: string;
  readonly eventStreamsPort: number | undefined;
  readonly publicGatewayUrl: string;
  readonly bodyLimitBytes: number;
  readonly recipeBodyLimitBytes: number;
  readonly trustProxy: boolean;
  readonly sqliteSynchronous: SqliteSynchronous;
  readonly shutdownTimeoutMs: number;
  readonly gatewayTimeoutMs: number;
  /** Longest a caller's JWT may still be valid (its exp) from now and from its iat, in seconds. */
  readonly callerJwtMaxLifetimeSeconds: number;
  readonly gatewayMaxBodyBytes: number;
  readonly gatewayMaxResponseBytes: number;
  readonly eventStreamsSweepIntervalMs: number;
  readonly jobRetentionHours: number;
  /** How long a web console session lasts after sign-in. */
  readonly consoleSessionHours: number;
  readonly jobsSweepIntervalMs: number;
  readonly packageMaxBytes: number;
  /** SWITCHBOARD_TOKEN: the developer API token the command line uses to call a server (switchboard deploy). */
  readonly cliToken: string | undefined;
  /** SWITCHBOARD_TARGET_TOKEN: a token of the target environment, for `switchboard deploy --run-tests`. */
  readonly cliTargetToken: string | undefined;
  readonly packageMaxUncompressedBytes: number;
  readonly packageRetentionHours: number;
  readonly smtpUrl: string | undefined;
  readonly smtpFrom: string;
  readonly secretsCacheTtlSeconds: number;
  readonly secretsEnvPrefix: string;
  /** Snapshot of the variables the `env:` secret provider may read (names starting with secretsEnvPrefix). */
  readonly secretsEnvironment: ReadonlyMap<string, string>;
  readonly secretsDir: string | undefined;
  readonly lookupTableMaxRows: number;
  /** Records one data table may hold. */
  readonly dataTableMaxRecords: number;
  /** Largest file the file store (workato_files) keeps. */
  readonly fileMaxBytes: number;
  readonly jobBacklogPerRecipe: number;
  readonly jobBacklogPerWorkspace: number;
  /** Steps one job may run before it fails (JOB_MAX_STEPS). */
  readonly jobMaxSteps: number;
  /** Bytes of step outcomes a job keeps to resume after a workflow task (JOB_MAX_REPLAY_BYTES). */
  readonly jobMaxReplayBytes: number;
  /** How often polling triggers (rest/new_poll_event) poll, in seconds. */
  readonly triggerPollSeconds: number;
  /** On PostgreSQL, how old a data table's record or a stored file must be before a polling trigger takes it. */
  readonly storePollSettleMs: number;
  /** Several nodes on PostgreSQL: how long a node's claim on a job or a package lasts without being renewed. */
  readonly nodeLeaseMs: number;
  /** Code sandboxes' and custom connectors' worker threads idle this long are released (0: never). */
  readonly sandboxIdleMs: number;
  /** Python code steps: interpreters kept loaded at most, busy or idle (PYTHON_INTERPRETERS). */
  readonly pythonInterpreters: number;
  /** Image threads (transform_image, charts) running at once, and images waiting for one beyond them. */
  readonly imageWorkers: number;
  readonly imageQueueMax: number;
  /** Custom connectors' Ruby: worker threads (one interpreter each), memory and time of a call. */
  readonly connectorWorkers: number;
  readonly connectorMemoryBytes: number;
  readonly connectorTimeoutMs: number;
  readonly connectorWallTimeoutMs: number;
  /** The command line's `connector exec`: the proxy and extra CA certificates of the environment. */
  readonly outboundProxy: { readonly http?: string; readonly https?: string; readonly noProxy?: string };
  readonly sslCertFile: string | undefined;
  /** How long one call of a model (AI steps, Genies) may take, streaming included. */
  readonly modelTimeoutMs: number;
  /** How long an MCP tool call waits for its job before it answers a timeout. */
  readonly mcpCallTimeoutMs: number;
  /** Outbound requests made for users (docs/adr/0019): whether loopback addresses may be reached. */
  readonly outboundAllowLoopback: boolean;
  /** Whether private ranges (RFC 1918, CGNAT, unique local IPv6) may be reached. */
  readonly outboundAllowPrivate: boolean;
  /** Address ranges reachable whatever their class. */
  readonly outboundAllowAddresses: readonly string[];
  /** Connector origins sent elsewhere (a local stand-in of the service): origin -> origin. */
  readonly connectorOrigins: ReadonlyMap<string, string>;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Minimum length of SWITCHBOARD_ADMIN_TOKEN: anything shorter is guessable. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

type Env = Readonly<Record<string, string | undefined>>;

/** The variables this file reads: never exposed through the `env:` secret provider, whatever the prefix. */
export const CONFIG_VARIABLES: readonly string[] = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'LOG_LEVEL',
  'SWITCHBOARD_ADMIN_TOKEN',
  'SWITCHBOARD_SECRET_KEY',
  'PUBLIC_BASE_URL',
  'PUBLIC_AUTH_URL',
  'PUBLIC_EVENT_STREAMS_URL',
  'EVENT_STREAMS_PORT',
  'BODY_LIMIT_BYTES',
  'RECIPE_BODY_LIMIT_BYTES',
  'TRUST_PROXY',
  'SQLITE_SYNCHRONOUS',
  'SHUTDOWN_TIMEOUT_MS',
  'EVENT_STREAMS_SWEEP_INTERVAL_MS',
  'SECRETS_CACHE_TTL_SECONDS',
  'SECRETS_ENV_PREFIX',
  'SECRETS_DIR',
  'PUBLIC_GATEWAY_URL',
  'GATEWAY_MAX_BODY_BYTES',
  'GATEWAY_MAX_RESPONSE_BYTES',
  'GATEWAY_TIMEOUT_MS',
  'CALLER_JWT_MAX_LIFETIME_SECONDS',
  'LOOKUP_TABLE_MAX_ROWS',
  'DATA_TABLE_MAX_RECORDS',
  'FILE_MAX_BYTES',
  'SMTP_URL',
  'SMTP_FROM',
  'JOB_BACKLOG_PER_RECIPE',
  'JOB_MAX_STEPS',
  'JOB_MAX_REPLAY_BYTES',
  'JOB_BACKLOG_PER_WORKSPACE',
  'TRIGGER_POLL_SECONDS',
  'STORE_POLL_SETTLE_MS',
  'JOB_RETENTION_HOURS',
  'CONSOLE_SESSION_HOURS',
  'JOBS_SWEEP_INTERVAL_MS',
  'PACKAGE_MAX_BYTES',
  'PACKAGE_MAX_UNCOMPRESSED_BYTES',
  'PACKAGE_RETENTION_HOURS',
  'SWITCHBOARD_TOKEN',
  'SWITCHBOARD_TARGET_TOKEN',
  'DATABASE_POOL_MAX',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'DATABASE_IDLE_TIMEOUT_MS',
  'NODE_LEASE_MS',
  'SANDBOX_IDLE_MS',
  'PYTHON_INTERPRETERS',
  'IMAGE_WORKERS',
  'IMAGE_QUEUE_MAX',
  'CONNECTOR_WORKERS',
  'CONNECTOR_MEMORY_MB',
  'CONNECTOR_TIMEOUT_MS',
  'CONNECTOR_WALL_TIMEOUT_MS',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'MODEL_TIMEOUT_MS',
  'MCP_CALL_TIMEOUT_MS',
  'OUTBOUND_ALLOW_LOOPBACK',
  'OUTBOUND_ALLOW_PRIVATE',
  'OUTBOUND_ALLOW_ADDRESSES',
  'CONNECTOR_ORIGINS',
];

export const DEFAULT_SECRETS_ENV_PREFIX = 'SWITCHBOARD_SECRET_';

export function loadConfig(env: Env = process.env): Config {
  const port = intSetting(env, 'PORT', 3000, 0, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const publicBaseUrl = urlSetting(env, 'PUBLIC_BASE_URL') ?? `http://${hostForUrl(host)}:${port}`;
  const eventStreamsPort = optionalIntSetting(env, 'EVENT_STREAMS_PORT', 1, 65535);
  if (eventStreamsPort !== undefined && eventStreamsPort === port) {
    throw new ConfigError('EVENT_STREAMS_PORT must differ from PORT (leave it unset to serve event streams on PORT)');
  }
  const adminToken = str(env, 'SWITCHBOARD_ADMIN_TOKEN');
  if (adminToken !== undefined && (adminToken.length < MIN_ADMIN_TOKEN_LENGTH || /\s/.test(adminToken))) {
    throw new ConfigError(
      `SWITCHBOARD_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters without spaces`,
    );
  }
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const sync = (str(env, 'SQLITE_SYNCHRONOUS') ?? 'FULL').toUpperCase();
  if (sync !== 'FULL' && sync !== 'NORMAL') throw new ConfigError('SQLITE_SYNCHRONOUS must be FULL or NORMAL');
  const smtpUrl = smtpUrlSetting(env);
  const smtpFrom = str(env, 'SMTP_FROM') ?? 'Switchboard <switchboard@localhost>';
  if (/[\r\n]/.test(smtpFrom) || !smtpFrom.includes('@'))
    throw new ConfigError(
      'SMTP_FROM must be an e-mail address, optionally with a name: "Switchboard <ops@example.com>"',
    );
  const trustProxy = (str(env, 'TRUST_PROXY') ?? 'false').toLowerCase();
  if (trustProxy !== 'true' && trustProxy !== 'false') throw new ConfigError('TRUST_PROXY must be true or false');
  const secretsEnvPrefix = str(env, 'SECRETS_ENV_PREFIX') ?? DEFAULT_SECRETS_ENV_PREFIX;
  if (!/^[A-Za-z][A-Za-z0-9_]{3,99}$/.test(secretsEnvPrefix)) {
    throw new ConfigError('SECRETS_ENV_PREFIX must be 4 to 100 letters, digits or underscores, starting with a letter');
  }
  const secretsDir = str(env, 'SECRETS_DIR');
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new ConfigError(
      'DATABASE_URL must be a PostgreSQL connection string: postgres://user:password@host:5432/database',
    );
  }

  return Object.freeze({
    // Port the HTTP server listens on.
    port,
    // Interface to bind; loopback by default so a fresh install is not exposed.
    host,
    // Where the embedded database and the generated secret key live.
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? './data'),
    // Unset: embedded SQLite under DATA_DIR. Set: PostgreSQL connection string.
    // Holds a password: never logged.
    databaseUrl,
    // PostgreSQL: connections the pool opens at most (each node of several opens its own pool).
    databasePoolMax: intSetting(env, 'DATABASE_POOL_MAX', 10, 2, 1000),
    // PostgreSQL: how long opening a connection may take; a request waiting longer answers 503.
    databaseConnectTimeoutMs: intSetting(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    // PostgreSQL: an idle pooled connection is closed after this long.
    databaseIdleTimeoutMs: intSetting(env, 'DATABASE_IDLE_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
    // pino level: fatal, error, warn, info, debug, trace or silent.
    logLevel: logLevel as LogLevel,
    // When set, start-up ensures an admin developer API client in dev with exactly this token.
    adminToken,
    // 32-byte key (64 hex chars or base64) that encrypts credentials at rest; unset: generated into DATA_DIR.
    secretKey: str(env, 'SWITCHBOARD_SECRET_KEY'),
    // Advertised address of the management API and the API platform.
    publicBaseUrl,
    // Advertised address of POST /oauth2/token.
    publicAuthUrl: urlSetting(env, 'PUBLIC_AUTH_URL') ?? publicBaseUrl,
    // Advertised address of the PubSub (event streams) API; defaults to the event streams listener when there is one.
    publicEventStreamsUrl:
      urlSetting(env, 'PUBLIC_EVENT_STREAMS_URL') ??
      (eventStreamsPort === undefined ? publicBaseUrl : `http://${hostForUrl(host)}:${eventStreamsPort}`),
    // Unset: PORT serves everything. Set: a second listener on HOST:EVENT_STREAMS_PORT serving only the event streams operations and health checks.
    eventStreamsPort,
    // Advertised address of published APIs (the gateway); a host of its own is routed by Host header.
    publicGatewayUrl: urlSetting(env, 'PUBLIC_GATEWAY_URL') ?? publicBaseUrl,
    // Largest request body accepted, in bytes (larger: 413).
    bodyLimitBytes: intSetting(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // Largest body of a recipe create or update (larger: 413): exported recipes reach megabytes.
    // At most 256 MiB: the code itself is held to 64 Mi characters (engine/document.ts).
    recipeBodyLimitBytes: intSetting(env, 'RECIPE_BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    // Trust X-Forwarded-For for the client address (IP allow lists) when behind a proxy.
    trustProxy: trustProxy === 'true',
    // SQLite durability: FULL syncs every commit (survives power loss); NORMAL survives process crashes only.
    sqliteSynchronous: sync,
    // How long a graceful shutdown waits for in-flight requests before closing connections.
    shutdownTimeoutMs: intSetting(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    // How long the gateway waits for an upstream (proxy) answer before 504 (vendor: 30 s).
    gatewayTimeoutMs: intSetting(env, 'GATEWAY_TIMEOUT_MS', 30_000, 100, 240_000),
    // A caller's JWT (published APIs, event streams) must carry `exp` (RFC 7523 §3) no further than
    // this from now, nor from its `iat`: a leaked identity-provider token stops working within it.
    callerJwtMaxLifetimeSeconds: intSetting(env, 'CALLER_JWT_MAX_LIFETIME_SECONDS', 86_400, 60, 366 * 86_400),
    // Largest request body a published API accepts (vendor: 5 MB).
    gatewayMaxBodyBytes: intSetting(env, 'GATEWAY_MAX_BODY_BYTES', 5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // Largest response the gateway relays; larger: 502 (vendor: 100 KB).
    gatewayMaxResponseBytes: intSetting(env, 'GATEWAY_MAX_RESPONSE_BYTES', 100 * 1024, 1024, 1024 * 1024 * 1024),
    // How often the event streams retention sweep runs (expired, purged and deleted topics' messages).
    eventStreamsSweepIntervalMs: intSetting(env, 'EVENT_STREAMS_SWEEP_INTERVAL_MS', 60_000, 10, 24 * 3600 * 1000),
    // How long a finished job and its lines are kept after it ended (vendor: 30 days by default,
    // 1 hour at least when customised); the sweep deletes older ones. Pending jobs are never deleted.
    jobRetentionHours: intSetting(env, 'JOB_RETENTION_HOURS', 30 * 24, 1, 100 * 365 * 24),
    // How long a web console session lasts after sign-in; signing in again starts a new one.
    consoleSessionHours: intSetting(env, 'CONSOLE_SESSION_HOURS', 12, 1, 24 * 30),
    // How often the job retention sweep runs.
    jobsSweepIntervalMs: intSetting(env, 'JOBS_SWEEP_INTERVAL_MS', 60_000, 10, 24 * 3600 * 1000),
    // How long an export's zip and a completed test run request are kept after they ended (builds' zips stay).
    packageRetentionHours: intSetting(env, 'PACKAGE_RETENTION_HOURS', 30 * 24, 1, 100 * 365 * 24),
    // A developer API token for the command line's calls to a server; never logged.
    cliToken: str(env, 'SWITCHBOARD_TOKEN'),
    cliTargetToken: str(env, 'SWITCHBOARD_TARGET_TOKEN'),
    // Largest package zip accepted by POST /api/packages/import (contract 15, open question 6: 50 MB).
    packageMaxBytes: intSetting(env, 'PACKAGE_MAX_BYTES', 50 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    // Largest total of the files inside a package once uncompressed (a zip bomb is refused before it is inflated).
    packageMaxUncompressedBytes: intSetting(
      env,
      'PACKAGE_MAX_UNCOMPRESSED_BYTES',
      512 * 1024 * 1024,
      1024,
      8 * 1024 * 1024 * 1024,
    ),
    // SMTP server for invitation e-mails: smtp://user:pass@host:587 (STARTTLS when offered) or
    // smtps://user:pass@host:465. Unset: invitations are recorded and logged as pending, not sent.
    // Holds a password: never logged.
    smtpUrl,
    // Sender of invitation e-mails.
    smtpFrom,
    // How long a secret read from an environment variable or a file is reused before it is read again (0: never cached).
    secretsCacheTtlSeconds: intSetting(env, 'SECRETS_CACHE_TTL_SECONDS', 3600, 0, 7 * 24 * 3600),
    // Only environment variables whose name starts with this prefix can be referenced as `env:NAME` secrets.
    secretsEnvPrefix,
    // Those variables, read once at start (a Map, so that logging the config never prints a value).
    secretsEnvironment: secretEnvironment(env, secretsEnvPrefix),
    // Directory of the `file:NAME` secret provider (e.g. /run/secrets); unset: file secrets are off.
    secretsDir: secretsDir === undefined ? undefined : path.resolve(secretsDir),
    // Rows one lookup table may hold; the default is ten times the vendor's published 100,000.
    lookupTableMaxRows: intSetting(env, 'LOOKUP_TABLE_MAX_ROWS', 1_000_000, 1, 1_000_000_000),
    dataTableMaxRecords: intSetting(env, 'DATA_TABLE_MAX_RECORDS', 100_000, 1, 100_000_000),
    fileMaxBytes: intSetting(env, 'FILE_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    // Pending (queued or running) jobs one recipe may hold; beyond it webhooks and API calls of
    // the recipe answer 429. Well under the vendor's queue size of 10,000: the wait of an accepted
    // event is this backlog over the recipe's throughput, and should stay under a second.
    jobBacklogPerRecipe: intSetting(env, 'JOB_BACKLOG_PER_RECIPE', 500, 1, 10_000_000),
    // Steps one job may run (every step started, every pass of a repeat or a foreach): a loop
    // that never ends fails its job instead of running for ever.
    jobMaxSteps: intSetting(env, 'JOB_MAX_STEPS', 1_000_000, 100, 1_000_000_000),
    // Bytes of step outcomes a job of a recipe with workflow tasks keeps in memory to resume from.
    jobMaxReplayBytes: intSetting(env, 'JOB_MAX_REPLAY_BYTES', 16 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    // Pending jobs the recipes of one workspace may hold together (the vendor's queue size).
    jobBacklogPerWorkspace: intSetting(env, 'JOB_BACKLOG_PER_WORKSPACE', 10_000, 1, 100_000_000),
    // Polling triggers poll every 5 minutes, the vendor's default (contract 20 §11).
    triggerPollSeconds: intSetting(env, 'TRIGGER_POLL_SECONDS', 300, 1, 30 * 86_400),
    // On PostgreSQL rows commit out of id order: the store's polling triggers (data tables, files)
    // take only rows this old, so that a row committed late behind a higher id is not skipped.
    storePollSettleMs: intSetting(env, 'STORE_POLL_SETTLE_MS', 2000, 100, 60_000),
    // Several nodes on PostgreSQL: a node renews its claims every third of this; a node that stops
    // renewing (killed, cut off) leaves its running jobs to be failed Interrupted, and its package
    // or test run to be taken up, by another node once this has passed.
    nodeLeaseMs: intSetting(env, 'NODE_LEASE_MS', 30_000, 1_000, 600_000),
    // An interpreter holds tens of MB; one unused for five minutes is released (reloaded from its snapshot file).
    sandboxIdleMs: intSetting(env, 'SANDBOX_IDLE_MS', 300_000, 0, 86_400_000),
    // A loaded Python interpreter holds 100 MB or more: three (two steps at once and a loaded
    // spare) fit a small container; raise it so that more active recipes keep one each.
    pythonInterpreters: intSetting(env, 'PYTHON_INTERPRETERS', 3, 1, 64),
    // An image thread may decode up to 25 megapixels (about 100 MB, in a heap of up to 256 MB).
    imageWorkers: intSetting(env, 'IMAGE_WORKERS', 2, 1, 64),
    imageQueueMax: intSetting(env, 'IMAGE_QUEUE_MAX', 100, 0, 100_000),
    // Custom connectors run in Ruby interpreters, one per worker thread (about 80 MB each at rest).
    connectorWorkers: intSetting(env, 'CONNECTOR_WORKERS', 2, 1, 64),
    // What one call of a connector may allocate beyond the interpreter at rest (NoMemoryError past it).
    connectorMemoryBytes: intSetting(env, 'CONNECTOR_MEMORY_MB', 128, 16, 4096) * 1024 * 1024,
    // CPU time of one call (the time Ruby runs, waits for HTTP excluded), and its wall time.
    connectorTimeoutMs: intSetting(env, 'CONNECTOR_TIMEOUT_MS', 30_000, 100, 3_600_000),
    connectorWallTimeoutMs: intSetting(env, 'CONNECTOR_WALL_TIMEOUT_MS', 180_000, 1_000, 86_400_000),
    // As curl and Ruby's Net::HTTP read them (upper or lower case).
    outboundProxy: Object.freeze({
      ...optional('http', str(env, 'HTTP_PROXY') ?? str(env, 'http_proxy')),
      ...optional('https', str(env, 'HTTPS_PROXY') ?? str(env, 'https_proxy')),
      ...optional('noProxy', str(env, 'NO_PROXY') ?? str(env, 'no_proxy')),
    }),
    sslCertFile: str(env, 'SSL_CERT_FILE'),
    // One call of a model connection (AI steps, Genie turns): a local model on a CPU can be slow.
    modelTimeoutMs: intSetting(env, 'MODEL_TIMEOUT_MS', 120_000, 100, 3_600_000),
    // How long an MCP tool call waits for its job (the API platform's recipe calls wait GATEWAY_TIMEOUT_MS).
    mcpCallTimeoutMs: intSetting(env, 'MCP_CALL_TIMEOUT_MS', 60_000, 100, 600_000),
    // Requests made for users (connectors, the HTTP connector, proxy collections, JWKS) may reach
    // loopback only when this is true; link-local (cloud metadata) and this server's own ports never.
    outboundAllowLoopback: boolSetting(env, 'OUTBOUND_ALLOW_LOOPBACK', false),
    // ... and private ranges unless this is false.
    outboundAllowPrivate: boolSetting(env, 'OUTBOUND_ALLOW_PRIVATE', true),
    // Comma-separated addresses or CIDR ranges reachable whatever their class (e.g. 127.0.0.1/32,169.254.10.0/24).
    outboundAllowAddresses: addressRangesSetting(env, 'OUTBOUND_ALLOW_ADDRESSES'),
    // JSON object sending a connector's service origin elsewhere: {"https://api.stripe.com": "http://127.0.0.1:4010"}.
    connectorOrigins: originsSetting(env, 'CONNECTOR_ORIGINS'),
  });
}

function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false`);
  return raw === 'true';
}

function addressRangesSetting(env: Env, name: string): readonly string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries)
    if (!isAddressRange(entry))
      throw new ConfigError(`${name}: ${entry} is not an IP address or a CIDR range (e.g. 10.1.0.0/16)`);
  return Object.freeze(entries);
}

function originsSetting(env: Env, name: string): ReadonlyMap<string, string> {
  const raw = str(env, name);
  const out = new Map<string, string>();
  if (raw === undefined) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      `${name} must be a JSON object of origins: {"https://api.example.com": "http://127.0.0.1:4010"}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError(`${name} must be a JSON object of origins`);
  for (const [from, to] of Object.entries(parsed)) {
    const a = originOf(from);
    const b = typeof to === 'string' ? originOf(to) : null;
    if (a === null || b === null)
      throw new ConfigError(`${name}: ${from} -> ${String(to)} must map an http(s) origin to another`);
    out.set(a, b);
  }
  return out;
}

function originOf(text: string): string | null {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && (url.pathname === '/' || url.pathname === '')
      ? url.origin
      : null;
  } catch {
    return null;
  }
}

function secretEnvironment(env: Env, prefix: string): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name.startsWith(prefix) && !CONFIG_VARIABLES.includes(name)) out.set(name, value);
  }
  return out;
}

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

function optionalIntSetting(env: Env, name: string, min: number, max: number): number | undefined {
  return str(env, name) === undefined ? undefined : intSetting(env, name, min, min, max);
}

function urlSetting(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL`);
  }
  return raw.replace(/\/+$/, '');
}

function smtpUrlSetting(env: Env): string | undefined {
  const raw = str(env, 'SMTP_URL');
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // The message never repeats the value: it may hold a password.
  if (url === undefined || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError(
      'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587',
    );
  }
  return raw;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
