// The event streams API (contract 13 §1-6): publish, batch publish, consume, long polling,
// retention, access, and the ordering property under concurrent producers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, eventStreams, type Message } from '../../../test/event-streams.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';
import { insertPolicy } from '../api_clients/api_clients.store.ts';

const clock = manualClock('2026-03-02T08:00:00.000Z');
let t: TestApp;
let readOnly: string;
let noEventStreams: string;
let apiClientId: number;

before(async () => {
  t = await createTestApp({ clock, env: { EVENT_STREAMS_SWEEP_INTERVAL_MS: '20' } });
  readOnly = await t.tokenFor('Read only');
  noEventStreams = await t.tokenWith('Folders only', ['projects_folders:read']);
  apiClientId = (await t.call('POST', '/api/api_clients', { body: { name: 'Event partner' } })).body.id;
});
after(() => t.close());

const kit = eventStreams(() => t);
const { topic, publish, batch, consume, readAll, accessToken } = kit;
const profile = (grants: Parameters<typeof kit.profile>[1], authType?: 'oauth2' | 'token') =>
  kit.profile(apiClientId, grants, authType);

describe('POST /api/v1/topics/:topic_id/consume', () => {
  test('from the oldest message, oldest first, batch_size at a time; paging with after_message_id sees each once', async () => {
    const id = await topic('Paging');
    const sent: string[] = [];
    for (let i = 0; i < 7; i++) sent.push((await publish(id, { i })).body.message_id);
    const first = await consume(id, { batch_size: 3 });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.messages.map((m: Message) => m.message_id),
      sent.slice(0, 3),
    );
    const next = await consume(id, { after_message_id: sent[2], batch_size: 3 });
    assert.deepEqual(
      next.body.messages.map((m: Message) => m.payload.i),
      [3, 4, 5],
    );
    const last = await consume(id, { after_message_id: sent[5] });
    assert.deepEqual(
      last.body.messages.map((m: Message) => m.payload.i),
      [6],
    );
    assert.deepEqual((await consume(id, { after_message_id: sent[6] })).body.messages, []);
    // Consuming removes nothing: re-reading from an older cursor gives the same messages and ids.
    assert.deepEqual((await consume(id, { after_message_id: sent[2], batch_size: 3 })).body, next.body);
    assert.equal((await consume(id)).body.messages.length, 7, 'default batch_size 50');
  });

  test('an empty or absent body, nulls and the legacy path', async () => {
    const id = await topic('Defaults');
    await publish(id, { a: 1 });
    for (const res of [
      await t.call('POST', `/api/v1/topics/${id}/consume`),
      await t.call('POST', `/api/v1/topics/${id}/consume`, {
        raw: '',
        headers: { 'content-type': 'application/json' },
      }),
      await consume(id, { after_message_id: null, since_time: null }),
      await t.call('POST', `/api/pubsub/topics/${id}/consume`, { body: {} }),
    ]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.messages.length, 1);
    }
  });

  test('since_time: messages published after it; a future time means from now; after_message_id wins', async () => {
    const id = await topic('Since');
    const early = (await publish(id, { n: 1 })).body.message_id;
    clock.advance(60_000);
    const middle = clock.now().toISOString();
    clock.advance(1);
    await publish(id, { n: 2 });
    clock.advance(60_000);
    await publish(id, { n: 3 });
    assert.deepEqual(
      (await consume(id, { since_time: middle })).body.messages.map((m: Message) => m.payload.n),
      [2, 3],
    );
    assert.deepEqual(
      (await consume(id, { since_time: '2026-03-02T09:01:00.000+01:00' })).body.messages.map(
        (m: Message) => m.payload.n,
      ),
      [2, 3],
      'offsets are honoured',
    );
    assert.deepEqual((await consume(id, { since_time: '2000-01-01T00:00:00Z' })).body.messages.length, 3);
    assert.deepEqual((await consume(id, { since_time: '2999-01-01T00:00:00Z' })).body.messages, []);
    assert.deepEqual(
      (await consume(id, { since_time: '2999-01-01T00:00:00Z', after_message_id: early })).body.messages.map(
        (m: Message) => m.payload.n,
      ),
      [2, 3],
    );
    for (const since of ['yesterday', '2026-13-01T00:00:00Z', '2026-03-02', '2026-03-02T08:00:00', '']) {
      const res = await consume(id, { since_time: since });
      assertError(res, 400);
      assert.ok(res.body.errors.since_time, since);
    }
  });

  test('an after_message_id that never existed in the topic is a 400 "Message not found: <id>"', async () => {
    const id = await topic('Cursors');
    const other = await topic('Other cursors');
    const real = (await publish(id, { a: 1 })).body.message_id as string;
    await publish(other, { a: 1 });
    await publish(other, { a: 2 });
    const otherId = (await publish(other, { a: 3 })).body.message_id as string;
    const [time, seq] = real.split('-') as [string, string];
    const wrongTime = `${(Number.parseInt(time, 16) + 1).toString(16).padStart(16, '0')}-${seq}`;
    const future = `${time}-${'f'.repeat(16).replace(/^f/, '0')}`;
    for (const cursor of [
      'nope',
      '',
      `${time}-0000000000000000`,
      wrongTime,
      future,
      otherId,
      real.toUpperCase(),
      `${real} `,
    ]) {
      assertError(await consume(id, { after_message_id: cursor }), 400, `Message not found: ${cursor}`);
    }
    assertError(await consume(id, { after_message_id: 'x'.repeat(201) }), 400);
    assertError(await consume(id, { after_message_id: 5 }), 400);
  });

  test('batch_size 1..50 and timeout_secs 0..60, whole numbers: anything else is a 400', async () => {
    const id = await topic('Limits');
    for (const body of [
      { batch_size: 0 },
      { batch_size: 51 },
      { batch_size: '10' },
      { batch_size: 1.5 },
      { timeout_secs: -1 },
      { timeout_secs: 61 },
      { timeout_secs: '5' },
      { since_time: 5 },
    ]) {
      const res = await consume(id, body);
      assertError(res, 400);
      assert.ok(res.body.errors, JSON.stringify(body));
    }
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/consume`, {
        raw: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/consume`, { raw: 'a', headers: { 'content-type': 'text/plain' } }),
      415,
    );
    assert.equal((await consume(id, { batch_size: 50, timeout_secs: 0 })).status, 200);
  });

  test('404 for an unknown topic; 401; a read-only role consumes but a role without event_streams does not', async () => {
    const id = await topic('Consume guarded');
    await publish(id, { a: 1 });
    assertError(await consume(999999), 404, 'Topic not found');
    assertError(await consume(id, {}, { token: null }), 401, 'Unauthorized');
    assert.equal((await consume(id, {}, { token: readOnly })).body.messages.length, 1);
    assertError(await consume(id, {}, { token: noEventStreams }), 403, /event_streams:read/);
  });

  test('a client limited to some projects reaches the topics of those projects only', async () => {
    const mine = await t.createProject('Streams mine');
    const theirs = await t.createProject('Streams theirs');
    const { token } = await t.scopedClient([mine.folderId]);
    const inScope = await topic('In scope', { folder_id: mine.folderId });
    const outOfScope = await topic('Out of scope', { folder_id: theirs.folderId });
    const home = await topic('At home');
    assert.equal((await publish(inScope, { a: 1 }, { token })).status, 200);
    assert.equal((await consume(inScope, {}, { token })).body.messages.length, 1);
    for (const id of [outOfScope, home]) {
      assertError(await publish(id, { a: 1 }, { token }), 404, 'Topic not found');
      assertError(await consume(id, {}, { token }), 404, 'Topic not found');
    }
  });
});

describe('access profiles granted topics (OAuth access tokens and API-TOKEN)', () => {
  test('POST /api/api_access_profiles takes publish_topic_ids and consume_topic_ids (topics alone are enough)', async () => {
    const id = await topic('Granted');
    const p = await profile({ publish: [id, id], consume: [String(id) as unknown as number] });
    assert.deepEqual(p.publish_topic_ids, [id]);
    assert.deepEqual(p.consume_topic_ids, [id]);
    const listed = (await t.call('GET', `/api/api_access_profiles?api_client_id=${apiClientId}`)).body.find(
      (x: { id: number }) => x.id === p.id,
    );
    assert.deepEqual(listed.publish_topic_ids, [id]);
    const before = (await t.call('GET', '/api/api_access_profiles')).body.length;
    const testTopic = await topic('Granted elsewhere', {}, await t.tokenFor('Admin', 'test'));
    for (const body of [
      { publish_topic_ids: [999999] },
      { consume_topic_ids: [testTopic] },
      { publish_topic_ids: 'x' },
      { publish_topic_ids: [], consume_topic_ids: [] },
    ]) {
      const res = await t.call('POST', '/api/api_access_profiles', {
        body: { name: 'bad grants', api_client_id: apiClientId, auth_type: 'oauth2', ...body },
      });
      assertError(res, 400);
    }
    assert.equal((await t.call('GET', '/api/api_access_profiles')).body.length, before);
  });

  test('an OAuth access token publishes and consumes what its profile was granted, and nothing else (403)', async () => {
    const orders = await topic('OAuth orders');
    const audit = await topic('OAuth audit');
    const producer = await accessToken(await profile({ publish: [orders] }));
    const consumer = await accessToken(await profile({ consume: [orders, audit] }));
    const sent = await publish(orders, { n: 1 }, { token: producer });
    assert.equal(sent.status, 200, sent.text);
    assertError(await consume(orders, {}, { token: producer }), 403, /may not consume/);
    assertError(await publish(audit, { n: 1 }, { token: producer }), 403, /may not publish/);
    assertError(await batch(audit, { payloads: [{ n: 1 }] }, { token: producer }), 403);
    assertError(await publish(orders, { n: 2 }, { token: consumer }), 403);
    const read = await consume(orders, {}, { token: consumer });
    assert.deepEqual(
      read.body.messages.map((m: Message) => m.message_id),
      [sent.body.message_id],
    );
    assertError(await consume(999999, {}, { token: consumer }), 404);
    assert.equal((await readAll(audit)).length, 0);
  });

  test('API-TOKEN of a token profile; a profile of another environment cannot see the topic (404)', async () => {
    const id = await topic('Token profile topic');
    const p = await profile({ publish: [id], consume: [id] }, 'token');
    assert.equal(
      (await publish(id, { via: 'api-token' }, { token: null, headers: { 'api-token': p.secret! } })).status,
      200,
    );
    assert.equal((await consume(id, {}, { token: null, headers: { 'api-token': p.secret! } })).body.messages.length, 1);
    const testAdmin = await t.tokenFor('Admin', 'test');
    const testClient = (await t.call('POST', '/api/api_clients', { body: { name: 'Test partner' }, token: testAdmin }))
      .body.id;
    const testTopic = await topic('Test env grants', {}, testAdmin);
    const foreign = await t.call('POST', '/api/api_access_profiles', {
      token: testAdmin,
      body: { name: 'test env', api_client_id: testClient, auth_type: 'oauth2', consume_topic_ids: [testTopic] },
    });
    assert.equal(foreign.status, 200, foreign.text);
    assertError(await consume(id, {}, { token: await accessToken(foreign.body) }), 404, 'Topic not found');
  });

  test('a disabled profile, a refreshed secret or a tampered token: 401 at once', async () => {
    const id = await topic('Revocation');
    const p = await profile({ publish: [id] });
    const token = await accessToken(p);
    assert.equal((await publish(id, { n: 1 }, { token })).status, 200);
    const tampered = token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA');
    assertError(await publish(id, { n: 2 }, { token: tampered }), 401);
    assert.equal((await t.call('PUT', `/api/api_access_profiles/${p.id}/disable`)).status, 200);
    assertError(await publish(id, { n: 3 }, { token }), 401);
    assert.equal((await t.call('PUT', `/api/api_access_profiles/${p.id}/enable`)).status, 200);
    assert.equal((await publish(id, { n: 4 }, { token })).status, 200);
    assert.equal((await t.call('PUT', `/api/api_access_profiles/${p.id}/refresh_secret`)).status, 200);
    assertError(await publish(id, { n: 5 }, { token }), 401);
    // A grant taken away applies at once too.
    const q = await profile({ publish: [id], consume: [id] });
    const qToken = await accessToken(q);
    assert.equal((await consume(id, {}, { token: qToken })).status, 200);
    assert.equal(
      (await t.call('PUT', `/api/api_access_profiles/${q.id}`, { body: { consume_topic_ids: [] } })).status,
      200,
    );
    assertError(await consume(id, {}, { token: qToken }), 403);
    assert.deepEqual(
      (await readAll(id)).map((m) => m.payload.n),
      [1, 4],
    );
  });

  test('the access policy of the profile applies (429 with Retry-After)', async () => {
    const id = await topic('Rate limited');
    const policy = await insertPolicy(t.ctx.db, {
      workspaceId: t.workspaceId,
      name: 'Two a minute',
      rate: { requests: 2, seconds: 60 },
      now: clock.now().toISOString(),
    });
    const res = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'limited',
        api_client_id: apiClientId,
        auth_type: 'oauth2',
        publish_topic_ids: [id],
        api_policy_id: policy.id,
      },
    });
    const token = await accessToken(res.body);
    assert.equal((await publish(id, { n: 1 }, { token })).status, 200);
    assert.equal((await publish(id, { n: 2 }, { token })).status, 200);
    const limited = await publish(id, { n: 3 }, { token });
    assertError(limited, 429, 'Rate limit exceeded');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.deepEqual(
      (await readAll(id)).map((m) => m.payload.n),
      [1, 2],
    );
  });

  test('an IP deny list applies (403)', async () => {
    const id = await topic('IP guarded');
    const res = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'no loopback',
        api_client_id: apiClientId,
        auth_type: 'oauth2',
        publish_topic_ids: [id],
        ip_deny_list: ['127.0.0.1'],
      },
    });
    assertError(await publish(id, { n: 1 }, { token: await accessToken(res.body) }), 403);
    assert.deepEqual(await readAll(id), []);
  });
});
