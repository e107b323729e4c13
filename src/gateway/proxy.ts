// Proxy collections: a call is forwarded to the connection's base URL plus the path below the
// collection, with the query, method, body and a safe subset of headers; the caller's
// credentials never go upstream, the connection's do (contract README, "Proxy collections").
import { Agent, type Dispatcher } from 'undici';

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
  readonly status: 502 | 504;
  constructor(status: 502 | 504, message: string) {
    super(message);
    this.status = status;
  }
}

const FORWARD_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'content-language', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'user-agent'];
const FORWARD_RESPONSE_HEADERS = ['content-type', 'content-language', 'cache-control', 'etag', 'last-modified', 'expires', 'location', 'retry-after', 'vary'];

/** Characters a path may carry as they are (RFC 3986 pchar, '/' and percent-escapes): nothing to encode. */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

export function createProxy(options: { timeoutMs: number; maxResponseBytes: number }) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 128, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
  const deadlines = createDeadlines(options.timeoutMs);
  return {
    async forward(upstream: Upstream, call: ProxyRequest): Promise<ProxyResponse> {
      const base = upstream.baseUrl;
      const pathname = `${base.pathname.replace(/\/+$/, '')}/${call.subPath}`;
      let target: { origin: string; path: string };
      if (PLAIN_PATH.test(pathname) && !/[#\s]/.test(call.query)) {
        // The common case, without building a URL per call: the path needs no encoding.
        target = { origin: base.origin, path: call.query === '' ? pathname : `${pathname}?${call.query}` };
      } else {
        const url = new URL(base.toString());
        url.pathname = pathname;
        url.search = call.query;
        target = { origin: url.origin, path: `${url.pathname}${url.search}` };
      }
      const headers: Record<string, string> = {};
      for (const name of FORWARD_REQUEST_HEADERS) {
        const value = call.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      headers['x-forwarded-for'] = call.clientAddress;
      headers['x-request-id'] = call.requestId;
      Object.assign(headers, upstream.headers);
      const deadline = deadlines.start();
      try {
        return await exchange(target, headers, call, deadline.signal);
      } finally {
        deadlines.done(deadline);
      }
    },
    close: () => {
      deadlines.close();
      return agent.close();
    },
  };

  async function exchange(target: { origin: string; path: string }, headers: Record<string, string>, call: ProxyRequest, signal: AbortSignal): Promise<ProxyResponse> {
      let res: Dispatcher.ResponseData;
      try {
        res = await agent.request({
          origin: target.origin,
          path: target.path,
          method: call.method as Dispatcher.HttpMethod,
          headers,
          body: call.body && call.body.length > 0 && call.method !== 'GET' && call.method !== 'HEAD' ? call.body : null,
          signal,
        });
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'TimeoutError' || name === 'HeadersTimeoutError' || name === 'AbortError') throw new ProxyError(504, 'Gateway timeout');
        throw new ProxyError(502, 'Bad gateway');
      }
      const body = await readBody(res.body, options.maxResponseBytes, signal);
      const out: Record<string, string> = {};
      for (const name of FORWARD_RESPONSE_HEADERS) {
        const value = res.headers[name];
        if (typeof value === 'string') out[name] = value;
      }
      return { status: res.statusCode, headers: out, body };
  }
}

/**
 * The upstream's body, up to `limit` bytes (502 beyond, or when it breaks off; 504 when the
 * deadline cuts it off). Listeners rather
 * than async iteration: no promise per chunk, and most bodies are one chunk.
 */
function readBody(stream: Dispatcher.ResponseData['body'], limit: number, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.destroy();
        reject(new ProxyError(502, 'Response too large'));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    // A body cut off by the deadline is a timeout, like headers that never came.
    stream.on('error', (error: Error) => reject(signal.aborted || error.name === 'BodyTimeoutError' ? new ProxyError(504, 'Gateway timeout') : new ProxyError(502, 'Bad gateway')));
  });
}

/**
 * One deadline per forwarded call without a timer per call (AbortSignal.timeout costs four times
 * an AbortController here): every call has the same timeout, so calls expire in the order they
 * started, and one sweep every tenth of the timeout aborts the expired ones from the front. A call
 * is aborted between its timeout and 1.1 times it (at most a second late).
 */
function createDeadlines(timeoutMs: number) {
  const running = new Map<AbortController, number>();
  const tickMs = Math.max(5, Math.min(1000, Math.floor(timeoutMs / 10)));
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const [controller, expiresAt] of running) {
      if (expiresAt > now) break;
      running.delete(controller);
      controller.abort(new DOMException('The upstream call timed out.', 'TimeoutError'));
    }
    if (running.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    start(): AbortController {
      const controller = new AbortController();
      running.set(controller, performance.now() + timeoutMs);
      if (timer === undefined) {
        timer = setInterval(sweep, tickMs);
        timer.unref();
      }
      return controller;
    },
    done(controller: AbortController): void {
      running.delete(controller);
    },
    close(): void {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
