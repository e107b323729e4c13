// The only reader of process.env: parse once, validate, freeze, pass down.
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export type SqliteSynchronous = 'FULL' | 'NORMAL';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly logLevel: LogLevel;
  readonly adminToken: string | undefined;
  readonly secretKey: string | undefined;
  readonly publicBaseUrl: string;
  readonly publicAuthUrl: string;
  readonly publicEventStreamsUrl: string;
  readonly bodyLimitBytes: number;
  readonly trustProxy: boolean;
  readonly sqliteSynchronous: SqliteSynchronous;
  readonly shutdownTimeoutMs: number;
  readonly lookupTableMaxRows: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Minimum length of SWITCHBOARD_ADMIN_TOKEN: anything shorter is guessable. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env): Config {
  const port = intSetting(env, 'PORT', 3000, 0, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const publicBaseUrl = urlSetting(env, 'PUBLIC_BASE_URL') ?? `http://${hostForUrl(host)}:${port}`;
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
  const trustProxy = (str(env, 'TRUST_PROXY') ?? 'false').toLowerCase();
  if (trustProxy !== 'true' && trustProxy !== 'false') throw new ConfigError('TRUST_PROXY must be true or false');

  return Object.freeze({
    // Port the HTTP server listens on.
    port,
    // Interface to bind; loopback by default so a fresh install is not exposed.
    host,
    // Where the embedded database and the generated secret key live.
    dataDir: path.resolve(str(env, 'DATA_DIR') ?? './data'),
    // Unset: embedded SQLite under DATA_DIR. Set: PostgreSQL connection string.
    databaseUrl: str(env, 'DATABASE_URL'),
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
    // Advertised address of the PubSub (event streams) API.
    publicEventStreamsUrl: urlSetting(env, 'PUBLIC_EVENT_STREAMS_URL') ?? publicBaseUrl,
    // Largest request body accepted, in bytes (larger: 413).
    bodyLimitBytes: intSetting(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // Trust X-Forwarded-For for the client address (IP allow lists) when behind a proxy.
    trustProxy: trustProxy === 'true',
    // SQLite durability: FULL syncs every commit (survives power loss); NORMAL survives process crashes only.
    sqliteSynchronous: sync,
    // How long a graceful shutdown waits for in-flight requests before closing connections.
    shutdownTimeoutMs: intSetting(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    // Rows one lookup table may hold; the default is ten times the vendor's published 100,000.
    lookupTableMaxRows: intSetting(env, 'LOOKUP_TABLE_MAX_ROWS', 1_000_000, 1, 1_000_000_000),
  });
}

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
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

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
