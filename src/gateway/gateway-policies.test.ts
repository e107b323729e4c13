// The gateway end to end: a proxy collection in front of a real upstream on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { allowWrites, refuseWrites } from '../../test/test-database.ts';
import { manualClock } from '../time.ts';
import { insertPolicy } from '../api/api_clients/api_clients.store.ts';
import type { KyselyPlugin } from 'kysely';
import { createRouter } from './routing.ts';

let t: TestApp;
let upstream: FastifyInstance;
let upstreamUrl: string;
const clock = manualClock('2026-06-01T09:00:00.000Z');
let base: string; // /<prefix>/<slug>
let collectionId: number;
let apiClientId: number;
const endpointIds: Record<string, number> = {};

before(async () => {
  upstream = Fastify();
  upstream.removeAllContentTypeParsers();
  upstream.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  upstream.all('/other/*', async (request) => ({ other: true, url: request.url }));
  upstream.all('/base/*', async (request, reply) => {
    if (request.url.includes('/slow')) await new Promise((r) => setTimeout(r, 500));
    if (request.url.includes('/huge')) return reply.type('text/plain').send('x'.repeat(5000));
    if (request.url.includes('/stalled')) {
      // Headers and the start of the body at once, the rest after the gateway's timeout.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json' });
      reply.raw.write('{"partial":');
      setTimeout(() => reply.raw.end('true}'), 500);
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
      // A byte every 60 ms: never quiet for the gateway's 200 ms, but done only after 600 ms.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/plain' });
      let sent = 0;
      const timer = setInterval(() => {
        sent += 1;
        if (sent < 10) reply.raw.write('x');
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
  upstreamUrl = await upstream.listen({ port: 0, host: '127.0.0.1' });

  t = await createTestApp({
    clock,
    env: { GATEWAY_TIMEOUT_MS: '200', GATEWAY_MAX_BODY_BYTES: '2048', GATEWAY_MAX_RESPONSE_BYTES: '4096' },
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
  collectionId = collection.body.id;
  base = new URL(collection.body.url).pathname;
  await t.call('POST', '/api/api_collections', {
    body: { name: 'Other', project_id: project.projectId, proxy_connection_id: connection.body.id },
  });
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
  apiClientId = (
    await t.call('POST', '/api/api_clients', { body: { name: 'Consumer', project_id: project.projectId } })
  ).body.id;
});
after(async () => {
  await t.close();
  await upstream.close();
});

async function profile(body: Record<string, unknown>) {
  const res = await t.call('POST', '/api/api_access_profiles', {
    body: { name: `p${Math.random()}`, api_client_id: apiClientId, api_collection_ids: [collectionId], ...body },
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function gw(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string> = {},
  payload?: string,
) {
  const res = await t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = JSON.parse(res.body);
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body, headers: res.headers };
}

describe('access policies at the gateway', () => {
  test('a database that refuses writes: a call under a policy (counted in the database) answers 503; a call under none goes through', async () => {
    const policy = await insertPolicy(t.ctx.db, {
      workspaceId: t.workspaceId,
      name: 'Counted',
      rate: { requests: 100, seconds: 60 },
      now: clock.now().toISOString(),
    });
    const counted = await profile({ auth_type: 'token', api_policy_id: policy.id });
    const free = await profile({ auth_type: 'token' });
    await refuseWrites(t.ctx.db);
    try {
      const refused = await gw('GET', `${base}/orders/1`, { 'api-token': counted.secret });
      assert.equal(refused.status, 503);
      assert.deepEqual(refused.body, { error: 'Service unavailable; try again later' });
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': free.secret })).status, 200);
    } finally {
      await allowWrites(t.ctx.db);
    }
    assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': counted.secret })).status, 200);
  });

  test('a rate limit answers 429 with Retry-After once the window is full, and lets calls through in the next', async () => {
    const policy = await insertPolicy(t.ctx.db, {
      workspaceId: t.workspaceId,
      name: 'Tight',
      rate: { requests: 3, seconds: 60 },
      now: clock.now().toISOString(),
    });
    const p = await profile({ auth_type: 'token', api_policy_id: policy.id });
    clock.set(new Date(Math.ceil(clock.now().getTime() / 60_000) * 60_000 + 1000));
    for (let i = 0; i < 3; i++) {
      const ok = await gw('GET', `${base}/orders/1`, { 'api-token': p.secret });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['x-ratelimit-remaining'], String(2 - i));
    }
    const limited = await gw('GET', `${base}/orders/1`, { 'api-token': p.secret });
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body, { error: 'Rate limit exceeded' });
    assert.equal(limited.headers['retry-after'], '59');
    clock.advance(60_000);
    assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': p.secret })).status, 200);
  });

  test('concurrent calls are counted exactly: a limit of 5 admits 5 of 20 calls made at once', async () => {
    const policy = await insertPolicy(t.ctx.db, {
      workspaceId: t.workspaceId,
      name: 'Burst',
      rate: { requests: 5, seconds: 60 },
      now: clock.now().toISOString(),
    });
    const p = await profile({ auth_type: 'token', api_policy_id: policy.id });
    clock.set(new Date(Math.ceil(clock.now().getTime() / 60_000) * 60_000 + 1000));
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => gw('GET', `${base}/orders/1`, { 'api-token': p.secret })),
    );
    assert.deepEqual(replies.map((r) => r.status).sort(), [...Array(5).fill(200), ...Array(15).fill(429)]);
    assert.deepEqual(
      replies
        .filter((r) => r.status === 200)
        .map((r) => r.headers['x-ratelimit-remaining'])
        .sort(),
      ['0', '1', '2', '3', '4'],
    );
    const counters = await t.ctx.db
      .selectFrom('api_policy_counters')
      .selectAll()
      .where('profile_id', '=', p.id)
      .execute();
    assert.deepEqual(
      counters.map((c) => [c.kind, c.count]),
      [['rate', 5]],
      'refused calls do not use up the window',
    );
  });

  test('a quota answers 429 Quota exceeded, and the count is in the database', async () => {
    const policy = await insertPolicy(t.ctx.db, {
      workspaceId: t.workspaceId,
      name: 'Quota',
      quota: { requests: 2, seconds: 30 * 86_400 },
      now: clock.now().toISOString(),
    });
    const client = await t.call('POST', '/api/api_clients', { body: { name: 'Metered', api_policy_id: policy.id } });
    const p = (
      await t.call('POST', '/api/api_access_profiles', {
        body: {
          name: 'metered',
          api_client_id: client.body.id,
          api_collection_ids: [collectionId],
          auth_type: 'token',
        },
      })
    ).body;
    assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': p.secret })).status, 200);
    assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': p.secret })).status, 200);
    const over = await gw('GET', `${base}/orders/1`, { 'api-token': p.secret });
    assert.equal(over.status, 429);
    assert.deepEqual(over.body, { error: 'Quota exceeded' });
    assert.ok(Number(over.headers['retry-after']) > 0);
    const counters = await t.ctx.db
      .selectFrom('api_policy_counters')
      .selectAll()
      .where('profile_id', '=', p.id)
      .execute();
    assert.deepEqual(
      counters.map((c) => [c.kind, c.count]),
      [['quota', 2]],
    );
  });
});

describe('the routing table', () => {
  test('remembers a bounded number of API prefixes: a flood of made-up ones cannot grow it without end', async () => {
    let environmentReads = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes('"environments"'))
          environmentReads += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const router = createRouter({ ...t.ctx, db: t.ctx.db.withPlugin(counting) });
    const [prefix, slug] = base.split('/').filter(Boolean) as [string, string];
    assert.ok(await router.match('GET', `/${prefix}/${slug}/orders/1`));
    assert.ok(await router.match('GET', `/${prefix}/${slug}/orders/2`));
    assert.equal(environmentReads, 1, 'the environment is read once, then remembered');
    for (let i = 0; i < 10_000; i++) assert.equal(await router.match('GET', `/made-up-${i}/x/y`), null);
    assert.ok(await router.match('GET', `/${prefix}/${slug}/orders/3`));
    assert.equal(environmentReads, 10_002, 'past the bound the memory was emptied, so the real prefix is read again');
  });
});
