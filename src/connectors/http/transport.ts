// One HTTP exchange of a connector, the way every connector makes it (docs/adr/0019): through the
// outbound policy's dispatcher, with CONNECTOR_ORIGINS applied, bounded in time and size,
// following redirects (each hop checked again), waiting as a 429 or 503 asks (`Retry-After`)
// while the wait fits before the step's deadline, and one debug log line per exchange that
// never holds a secret. It knows nothing of authentication: the session (session.ts) and the
// Ruby runtime (sdk/) add it.
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { OutboundRefusedError, type OutboundPolicy, type OutboundSettings } from '../../outbound/policy.ts';
import { StepError } from '../step-error.ts';
import { redactUrl, redactHeaders, maskSecrets } from './redact.ts';
import { tlsDispatcher, type RequestTls } from './tls-dispatchers.ts';
import { undici } from '../../outbound/undici.ts';

export interface TransportRequest {
  method: string;
  /** Absolute http(s) URL. */
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  /** Follow 3xx answers with a Location (at most 5, each checked by the outbound policy); default true. */
  followRedirects?: boolean;
  /** Values that must never appear in the log (tokens, keys, passwords): masked wherever they occur. */
  secrets?: readonly string[];
  /** TLS settings of its own (a client certificate, certificates to trust): tls-dispatchers.ts. */
  tls?: RequestTls;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered (after redirects), as the connector named it (before CONNECTOR_ORIGINS). */
  url: string;
}

export interface ExchangeLimits {
  /** Per attempt: until the headers, and between two chunks of the body. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** Epoch milliseconds by which the exchange, its waits included, must be over. */
  deadline: number;
  /** Waits (for Retry-After); may reject when the job is being shut down. */
  sleep(ms: number): Promise<void>;
  /** Wait and retry on 429 and 503 while `Retry-After` fits before the deadline; default true. */
  retryRateLimits?: boolean;
}

export interface Transport {
  send(request: TransportRequest, limits: ExchangeLimits): Promise<TransportResponse>;
  /**
   * What another thread needs to send exchanges exactly as this transport does (the same outbound
   * settings, CONNECTOR_ORIGINS, whether the debug log is on), and where its log lines go; null
   * when the outbound policy cannot be rebuilt elsewhere.
   */
  portable?(): PortableTransport | null;
}

/** A transport as data (structured-cloneable): rebuilt by `transportOf` in another thread. */
export interface TransportSettings {
  outbound: OutboundSettings;
  origins: Array<[string, string]>;
  debug: boolean;
}

export interface PortableTransport {
  settings: TransportSettings;
  /** Takes a log line the other thread's transport made (already without secrets). */
  log(line: ExchangeLogLine): void;
}

export interface ExchangeLogLine {
  fields: Record<string, unknown>;
  message: string;
}

/** The part of a logger the transport writes to. */
export type ExchangeLog = Pick<Logger, 'isLevelEnabled' | 'debug'>;

export interface TransportDeps {
  outbound: OutboundPolicy;
  log: ExchangeLog;
  /** CONNECTOR_ORIGINS: a service's origin sent to another (a local stand-in). */
  origins: ReadonlyMap<string, string>;
  now(): number;
}

const MAX_REDIRECTS = 5;
const MAX_RATE_LIMIT_RETRIES = 5;
/** When a 429 or 503 says nothing of when to come back. */
const DEFAULT_RETRY_MS = 1000;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function createTransport(deps: TransportDeps): Transport {
  return {
    portable() {
      const outbound = deps.outbound.settings();
      if (outbound === null) return null;
      return {
        settings: { outbound, origins: [...deps.origins], debug: deps.log.isLevelEnabled('debug') },
        log: (line) => deps.log.debug(line.fields, line.message),
      };
    },
    async send(req, limits) {
      const secrets = (req.secrets ?? []).filter((s) => s.length >= 4);
      let url = parseHttpUrl(req.url);
      let method = req.method.toUpperCase();
      let body = req.body;
      let headers = { ...req.headers };
      let redirects = 0;
      let rateLimitRetries = 0;
      let timeoutRetried = false;
      for (;;) {
        const started = deps.now();
        const remaining = limits.deadline - started;
        if (remaining <= 0)
          throw new StepError('Timeout', `the step ran out of time before ${method} ${redactUrl(url, secrets)}`);
        let res: RawResponse;
        try {
          res = await exchange(
            deps,
            url,
            method,
            headers,
            body,
            Math.min(limits.timeoutMs, remaining),
            limits,
            req.tls,
          );
        } catch (error) {
          const failure = failureOf(error, url, secrets, Math.min(limits.timeoutMs, remaining));
          logExchange(deps.log, method, url, secrets, headers, null, deps.now() - started, failure.message);
          if (
            failure.errorType === 'Timeout' &&
            !timeoutRetried &&
            IDEMPOTENT.has(method) &&
            limits.deadline > deps.now()
          ) {
            timeoutRetried = true;
            continue;
          }
          throw failure;
        }
        logExchange(deps.log, method, url, secrets, headers, res, deps.now() - started, null);
        if (
          (res.status === 429 || res.status === 503) &&
          limits.retryRateLimits !== false &&
          rateLimitRetries < MAX_RATE_LIMIT_RETRIES
        ) {
          const wait = retryAfterMs(res.headers['retry-after'], deps.now()) ?? DEFAULT_RETRY_MS * 2 ** rateLimitRetries;
          if (deps.now() + wait < limits.deadline) {
            rateLimitRetries += 1;
            await limits.sleep(wait);
            continue;
          }
        }
        const location = res.headers.location;
        if (req.followRedirects !== false && res.status >= 300 && res.status < 400 && location !== undefined) {
          if (redirects >= MAX_REDIRECTS)
            throw new StepError(
              'Connection error',
              `more than ${MAX_REDIRECTS} redirects from ${redactUrl(url, secrets)}`,
            );
          redirects += 1;
          const next = parseHttpUrl(new URL(location, url).toString());
          // A redirect to another origin does not carry the credentials of the first.
          if (next.origin !== url.origin) headers = withoutCredentials(headers);
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            delete headers['content-type'];
            delete headers['Content-Type'];
          }
          url = next;
          continue;
        }
        return { status: res.status, headers: res.headers, body: res.body, url: url.toString() };
      }
    },
  };
}

/** A request's TLS settings as the transport takes them (none: nothing). */
export function tlsOf(req: {
  clientCertificate?: RequestTls['clientCertificate'];
  serverCertificates?: RequestTls['serverCertificates'];
}): { tls?: RequestTls } {
  if (!req.clientCertificate && !req.serverCertificates) return {};
  return {
    tls: {
      ...(req.clientCertificate ? { clientCertificate: req.clientCertificate } : {}),
      ...(req.serverCertificates ? { serverCertificates: req.serverCertificates } : {}),
    },
  };
}

/** The URL with its origin replaced as CONNECTOR_ORIGINS says (unchanged when it names none). */
export function applyOrigins(text: string, origins: ReadonlyMap<string, string>): string {
  if (origins.size === 0) return text;
  const url = new URL(text);
  const replacement = origins.get(url.origin);
  if (replacement === undefined) return text;
  const to = new URL(replacement);
  url.protocol = to.protocol;
  url.host = to.host;
  return url.toString();
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function exchange(
  deps: TransportDeps,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  timeoutMs: number,
  limits: ExchangeLimits,
  tls: RequestTls | undefined,
): Promise<RawResponse> {
  const target = new URL(applyOrigins(url.toString(), deps.origins));
  deps.outbound.checkUrl(target);
  const dispatcher = tls ? tlsDispatcher(deps.outbound, tls) : deps.outbound.dispatcher;
  const res = await undici().request(target, {
    method: method as Dispatcher.HttpMethod,
    headers,
    body: body ?? null,
    dispatcher,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(Math.max(1, Math.min(timeoutMs * 2, limits.deadline - deps.now()))),
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > limits.maxResponseBytes) {
      // Leaving the loop ends the body.
      throw new StepError('Response too large', `the response is larger than ${limits.maxResponseBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: res.statusCode, headers: out, body: Buffer.concat(chunks) };
}

function failureOf(error: unknown, url: URL, secrets: readonly string[], timeoutMs: number): StepError {
  if (error instanceof StepError) return error;
  if (error instanceof OutboundRefusedError) return new StepError('Connection error', error.message);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundRefusedError) return new StepError('Connection error', cause.message);
  const code = (error as { code?: string }).code ?? '';
  const name = (error as { name?: string }).name ?? '';
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    name === 'TimeoutError'
  )
    return new StepError('Timeout', `no answer from ${url.host} within ${timeoutMs} ms`);
  return new StepError(
    'Connection error',
    maskSecrets(`cannot reach ${url.host}: ${code || (error as Error).message}`, secrets),
  );
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new StepError('Bad request', `${JSON.stringify(text.slice(0, 100))} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StepError('Bad request', 'the URL must be http or https');
  return url;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (!/^(authorization|cookie|proxy-authorization|x-api-key|api-key)$/i.test(name)) out[name] = value;
  return out;
}

function logExchange(
  log: ExchangeLog,
  method: string,
  url: URL,
  secrets: readonly string[],
  requestHeaders: Record<string, string>,
  res: RawResponse | null,
  ms: number,
  error: string | null,
): void {
  if (!log.isLevelEnabled('debug')) return;
  log.debug(
    {
      outbound: {
        method,
        url: redactUrl(url, secrets),
        request_headers: redactHeaders(requestHeaders, secrets),
        status: res?.status ?? null,
        response_headers: res ? redactHeaders(res.headers, secrets) : null,
        response_bytes: res?.body.length ?? null,
        ms,
        ...(error ? { error: maskSecrets(error, secrets) } : {}),
      },
    },
    'connector request',
  );
}
