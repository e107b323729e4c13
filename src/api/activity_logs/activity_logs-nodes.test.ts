// The activity log on two nodes sharing one PostgreSQL database: changes made through either node
// are listed by both, each once and in order, with the node's caller; both nodes' retention sweeps
// run at once and delete each expired entry once, without an error. PostgreSQL only: on SQLite one
// process owns the database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { postgresOnly } from '../../../test/test-database.ts';
import { buildApp } from '../../app.ts';
import { manualClock, toStored } from '../../time.ts';
import { createActivityRetentionSweeper } from './retention.ts';
import { insertActivity } from './activity_logs.store.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- entries are read as JSON */
type Entry = Record<string, any>;

describe('activity log on two nodes', { skip: postgresOnly('two nodes share a database only on PostgreSQL') }, () => {
  const clock = manualClock('2026-05-01T08:00:00.000Z');
  let t: TestApp;
  let other: FastifyInstance;
  before(async () => {
    t = await createTestApp({ clock });
    // Another node: its own app, engine and node id over the same database and notifier.
    other = await buildApp({
      config: t.ctx.config,
      database: { db: t.ctx.db, dialect: 'postgres', location: 'shared test database' },
      secretBox: t.ctx.secretBox,
      notifier: t.ctx.notifier,
      clock,
    });
    await other.ready();
  });
  after(async () => {
    await other?.close();
    await t?.close();
  });

  /** A call through node B, as t.call is through node A. */
  async function callB(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) {
    const res = await other.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${t.adminToken}`,
        'user-agent': 'node-b-client',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, body: res.body === '' ? undefined : JSON.parse(res.body) };
  }

  const A = { headers: { 'user-agent': 'node-a-client' } };

  test('changes through either node: each once, in order, listed alike by both', async () => {
    const start = (await t.call('GET', '/api/activity_logs?per_page=1')).body.data[0]?.id ?? 0;
    const a1 = await t.call('POST', '/api/tags', { ...A, body: { title: 'Made on A' } });
    assert.equal(a1.status, 200, a1.text);
    const b1 = await callB('PUT', `/api/tags/${a1.body.handle}`, { color: 'blue' });
    assert.equal(b1.status, 200);
    const b2 = await callB('POST', '/api/connections', { name: 'Made on B', provider: 'jira' });
    assert.equal(b2.status, 200);
    const a2 = await t.call('POST', '/api/tags_assignments', {
      ...A,
      body: { add_tags: [a1.body.handle], connection_ids: [b2.body.id] },
    });
    assert.equal(a2.status, 200, a2.text);
    assert.equal((await callB('DELETE', `/api/connections/${b2.body.id}`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/tags/${a1.body.handle}`, A)).status, 200);

    const fromA = (await t.call('GET', '/api/activity_logs')).body.data as Entry[];
    const fromB = (await callB('GET', '/api/activity_logs')).body.data as Entry[];
    assert.deepEqual(fromB, fromA, 'both nodes list the same entries');
    const mine = fromA.filter((e) => e.id > start).reverse();
    assert.deepEqual(
      mine.map((e) => [e.event_type, e.details.user_agent ?? null]),
      [
        ['tag_created', 'node-a-client'],
        ['tag_updated', 'node-b-client'],
        ['connection_created', 'node-b-client'],
        ['tags_assigned', 'node-a-client'],
        ['connection_deleted', 'node-b-client'],
        ['tag_deleted', 'node-a-client'],
      ],
    );
    for (const e of mine) assert.equal(e.details.client.name, 'Bootstrap admin');
    assert.equal(new Set(mine.map((e) => e.id)).size, mine.length);
  });

  test("both nodes' retention sweeps at once: every expired entry deleted once, newer ones kept", async () => {
    const old = toStored(new Date('2026-01-01T00:00:00.000Z'));
    const envId = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev'))!.id;
    for (let i = 0; i < 120; i += 1)
      await insertActivity(t.ctx.db, {
        workspaceId: t.workspaceId,
        environmentId: envId,
        clientId: null,
        via: 'api',
        ip: null,
        userAgent: null,
        requestId: null,
        occurredAt: old,
        eventType: 'tag_created',
        resourceType: 'tag',
        resourceId: `old-${i}`,
        resourceName: null,
        details: '{}',
      });
    const kept = (await t.call('GET', '/api/activity_logs?from=2026-05-01')).body.data.length as number;
    assert.ok(kept > 0);
    const sweep = () =>
      createActivityRetentionSweeper(t.ctx, { intervalMs: 60_000, retentionMs: 24 * 3600_000, batchSize: 7 });
    const [first, second] = await Promise.all([sweep().sweepOnce(), sweep().sweepOnce()]);
    assert.equal(first + second, 120, `the two sweeps deleted ${first} and ${second}`);
    assert.equal((await t.call('GET', '/api/activity_logs?to=2026-04-30T23:59:59Z')).body.data.length, 0);
    assert.equal((await t.call('GET', '/api/activity_logs?from=2026-05-01')).body.data.length, kept);
  });
});
