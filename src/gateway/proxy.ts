// Proxy collections: a call is forwarded to the connection's base URL plus the path below the
// collection, with the query, method, body and a safe subset of headers; the caller's
// credentials never go upstream, the connection's do (contract README, "Proxy collections").
import { Agent, request } from 'undici';

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

export function createProxy(options: { timeoutMs: number; maxResponseBytes: number }) {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 128, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
  return {
    async forward(upstream: Upstream, call: ProxyRequest): Promise<ProxyResponse> {
      const base = upstream.baseUrl;
      const url = new URL(base.toString());
      url.pathname = `${base.pathname.replace(/\/+$/, '')}/${call.subPath}`;
      url.search = call.query;
      const headers: Record<string, string> = {};
      for (const name of FORWARD_REQUEST_HEADERS) {
        const value = call.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      headers['x-forwarded-for'] = call.clientAddress;
      headers['x-request-id'] = call.requestId;
      Object.assign(headers, upstream.headers);
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(url, {
          method: call.method as 'GET',
          headers,
          body: call.body && call.body.length > 0 && call.method !== 'GET' && call.method !== 'HEAD' ? call.body : null,
          dispatcher: agent,
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'TimeoutError' || name === 'HeadersTimeoutError' || name === 'AbortError') throw new ProxyError(504, 'Gateway timeout');
        throw new ProxyError(502, 'Bad gateway');
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > options.maxResponseBytes) {
            res.body.destroy();
            throw new ProxyError(502, 'Response too large');
          }
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        if (error instanceof ProxyError) throw error;
        throw new ProxyError(502, 'Bad gateway');
      }
      const out: Record<string, string> = {};
      for (const name of FORWARD_RESPONSE_HEADERS) {
        const value = res.headers[name];
        if (typeof value === 'string') out[name] = value;
      }
      return { status: res.statusCode, headers: out, body: Buffer.concat(chunks) };
    },
    close: () => agent.close(),
  };
}
