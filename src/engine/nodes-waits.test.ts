// A caller waiting for a job's answer on one node while the job runs on another, both nodes on one
// PostgreSQL database: the answer reaches the caller as soon as the job ends there (the job.ended
// notice), or at the next re-read of the job when the notice is missed. The node that receives
// the calls runs no jobs (workers 0), or is closing (it claims nothing more), so the other node
// is the one that runs them. Every timeout is far above the answer's expected time and only a
// last guard: a caller that missed the end would answer a timeout. PostgreSQL only: on SQLite
// one process owns the database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, createRecipe, dp, log, numbered, readJob, startRecipe, webhookRecipe } from '../../test/recipes.ts';
import { postgresOnly } from '../../test/test-database.ts';
import { createServiceContext } from '../context.ts';
import { createInProcessNotifier, type Notifier } from '../notifier.ts';
import { createEngine, type EngineOptions } from './engine.ts';

/** Far above the expected answer time: a caller that missed the job's end answers a timeout. */
const GUARD_MS = 20_000;

/** Another node over the test app's database: its own node id, and the notifier given. */
function otherNode(t: TestApp, notifier: Notifier, options: EngineOptions = {}) {
  const ctx = createServiceContext({
    db: t.ctx.db,
    config: t.ctx.config,
    secretBox: t.ctx.secretBox,
    log: t.ctx.log,
    notifier,
  });
  return { ctx, engine: createEngine(ctx, { pollMs: 50, ...options }) };
}

/** An API collection, a client and its token: what a call of a recipe-backed endpoint needs. */
async function apiAccess(t: TestApp): Promise<{ collectionId: number; token: string }> {
  const collection = await t.call('POST', '/api/api_collections', { body: { name: 'Orders API' } });
  assert.equal(collection.status, 200, collection.text);
  const client = await t.call('POST', '/api/api_clients', { body: { name: 'Shop' } });
  const profile = await t.call('POST', '/api/api_access_profiles', {
    body: { name: 'shop', api_client_id: client.body.id, api_collection_ids: [collection.body.id], auth_type: 'token' },
  });
  assert.equal(profile.status, 200, profile.text);
  return { collectionId: collection.body.id, token: profile.body.secret };
}

/** A running recipe-backed endpoint answering 201 with the order's id and its quantity doubled. */
async function orderEndpoint(t: TestApp, collectionId: number, path: string): Promise<{ id: number; url: string }> {
  const req = (...p: string[]) => `#{${dp('workato_api_platform', 'req', 'request', ...p)}}`;
  const id = await createRecipe(
    t,
    numbered({
      keyword: 'trigger',
      provider: 'workato_api_platform',
      name: 'receive_request',
      as: 'req',
      input: { request: { content_type: 'json' } },
      block: [
        action('workato_api_platform', 'return_response', 'resp', {
          http_status_code: '201',
          response: { id: req('id'), qty: `=${dp('workato_api_platform', 'req', 'request', 'qty')} * 2` },
        }),
      ],
    }),
  );
  await startRecipe(t, id);
  const endpoint = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
    body: { name: path, method: 'POST', path, flow_id: id },
  });
  assert.equal(endpoint.status, 200, endpoint.text);
  assert.equal((await t.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`)).status, 200);
  return { id, url: decodeURIComponent(new URL(endpoint.body.url).pathname) };
}

/**
 * The nodes' timers do not keep a process alive (a server's sockets do); a call made with inject
 * is kept alive here, or the test process would reach its exit (and drop its database) while the
 * call waits for the other node.
 */
async function awake<T>(call: Promise<T>): Promise<T> {
  const timer = setInterval(() => undefined, 1000);
  try {
    return await call;
  } finally {
    clearInterval(timer);
  }
}

async function callEndpoint(t: TestApp, url: string, token: string, body: unknown) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'api-token': token, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) as unknown };
}

/** The node that claimed each job of the recipe. */
async function claimers(t: TestApp, recipeId: number): Promise<Array<string | null>> {
  const rows = await t.ctx.db.selectFrom('jobs').select('claimed_by').where('recipe_id', '=', recipeId).execute();
  return rows.map((row) => row.claimed_by);
}

describe(
  'a call answered by the node that received it, its job run by the other node',
  { skip: postgresOnly('two nodes sharing the database') },
  () => {
    let t: TestApp;
    let other: ReturnType<typeof otherNode>;
    before(async () => {
      // This node runs no jobs, and re-reads waiting jobs only after the guard: the answer comes by notice.
      t = await createTestApp({
        env: { GATEWAY_TIMEOUT_MS: String(GUARD_MS) },
        engine: { workers: 0, waitRecheckMs: 10 * GUARD_MS },
      });
      other = otherNode(t, t.ctx.notifier);
      await other.engine.start();
    });
    after(async () => {
      await other.engine.close(1000);
      await t.close();
    });

    test('an API platform endpoint answers with the response of the job the other node ran', async () => {
      const { collectionId, token } = await apiAccess(t);
      const { id, url } = await orderEndpoint(t, collectionId, 'orders/{id}');
      const replies = await awake(
        Promise.all([1, 2, 3].map((n) => callEndpoint(t, url.replace('{id}', `A-${n}`), token, { qty: n }))),
      );
      assert.deepEqual(replies, [
        { status: 201, body: { id: 'A-1', qty: 2 } },
        { status: 201, body: { id: 'A-2', qty: 4 } },
        { status: 201, body: { id: 'A-3', qty: 6 } },
      ]);
      assert.deepEqual(await claimers(t, id), [other.ctx.nodeId, other.ctx.nodeId, other.ctx.nodeId]);
      const stored = await t.ctx.db
        .selectFrom('jobs')
        .select(['awaited', 'reply'])
        .where('recipe_id', '=', id)
        .execute();
      assert.deepEqual(
        stored.map((row) => [row.awaited, JSON.parse(row.reply ?? 'null')?.kind]),
        [
          [1, 'response'],
          [1, 'response'],
          [1, 'response'],
        ],
        'each job is stored awaited, with its response',
      );
    });
  },
);

describe(
  'a missed job.ended notice: the waiting node reads the job again',
  { skip: postgresOnly('two nodes sharing the database') },
  () => {
    let t: TestApp;
    let other: ReturnType<typeof otherNode>;
    before(async () => {
      t = await createTestApp({
        env: { GATEWAY_TIMEOUT_MS: String(GUARD_MS) },
        engine: { workers: 0, waitRecheckMs: 200 },
      });
      // The other node's notices reach no one here: only the re-read can answer.
      other = otherNode(t, createInProcessNotifier());
      await other.engine.start();
    });
    after(async () => {
      await other.engine.close(1000);
      await t.close();
    });

    test('the endpoint still answers with the job’s response', async () => {
      const { collectionId, token } = await apiAccess(t);
      const { id, url } = await orderEndpoint(t, collectionId, 'orders/{id}');
      assert.deepEqual(await awake(callEndpoint(t, url.replace('{id}', 'B-1'), token, { qty: 5 })), {
        status: 201,
        body: { id: 'B-1', qty: 10 },
      });
      assert.deepEqual(await claimers(t, id), [other.ctx.nodeId]);
    });
  },
);

describe(
  'a synchronous recipe function call from a closing node, the function run by the other node',
  { skip: postgresOnly('two nodes sharing the database') },
  () => {
    let t: TestApp;
    let other: ReturnType<typeof otherNode> | undefined;
    let closing: Promise<void> | undefined;
    before(async () => {
      t = await createTestApp({ engine: { waitRecheckMs: 10 * GUARD_MS, limits: { callTimeoutMs: GUARD_MS } } });
    });
    after(async () => {
      await closing;
      await other?.engine.close(1000);
      await t.close();
    });

    test('call_recipe gets the return_result of the job the other node ran', async () => {
      const param = (name: string) => dp('workato_recipe_function', 'call', 'parameters', name);
      const callee = await createRecipe(
        t,
        numbered({
          keyword: 'trigger',
          provider: 'workato_recipe_function',
          name: 'execute',
          as: 'call',
          input: { parameters_schema_json: '[]', result_schema_json: '[]' },
          block: [
            action('workato_recipe_function', 'return_result', 'ret', { result: { doubled: `=${param('n')} * 2` } }),
          ],
        }),
        { name: 'Double it' },
      );
      await startRecipe(t, callee);
      const { id: caller, path } = await webhookRecipe(t, [
        action('workato_recipe_function', 'call_recipe', 'sync', { flow_id: String(callee), parameters: { n: 21 } }),
        log('out', `#{${dp('workato_recipe_function', 'sync', 'result', 'doubled')}}`),
      ]);
      // As the caller's job starts here, this node begins to close: it claims nothing more (the
      // function's job is left to the other node, started now) and waits for its running job.
      t.engine.events.on('job.started', (e) => {
        if (e.recipeId !== caller || closing) return;
        closing = t.engine.close(GUARD_MS);
        other = otherNode(t, t.ctx.notifier, { waitRecheckMs: 10 * GUARD_MS });
        void other.engine.start();
      });
      assert.equal((await t.app.inject({ method: 'POST', url: path, payload: {} })).statusCode, 200);
      while (!closing) await new Promise((resolve) => setTimeout(resolve, 10));
      await awake(closing);
      const [job] = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', caller).execute();
      const ran = await readJob(t, job?.id as number);
      assert.equal(ran.status, 'succeeded', ran.error ?? '');
      assert.deepEqual(ran.output(2), { message: '42' });
      assert.deepEqual(await claimers(t, callee), [other?.ctx.nodeId]);
      assert.deepEqual(await claimers(t, caller), [t.ctx.nodeId]);
    });
  },
);
