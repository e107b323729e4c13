// A made-up service for the Ruby SDK's tests ("Acme"), on loopback: each endpoint checks the
// request as a real API would (authentication, content type, body) and answers in plain shapes,
// so that a test asserts what the connector's code built and what it made of the answer.
//   /basic/me            Basic authentication (user `ada`, password `lovelace`)
//   /key/me              header X-Api-Key: k-123 (or ?api_key=k-123)
//   /auth/token          POST form client_id=cid&client_secret=cs → a new access token (custom_auth acquire)
//   /oauth/token         POST form grant_type=refresh_token|authorization_code → a new access token
//   /bearer/me           Bearer of the current access token; 401 after /auth/expire
//   /soft/me             200 {"error":"invalid_token"} unless the current access token (detect_on)
//   /records             GET: ?since=N&page=P pages of 2 of the records with id > since; POST JSON: created
//   /records/:id         PUT/PATCH/DELETE JSON
//   /form, /xml, /upload POST echo of a form, XML, multipart body
//   /status/:code        that status with {"message":"status CODE"}
//   /redirect            302 to /records?since=0
//   /hooks               POST {url} subscribes (201 {id}); DELETE /hooks/:id unsubscribes
//   /digest              Digest authentication (RFC 2617, MD5, qop auth) for user ada / lovelace
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface DemoApi {
  url: string;
  /** Every request received: method, path with query, headers, body as text. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  /** Access tokens handed out so far (the last one is valid unless expired). */
  tokens: string[];
  expireTokens(): void;
  hooks: Map<string, string>;
  records: Array<{ id: number; name: string }>;
  /** Back to the five records the service starts with. */
  resetRecords(): void;
  close(): Promise<void>;
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

/** Digest authentication (RFC 7616 with MD5 and qop auth) for the user ada. */
function digest(req: IncomingMessage, res: ServerResponse, nonce: string) {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Digest ')) {
    res.writeHead(401, { 'www-authenticate': `Digest realm="acme", qop="auth", nonce="${nonce}", opaque="o1"` });
    return res.end();
  }
  const f = Object.fromEntries([...header.matchAll(/(\w+)="?([^",]+)"?/g)].map((m) => [m[1], m[2]]));
  const ha1 = md5(`ada:acme:lovelace`);
  const ha2 = md5(`GET:${f.uri}`);
  const expected = md5(`${ha1}:${nonce}:${f.nc}:${f.cnonce}:${f.qop}:${ha2}`);
  if (f.username !== 'ada' || f.response !== expected) return json(res, 401, { message: 'bad digest' });
  return json(res, 200, { user: 'digest' });
}

export async function startDemoApi(): Promise<DemoApi> {
  const requests: DemoApi['requests'] = [];
  const tokens: string[] = [];
  const hooks = new Map<string, string>();
  const records = [1, 2, 3, 4, 5].map((id) => ({ id, name: `record ${id}` }));
  let valid: string | null = null;
  const nonce = randomBytes(8).toString('hex');

  const issue = () => {
    valid = `tok-${tokens.length + 1}`;
    tokens.push(valid);
    return valid;
  };

  function handle(req: IncomingMessage, res: ServerResponse, body: string) {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const form = () => Object.fromEntries(new URLSearchParams(body));
    switch (true) {
      case path === '/basic/me':
        if (req.headers.authorization !== `Basic ${Buffer.from('ada:lovelace').toString('base64')}`)
          return json(res, 401, { message: 'bad credentials' });
        return json(res, 200, { user: 'ada' });
      case path === '/key/me':
        if (req.headers['x-api-key'] !== 'k-123' && url.searchParams.get('api_key') !== 'k-123')
          return json(res, 401, { message: 'bad key' });
        return json(res, 200, { user: 'key-holder' });
      case path === '/auth/token': {
        const f = form();
        if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-www-form-urlencoded')
          return json(res, 415, { message: 'form expected' });
        if (f.client_id !== 'cid' || f.client_secret !== 'cs') return json(res, 401, { message: 'bad client' });
        return json(res, 200, { access_token: issue(), expires_in: 3600 });
      }
      case path === '/oauth/token': {
        const f = form();
        if (f.grant_type === 'refresh_token' && f.refresh_token === 'refresh-1')
          return json(res, 200, { access_token: issue(), token_type: 'bearer' });
        if (f.grant_type === 'authorization_code' && f.code === 'code-1')
          return json(res, 200, { access_token: issue(), refresh_token: 'refresh-1', token_type: 'bearer' });
        return json(res, 400, { error: 'invalid_grant' });
      }
      case path === '/auth/expire':
        valid = null;
        return json(res, 200, {});
      case path === '/bearer/me':
        if (!bearer || bearer !== valid) return json(res, 401, { message: 'token expired' });
        return json(res, 200, { user: 'bearer', token: bearer });
      case path === '/soft/me':
        if (!bearer || bearer !== valid) return json(res, 200, { error: 'invalid_token' });
        return json(res, 200, { user: 'soft', token: bearer });
      case path === '/records' && req.method === 'GET': {
        const since = Number(url.searchParams.get('since') ?? 0);
        const page = records.filter((r) => r.id > since).slice(0, 2);
        const more = records.some((r) => r.id > (page.at(-1)?.id ?? Infinity));
        return json(res, 200, { items: page, more }, { 'x-total-count': String(records.length) });
      }
      case path === '/records' && req.method === 'POST': {
        if (req.headers['content-type'] !== 'application/json') return json(res, 415, { message: 'JSON expected' });
        const record = { id: records.length + 1, ...(JSON.parse(body) as { name: string }) };
        records.push(record);
        return json(res, 201, record);
      }
      case /^\/records\/\d+$/.test(path): {
        const id = Number(path.split('/')[2]);
        if (req.method === 'DELETE') return json(res, 200, { deleted: id });
        return json(res, 200, { id, method: req.method, ...(body ? (JSON.parse(body) as object) : {}) });
      }
      case path === '/form':
        return json(res, 200, { contentType: req.headers['content-type'], form: form() });
      case path === '/xml':
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(
          `<?xml version="1.0"?><echo kind="xml"><received>${body.replace(/</g, '&lt;')}</received><item id="1">one</item><item id="2">two</item></echo>`,
        );
      case path === '/upload': {
        const boundary = /boundary=(.+)$/.exec(req.headers['content-type'] ?? '')?.[1];
        if (!boundary) return json(res, 415, { message: 'multipart expected' });
        const parts = body
          .split(`--${boundary}`)
          .slice(1, -1)
          .map((part) => {
            const [head = '', ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
            return {
              name: /name="([^"]+)"/.exec(head)?.[1],
              filename: /filename="([^"]+)"/.exec(head)?.[1] ?? null,
              type: /Content-Type: (.+)/i.exec(head)?.[1]?.trim() ?? null,
              value: rest.join('\r\n\r\n').replace(/\r\n$/, ''),
            };
          });
        return json(res, 200, { parts });
      }
      case path.startsWith('/status/'):
        return json(res, Number(path.split('/')[2]), { message: `status ${path.split('/')[2]}` });
      case path === '/redirect':
        res.writeHead(302, { location: '/records?since=0' });
        return res.end();
      case path === '/hooks' && req.method === 'POST': {
        const id = `h${hooks.size + 1}`;
        hooks.set(id, (JSON.parse(body) as { url: string }).url);
        return json(res, 201, { id });
      }
      case path.startsWith('/hooks/') && req.method === 'DELETE':
        hooks.delete(path.split('/')[2]!);
        res.writeHead(204);
        return res.end();
      case path === '/digest':
        return digest(req, res, nonce);
      default:
        return json(res, 404, { message: 'no such endpoint' });
    }
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    tokens,
    expireTokens: () => {
      valid = null;
    },
    hooks,
    records,
    resetRecords: () => {
      records.splice(5);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
