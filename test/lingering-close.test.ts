// Through a real socket: a reply sent before the body was read (413, 415) reaches a client that is
// still sending, instead of a reset.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { registerLingeringClose } from '../src/http/lingering-close.ts';
import { tempDir } from './helpers.ts';
import { startServer } from './process-helpers.ts';

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
  connection?: string;
}

/** POST `size` bytes in one write, without `Expect: 100-continue`, as most HTTP clients do. */
function post(
  port: number,
  path: string,
  size: number,
  headers: Record<string, string>,
  agent?: http.Agent,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...headers, 'content-length': String(size) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode, body, connection: String(res.headers.connection) }));
        res.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
      },
    );
    request.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    request.end(Buffer.alloc(size, 0x61));
  });
}

describe('a body over the limit, through a real socket to the server process', () => {
  let port: number;
  let token: string;
  before(async () => {
    const running = await startServer(tempDir('sb-linger-'));
    port = Number(new URL(running.baseUrl).port);
    token = /wrkdev-[0-9a-f]{64}/.exec(running.output())?.[0] ?? '';
    assert.ok(token, 'the first start prints the admin token');
  });

  test('the client reads the 413 in the error shape every time, even while it is still sending 48 MB', async () => {
    for (let i = 0; i < 5; i++) {
      const outcome = await post(port, '/api/lookup_tables', 48 * 1024 * 1024, {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      });
      assert.equal(outcome.error, undefined, `attempt ${i}: ${outcome.error}`);
      assert.equal(outcome.status, 413);
      assert.deepEqual(JSON.parse(outcome.body ?? ''), { message: 'Request body is too large' });
    }
  });

  test('a 415 before the body is read, and a webhook over the limit, reach the client too; the connection serves the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const wrongType = await post(
        port,
        '/api/lookup_tables',
        24 * 1024 * 1024,
        { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
        agent,
      );
      assert.equal(wrongType.error, undefined);
      assert.equal(wrongType.status, 415);
      const hook = await post(
        port,
        '/webhooks/rest/unknown/orders',
        24 * 1024 * 1024,
        { 'content-type': 'application/json' },
        agent,
      );
      assert.equal(hook.error, undefined);
      assert.ok(hook.status === 413 || hook.status === 404, String(hook.status));
      const next = await post(
        port,
        '/api/lookup_tables',
        2,
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        agent,
      );
      assert.equal(next.status, 400, 'a readable 400 on the same connection');
    } finally {
      agent.destroy();
    }
  });

  test('recipes take bodies up to RECIPE_BODY_LIMIT_BYTES: 5 MB is saved; 40 MB there, or 5 MB on another route, is a readable 413', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const code = JSON.stringify({
      number: 0,
      keyword: 'trigger',
      provider: 'workato_webhooks',
      name: 'new_event',
      as: 'hook',
      input: {},
      block: [],
      pad: 'x'.repeat(5 * 1024 * 1024),
    });
    const saved = await fetch(`http://127.0.0.1:${port}/api/recipes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipe: { name: 'Large', code } }),
    });
    assert.equal(saved.status, 200, await saved.clone().text());
    const { id } = (await saved.json()) as { id: number };
    const read = await fetch(`http://127.0.0.1:${port}/api/recipes/${id}`, { headers });
    assert.equal(((await read.json()) as { code: string }).code, code);
    for (const [path, size] of [
      ['/api/recipes', 40 * 1024 * 1024],
      ['/api/lookup_tables', 5 * 1024 * 1024],
    ] as const) {
      const outcome = await post(port, path, size, headers);
      assert.equal(outcome.error, undefined, `${path}: ${outcome.error}`);
      assert.equal(outcome.status, 413, path);
      assert.deepEqual(JSON.parse(outcome.body ?? ''), { message: 'Request body is too large' });
    }
  });
});

describe('registerLingeringClose limits', () => {
  test('what is thrown away keeps the connection; a client that sends past the limit is cut off', async () => {
    const app = Fastify();
    registerLingeringClose(app, { maxBytes: 1024 * 1024, maxMs: 10_000 });
    app.post('/', { bodyLimit: 1024 }, async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const port = (app.server.address() as AddressInfo).port;
      const sockets: unknown[] = [];
      app.server.on('connection', (socket) => sockets.push(socket));
      const within = await post(port, '/', 512 * 1024, { 'content-type': 'application/json' }, agent);
      assert.equal(within.status, 413);
      assert.equal(
        (await post(port, '/', 2, { 'content-type': 'application/json' }, agent)).status,
        400,
        'a readable reply (the two bytes are not JSON)',
      );
      assert.equal(sockets.length, 1, 'the next request came on the same connection');
      const before = sockets.length;
      const beyond = await post(port, '/', 32 * 1024 * 1024, { 'content-type': 'application/json' }, agent);
      assert.ok(beyond.error !== undefined || beyond.status === 413, JSON.stringify(beyond));
      // Cut off, whatever the client read first: the server closed that connection.
      const used = sockets[sockets.length - 1] as { destroyed: boolean };
      assert.equal(sockets.length, before + 1);
      for (let i = 0; i < 200 && !used.destroyed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(used.destroyed, true);
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});
