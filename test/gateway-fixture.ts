// The gateway's tests (src/gateway/) share this set-up: a real upstream on loopback (answers that
// are slow, huge, stalled, dripped, empty, chunked or created, and an echo of the request), a
// server whose gateway holds bodies to 2 KB and answers to 4 KB and times out as the test file
// asks (GATEWAY_TIMEOUT_MS; its default unless the file tests timeouts), a project
// with a proxy collection in front of the upstream (its endpoints enabled but `off`), a second
// collection, and an API client; then access profiles, OAuth tokens and calls through the gateway.
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Clock } from '../src/time.ts';
import { createTestApp, type TestApp } from './helpers.ts';

export interface GatewayFixture {
  t: TestApp;
  upstream: FastifyInstance;
  upstreamUrl: string;
  /** The collection's path: /<prefix>/<slug>. */
  base: string;
  collectionId: number;
  connectionId: number;
  otherCollectionId: number;
  apiClientId: number;
  endpointIds: Record<string, number>;
  /** An access profile of the API client for the collection. */
  profile(body: Record<string, unknown>): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** An access token from POST /oauth2/token (client credentials). */
  oauthToken(clientId: string, secret: string): Promise<string>;
  /** A call through the gateway, its body parsed when it is JSON. */
  gw(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers?: Record<string, string>,
    payload?: string,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

/**
 * How long the slow upstream answers take (a slow answer, the rest of a stalled body, a dripped
 * body): far longer than a test's gateway timeout, so the gateway always times them out first,
 * however loaded the machine. They end early when the gateway drops the connection.
 */
const SLOW_UPSTREAM_MS = 10_000;

/** Resolves after `ms`, or once the response's connection closes, whichever comes first. */
function untilClosedOr(raw: NodeJS.EventEmitter, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    raw.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * `timeoutMs`: the gateway's timeout (GATEWAY_TIMEOUT_MS), for a file that tests timeouts with the
 * slow upstream answers: long enough that an ordinary call on a loaded machine never reaches it.
 */
export async function startGatewayFixture(clock: Clock, options: { timeoutMs?: number } = {}): Promise<GatewayFixture> {
  const endpointIds: Record<string, number> = {};
  const upstream = Fastify();
  upstream.removeAllContentTypeParsers();
  upstream.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  upstream.all('/other/*', async (request) => ({ other: true, url: request.url }));
  upstream.all('/base/*', async (request, reply) => {
    if (request.url.includes('/slow')) await untilClosedOr(reply.raw, SLOW_UPSTREAM_MS);
    if (request.url.includes('/huge')) return reply.type('text/plain').send('x'.repeat(5000));
    if (request.url.includes('/stalled')) {
      // Headers and the start of the body at once, the rest long after the gateway's timeout.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json' });
      reply.raw.write('{"partial":');
      void untilClosedOr(reply.raw, SLOW_UPSTREAM_MS).then(() => reply.raw.end('true}'));
      return reply;
    }
    if (request.url.includes('/empty')) return reply.status(204).send();
    if (request.url.includes('/chunks')) {
      // A body in three pieces, apart in time: the gateway answers with all of it, in order.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json' });
      reply.raw.write('{"pieces":[1,');
      setTimeout(() => reply.raw.write('2,'), 10);
      setTimeout(() => reply.raw.end('3]}'), 20);
      return reply;
    }
    if (request.url.includes('/drip')) {
      // A byte every 60 ms: never quiet for as long as the gateway's timeout, but done only after
      // SLOW_UPSTREAM_MS.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/plain' });
      let sent = 0;
      const timer = setInterval(() => {
        sent += 1;
        if (sent < SLOW_UPSTREAM_MS / 60) reply.raw.write('x');
        else {
          clearInterval(timer);
          reply.raw.end('x');
        }
      }, 60);
      reply.raw.on('close', () => clearInterval(timer));
      return reply;
    }
    return reply
      .status(request.url.includes('/created') ? 201 : 200)
      .header('etag', '"v1"')
      .header('set-cookie', 'upstream=1')
      .send({ method: request.method, url: request.url, headers: request.headers, body: request.body ?? null });
  });
  const upstreamUrl = await upstream.listen({ port: 0, host: '127.0.0.1' });

  const t = await createTestApp({
    clock,
    env: {
      ...(options.timeoutMs === undefined ? {} : { GATEWAY_TIMEOUT_MS: String(options.timeoutMs) }),
      GATEWAY_MAX_BODY_BYTES: '2048',
      GATEWAY_MAX_RESPONSE_BYTES: '4096',
    },
  });
  const project = await t.createProject('Public APIs');
  const connection = await t.call('POST', '/api/connections', {
    body: {
      name: 'Orders backend',
      provider: 'rest',
      input: { base_url: `${upstreamUrl}/base`, auth_type: 'bearer', token: 'upstream-secret-token' },
    },
  });
  assert.equal(connection.status, 200, connection.text);
  const collection = await t.call('POST', '/api/api_collections', {
    body: { name: 'Orders', project_id: project.projectId, proxy_connection_id: connection.body.id },
  });
  const collectionId: number = collection.body.id;
  const connectionId: number = connection.body.id;
  const base = new URL(collection.body.url).pathname;
  const otherCollectionId: number = (
    await t.call('POST', '/api/api_collections', {
      body: { name: 'Other', project_id: project.projectId, proxy_connection_id: connection.body.id },
    })
  ).body.id;
  for (const [key, method, path] of [
    ['get', 'GET', 'orders/{id}'],
    ['recent', 'GET', 'orders/recent'],
    ['post', 'POST', 'orders'],
    ['slow', 'GET', 'slow'],
    ['huge', 'GET', 'huge'],
    ['stalled', 'GET', 'stalled'],
    ['drip', 'GET', 'drip'],
    ['empty', 'DELETE', 'empty'],
    ['chunks', 'GET', 'chunks'],
    ['created', 'PUT', 'created/{id}'],
    ['off', 'GET', 'off'],
  ] as const) {
    const e = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
      body: { name: key, method, path },
    });
    endpointIds[key] = e.body.id;
    if (key !== 'off') assert.equal((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`)).status, 200);
  }
  const apiClientId: number = (
    await t.call('POST', '/api/api_clients', { body: { name: 'Consumer', project_id: project.projectId } })
  ).body.id;

  return {
    t,
    upstream,
    upstreamUrl,
    base,
    collectionId,
    connectionId,
    otherCollectionId,
    apiClientId,
    endpointIds,
    async profile(profileBody) {
      const res = await t.call('POST', '/api/api_access_profiles', {
        body: {
          name: `p${Math.random()}`,
          api_client_id: apiClientId,
          api_collection_ids: [collectionId],
          ...profileBody,
        },
      });
      assert.equal(res.status, 200, res.text);
      return res.body;
    },
    async oauthToken(clientId, secret) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(res.statusCode, 200, res.body);
      return JSON.parse(res.body).access_token;
    },
    async gw(method, url, headers = {}, payload) {
      const res = await t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
      let parsed: any; // eslint-disable-line @typescript-eslint/no-explicit-any
      try {
        parsed = JSON.parse(res.body);
      } catch {
        parsed = res.body;
      }
      return { status: res.statusCode, body: parsed, headers: res.headers };
    },
    async close() {
      await t.close();
      await upstream.close();
    },
  };
}
