// Event topics through the developer API (contract 13 §7).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { findHomeFolder } from '../folders/folders.store.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';

let t: TestApp;
let readOnly: string;
let noEventStreams: string;

const ORDER_SCHEMA = [
  { name: 'order_id', label: 'Order ID', type: 'string', control_type: 'text', optional: false },
  { name: 'amount', label: 'Amount', type: 'number', control_type: 'number', optional: true },
  {
    name: 'lines',
    label: 'Lines',
    type: 'array',
    of: 'object',
    optional: true,
    properties: [{ name: 'sku', label: 'SKU', type: 'string', control_type: 'text', optional: false }],
  },
];

before(async () => {
  t = await createTestApp();
  readOnly = await t.tokenFor('Read only');
  noEventStreams = await t.tokenWith('No event streams', ['projects_folders:read', 'projects_folders:write']);
});
after(() => t.close());

async function createTopic(body: Record<string, unknown>, token?: string) {
  return t.call('POST', '/api/event_streams/topics', { body, ...(token ? { token } : {}) });
}

async function topicCount(): Promise<number> {
  return (await t.call('GET', '/api/event_streams/topics?per_page=100')).body.data.length;
}

async function publish(topicId: number, body: unknown) {
  return t.call('POST', `/api/v1/topics/${topicId}/publish`, { body });
}

async function consumeAll(topicId: number): Promise<Array<{ message_id: string; payload: Record<string, unknown> }>> {
  const res = await t.call('POST', `/api/v1/topics/${topicId}/consume`, { body: {} });
  assert.equal(res.status, 200, res.text);
  return res.body.messages;
}

describe('POST /api/event_streams/topics', () => {
  test('creates a topic in the data envelope, with the default retention, the Home folder and the schema as sent', async () => {
    const res = await createTopic({ name: 'Orders', description: 'Paid orders', schema: ORDER_SCHEMA });
    assert.equal(res.status, 200, res.text);
    const topic = res.body.data;
    assert.equal(typeof topic.id, 'number');
    assert.equal(topic.name, 'Orders');
    assert.equal(topic.description, 'Paid orders');
    assert.equal(topic.retention, 604_800);
    assert.deepEqual(topic.schema, ORDER_SCHEMA);
    assert.equal(topic.last_message_at, null);
    assert.match(topic.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    const dev = await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev');
    assert.equal(topic.folder_id, (await findHomeFolder(t.ctx.db, dev!.id))!.id);
    const got = await t.call('GET', `/api/event_streams/topics/${topic.id}`);
    assert.deepEqual(got.body.data, topic);
  });

  test('retention as a number of seconds (a double is rounded down), a folder of a project, no schema', async () => {
    const project = await t.createProject('Fulfilment');
    const res = await createTopic({
      name: 'Shipments',
      retention: 3600.7,
      folder_id: String(project.folderId),
      schema: null,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.retention, 3600);
    assert.equal(res.body.data.folder_id, project.folderId);
    assert.equal(res.body.data.schema, null);
    const noSchema = await createTopic({ name: 'Anything goes' });
    assert.equal(noSchema.body.data.schema, null);
  });

  test('bad input is a 400 naming the field, and creates nothing', async () => {
    const before = await topicCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 3 }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'r', retention: 'long' }, 'retention'],
      [{ name: 'r', retention: 59 }, 'retention'],
      [{ name: 'r', retention: 1e12 }, 'retention'],
      [{ name: 's', schema: 'order_id:string' }, 'schema'],
      [{ name: 's', schema: [] }, 'schema'],
      [{ name: 's', schema: [{ type: 'string' }] }, 'schema'],
      [{ name: 's', schema: [{ name: 'a', type: 'blob' }] }, 'schema'],
      [{ name: 's', schema: [{ name: 'a' }, { name: 'a' }] }, 'schema'],
      [{ name: 's', schema: [{ name: 'a', optional: 'no' }] }, 'schema'],
      [{ name: 's', schema: [{ name: 'a', type: 'string', properties: [{ name: 'b' }] }] }, 'schema'],
      [{ name: 's', schema: ['order_id'] }, 'schema'],
      [{ name: 'f', folder_id: 999999 }, 'folder_id'],
      [{ name: 'f', folder_id: 'home' }, 'folder_id'],
      [{ name: 'd', description: 5 }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await createTopic(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
      assert.ok(res.body.errors?.[field], `${field} named for ${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
    }
    const deep = { name: 'deep', schema: [{ name: 'a', type: 'object', properties: [] as unknown[] }] };
    let level = deep.schema[0]!.properties;
    for (let i = 0; i < 12; i++) {
      const next = { name: `l${i}`, type: 'object', properties: [] as unknown[] };
      level.push(next);
      level = next.properties;
    }
    assert.equal((await createTopic(deep)).status, 400);
    assert.equal(
      (
        await t.call('POST', '/api/event_streams/topics', {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (await t.call('POST', '/api/event_streams/topics', { raw: 'name=x', headers: { 'content-type': 'text/plain' } }))
        .status,
      415,
    );
    const huge = await t.call('POST', '/api/event_streams/topics', {
      raw: JSON.stringify({ name: 'big', description: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413);
    assert.equal(typeof huge.body.message, 'string');
    assert.equal(await topicCount(), before);
  });

  test('names are unique per environment, whatever the case (422), and free in another environment', async () => {
    assert.equal((await createTopic({ name: 'Invoices' })).status, 200);
    const before = await topicCount();
    const again = await createTopic({ name: ' invoices ' });
    assert.equal(again.status, 422);
    assert.deepEqual(again.body.errors, { name: ['has already been taken'] });
    assert.equal(await topicCount(), before);
    const otherEnv = await createTopic({ name: 'Invoices' }, await t.tokenFor('Admin', 'test'));
    assert.equal(otherEnv.status, 200);
  });

  test('a client limited to some projects names a folder in its scope', async () => {
    const mine = await t.createProject('Scoped one');
    const theirs = await t.createProject('Scoped two');
    const { token } = await t.scopedClient([mine.folderId]);
    const before = await topicCount();
    assert.equal((await createTopic({ name: 'No folder' }, token)).status, 400);
    assert.equal((await createTopic({ name: 'Their folder', folder_id: theirs.folderId }, token)).status, 400);
    assert.equal(await topicCount(), before);
    assert.equal((await createTopic({ name: 'My folder', folder_id: mine.folderId }, token)).status, 200);
  });

  test('401 without a token; 403 for a role without event_streams:write', async () => {
    const before = await topicCount();
    const anonymous = await t.call('POST', '/api/event_streams/topics', { token: null, body: { name: 'Nope' } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { message: 'Unauthorized' });
    const forbidden = await createTopic({ name: 'Nope' }, readOnly);
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /event_streams:write/);
    assert.equal(await topicCount(), before);
  });
});

describe('GET /api/event_streams/topics', () => {
  test('lists live topics without schemas by default; include_schema adds them', async () => {
    const res = await t.call('GET', '/api/event_streams/topics');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body.data));
    assert.ok(res.body.data.length >= 3);
    assert.ok(res.body.data.every((topic: Record<string, unknown>) => !('schema' in topic)));
    const ids = res.body.data.map((topic: { id: number }) => topic.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => a - b),
      'ascending id by default',
    );
    const withSchema = await t.call('GET', '/api/event_streams/topics?include_schema=true');
    const orders = withSchema.body.data.find((topic: { name: string }) => topic.name === 'Orders');
    assert.deepEqual(orders.schema, ORDER_SCHEMA);
  });

  test('name filters by a case-sensitive partial match; sort by name or by recent activity', async () => {
    const byName = await t.call('GET', '/api/event_streams/topics?name=rder');
    assert.deepEqual(
      byName.body.data.map((topic: { name: string }) => topic.name),
      ['Orders'],
    );
    assert.deepEqual((await t.call('GET', '/api/event_streams/topics?name=ORDER')).body.data, []);
    assert.deepEqual(
      (await t.call('GET', '/api/event_streams/topics?name=%25')).body.data,
      [],
      'LIKE wildcards are literal',
    );
    const sorted = (await t.call('GET', '/api/event_streams/topics?sort=name')).body.data.map(
      (topic: { name: string }) => topic.name,
    );
    assert.deepEqual(sorted, [...sorted].sort());
    const quiet = (await createTopic({ name: 'Quiet' })).body.data.id;
    const busy = (await createTopic({ name: 'Busy' })).body.data.id;
    assert.equal((await publish(quiet, { n: 1 })).status, 200);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal((await publish(busy, { n: 1 })).status, 200);
    const activity = (await t.call('GET', '/api/event_streams/topics?sort=activity')).body.data.map(
      (topic: { id: number }) => topic.id,
    );
    assert.ok(activity.indexOf(busy) < activity.indexOf(quiet), 'the topic published to last comes first');
    assert.equal((await t.call('GET', '/api/event_streams/topics?sort=size')).status, 400);
    assert.equal((await t.call('GET', '/api/event_streams/topics?include_schema=maybe')).status, 400);
  });

  test('pages with page/per_page', async () => {
    const all = (await t.call('GET', '/api/event_streams/topics')).body.data;
    const page2 = (await t.call('GET', '/api/event_streams/topics?page=2&per_page=2')).body.data;
    assert.deepEqual(
      page2.map((topic: { id: number }) => topic.id),
      all.slice(2, 4).map((topic: { id: number }) => topic.id),
    );
  });

  test('other environments and workspaces see nothing; a scoped client sees its projects only', async () => {
    const names = (
      await t.call('GET', '/api/event_streams/topics', { token: await t.tokenFor('Admin', 'test') })
    ).body.data.map((topic: { name: string }) => topic.name);
    assert.deepEqual(names, ['Invoices']);
    const other = await t.newWorkspace('Elsewhere');
    assert.deepEqual((await t.call('GET', '/api/event_streams/topics', { token: other.adminToken })).body.data, []);
    const project = await t.createProject('Visible');
    assert.equal((await createTopic({ name: 'In visible', folder_id: project.folderId })).status, 200);
    const { token: scoped } = await t.scopedClient([project.folderId]);
    assert.deepEqual(
      (await t.call('GET', '/api/event_streams/topics', { token: scoped })).body.data.map(
        (topic: { name: string }) => topic.name,
      ),
      ['In visible'],
    );
  });

  test('401 without a token; 200 read-only; 403 without event_streams', async () => {
    assert.equal((await t.call('GET', '/api/event_streams/topics', { token: null })).status, 401);
    assert.equal((await t.call('GET', '/api/event_streams/topics', { token: readOnly })).status, 200);
    const res = await t.call('GET', '/api/event_streams/topics', { token: noEventStreams });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /event_streams:read/);
  });
});

describe('GET /api/event_streams/topics/:id', () => {
  test("404 for an unknown id, another environment's or workspace's topic, and outside the project scope; 400 for a non-numeric id", async () => {
    const testTopic = (await t.call('GET', '/api/event_streams/topics', { token: await t.tokenFor('Admin', 'test') }))
      .body.data[0].id;
    const unknown = await t.call('GET', '/api/event_streams/topics/999999');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { message: 'Topic not found' });
    assert.equal((await t.call('GET', `/api/event_streams/topics/${testTopic}`)).status, 404);
    const other = await t.newWorkspace('Elsewhere too');
    const orders = (await t.call('GET', '/api/event_streams/topics?name=Orders')).body.data[0].id;
    assert.equal((await t.call('GET', `/api/event_streams/topics/${orders}`, { token: other.adminToken })).status, 404);
    const project = await t.createProject('Somewhere else');
    assert.equal(
      (
        await t.call('GET', `/api/event_streams/topics/${orders}`, {
          token: (await t.scopedClient([project.folderId])).token,
        })
      ).status,
      404,
    );
    assert.equal((await t.call('GET', '/api/event_streams/topics/orders')).status, 400);
  });

  test('401; read-only 200; 403 without event_streams', async () => {
    const orders = (await t.call('GET', '/api/event_streams/topics?name=Orders')).body.data[0].id;
    assert.equal((await t.call('GET', `/api/event_streams/topics/${orders}`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/event_streams/topics/${orders}`, { token: readOnly })).status, 200);
    assert.equal((await t.call('GET', `/api/event_streams/topics/${orders}`, { token: noEventStreams })).status, 403);
  });
});

describe('PUT /api/event_streams/topics/:id', () => {
  test('updates name, description and retention; a new schema applies to messages published from then on', async () => {
    const id = (await createTopic({ name: 'Evolving', schema: [{ name: 'a', type: 'string' }] })).body.data.id;
    assert.equal((await publish(id, { a: 'kept', b: 'dropped' })).status, 200);
    const res = await t.call('PUT', `/api/event_streams/topics/${id}`, {
      body: {
        name: 'Evolved',
        description: 'v2',
        retention: 7200,
        schema: [
          { name: 'a', type: 'string' },
          { name: 'b', type: 'integer', optional: false },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Evolved');
    assert.equal(res.body.data.description, 'v2');
    assert.equal(res.body.data.retention, 7200);
    assert.equal(res.body.data.schema.length, 2);
    // The old message is still there as stored; new messages must carry b.
    assert.equal((await publish(id, { a: 'no b' })).status, 400);
    assert.equal((await publish(id, { a: 'with b', b: 2 })).status, 200);
    assert.deepEqual(
      (await consumeAll(id)).map((m) => m.payload),
      [{ a: 'kept' }, { a: 'with b', b: 2 }],
    );
    // null removes the schema: anything goes, verbatim.
    assert.equal(
      (await t.call('PUT', `/api/event_streams/topics/${id}`, { body: { schema: null } })).body.data.schema,
      null,
    );
    assert.equal((await publish(id, { z: [1, { y: null }] })).status, 200);
    assert.deepEqual((await consumeAll(id)).at(-1)!.payload, { z: [1, { y: null }] });
  });

  test('bad input is a 400 and changes nothing; a taken name is a 422', async () => {
    const id = (await createTopic({ name: 'Stable', retention: 3600 })).body.data.id;
    const before = (await t.call('GET', `/api/event_streams/topics/${id}`)).body.data;
    for (const body of [
      { name: '' },
      { retention: 1 },
      { retention: 'x' },
      { schema: [{ name: 1 }] },
      { folder_id: 999999 },
      { description: [] },
    ]) {
      assert.equal(
        (await t.call('PUT', `/api/event_streams/topics/${id}`, { body })).status,
        400,
        JSON.stringify(body),
      );
    }
    assert.equal((await t.call('PUT', `/api/event_streams/topics/${id}`, { body: { name: 'orders' } })).status, 422);
    assert.equal(
      (
        await t.call('PUT', `/api/event_streams/topics/${id}`, {
          raw: '{x',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.deepEqual((await t.call('GET', `/api/event_streams/topics/${id}`)).body.data, before);
  });

  test('404 for an unknown or foreign topic; 401; 403', async () => {
    const id = (await createTopic({ name: 'Guarded' })).body.data.id;
    assert.equal((await t.call('PUT', '/api/event_streams/topics/999999', { body: { name: 'x' } })).status, 404);
    assert.equal(
      (
        await t.call('PUT', `/api/event_streams/topics/${id}`, {
          body: { name: 'x' },
          token: await t.tokenFor('Admin', 'test'),
        })
      ).status,
      404,
    );
    assert.equal(
      (await t.call('PUT', `/api/event_streams/topics/${id}`, { body: { name: 'x' }, token: null })).status,
      401,
    );
    assert.equal(
      (await t.call('PUT', `/api/event_streams/topics/${id}`, { body: { name: 'x' }, token: readOnly })).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/event_streams/topics/${id}`)).body.data.name, 'Guarded');
  });
});

describe('PUT /api/event_streams/topics/:id/purge', () => {
  test('every message is gone for consumers, ids go on from where they were, old cursors are refused', async () => {
    const id = (await createTopic({ name: 'Purgeable' })).body.data.id;
    const first = (await publish(id, { n: 1 })).body.message_id as string;
    assert.equal((await publish(id, { n: 2 })).status, 200);
    const res = await t.call('PUT', `/api/event_streams/topics/${id}/purge`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.deepEqual(await consumeAll(id), []);
    const stale = await t.call('POST', `/api/v1/topics/${id}/consume`, { body: { after_message_id: first } });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.message, `Message not found: ${first}`);
    const next = (await publish(id, { n: 3 })).body.message_id as string;
    assert.ok(next > first);
    assert.deepEqual(
      (await consumeAll(id)).map((m) => m.payload),
      [{ n: 3 }],
    );
    assert.equal((await t.call('GET', `/api/event_streams/topics/${id}`)).status, 200, 'the topic stays');
  });

  test('404; 401; 403', async () => {
    const id = (await createTopic({ name: 'Not purged' })).body.data.id;
    assert.equal((await publish(id, { n: 1 })).status, 200);
    assert.equal((await t.call('PUT', '/api/event_streams/topics/999999/purge')).status, 404);
    assert.equal((await t.call('PUT', `/api/event_streams/topics/${id}/purge`, { token: null })).status, 401);
    assert.equal((await t.call('PUT', `/api/event_streams/topics/${id}/purge`, { token: readOnly })).status, 403);
    assert.equal(
      (await t.call('PUT', `/api/event_streams/topics/${id}/purge`, { token: await t.tokenFor('Admin', 'test') }))
        .status,
      404,
    );
    assert.equal((await consumeAll(id)).length, 1);
  });
});

describe('DELETE /api/event_streams/topics/:id', () => {
  test('the topic and its messages are gone at once; the name is free again', async () => {
    const id = (await createTopic({ name: 'Doomed' })).body.data.id;
    assert.equal((await publish(id, { n: 1 })).status, 200);
    const res = await t.call('DELETE', `/api/event_streams/topics/${id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.equal((await t.call('GET', `/api/event_streams/topics/${id}`)).status, 404);
    assert.equal((await publish(id, { n: 2 })).status, 404);
    assert.equal((await t.call('POST', `/api/v1/topics/${id}/consume`, { body: {} })).status, 404);
    assert.equal((await t.call('DELETE', `/api/event_streams/topics/${id}`)).status, 404);
    const again = await createTopic({ name: 'Doomed' });
    assert.equal(again.status, 200);
    assert.notEqual(again.body.data.id, id);
    assert.deepEqual(await consumeAll(again.body.data.id), []);
  });

  test('404 for another environment; 401; 403; nothing deleted', async () => {
    const id = (await createTopic({ name: 'Survivor' })).body.data.id;
    assert.equal(
      (await t.call('DELETE', `/api/event_streams/topics/${id}`, { token: await t.tokenFor('Admin', 'test') })).status,
      404,
    );
    assert.equal((await t.call('DELETE', `/api/event_streams/topics/${id}`, { token: null })).status, 401);
    assert.equal((await t.call('DELETE', `/api/event_streams/topics/${id}`, { token: readOnly })).status, 403);
    assert.equal((await t.call('DELETE', '/api/event_streams/topics/abc')).status, 400);
    assert.equal((await t.call('GET', `/api/event_streams/topics/${id}`)).status, 200);
  });
});
