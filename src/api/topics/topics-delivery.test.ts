// The event streams API (contract 13 §1-6): publish, batch publish, consume, long polling,
// retention, access, and the ordering property under concurrent producers.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError, eventStreams, type Message } from '../../../test/event-streams.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';

const clock = manualClock('2026-03-02T08:00:00.000Z');
let t: TestApp;
let apiClientId: number;

before(async () => {
  t = await createTestApp({ clock, env: { EVENT_STREAMS_SWEEP_INTERVAL_MS: '20' } });
  apiClientId = (await t.call('POST', '/api/api_clients', { body: { name: 'Event partner' } })).body.id;
});
after(() => t.close());

const kit = eventStreams(() => t);
const { topic, publish, batch, consume, readAll, accessToken } = kit;
const profile = (grants: Parameters<typeof kit.profile>[1], authType?: 'oauth2' | 'token') =>
  kit.profile(apiClientId, grants, authType);

function seqOf(messageId: string): number {
  return Number.parseInt(messageId.split('-')[1] as string, 16);
}

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
