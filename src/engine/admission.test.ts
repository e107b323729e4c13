// Admission control: a recipe's and a workspace's backlog of pending jobs is bounded; beyond it
// webhooks and recipe-backed API endpoints answer 429 with Retry-After and store nothing. Jobs
// are held by a step that waits on an upstream this file releases.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, createRecipe, numbered, startRecipe, webhookRecipe, type StepDoc } from '../../test/recipes.ts';

let t: TestApp;
let upstream: string;
const held: ServerResponse[] = [];
let holding = true;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (holding) held.push(res);
    else res.end('{}');
  });
});

/** Let every held upstream call answer, and answer the next ones at once until `hold()`. */
function release(): void {
  holding = false;
  for (let res = held.shift(); res; res = held.shift()) res.end('{}');
}

function hold(): void {
  holding = true;
}

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // interleaveQueries: concurrent requests interleave between their queries, as on a networked database.
  // The shortest lease: on PostgreSQL the backlog counts are re-read from the database every third
  // of it, while the tests admit and end jobs.
  t = await createTestApp({
    env: { JOB_BACKLOG_PER_RECIPE: '3', JOB_BACKLOG_PER_WORKSPACE: '5', NODE_LEASE_MS: '1000' },
    interleaveQueries: true,
  });
});
after(async () => {
  release();
  await t.engine.idle();
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const callUpstream = (): StepDoc =>
  action('rest', 'make_request_v2', 'up', {
    request: { method: 'POST', url: `${upstream}/work`, content_type: 'json', body: { a: 1 } },
    response: {},
  });

const post = (path: string, n: number) => t.app.inject({ method: 'POST', url: path, payload: { n } });

async function jobCount(recipeId: number): Promise<number> {
  return (await t.call('GET', `/api/recipes/${recipeId}/jobs?per_page=1`)).body.job_count as number;
}

async function finishAll(): Promise<void> {
  release();
  await t.engine.idle();
  hold();
}

describe('POST /webhooks/rest/:key/:event under overload', () => {
  test('beyond the recipe backlog: 429 with Retry-After and no job; once jobs finish, webhooks are accepted again', async () => {
    const { id, path } = await webhookRecipe(t, [callUpstream()]);
    for (let n = 0; n < 3; n++) assert.equal((await post(path, n)).statusCode, 200);
    const refused = await post(path, 3);
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { error: 'Too many jobs are waiting to run; retry later' });
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(await jobCount(id), 3);

    await finishAll();
    const pending = await t.call('GET', `/api/recipes/${id}/jobs?status=pending`);
    assert.equal(pending.body.job_scope_count, 0);
    assert.equal((await post(path, 4)).statusCode, 200);
    assert.equal(await jobCount(id), 4);
    await finishAll();
    const done = await t.call('GET', `/api/recipes/${id}/jobs?status=succeeded`);
    assert.equal(done.body.job_scope_count, 4);
  });

  test('a full backlog refuses before the body is read: malformed JSON and a body over the limit are 429 too', async () => {
    const { id, path } = await webhookRecipe(t, [callUpstream()]);
    // While the backlog has room, a malformed body is the caller's error.
    const malformed = { method: 'POST' as const, url: path, headers: { 'content-type': 'application/json' } };
    assert.equal((await t.app.inject({ ...malformed, payload: '{"n":' })).statusCode, 400);
    for (let n = 0; n < 3; n++) assert.equal((await post(path, n)).statusCode, 200);
    const unread = await t.app.inject({ ...malformed, payload: '{"n":' });
    assert.equal(unread.statusCode, 429);
    assert.deepEqual(unread.json(), { error: 'Too many jobs are waiting to run; retry later' });
    assert.equal(unread.headers['retry-after'], '1');
    const oversized = await t.app.inject({ ...malformed, payload: `{"n":"${'x'.repeat(2 * 1024 * 1024)}"}` });
    assert.equal(oversized.statusCode, 429);
    assert.equal(await jobCount(id), 3);
    await finishAll();
    assert.equal((await t.app.inject({ ...malformed, payload: '{"n":' })).statusCode, 400);
    assert.equal((await post(path, 3)).statusCode, 200);
    assert.equal(await jobCount(id), 4);
    await finishAll();
  });
  test('the workspace backlog applies across recipes', async () => {
    const first = await webhookRecipe(t, [callUpstream()]);
    const second = await webhookRecipe(t, [callUpstream()]);
    for (let n = 0; n < 3; n++) assert.equal((await post(first.path, n)).statusCode, 200);
    assert.equal((await post(second.path, 0)).statusCode, 200);
    assert.equal((await post(second.path, 1)).statusCode, 200);
    // The second recipe holds 2 of its 3, but the workspace holds its 5.
    const refused = await post(second.path, 2);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(await jobCount(second.id), 2);

    // Another workspace has a backlog of its own.
    const other = await t.newWorkspace('Other Co');
    const code = numbered({
      keyword: 'trigger',
      provider: 'workato_webhooks',
      name: 'new_event',
      as: 'hook',
      input: { webhook_suffix: 'event' },
      block: [],
    });
    const created = await t.call('POST', '/api/recipes', {
      token: other.adminToken,
      body: { recipe: { name: 'Elsewhere', code: JSON.stringify(code) } },
    });
    assert.equal(
      (await t.call('PUT', `/api/recipes/${created.body.id}/start`, { token: other.adminToken })).body.success,
      true,
    );
    const hook = new URL(
      (await t.call('GET', `/api/recipes/${created.body.id}`, { token: other.adminToken })).body.webhook_url,
    ).pathname;
    assert.equal((await post(hook, 0)).statusCode, 200);
    await finishAll();
    assert.equal((await post(second.path, 3)).statusCode, 200);
    await finishAll();
  });

  test('concurrent webhooks racing for the last places: exactly the limit is admitted', async () => {
    const { id, path } = await webhookRecipe(t, [callUpstream()]);
    const replies = await Promise.all(Array.from({ length: 12 }, (_, n) => post(path, n)));
    const statuses = replies.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [200, 200, 200, ...Array(9).fill(429)]);
    assert.equal(await jobCount(id), 3);
    await finishAll();
    const done = await t.call('GET', `/api/recipes/${id}/jobs?status=succeeded`);
    assert.equal(done.body.job_scope_count, 3);
  });

  test("a deleted recipe's queued jobs leave the workspace backlog", async () => {
    const doomed = await webhookRecipe(t, [callUpstream()]);
    for (let n = 0; n < 3; n++) assert.equal((await post(doomed.path, n)).statusCode, 200);
    const other = await webhookRecipe(t, [callUpstream()]);
    assert.equal((await post(other.path, 0)).statusCode, 200);
    assert.equal((await post(other.path, 1)).statusCode, 200);
    assert.equal((await post(other.path, 2)).statusCode, 429);
    assert.equal((await t.call('PUT', `/api/recipes/${doomed.id}/stop`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/recipes/${doomed.id}`)).body.success, true);
    assert.equal((await post(other.path, 3)).statusCode, 200);
    await finishAll();
  });

  test('so do the queued jobs of recipes deleted with their folder or their project', async () => {
    for (const kind of ['folder', 'project'] as const) {
      const project = await t.createProject(`Backlog ${kind}`);
      const folder = await t.call('POST', '/api/folders', {
        body: { name: `Backlog ${kind} folder`, parent_id: project.folderId },
      });
      const doomed = await webhookRecipe(t, [callUpstream()], { folder_id: folder.body.id });
      for (let n = 0; n < 3; n++) assert.equal((await post(doomed.path, n)).statusCode, 200);
      const other = await webhookRecipe(t, [callUpstream()]);
      assert.equal((await post(other.path, 0)).statusCode, 200);
      assert.equal((await post(other.path, 1)).statusCode, 200);
      assert.equal((await post(other.path, 2)).statusCode, 429, `${kind}: the workspace holds its 5`);
      assert.equal((await t.call('PUT', `/api/recipes/${doomed.id}/stop`)).status, 200);
      const deleted =
        kind === 'folder'
          ? await t.call('DELETE', `/api/folders/${folder.body.id}`)
          : await t.call('DELETE', `/api/projects/${project.projectId}`);
      assert.equal(deleted.status, 200);
      assert.equal((await post(other.path, 3)).statusCode, 200, `${kind}: the deleted recipe's places are free`);
      await finishAll();
    }
  });
});

describe('recipe-backed API endpoints under overload', () => {
  test('beyond the recipe backlog: 429 {"error"} with Retry-After, and no job', async () => {
    const collection = (await t.call('POST', '/api/api_collections', { body: { name: 'Busy API' } })).body.id;
    const client = await t.call('POST', '/api/api_clients', { body: { name: 'Caller' } });
    const token = (
      await t.call('POST', '/api/api_access_profiles', {
        body: { name: 'caller', api_client_id: client.body.id, api_collection_ids: [collection], auth_type: 'token' },
      })
    ).body.secret;
    const recipe = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_api_platform',
        name: 'receive_request',
        as: 'req',
        input: { request: { content_type: 'json' } },
        block: [
          callUpstream(),
          action('workato_api_platform', 'return_response', 'resp', {
            http_status_code: '200',
            response: { done: 'yes' },
          }),
        ],
      }),
    );
    await startRecipe(t, recipe);
    const endpoint = await t.call('POST', `/api/api_collections/${collection}/api_endpoints`, {
      body: { name: 'work', method: 'POST', path: 'work', flow_id: recipe },
    });
    assert.equal((await t.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`)).status, 200);
    const url = decodeURIComponent(new URL(endpoint.body.url).pathname);
    const call = () =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'api-token': token, 'content-type': 'application/json' },
        payload: '{}',
      });

    const waiting = [call(), call(), call()];
    // The three calls' jobs are stored (and wait on the upstream) before the fourth comes in.
    for (let tries = 0; (await jobCount(recipe)) < 3; tries++) {
      assert.ok(tries < 500, 'the three jobs were stored');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const refused = await call();
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { error: 'Too many jobs are waiting to run; retry later' });
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(await jobCount(recipe), 3);

    release();
    for (const reply of await Promise.all(waiting))
      assert.deepEqual([reply.statusCode, reply.json()], [200, { done: 'yes' }]);
    await t.engine.idle();
    hold();
    assert.equal((await t.call('GET', `/api/recipes/${recipe}/jobs?status=succeeded`)).body.job_scope_count, 3);
  });
});
