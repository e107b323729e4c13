// A local stand-in of Chargebee's API v2 (https://apidocs.chargebee.com/docs/api), for the SDK
// documentation's sample connector ("Chargebee-demo"): HTTPS with the test certificate of
// test/fixtures/tls for `test.chargebee.com`, reached through a local HTTP CONNECT proxy as a
// developer behind a corporate proxy would reach the real one.
//   GET /api/v2/plans      list plans     (API reference: Plans → List plans)
//   GET /api/v2/customers  list customers (API reference: Customers → List customers)
// Authentication as the reference's "Authentication" section says: HTTP Basic with the API key as
// the user name and an empty password; a wrong key answers 401 with Chargebee's error object.
// `limit` must be 1 to 100 (400 `invalid_request` otherwise); filters the stand-in does not know
// are ignored, as the documentation's CLI example shows the API answering.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import path from 'node:path';

const TLS_DIR = path.resolve(import.meta.dirname, '../fixtures/tls');
export const STAND_IN_CA_FILE = path.join(TLS_DIR, 'stand-in.crt');

export interface ChargebeeStandIn {
  /** The port of the HTTPS API on 127.0.0.1. */
  apiPort: number;
  /** An HTTP proxy (CONNECT) that sends every tunnel to the API, whatever host it names. */
  proxyUrl: string;
  /** Hosts the proxy was asked to tunnel to (`test.chargebee.com:443`). */
  tunnels: string[];
  requests: Array<{ method: string; url: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

const CUSTOMERS = [
  { id: 'cust_1', first_name: 'John', last_name: 'Doe', email: 'john@example.com', object: 'customer', deleted: false },
  {
    id: 'cust_2',
    first_name: 'Ada',
    last_name: 'Bennett',
    email: 'ada@example.com',
    object: 'customer',
    deleted: false,
  },
];
const PLANS = [{ id: 'basic', name: 'Basic', price: 1000, period: 1, period_unit: 'month', object: 'plan' }];

function error(status: number, code: string, message: string) {
  return {
    message,
    type: status === 401 ? undefined : 'invalid_request',
    api_error_code: status === 401 ? 'api_authentication_failed' : 'invalid_request',
    error_code: code,
    error_msg: message,
    http_status_code: status,
  };
}

export async function startChargebee(apiKey: string): Promise<ChargebeeStandIn> {
  const requests: ChargebeeStandIn['requests'] = [];
  const tunnels: string[] = [];
  const api: HttpsServer = createHttpsServer(
    { key: readFileSync(path.join(TLS_DIR, 'stand-in.key')), cert: readFileSync(STAND_IN_CA_FILE) },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'https://test.chargebee.com');
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', authorization: req.headers.authorization });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`)
        return send(401, error(401, 'api_authentication_invalid_key', 'Sorry, authentication failed. Invalid api key'));
      const limit = Number(url.searchParams.get('limit') ?? 10);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        return send(400, error(400, 'param_out_of_range', 'limit : The value is out of range'));
      if (req.method === 'GET' && url.pathname === '/api/v2/plans')
        return send(200, { list: PLANS.slice(0, limit).map((plan) => ({ plan })) });
      if (req.method === 'GET' && url.pathname === '/api/v2/customers') {
        const list = CUSTOMERS.slice(0, limit).map((customer) => ({ customer }));
        return send(200, { list, ...(CUSTOMERS.length > limit ? { next_offset: `["${limit}"]` } : {}) });
      }
      return send(404, error(404, 'resource_not_found', 'Sorry, we could not find that resource'));
    },
  );
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const apiPort = (api.address() as { port: number }).port;

  const sockets = new Set<Socket>();
  const proxy: Server = createHttpServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const upstream = connect(apiPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyPort = (proxy.address() as { port: number }).port;

  return {
    apiPort,
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    tunnels,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      api.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => api.close(() => resolve())),
        new Promise<void>((resolve) => proxy.close(() => resolve())),
      ]);
    },
  };
}
