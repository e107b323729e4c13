import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, webhookTrigger } from '../../../test/recipes.ts';
import { goDecode, slice, struct } from '../../../test/go-decode.ts';
import { WK } from '../../../test/wk.ts';
import { manualClock, toStored } from '../../time.ts';
import { createActivityRetentionSweeper } from './retention.ts';
import { changeOfRoute } from './events.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- entries are read as JSON */
type Entry = Record<string, any>;

const clock = manualClock('2026-04-01T08:00:00.000Z');
let t: TestApp;
let deployer: string;
let deployerId: number;
before(async () => {
  t = await createTestApp({ clock });
  const made = await t.call('POST', '/api/developer_api_clients', {
    body: { name: 'CI deployer', api_privilege_group_id: await t.roleId('Admin'), all_folders: true },
  });
  assert.equal(made.status, 200, made.text);
  deployer = made.body.result.token.value;
  deployerId = made.body.result.id;
});
after(() => t.close());

const AuditList = struct({ data: slice(WK.AuditLogEntry) });

async function entries(query = '', token?: string): Promise<Entry[]> {
  const res = await t.call('GET', `/api/activity_logs${query}`, token === undefined ? {} : { token });
  assert.equal(res.status, 200, res.text);
  goDecode(res.body, AuditList);
  return res.body.data;
}

async function newestId(): Promise<number> {
  return (await entries('?per_page=1'))[0]?.id ?? 0;
}

/** Entries written after `since`, oldest first. */
async function since(id: number): Promise<Entry[]> {
  return (await entries()).filter((e) => e.id > id).reverse();
}

describe('GET /api/activity_logs: a scripted sequence of changes', () => {
  test('each change once, in order, with its actor; reads, refusals and errors write nothing', async () => {
    const start = await newestId();
    const step = () => clock.advance(1000);
    const ok = (res: { status: number; text: string }) => assert.ok(res.status < 300, res.text);

    const recipeId = await createRecipe(t, webhookTrigger([log('say', 'hi')]));
    step();
    const folder = await t.call('POST', '/api/folders', { body: { name: 'Audited' }, token: deployer });
    ok(folder);
    step();
    const tag = await t.call('POST', '/api/tags', { body: { title: 'Audited' } });
    ok(tag);
    step();
    const conn = await t.call('POST', '/api/connections', {
      body: { name: 'Upstream', provider: 'rest', input: { base_url: 'http://127.0.0.1:9', auth_type: 'none' } },
      token: deployer,
    });
    ok(conn);
    step();
    ok(
      await t.call('POST', '/api/tags_assignments', { body: { add_tags: [tag.body.handle], recipe_ids: [recipeId] } }),
    );
    step();
    ok(
      await t.call('PUT', `/api/recipes/${recipeId}/connect`, {
        body: { adapter_name: 'workato_webhooks', connection_id: null },
      }),
    );
    step();
    ok(await t.call('PUT', `/api/recipes/${recipeId}/start`));
    step();
    // Refused (200 with success false: a running recipe), failed (404, 400) and read calls write nothing.
    const refused = await t.call('PUT', `/api/recipes/${recipeId}`, { body: { recipe: { name: 'Renamed' } } });
    assert.equal(refused.body.success, false);
    assert.equal((await t.call('PUT', '/api/tags/tag-nothere-000000', { body: { title: 'x' } })).status, 404);
    assert.equal((await t.call('POST', '/api/tags', { body: { title: 'audited' } })).status, 422);
    assert.equal((await t.call('POST', '/api/connections', { body: { provider: 'rest' } })).status, 400);
    await t.call('GET', `/api/recipes/${recipeId}`);
    await t.call('GET', '/api/connections');
    ok(await t.call('PUT', `/api/recipes/${recipeId}/stop`, { token: deployer }));
    step();
    const versions = await t.call('GET', `/api/recipes/${recipeId}/versions`);
    ok(
      await t.call('PATCH', `/api/recipes/${recipeId}/versions/${versions.body.data[0].id}`, {
        body: { comment: 'Reviewed' },
      }),
    );
    step();
    ok(await t.call('POST', `/api/connections/${conn.body.id}/disconnect`, { token: deployer }));
    step();
    ok(await t.call('DELETE', `/api/connections/${conn.body.id}`, { token: deployer }));
    step();
    ok(await t.call('DELETE', `/api/tags/${tag.body.handle}`));

    const written = await since(start);
    assert.deepEqual(
      written.map((e) => [e.event_type, e.resource_type, e.details.client.name]),
      [
        ['recipe_created', 'recipe', 'Bootstrap admin'],
        ['folder_created', 'folder', 'CI deployer'],
        ['tag_created', 'tag', 'Bootstrap admin'],
        ['connection_created', 'connection', 'CI deployer'],
        ['tags_assigned', 'tag', 'Bootstrap admin'],
        ['recipe_connection_updated', 'recipe', 'Bootstrap admin'],
        ['recipe_started', 'recipe', 'Bootstrap admin'],
        ['recipe_stopped', 'recipe', 'CI deployer'],
        ['recipe_version_updated', 'recipe_version', 'Bootstrap admin'],
        ['connection_disconnected', 'connection', 'CI deployer'],
        ['connection_deleted', 'connection', 'CI deployer'],
        ['tag_deleted', 'tag', 'Bootstrap admin'],
      ],
    );
    // Ids and times follow the script; resources are named.
    for (let i = 1; i < written.length; i += 1) {
      assert.ok(written[i]!.id > written[i - 1]!.id);
      assert.ok(written[i]!.timestamp >= written[i - 1]!.timestamp);
    }
    assert.equal(written[0]!.resource_id, String(recipeId));
    assert.equal(written[1]!.resource_id, String(folder.body.id));
    assert.equal(written[3]!.resource_id, String(conn.body.id));
    assert.equal(written[3]!.resource_name, 'Upstream');
    assert.equal(written[1]!.timestamp, '2026-04-01T08:00:01.000+00:00');
    // Who: the workspace owner, through the client named in details.
    for (const e of written) {
      assert.deepEqual(e.user.email, 'integrations@example.com');
      assert.equal(typeof e.user.id, 'number');
      assert.equal(e.details.via, 'api');
    }
    assert.equal(written[1]!.details.client.id, deployerId);
    assert.equal(written[1]!.details.route, 'POST /api/folders');
    // A connection's entries never hold its credentials.
    assert.doesNotMatch(JSON.stringify(written), /127\.0\.0\.1:9/);
    assert.deepEqual(written[3]!.details.provider, 'rest');
  });

  test('the client is named as it was when it acted, after it is renamed or deleted', async () => {
    const made = await t.call('POST', '/api/developer_api_clients', {
      body: { name: 'Short-lived', api_privilege_group_id: await t.roleId('Admin'), all_folders: true },
    });
    const start = await newestId();
    assert.equal(
      (await t.call('POST', '/api/tags', { body: { title: 'By short-lived' }, token: made.body.result.token.value }))
        .status,
      200,
    );
    assert.equal((await t.call('DELETE', `/api/developer_api_clients/${made.body.result.id}`)).status, 200);
    const [created, deleted] = await since(start);
    assert.equal(created?.event_type, 'tag_created');
    assert.deepEqual(created?.details.client, { id: made.body.result.id, name: 'Short-lived' });
    assert.equal(deleted?.event_type, 'developer_api_client_deleted');
  });
});

describe('GET /api/activity_logs: filters', () => {
  test('from and to (inclusive, RFC 3339 or a date), event_type, newest first', async () => {
    clock.set('2026-05-10T12:00:00.000Z');
    const a = await t.call('POST', '/api/tags', { body: { title: 'May A' } });
    clock.set('2026-05-11T12:00:00.500Z');
    const b = await t.call('POST', '/api/tags', { body: { title: 'May B' } });
    clock.set('2026-05-12T12:00:00.000Z');
    await t.call('PUT', `/api/tags/${b.body.handle}`, { body: { color: 'red' } });
    const handles = (list: Entry[]) =>
      list.map((e) => `${e.event_type}:${e.resource_id === a.body.handle ? 'A' : 'B'}`);

    assert.deepEqual(handles(await entries('?from=2026-05-10T12:00:00Z&to=2026-05-12T12:00:00Z')), [
      'tag_updated:B',
      'tag_created:B',
      'tag_created:A',
    ]);
    assert.deepEqual(handles(await entries('?from=2026-05-11&to=2026-05-11')), ['tag_created:B']);
    // `to` without fractions covers its whole second; with them, the exact instant.
    assert.deepEqual(handles(await entries('?from=2026-05-11T00:00:00Z&to=2026-05-11T12:00:00Z')), ['tag_created:B']);
    assert.deepEqual(handles(await entries('?from=2026-05-11T00:00:00Z&to=2026-05-11T12:00:00.100Z')), []);
    assert.deepEqual(handles(await entries('?from=2026-05-11T14:00:00%2B02:00&to=2026-05-11')), ['tag_created:B']);
    assert.deepEqual(handles(await entries('?from=2026-05-10&event_type=tag_updated')), ['tag_updated:B']);
    assert.deepEqual(
      handles(await entries('?from=2026-05-10&include_event_types[]=tag_updated&include_event_types[]=tag_created')),
      ['tag_updated:B', 'tag_created:B', 'tag_created:A'],
    );
    assert.deepEqual(await entries('?event_type=no_such_event'), []);
    assert.equal((await entries('?per_page=2')).length, 2);
  });

  test('an unparsable date, or to before from, is a 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['?from=yesterday', 'from'],
      ['?to=2026-13-01', 'to'],
      ['?from=2026-02-30', 'from'],
      ['?from=2026-05-10T25:00:00Z', 'from'],
      ['?from=2026-05-12&to=2026-05-10', 'to'],
      [`?from=${'9'.repeat(65)}`, 'from'],
    ]) {
      const res = await t.call('GET', `/api/activity_logs${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.match(res.text, new RegExp(field as string));
      assert.equal(typeof res.body.message, 'string');
    }
  });

  test("a client sees its environment's entries; 401 without a token, 403 without activity_logs:read", async () => {
    const prod = await t.tokenFor('Admin', 'prod');
    assert.equal((await t.call('POST', '/api/tags', { body: { title: 'Prod tag' }, token: prod })).status, 200);
    const prodEntries = await entries('', prod);
    assert.deepEqual(
      prodEntries.map((e) => e.event_type),
      ['tag_created'],
    );
    assert.ok(!(await entries()).some((e) => e.details.title === 'Prod tag'));
    assert.equal((await t.call('GET', '/api/activity_logs', { token: null })).status, 401);
    const noAudit = await t.tokenWith('No audit', ['tags:read']);
    assert.equal((await t.call('GET', '/api/activity_logs', { token: noAudit })).status, 403);
    const other = await t.newWorkspace('Audit Elsewhere');
    assert.deepEqual(await entries('', other.adminToken), []);
  });
});

describe('activity log: written with the change', () => {
  test("a service's entry is in the change's transaction: when it cannot be written, the change is undone", async () => {
    await sql`alter table activity_logs rename to activity_logs_away`.execute(t.ctx.db);
    try {
      const res = await t.call('POST', '/api/tags', { body: { title: 'Never made' } });
      assert.equal(res.status, 500);
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'message']);
    } finally {
      await sql`alter table activity_logs_away rename to activity_logs`.execute(t.ctx.db);
    }
    const list = await t.call('GET', '/api/tags?q=never');
    assert.deepEqual(list.body.data.tags, []);
  });

  test('retention: entries older than JOB_RETENTION_HOURS are deleted in batches; newer ones stay', async () => {
    clock.set('2026-06-01T00:00:00.000Z');
    for (let i = 0; i < 5; i += 1) await t.call('POST', '/api/tags', { body: { title: `Old ${i}` } });
    clock.set('2026-06-02T00:00:00.000Z');
    await t.call('POST', '/api/tags', { body: { title: 'Recent' } });
    clock.set('2026-06-02T12:00:00.000Z');
    const sweeper = createActivityRetentionSweeper(t.ctx, {
      intervalMs: 60_000,
      retentionMs: 24 * 3600_000,
      batchSize: 2,
    });
    const deleted = await sweeper.sweepOnce();
    assert.ok(deleted >= 5, `deleted ${deleted}`);
    const left = await entries();
    assert.ok(left.length > 0);
    assert.ok(left.every((e) => e.timestamp >= toStored(new Date('2026-06-01T12:00:00.000Z')).replace('Z', '+00:00')));
    assert.ok(left.some((e) => e.details.title === 'Recent'));
    assert.equal(await sweeper.sweepOnce(), 0);
  });
});

describe('event names of the management API routes', () => {
  test('derived from method and path, with the exceptions named', () => {
    assert.deepEqual(changeOfRoute('PUT', '/api/recipes/:id/start'), {
      eventType: 'recipe_started',
      resourceType: 'recipe',
      idParam: 'id',
    });
    assert.equal(changeOfRoute('POST', '/api/recipes')?.eventType, 'recipe_created');
    assert.equal(changeOfRoute('DELETE', '/api/lookup_tables/:id')?.eventType, 'lookup_table_deleted');
    assert.equal(changeOfRoute('POST', '/api/api_collections/:id/api_endpoints')?.eventType, 'api_endpoint_created');
    assert.equal(
      changeOfRoute('PUT', '/api/v2/api_clients/:api_client_id/api_keys/:api_key_id/refresh_secret')?.eventType,
      'api_key_secret_refreshed',
    );
    assert.equal(changeOfRoute('POST', '/api/properties')?.eventType, 'properties_updated');
    assert.equal(changeOfRoute('GET', '/api/recipes'), null);
    assert.equal(changeOfRoute('POST', '/api/sdk/generate_schema/json'), null);
    assert.equal(changeOfRoute('POST', '/api/lookup_tables/:id/rows'), null);
  });
});
