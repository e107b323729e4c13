// The event streams API (contract 13 §1-6): publish, batch publish, consume, long polling,
// retention, access, and the ordering property under concurrent producers.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type Reply, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';
import { insertPolicy } from '../api_clients/api_clients.store.ts';

type Message = { message_id: string; payload: Record<string, unknown>; time: string };

const clock = manualClock('2026-03-02T08:00:00.000Z');
let t: TestApp;
let readOnly: string;
let noEventStreams: string;
let apiClientId: number;

const ID_SHAPE = /^[0-9a-f]{16}-[0-9a-f]{16}$/;

before(async () => {
  t = await createTestApp({ clock, env: { EVENT_STREAMS_SWEEP_INTERVAL_MS: '20' } });
  readOnly = await t.tokenFor('Read only');
  noEventStreams = await t.tokenWith('Folders only', ['projects_folders:read']);
  apiClientId = (await t.call('POST', '/api/api_clients', { body: { name: 'Event partner' } })).body.id;
});
after(() => t.close());

async function topic(name: string, extra: Record<string, unknown> = {}, token?: string): Promise<number> {
  const res = await t.call('POST', '/api/event_streams/topics', {
    body: { name, ...extra },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

const publish = (
  id: number | string,
  body: unknown,
  options: { token?: string | null; headers?: Record<string, string> } = {},
) => t.call('POST', `/api/v1/topics/${id}/publish`, { body, ...options });
const batch = (
  id: number | string,
  body: unknown,
  options: { token?: string | null; headers?: Record<string, string> } = {},
) => t.call('POST', `/api/v1/batch/topics/${id}/publish`, { body, ...options });
const consume = (
  id: number | string,
  body: unknown = {},
  options: { token?: string | null; headers?: Record<string, string> } = {},
) => t.call('POST', `/api/v1/topics/${id}/consume`, { body, ...options });

/** Every message of a topic, paging with after_message_id as a client does. */
async function readAll(id: number, token?: string): Promise<Message[]> {
  const out: Message[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await consume(
      id,
      { ...(cursor ? { after_message_id: cursor } : {}), batch_size: 50 },
      token ? { token } : {},
    );
    assert.equal(res.status, 200, res.text);
    out.push(...res.body.messages);
    if (res.body.messages.length < 50) return out;
    cursor = res.body.messages.at(-1).message_id;
  }
}

async function profile(
  grants: { publish?: number[]; consume?: number[]; collections?: number[] },
  authType: 'oauth2' | 'token' = 'oauth2',
) {
  const res = await t.call('POST', '/api/api_access_profiles', {
    body: {
      name: `p${Math.random()}`,
      api_client_id: apiClientId,
      auth_type: authType,
      ...(grants.collections ? { api_collection_ids: grants.collections } : {}),
      publish_topic_ids: grants.publish ?? [],
      consume_topic_ids: grants.consume ?? [],
    },
  });
  assert.equal(res.status, 200, res.text);
  return res.body as {
    id: number;
    oauth_client_id?: string;
    oauth_client_secret?: string;
    secret?: string;
    publish_topic_ids: number[];
    consume_topic_ids: number[];
  };
}

async function accessToken(p: { oauth_client_id?: string; oauth_client_secret?: string }): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${p.oauth_client_id}:${p.oauth_client_secret}`).toString('base64')}`,
    },
    payload: 'grant_type=client_credentials',
  });
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body).access_token;
}

function seqOf(messageId: string): number {
  return Number.parseInt(messageId.split('-')[1] as string, 16);
}

function assertError(res: Reply, status: number, message?: RegExp | string) {
  assert.equal(res.status, status, res.text);
  assert.equal(typeof res.body?.message, 'string', `contract error shape: ${res.text}`);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else if (message) assert.match(res.body.message, message);
}

describe('POST /api/v1/topics/:topic_id/publish', () => {
  test('stores the message and answers its id; consumers see it with its publish time', async () => {
    const id = await topic('Publish basics');
    const res = await publish(id, { order_id: 'A-1022', amount: 49.5, status: 'paid' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body), ['message_id']);
    assert.match(res.body.message_id, ID_SHAPE);
    const [message, ...rest] = await readAll(id);
    assert.deepEqual(rest, []);
    assert.deepEqual(message, {
      message_id: res.body.message_id,
      payload: { order_id: 'A-1022', amount: 49.5, status: 'paid' },
      time: '2026-03-02T08:00:00.000+00:00',
    });
  });

  test('the topic schema: required fields, types, nested objects and arrays, dates; unknown fields are dropped', async () => {
    const id = await topic('Typed', {
      schema: [
        { name: 'order_id', type: 'string', optional: false },
        { name: 'qty', type: 'integer' },
        { name: 'amount', type: 'number' },
        { name: 'paid', type: 'boolean' },
        { name: 'placed_at', type: 'date_time' },
        { name: 'ship_on', type: 'date' },
        { name: 'customer', type: 'object', properties: [{ name: 'email', type: 'string', optional: false }] },
        {
          name: 'lines',
          type: 'array',
          of: 'object',
          properties: [
            { name: 'sku', type: 'string', optional: false },
            { name: 'qty', type: 'integer' },
          ],
        },
        { name: 'tags', type: 'array', of: 'string' },
        { name: 'untyped' },
      ],
    });
    const full = {
      order_id: 'A-1',
      qty: 2,
      amount: 10.5,
      paid: true,
      placed_at: '2026-03-01T10:00:00Z',
      ship_on: '2026-03-05',
      customer: { email: 'a@b.c', extra: 1 },
      lines: [{ sku: 'X', qty: 1, colour: 'red' }],
      tags: ['a'],
      untyped: 'text',
      unknown: { deep: true },
    };
    assert.equal((await publish(id, full)).status, 200);
    assert.equal(
      (await publish(id, { order_id: 'A-2', qty: null, customer: null, lines: null })).status,
      200,
      'optional fields may be null',
    );
    const payloads = (await readAll(id)).map((m) => m.payload);
    assert.deepEqual(payloads, [
      {
        order_id: 'A-1',
        qty: 2,
        amount: 10.5,
        paid: true,
        placed_at: '2026-03-01T10:00:00Z',
        ship_on: '2026-03-05',
        customer: { email: 'a@b.c' },
        lines: [{ sku: 'X', qty: 1 }],
        tags: ['a'],
        untyped: 'text',
      },
      { order_id: 'A-2', qty: null, customer: null, lines: null },
    ]);
  });

  test('a message that breaks the schema is a 400 naming each field, and publishes nothing', async () => {
    const id = await topic('Strict', {
      schema: [
        { name: 'order_id', type: 'string', optional: false },
        { name: 'amount', type: 'number' },
        { name: 'qty', type: 'integer' },
        { name: 'placed_at', type: 'date_time' },
        { name: 'lines', type: 'array', of: 'object', properties: [{ name: 'sku', type: 'string', optional: false }] },
      ],
    });
    const res = await publish(id, { order_id: 'A', amount: 'lots' });
    assertError(res, 400, 'Payload does not match topic schema');
    assert.deepEqual(res.body.errors, { amount: ['must be a number'] });
    const many = await publish(id, { amount: 1, qty: 1.5, placed_at: 'yesterday', lines: [{ qty: 1 }] });
    assert.deepEqual(many.body.errors, {
      order_id: ['is required'],
      qty: ['must be an integer'],
      placed_at: ['must be an ISO 8601 date-time'],
      'lines.0.sku': ['is required'],
    });
    assertError(await publish(id, { order_id: null }), 400, 'Payload does not match topic schema');
    assertError(await publish(id, { order_id: 5 }), 400);
    assert.deepEqual(await readAll(id), []);
  });

  test('a body that is not a JSON object, malformed JSON, another Content-Type or over 1 MB is refused; nothing is published', async () => {
    const id = await topic('Bodies');
    for (const body of [[1, 2], 'text', 5, true, null])
      assertError(await publish(id, body), 400, 'Payload must be a JSON object');
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/publish`, {
        raw: '',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'Payload must be a JSON object',
    );
    assertError(await t.call('POST', `/api/v1/topics/${id}/publish`), 400, 'Payload must be a JSON object');
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/publish`, {
        raw: '{"a":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      /Malformed JSON/,
    );
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/publish`, {
        raw: '{"__proto__":{"x":1}}',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/publish`, {
        raw: 'a=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
    );
    assertError(await publish(id, { big: 'x'.repeat(1024 * 1024) }), 413);
    assert.deepEqual(await readAll(id), []);
    // Just under the limit is fine.
    assert.equal((await publish(id, { big: 'x'.repeat(1024 * 1024 - 100) })).status, 200);
    assert.equal((await readAll(id)).length, 1);
  });

  test("unknown topic 404; non-numeric id 400; another environment's topic 404", async () => {
    assertError(await publish(999999, { a: 1 }), 404, 'Topic not found');
    assertError(await publish('orders', { a: 1 }), 400);
    const testTopic = await topic('Test env topic', {}, await t.tokenFor('Admin', 'test'));
    assertError(await publish(testTopic, { a: 1 }), 404, 'Topic not found');
    assert.deepEqual(await readAll(testTopic, await t.tokenFor('Admin', 'test')), []);
  });

  test('401 without a credential or with a bad one; 403 for a role without event_streams:write', async () => {
    const id = await topic('Guarded publish');
    assertError(await publish(id, { a: 1 }, { token: null }), 401, 'Unauthorized');
    assertError(await publish(id, { a: 1 }, { token: `wrkdev-${'0'.repeat(64)}` }), 401, 'Unauthorized');
    assertError(await publish(id, { a: 1 }, { token: 'eyJ.eyJ.sig' }), 401, 'Unauthorized');
    assertError(await publish(id, { a: 1 }, { token: null, headers: { 'api-token': 'nope' } }), 401);
    assertError(await publish(id, { a: 1 }, { token: null, headers: { authorization: 'Basic Zm9vOmJhcg==' } }), 401);
    const forbidden = await publish(id, { a: 1 }, { token: readOnly });
    assertError(forbidden, 403, /event_streams:write/);
    assertError(await publish(id, { a: 1 }, { token: noEventStreams }), 403);
    // 401 comes before anything is read from the body.
    assertError(
      await t.call('POST', `/api/v1/topics/${id}/publish`, {
        token: null,
        raw: '{x',
        headers: { 'content-type': 'application/json' },
      }),
      401,
    );
    assert.deepEqual(await readAll(id), []);
  });

  test('the legacy path /api/pubsub/topics/:topic_id/publish does the same', async () => {
    const id = await topic('Legacy publish');
    const res = await t.call('POST', `/api/pubsub/topics/${id}/publish`, { body: { legacy: true } });
    assert.equal(res.status, 200);
    assert.match(res.body.message_id, ID_SHAPE);
    assert.deepEqual(
      (await readAll(id)).map((m) => m.payload),
      [{ legacy: true }],
    );
    assertError(await t.call('POST', `/api/pubsub/topics/${id}/publish`, { body: [1] }), 400);
    assertError(await t.call('POST', `/api/pubsub/topics/${id}/publish`, { body: { a: 1 }, token: null }), 401);
  });
});

describe('POST /api/v1/topics/:topic_id/publish: deeply nested payloads', () => {
  test('a payload nested 5,000 levels deep is a 400, not a crash; in a batch an item error; 100 levels are stored', async () => {
    const id = await topic('Deep payloads');
    const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    const deep = await t.call('POST', `/api/v1/topics/${id}/publish`, {
      raw: nested(5000),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(deep.status, 400);
    assert.deepEqual(deep.body, {
      message: 'Payload is nested too deeply',
      errors: { payload: ['is nested more than 100 levels deep'] },
    });
    assert.equal(
      (
        await t.call('POST', `/api/v1/topics/${id}/publish`, {
          raw: nested(101),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', `/api/v1/topics/${id}/publish`, {
          raw: nested(100),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      200,
    );
    const mixed = await t.call('POST', `/api/v1/batch/topics/${id}/publish`, {
      raw: `{"payloads":[{"ok":1},${nested(3000)}]}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(mixed.status, 200);
    assert.equal(mixed.body.is_partial_error, true);
    assert.deepEqual(mixed.body.message_ids['1'], { error: 'Payload is nested more than 100 levels deep' });
    assert.equal((await readAll(id)).length, 2, 'the 100-level message and the valid batch item');
  });
});

describe('POST /api/v1/batch/topics/:topic_id/publish', () => {
  test('stores every message in array order; ids increase with the index', async () => {
    const id = await topic('Batch basics');
    const payloads = Array.from({ length: 100 }, (_, i) => ({ i }));
    const res = await batch(id, { payloads });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.is_partial_error, false);
    const ids = Array.from({ length: 100 }, (_, i) => res.body.message_ids[String(i)].message_id as string);
    assert.deepEqual(
      Object.keys(res.body.message_ids),
      ids.map((_, i) => String(i)),
    );
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'ids increase with the index');
    const read = await readAll(id);
    assert.deepEqual(
      read.map((m) => m.message_id),
      ids,
    );
    assert.deepEqual(
      read.map((m) => m.payload),
      payloads,
    );
  });

  test('text comes back as it was sent: quotes, backslashes, control characters, escapes, non-Latin scripts and emoji', async () => {
    const id = await topic('Batch text');
    const payloads = [
      { text: 'say "hi" \\ back\\slash' },
      { text: 'tab\tnew\nline \u0000 nul \u001f unit' },
      { text: 'lone \ud800 half, \\u0041 not an escape' },
      { text: 'Ελληνικά, 中文, עברית, 🙂👍🏽' },
      { nested: { list: ['{"a": 1}', '[1,2]', '\\"'] } },
    ];
    const res = await batch(id, { payloads });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.is_partial_error, false);
    const read = await readAll(id);
    assert.deepEqual(
      read.map((m) => m.payload),
      JSON.parse(JSON.stringify(payloads)),
    );
    // The same through a single publish.
    const single = await publish(id, payloads[1]);
    assert.equal(single.status, 200, single.text);
    assert.deepEqual((await readAll(id)).at(-1)!.payload, payloads[1]);
  });

  test('each item is checked on its own: valid ones are stored, refused ones say why (is_partial_error)', async () => {
    const id = await topic('Batch partial', { schema: [{ name: 'amount', type: 'number', optional: false }] });
    const res = await batch(id, { payloads: [{ amount: 1 }, { amount: 'x' }, [3], { amount: 2, junk: true }] });
    assert.equal(res.status, 200);
    assert.equal(res.body.is_partial_error, true);
    assert.match(res.body.message_ids['0'].message_id, ID_SHAPE);
    assert.deepEqual(res.body.message_ids['1'], {
      error: 'Payload does not match topic schema: amount must be a number',
    });
    assert.deepEqual(res.body.message_ids['2'], { error: 'Payload must be a JSON object' });
    assert.ok(res.body.message_ids['3'].message_id > res.body.message_ids['0'].message_id);
    assert.deepEqual(
      (await readAll(id)).map((m) => m.payload),
      [{ amount: 1 }, { amount: 2 }],
    );
  });

  test('all items refused: still 200, every entry an error, nothing stored', async () => {
    const id = await topic('Batch refused', { schema: [{ name: 'amount', type: 'number', optional: false }] });
    const res = await batch(id, { payloads: [{}, { amount: null }] });
    assert.equal(res.status, 200);
    assert.equal(res.body.is_partial_error, true);
    assert.deepEqual(res.body.message_ids, {
      0: { error: 'Payload does not match topic schema: amount is required' },
      1: { error: 'Payload does not match topic schema: amount must be a number' },
    });
    assert.deepEqual(await readAll(id), []);
  });

  test('more than 100 items, none, a missing or mistyped payloads field, or a body over 1 MB: refused whole, nothing stored', async () => {
    const id = await topic('Batch limits');
    const tooMany = await batch(id, { payloads: Array.from({ length: 101 }, () => ({ a: 1 })) });
    assertError(tooMany, 400);
    assert.ok(tooMany.body.errors.payloads);
    for (const body of [{ payloads: [] }, {}, { payloads: { 0: { a: 1 } } }, { payloads: 'x' }, [{ a: 1 }]])
      assertError(await batch(id, body), 400);
    assertError(
      await batch(id, { payloads: Array.from({ length: 10 }, () => ({ big: 'x'.repeat(110 * 1024) })) }),
      413,
    );
    assertError(
      await t.call('POST', `/api/v1/batch/topics/${id}/publish`, {
        raw: '{"payloads":[',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
    assertError(
      await t.call('POST', `/api/v1/batch/topics/${id}/publish`, {
        raw: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
    );
    assert.deepEqual(await readAll(id), []);
  });

  test('401; 403 for a read-only role; 404 for an unknown topic', async () => {
    const id = await topic('Batch guarded');
    assertError(await batch(id, { payloads: [{ a: 1 }] }, { token: null }), 401);
    assertError(await batch(id, { payloads: [{ a: 1 }] }, { token: readOnly }), 403);
    assertError(await batch(999999, { payloads: [{ a: 1 }] }), 404, 'Topic not found');
    assert.deepEqual(await readAll(id), []);
  });
});

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

describe('long polling (timeout_secs)', () => {
  test('a waiting consumer answers as soon as a message is committed', async () => {
    const id = await topic('Long poll');
    const cursor = (await publish(id, { n: 0 })).body.message_id;
    const started = Date.now();
    const waiting = consume(id, { after_message_id: cursor, timeout_secs: 20 });
    await new Promise((r) => setTimeout(r, 150));
    const sent = await publish(id, { n: 1 });
    const res = await waiting;
    const elapsed = Date.now() - started;
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.messages.map((m: Message) => m.message_id),
      [sent.body.message_id],
    );
    assert.ok(elapsed >= 140 && elapsed < 5000, `answered after the publish, long before the timeout (${elapsed} ms)`);
  });

  test('with nothing new it answers an empty list when its time is up; commits elsewhere do not wake it', async () => {
    const id = await topic('Quiet poll');
    const elsewhere = await topic('Busy elsewhere');
    const started = Date.now();
    const waiting = consume(id, { timeout_secs: 1 });
    await new Promise((r) => setTimeout(r, 100));
    await publish(elsewhere, { n: 1 });
    const res = await waiting;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { messages: [] });
    assert.ok(Date.now() - started >= 950, 'waited its full time');
  });

  test('a waiting consumer does not query the database while it waits (no busy polling)', async () => {
    const id = await topic('No busy polling');
    // Count the reads of messages and topics the app runs (the test and the app share one Kysely
    // executor); the retention sweep's deletes, every 20 ms in this file, are not reads.
    const executor = t.ctx.db.getExecutor() as unknown as {
      executeQuery: (query: { sql: string }, ...rest: unknown[]) => unknown;
    };
    const original = executor.executeQuery;
    let statements = 0;
    executor.executeQuery = function (this: unknown, query: { sql: string }, ...rest: unknown[]) {
      if (
        /^select\b[\s\S]*"event_(messages|topics)"/.test(query.sql) &&
        !/"retention_seconds", "purged_seq", "deleted_at"/.test(query.sql)
      )
        statements += 1;
      return original.call(this, query, ...rest);
    };
    try {
      const waiting = consume(id, { timeout_secs: 2 });
      const deadline = Date.now() + 2000;
      while (
        !/consumers_waiting 1$/m.test((await t.app.inject({ method: 'GET', url: '/metrics' })).body) &&
        Date.now() < deadline
      )
        await new Promise((r) => setTimeout(r, 10));
      const whileWaiting = statements;
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(statements, whileWaiting, 'no statement during a second of waiting');
      assert.deepEqual((await waiting).body, { messages: [] });
    } finally {
      executor.executeQuery = original;
    }
  });

  test('a message already there is answered at once, whatever timeout_secs says', async () => {
    const id = await topic('No wait');
    await publish(id, { n: 1 });
    const started = Date.now();
    assert.equal((await consume(id, { timeout_secs: 60 })).body.messages.length, 1);
    assert.ok(Date.now() - started < 10_000, 'not held for its 60 s');
  });

  test('deleting the topic ends the wait with a 404', async () => {
    const id = await topic('Deleted while waiting');
    const waiting = consume(id, { timeout_secs: 20 });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await t.call('DELETE', `/api/event_streams/topics/${id}`)).status, 200);
    assertError(await waiting, 404, 'Topic not found');
  });

  test('a closed connection frees its waiter', async () => {
    const id = await topic('Hang up');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const waitingNow = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^switchboard_event_stream_consumers_waiting (\d+)$/m.exec(text)?.[1]);
    };
    const body = JSON.stringify({ timeout_secs: 30 });
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/v1/topics/${id}/consume`,
      headers: {
        authorization: `Bearer ${t.adminToken}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('error', () => undefined);
    req.end(body);
    const until = async (want: number) => {
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        if ((await waitingNow()) === want) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      return false;
    };
    assert.ok(await until(1), 'the consumer is waiting');
    const hungUp = Date.now();
    req.destroy();
    assert.ok(await until(0), 'its waiter is gone once the connection closes');
    assert.ok(Date.now() - hungUp < 2000);
  });

  test('stopping the server answers waiting consumers at once', async () => {
    const other = await createTestApp();
    try {
      const id = (await other.call('POST', '/api/event_streams/topics', { body: { name: 'Shutdown' } })).body.data.id;
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = other.app.server.address() as AddressInfo;
      const started = Date.now();
      const waiting = fetch(`http://127.0.0.1:${port}/api/v1/topics/${id}/consume`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ timeout_secs: 30 }),
      });
      await new Promise((r) => setTimeout(r, 200));
      await other.app.close();
      const res = await waiting;
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { messages: [] });
      assert.ok(Date.now() - started < 5000, 'not held for its 30 s');
    } finally {
      await other.ctx.db.destroy().catch(() => undefined);
    }
  });
});

describe('ordering with concurrent producers', () => {
  test('a consumer paging with after_message_id sees every message exactly once, in publish order', async () => {
    const id = await topic('Concurrent');
    const producers = 8;
    const perProducer = 60;
    const acknowledged: string[] = [];
    const produce = async (p: number) => {
      let n = 0;
      while (n < perProducer) {
        if (n % 3 === 0) {
          const size = Math.min(5, perProducer - n);
          const res = await batch(id, { payloads: Array.from({ length: size }, (_, k) => ({ p, n: n + k })) });
          assert.equal(res.status, 200, res.text);
          for (let k = 0; k < size; k++) acknowledged.push(res.body.message_ids[String(k)].message_id);
          n += size;
        } else {
          const res = await publish(id, { p, n });
          assert.equal(res.status, 200, res.text);
          acknowledged.push(res.body.message_id);
          n += 1;
        }
      }
    };
    const seen: Message[] = [];
    const total = producers * perProducer;
    const consumer = async () => {
      let cursor: string | undefined;
      const deadline = Date.now() + 60_000;
      while (seen.length < total && Date.now() < deadline) {
        const res = await consume(id, {
          ...(cursor ? { after_message_id: cursor } : {}),
          batch_size: 7,
          timeout_secs: 2,
        });
        assert.equal(res.status, 200, res.text);
        for (const m of res.body.messages as Message[]) seen.push(m);
        if (res.body.messages.length > 0) cursor = res.body.messages.at(-1).message_id;
      }
    };
    await Promise.all([consumer(), ...Array.from({ length: producers }, (_, p) => produce(p))]);

    assert.equal(seen.length, total, 'every message');
    const ids = seen.map((m) => m.message_id);
    assert.equal(new Set(ids).size, total, 'each exactly once');
    for (let i = 1; i < ids.length; i++) {
      assert.ok(ids[i]! > ids[i - 1]!, `ids strictly increase as strings (${ids[i - 1]} then ${ids[i]})`);
      assert.equal(seqOf(ids[i]!), seqOf(ids[i - 1]!) + 1, 'and leave no gap');
    }
    assert.deepEqual([...acknowledged].sort(), [...ids].sort(), 'exactly the acknowledged messages');
    for (let p = 0; p < producers; p++) {
      assert.deepEqual(
        seen.filter((m) => m.payload.p === p).map((m) => m.payload.n),
        Array.from({ length: perProducer }, (_, n) => n),
        `producer ${p} in its publish order`,
      );
    }
  });
});

describe('retention', () => {
  test('expired messages are skipped at once, a cursor that expired is refused, and the sweep deletes the rows', async () => {
    const id = await topic('Short lived', { retention: 3600 });
    const old = (await publish(id, { n: 1 })).body.message_id;
    clock.advance(1800_000);
    const young = (await publish(id, { n: 2 })).body.message_id;
    clock.advance(1800_001);
    assert.deepEqual(
      (await consume(id)).body.messages.map((m: Message) => m.message_id),
      [young],
    );
    assertError(await consume(id, { after_message_id: old }), 400, `Message not found: ${old}`);
    assert.deepEqual(
      (await consume(id, { since_time: '2000-01-01T00:00:00Z' })).body.messages.map((m: Message) => m.payload.n),
      [2],
    );
    assert.deepEqual((await consume(id, { after_message_id: young })).body.messages, []);
    assert.ok(await rowsBecome(id, 1), 'the sweep deleted the expired row');
    clock.advance(3600_000);
    assert.deepEqual((await consume(id)).body.messages, []);
    assertError(await consume(id, { after_message_id: young }), 400);
    assert.ok(await rowsBecome(id, 0));
    // The topic itself stays, and numbering goes on.
    const next = (await publish(id, { n: 3 })).body.message_id;
    assert.ok(next > young);
  });

  test('purged and deleted topics lose their rows to the sweep in the background', async () => {
    const purged = await topic('Purged rows');
    const deleted = await topic('Deleted rows');
    await batch(purged, { payloads: Array.from({ length: 30 }, (_, i) => ({ i })) });
    await batch(deleted, { payloads: Array.from({ length: 30 }, (_, i) => ({ i })) });
    assert.equal((await t.call('PUT', `/api/event_streams/topics/${purged}/purge`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/event_streams/topics/${deleted}`)).status, 200);
    assert.ok(await rowsBecome(purged, 0));
    assert.ok(await rowsBecome(deleted, 0));
    const deadline = Date.now() + 5000;
    while (
      Date.now() < deadline &&
      (await t.ctx.db.selectFrom('event_topics').select('id').where('id', '=', deleted).executeTakeFirst())
    )
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(
      await t.ctx.db.selectFrom('event_topics').select('id').where('id', '=', deleted).executeTakeFirst(),
      undefined,
      "the deleted topic's row goes last",
    );
  });

  test('an access token older than its hour is refused (401)', async () => {
    const id = await topic('Expiring token');
    const token = await accessToken(await profile({ publish: [id] }));
    assert.equal((await publish(id, { n: 1 }, { token })).status, 200);
    clock.advance(3600_000);
    assertError(await publish(id, { n: 2 }, { token }), 401);
  });
});

async function rowsBecome(topicId: number, count: number): Promise<boolean> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const row = await t.ctx.db
      .selectFrom('event_messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('topic_id', '=', topicId)
      .executeTakeFirstOrThrow();
    if (Number(row.n) === count) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe('malformed requests to the event streams operations', () => {
  test('a bounded burst of random bad requests: every answer a 4xx in the error shape, never a 500, nothing published', async () => {
    const id = await topic('Fuzzed', { schema: [{ name: 'a', type: 'integer', optional: false }] });
    let x = 20261122;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x;
    };
    const pick = <T>(items: readonly T[]) => items[next() % items.length] as T;
    const paths = [
      `/api/v1/topics/${id}/publish`,
      `/api/v1/batch/topics/${id}/publish`,
      `/api/v1/topics/${id}/consume`,
      `/api/pubsub/topics/${id}/publish`,
      `/api/pubsub/topics/${id}/consume`,
      '/api/v1/topics/x/publish',
      '/api/v1/topics/-1/consume',
      '/api/v1/topics/1e3/consume',
      `/api/v1/topics/${'9'.repeat(30)}/publish`,
      '/api/v1/batch/topics/%zz/publish',
    ];
    const types = [
      'application/json',
      'text/plain',
      '',
      'application/json; charset=latin1',
      'multipart/form-data; boundary=x',
    ];
    const auths = [
      '',
      `Bearer ${t.adminToken}`,
      'Bearer',
      'Bearer a.b.c',
      'Basic %%%',
      `Basic ${Buffer.from('api-token:').toString('base64')}`,
      'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InNiMSJ9.e30.x',
    ];
    const bodies = [
      '',
      '{',
      '{}',
      '[]',
      'null',
      '"x"',
      '{"a":"1"}',
      '{"a":1.5}',
      '{"payloads":[{"a":"x"},null,[]]}',
      '{"payloads":{}}',
      '{"batch_size":"9"}',
      '{"after_message_id":{"$gt":""}}',
      '{"since_time":"2026-02-30T00:00:00Z"}',
      '{"timeout_secs":1e9}',
      '{"__proto__":{"a":1}}',
      '{"constructor":{"prototype":{"a":1}}}',
    ];
    for (let i = 0; i < 300; i++) {
      const headers: Record<string, string> = {};
      const type = pick(types);
      if (type) headers['content-type'] = type;
      const auth = pick(auths);
      if (auth) headers.authorization = auth;
      if (next() % 4 === 0) headers['api-token'] = String(next());
      const body = pick(bodies);
      const res = await t.app.inject({ method: 'POST', url: pick(paths), headers, ...(body ? { payload: body } : {}) });
      assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
      if (res.statusCode >= 400) assert.equal(typeof JSON.parse(res.body).message, 'string', res.body);
    }
    assert.deepEqual(await readAll(id), []);
  });
});
