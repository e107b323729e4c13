// The gateway end to end: a proxy collection in front of a real upstream on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGatewayFixture, type GatewayFixture } from '../../test/gateway-fixture.ts';
import type { TestApp } from '../../test/helpers.ts';
import { allowWrites, refuseWrites } from '../../test/test-database.ts';
import { manualClock } from '../time.ts';
import { insertPolicy } from '../api/api_clients/api_clients.store.ts';
import type { KyselyPlugin } from 'kysely';
import { createRouter } from './routing.ts';

const clock = manualClock('2026-06-01T09:00:00.000Z');
let g: GatewayFixture;
let t: TestApp;
let base: string;
let collectionId: number;

before(async () => {
  g = await startGatewayFixture(clock);
  ({ t, base, collectionId } = g);
});
after(() => g.close());

const profile = (body: Record<string, unknown>) => g.profile(body);
const gw: GatewayFixture['gw'] = (...args) => g.gw(...args);

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
    // On PostgreSQL the pool notices its terminated connections as their sockets close: a call may
    // meet one (503) until then. Writable again means a counted call answers 200 within seconds.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await gw('GET', `${base}/orders/1`, { 'api-token': counted.secret })).status;
      if (status === 200) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(status, 200);
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
