// Structured JSON logs (pino). Nothing secret may reach them: authorization headers, tokens
// and secrets are redacted wherever they appear, and request URLs lose sensitive query values.
import { pino, type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

const SENSITIVE_QUERY =
  /([?&](?:user_token|api_token|token|access_token|client_secret|secret|password|api_key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SENSITIVE_QUERY, '$1[REDACTED]');
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-user-token"]',
        'token',
        'token_value',
        'client_secret',
        'secret',
        'password',
        'adminToken',
        'secretKey',
        'smtpUrl',
        'auth_token',
        'jwt_secret',
        '*.token',
        '*.token_value',
        '*.client_secret',
        '*.secret',
        '*.password',
        '*.adminToken',
        '*.secretKey',
        '*.smtpUrl',
        '*.auth_token',
        '*.jwt_secret',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger (Fastify's childLoggerFactory): the pino child, with its bindings and
 * redaction, is made only when a line is written at a level that is enabled. Most requests write
 * nothing at the default level, and making a child costs about as much as issuing a token.
 */
export class LazyChildLogger {
  readonly #parent: Logger;
  readonly #bindings: Record<string, unknown>;
  readonly #options: object;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Record<string, unknown>, options: object) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(level: LevelName, args: unknown[]): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  bindings(): Record<string, unknown> {
    return this.#real().bindings();
  }
  child(bindings: Record<string, unknown>, options?: object): Logger {
    return this.#real().child(bindings, options);
  }
  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}
}

/**
 * A child logger made when first written to. Options that change the child (a route's own log
 * level) make it at once, since the parent's level no longer tells what is enabled.
 */
export function lazyChild(logger: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  if (Object.keys(options).length > 0) return logger.child(bindings, options);
  return new LazyChildLogger(logger, bindings, options) as unknown as Logger;
}
