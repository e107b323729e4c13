// The event streams API (contract 13 §1-6): publish, batch publish, consume, long polling,
// retention, access, and the ordering property under concurrent producers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, eventStreams } from '../../../test/event-streams.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';

const clock = manualClock('2026-03-02T08:00:00.000Z');
let t: TestApp;
let readOnly: string;
let noEventStreams: string;

const ID_SHAPE = /^[0-9a-f]{16}-[0-9a-f]{16}$/;

before(async () => {
  t = await createTestApp({ clock, env: { EVENT_STREAMS_SWEEP_INTERVAL_MS: '20' } });
  readOnly = await t.tokenFor('Read only');
  noEventStreams = await t.tokenWith('Folders only', ['projects_folders:read']);
  await t.call('POST', '/api/api_clients', { body: { name: 'Event partner' } });
});
after(() => t.close());

const kit = eventStreams(() => t);
const { topic, publish, batch, readAll } = kit;

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
  test('a payload nested 5,000 levels deep is a 400, not a crash; over 100 levels in a batch an item error; 100 levels are stored', async () => {
    const id = await topic('Deep payloads');
    const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    const deep = await t.call('POST', `/api/v1/topics/${id}/publish`, {
      raw: nested(5000),
      headers: { 'content-type': 'application/json' },
    });
    // Past 128 levels no body is parsed at all (src/http/json-shape.ts); past 100 a payload is refused.
    assert.equal(deep.status, 400);
    assert.deepEqual(deep.body, { message: 'The JSON body nests objects and arrays more than 128 levels deep' });
    const over = await t.call('POST', `/api/v1/topics/${id}/publish`, {
      raw: nested(101),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(over.status, 400);
    assert.deepEqual(over.body, {
      message: 'Payload is nested too deeply',
      errors: { payload: ['is nested more than 100 levels deep'] },
    });
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
      raw: `{"payloads":[{"ok":1},${nested(120)}]}`,
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
