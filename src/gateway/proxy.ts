// Proxy collections: a call is forwarded to the connection's base URL plus the path below the
// collection, with the query, method, body and a safe subset of headers; the caller's
// credentials never go upstream, the connection's do (contract README, "Proxy collections").
import type { Dispatcher } from 'undici';
import type { OutboundPolicy } from '../outbound/policy.ts';
import { GATEWAY_ERRORS } from '../http/gateway-errors.ts';

export interface Upstream {
  baseUrl: URL;
  headers: Record<string, string>;
}

export interface ProxyRequest {
  method: string;
  subPath: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | undefined;
  clientAddress: string;
  requestId: string;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export class ProxyError extends Error {
  override name = 'ProxyError';
  readonly code: 'bad_gateway' | 'gateway_timeout' | 'response_too_large';
  readonly status: number;
  constructor(code: 'bad_gateway' | 'gateway_timeout' | 'response_too_large') {
    super(GATEWAY_ERRORS[code].error);
    this.code = code;
    this.status = GATEWAY_ERRORS[code].status;
  }
}

const FORWARD_REQUEST_HEADERS = [
  'accept',
  'accept-language',
  'content-type',
  'content-language',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'user-agent',
];
const FORWARD_RESPONSE_HEADERS = [
  'content-type',
  'content-language',
  'cache-control',
  'etag',
  'last-modified',
  'expires',
  'location',
  'retry-after',
  'vary',
];

/** Characters a path may carry as they are (RFC 3986 pchar, '/' and percent-escapes): nothing to encode. */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

export function createProxy(options: { timeoutMs: number; maxResponseBytes: number; outbound: OutboundPolicy }) {
  // The upstream's address is checked by the outbound policy (a refused one is a 502). The pool is
  // made at the first call (undici loads then: src/outbound/undici.ts).
  let agent: Dispatcher | undefined;
  const pool = (): Dispatcher =>
    (agent ??= options.outbound.agent({
      keepAliveTimeout: 10_000,
      connections: 128,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    }));
  const deadlines = createDeadlines(options.timeoutMs);
  return {
    forward(upstream: Upstream, call: ProxyRequest): Promise<ProxyResponse> {
      const base = upstream.baseUrl;
      const pathname = `${base.pathname.replace(/\/+$/, '')}/${call.subPath}`;
      let origin: string;
      let path: string;
      if (PLAIN_PATH.test(pathname) && !/[#\s]/.test(call.query)) {
        // The common case, without building a URL per call: the path needs no encoding.
        origin = base.origin;
        path = call.query === '' ? pathname : `${pathname}?${call.query}`;
      } else {
        const url = new URL(base.toString());
        url.pathname = pathname;
        url.search = call.query;
        origin = url.origin;
        path = `${url.pathname}${url.search}`;
      }
      const headers: Record<string, string> = {};
      for (const name of FORWARD_REQUEST_HEADERS) {
        const value = call.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      headers['x-forwarded-for'] = call.clientAddress;
      headers['x-request-id'] = call.requestId;
      Object.assign(headers, upstream.headers);
      return new Promise((resolve, reject) => {
        const exchange = new Exchange(options.maxResponseBytes, resolve, reject, deadlines);
        deadlines.start(exchange);
        try {
          pool().dispatch(
            {
              origin,
              path,
              method: call.method as Dispatcher.HttpMethod,
              headers,
              body:
                call.body && call.body.length > 0 && call.method !== 'GET' && call.method !== 'HEAD' ? call.body : null,
            },
            exchange,
          );
        } catch {
          exchange.fail(new ProxyError('bad_gateway'));
        }
      });
    },
    close: () => {
      deadlines.close();
      return agent?.close();
    },
  };
}

const TIMEOUT_ERRORS = new Set(['HeadersTimeoutError', 'BodyTimeoutError']);

/**
 * One forwarded call, as undici's dispatch handler: the body is gathered as it comes, up to the
 * limit (502 beyond, or when it breaks off), and the call settles once, whichever comes first: the
 * end of the body, an error, or its deadline (504). Undici's own request() would add a body stream,
 * an AbortSignal and their listeners to every call.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #limit: number;
  readonly #resolve: (response: ProxyResponse) => void;
  readonly #reject: (error: ProxyError) => void;
  readonly #deadlines: Deadlines;
  #controller: Dispatcher.DispatchController | null = null;
  #settled = false;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #size = 0;
  /** When the call times out (performance.now()), and its neighbours in the deadlines' list. */
  expiresAt = 0;
  previous: Exchange | null = null;
  next: Exchange | null = null;

  constructor(
    limit: number,
    resolve: (response: ProxyResponse) => void,
    reject: (error: ProxyError) => void,
    deadlines: Deadlines,
  ) {
    this.#limit = limit;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#deadlines = deadlines;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // A call that timed out while it waited for a connection is not sent at all.
    if (this.#settled) controller.abort(new ProxyError('gateway_timeout'));
    else this.#controller = controller;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: informational, the answer follows
    this.#status = statusCode;
    const out: Record<string, string> = {};
    for (const name of FORWARD_RESPONSE_HEADERS) {
      const value = headers[name];
      if (typeof value === 'string') out[name] = value;
    }
    this.#headers = out;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.#limit) {
      this.fail(new ProxyError('response_too_large'));
      controller.abort(new ProxyError('response_too_large'));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadlines.done(this);
    const chunks = this.#chunks;
    this.#resolve({
      status: this.#status,
      headers: this.#headers,
      body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // A body cut off by undici's inactivity timeouts is a timeout, like headers that never came.
    this.fail(new ProxyError(TIMEOUT_ERRORS.has(error.name) ? 'gateway_timeout' : 'bad_gateway'));
  }

  /** The deadline passed: answer 504 now, and stop the call if it is under way. */
  timeout(): void {
    if (this.#settled) return;
    this.fail(new ProxyError('gateway_timeout'));
    this.#controller?.abort(new ProxyError('gateway_timeout'));
  }

  fail(error: ProxyError): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#deadlines.done(this);
    this.#chunks = [];
    this.#reject(error);
  }
}

type Deadlines = ReturnType<typeof createDeadlines>;

/**
 * One deadline per forwarded call without a timer per call: every call has the same timeout, so
 * calls expire in the order they started, and one sweep every tenth of the timeout times out the
 * expired ones from the front. A call times out between its timeout and 1.1 times it (at most a
 * second late).
 *
 * The calls under way are a list linked through the calls themselves, not a Set: a Set long in
 * the old generation that is rehashed as entries come and go leaves behind old tables that still
 * point at the calls, and those tables live until a full collection. Every finished call would
 * then survive the young-generation collections with all it held (its promise, its response),
 * making each of those collections take 7 to 16 ms instead of about 1 and doubling the p99 of
 * gateway calls.
 */
function createDeadlines(timeoutMs: number) {
  let first: Exchange | null = null;
  let last: Exchange | null = null;
  let count = 0;
  const tickMs = Math.max(5, Math.min(1000, Math.floor(timeoutMs / 10)));
  let timer: NodeJS.Timeout | undefined;
  const remove = (exchange: Exchange): void => {
    const { previous, next } = exchange;
    // Not in the list (never started, or already removed).
    if (previous === null && next === null && first !== exchange) return;
    if (previous === null) first = next;
    else previous.next = next;
    if (next === null) last = previous;
    else next.previous = previous;
    exchange.previous = null;
    exchange.next = null;
    count -= 1;
  };
  const sweep = () => {
    const now = performance.now();
    while (first !== null && first.expiresAt <= now) {
      const expired = first;
      remove(expired);
      expired.timeout();
    }
    if (count === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    start(exchange: Exchange): void {
      exchange.expiresAt = performance.now() + timeoutMs;
      exchange.previous = last;
      if (last === null) first = exchange;
      else last.next = exchange;
      last = exchange;
      count += 1;
      if (timer === undefined) {
        timer = setInterval(sweep, tickMs);
        timer.unref();
      }
    },
    done(exchange: Exchange): void {
      remove(exchange);
    },
    close(): void {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
