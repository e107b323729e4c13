// What the custom connector tests share: a connector's connection written in the vendor's
// documented style (an API key applied as a header, base_uri from a connection field, a test that
// GETs /me), and a local stand-in of its API on loopback that refuses another key with 401,
// answers /me, records every request and hands the rest to the test's routes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Ruby of a connector's `connection` and `test`, to sit in its hash after the title. */
export const API_KEY_CONNECTION = `  connection: {
    fields: [
      { name: 'base_url', label: 'Base URL' },
      { name: 'api_key', control_type: 'password' }
    ],
    authorization: {
      type: 'api_key',
      apply: lambda do |connection|
        headers('X-Api-Key' => connection['api_key'])
      end
    },
    base_uri: lambda { |connection| connection['base_url'] }
  },
  test: lambda { |_connection| get('/me') },`;

export interface KeyedRequest {
  method: string;
  /** The path with its query. */
  url: string;
  apiKey: string | undefined;
  body: string;
}

/** A route answers a request it knows (true), or leaves it to the stand-in's 404 (false). */
export type KeyedRoute = (req: KeyedRequest, url: URL, res: ServerResponse) => boolean;

export interface KeyedApi {
  url: string;
  seen: KeyedRequest[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

export async function startKeyedApi(apiKey: string, route: KeyedRoute): Promise<KeyedApi> {
  const seen: KeyedRequest[] = [];
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        apiKey: req.headers['x-api-key'] as string | undefined,
        body,
      };
      seen.push(request);
      res.setHeader('content-type', 'application/json');
      if (request.apiKey !== apiKey) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: 'bad key' }));
        return;
      }
      const url = new URL(request.url || '/', 'http://acme');
      if (request.method === 'GET' && url.pathname === '/me') return res.end('{"id":1}');
      if (route(request, url, res)) return;
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
