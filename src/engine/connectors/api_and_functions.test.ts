// Recipe-backed API endpoints (workato_api_platform) through the gateway, and recipe functions
// (workato_recipe_function): call and wait, call async, the failure modes of each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import {
  action,
  createRecipe,
  dp,
  log,
  numbered,
  pill,
  readJob,
  startRecipe,
  webhookRecipe,
  type StepDoc,
} from '../../../test/recipes.ts';

let t: TestApp;
let collectionId: number;
let apiToken: string;

before(async () => {
  t = await createTestApp({ env: { GATEWAY_TIMEOUT_MS: '300' }, engine: { limits: { callTimeoutMs: 300 } } });
  collectionId = (await t.call('POST', '/api/api_collections', { body: { name: 'Recipes API' } })).body.id;
  const client = await t.call('POST', '/api/api_clients', { body: { name: 'Caller' } });
  apiToken = (
    await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'caller', api_client_id: client.body.id, api_collection_ids: [collectionId], auth_type: 'token' },
    })
  ).body.secret;
});
after(() => t.close());

const apiTrigger = (block: StepDoc[]) =>
  numbered({
    keyword: 'trigger',
    provider: 'workato_api_platform',
    name: 'receive_request',
    as: 'req',
    input: { request: { content_type: 'json' } },
    block,
  });
const respond = (code: string, response: Record<string, unknown>) =>
  action('workato_api_platform', 'return_response', `resp${code}`, { http_status_code: code, response });
const req = (...path: string[]) => pill('workato_api_platform', 'req', 'request', ...path);

let counter = 0;
async function endpoint(
  block: StepDoc[],
  path = `e${++counter}`,
  method = 'POST',
): Promise<{ id: number; url: string; endpointId: number }> {
  const id = await createRecipe(t, apiTrigger(block));
  await startRecipe(t, id);
  const e = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
    body: { name: path, method, path, flow_id: id },
  });
  assert.equal(e.status, 200, e.text);
  assert.equal((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`)).status, 200);
  return { id, url: decodeURIComponent(new URL(e.body.url).pathname), endpointId: e.body.id };
}

async function gw(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: method as 'POST',
    url,
    headers: {
      'api-token': apiToken,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, body: res.body === '' ? undefined : JSON.parse(res.body) };
}

describe('workato_api_platform', () => {
  test('receive_request gets body, query and path parameters under request; return_response answers', async () => {
    const { url } = await endpoint(
      [
        respond('201', {
          id: req('id'),
          qty: `=${dp('workato_api_platform', 'req', 'request', 'qty')} * 2`,
          q: req('q'),
          caller: `#{${dp('workato_api_platform', 'req', 'context', 'access_profile', 'type')}}`,
        }),
      ],
      'orders/{id}',
    );
    const res = await gw('POST', url.replace('{id}', 'A-7') + '?q=yes&api_token=hidden', { qty: 2 });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, { id: 'A-7', qty: 4, q: 'yes', caller: 'token' });
  });

  test('a job that ends without a response answers 200 {}; one that fails answers 500', async () => {
    const quiet = await endpoint([log('n', 'x')]);
    assert.deepEqual(await gw('POST', quiet.url, {}), { status: 200, body: {} });
    const failing = await endpoint([action('json_parser', 'parse_json_v2', 'p', { document: '{' })]);
    assert.deepEqual(await gw('POST', failing.url, {}), { status: 500, body: { error: 'Internal error' } });
  });

  test('a recipe slower than GATEWAY_TIMEOUT_MS answers 504; a malformed body, one nested too deep or holding too many objects 400; a stopped recipe 404', async () => {
    const slow = await endpoint([action('clock', 'wait_for_interval', 'w', { interval: '0.8' }), respond('200', {})]);
    assert.deepEqual(await gw('POST', slow.url, {}), { status: 504, body: { error: 'Gateway timeout' } });
    const fine = await endpoint([respond('200', { ok: 'yes' })]);
    const bad = await t.app.inject({
      method: 'POST',
      url: fine.url,
      headers: { 'api-token': apiToken, 'content-type': 'application/json' },
      payload: '{"a":',
    });
    assert.equal(bad.statusCode, 400);
    const deep = await t.app.inject({
      method: 'POST',
      url: fine.url,
      headers: { 'api-token': apiToken, 'content-type': 'application/json' },
      payload: '['.repeat(5000) + ']'.repeat(5000),
    });
    assert.equal(deep.statusCode, 400);
    // More objects than an event may hold: refused on its text, before it is parsed.
    const many = await t.app.inject({
      method: 'POST',
      url: fine.url,
      headers: { 'api-token': apiToken, 'content-type': 'application/json' },
      payload: `[${'{},'.repeat(600_000)}{}]`,
    });
    assert.equal(many.statusCode, 400);
    await t.call('PUT', `/api/recipes/${fine.id}/stop`);
    assert.equal((await gw('POST', fine.url, {})).status, 404);
    await t.engine.idle(5000);
  });

  test('endpoints: flow_id must name an API recipe; enabling needs it running (422)', async () => {
    const webhookRecipe = await createRecipe(
      t,
      numbered({ keyword: 'trigger', provider: 'workato_webhooks', name: 'new_event', as: 'h', input: {}, block: [] }),
    );
    const wrong = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
      body: { name: 'w', method: 'GET', path: 'w', flow_id: webhookRecipe },
    });
    assert.equal(wrong.status, 400);
    assert.ok(wrong.body.errors.flow_id);
    assert.equal(
      (
        await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
          body: { name: 'w', method: 'GET', path: 'w', flow_id: 999999 },
        })
      ).status,
      400,
    );
    const stopped = await createRecipe(t, apiTrigger([respond('200', {})]));
    const e = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
      body: { name: 's', method: 'GET', path: 's', flow_id: stopped },
    });
    assert.equal(e.status, 200);
    const enable = await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`);
    assert.equal(enable.status, 422);
    assert.equal(enable.body.message, 'Recipe must be running to enable the endpoint');
  });
});

describe('workato_recipe_function', () => {
  const fn = (block: StepDoc[]) =>
    numbered({
      keyword: 'trigger',
      provider: 'workato_recipe_function',
      name: 'execute',
      as: 'call',
      input: { parameters_schema_json: '[]', result_schema_json: '[]' },
      block,
    });
  const param = (name: string) => dp('workato_recipe_function', 'call', 'parameters', name);

  test('call_recipe waits for return_result; call_recipe_async only starts the job', async () => {
    const callee = await createRecipe(
      t,
      fn([
        action('workato_recipe_function', 'return_result', 'ret', {
          result: {
            doubled: `=${param('n')} * 2`,
            caller: `#{${dp('workato_recipe_function', 'call', 'context', 'calling_recipe_id')}}`,
          },
        }),
      ]),
      { name: 'Double it' },
    );
    await startRecipe(t, callee);
    const { path, id: caller } = await webhookRecipe(t, [
      action('workato_recipe_function', 'call_recipe', 'sync', {
        flow_id: { name: 'Double it', folder: 'Home', zip_name: 'x.recipe.json' },
        parameters: { n: `=${dp('workato_webhooks', 'hook', 'payload', 'n')}` },
      }),
      action('workato_recipe_function', 'call_recipe_async', 'async', {
        flow_id: String(callee),
        parameters: { n: 1 },
      }),
      log(
        'out',
        `#{${dp('workato_recipe_function', 'sync', 'result', 'doubled')}} from #{${dp('workato_recipe_function', 'sync', 'result', 'caller')}}`,
      ),
    ]);
    const res = await t.app.inject({ method: 'POST', url: path, payload: { n: 21 } });
    assert.equal(res.statusCode, 200);
    await t.engine.idle();
    const jobs = await t.ctx.db.selectFrom('jobs').selectAll().where('recipe_id', '=', caller).execute();
    const job = await readJob(t, jobs[0]?.id as number);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(3), { message: `42 from ${caller}` });
    assert.match(String((job.output(2) as { job_id: string }).job_id), /^j-/);
    const calleeJobs = await t.call('GET', `/api/recipes/${callee}/jobs`);
    assert.equal(calleeJobs.body.job_count, 2);
    assert.ok(
      calleeJobs.body.items.every(
        (j: { calling_recipe_id: number; root_recipe_id: number }) =>
          j.calling_recipe_id === caller && j.root_recipe_id === caller,
      ),
    );
  });

  test("a project imported twice: a call by name runs the function of the caller's own project", async () => {
    const copies: Array<{ caller: number; path: string; marker: string }> = [];
    for (const marker of ['first copy', 'second copy']) {
      const project = await t.call('POST', '/api/folders', { body: { name: `Orders ${marker}` } });
      const sub = await t.call('POST', '/api/folders', { body: { name: 'Functions', parent_id: project.body.id } });
      assert.equal(sub.status, 200, sub.text);
      const callee = await createRecipe(
        t,
        fn([action('workato_recipe_function', 'return_result', 'ret', { result: { from: marker } })]),
        { name: 'Which copy', folder_id: sub.body.id },
      );
      await startRecipe(t, callee);
      const { id: caller, path } = await webhookRecipe(
        t,
        [
          action('workato_recipe_function', 'call_recipe', 'sync', {
            flow_id: { name: 'Which copy', folder: 'Functions', zip_name: 'which_copy.recipe.json' },
            parameters: {},
          }),
          log('out', `#{${dp('workato_recipe_function', 'sync', 'result', 'from')}}`),
        ],
        { folder_id: project.body.id },
      );
      copies.push({ caller, path, marker });
    }
    for (const { caller, path, marker } of copies.reverse()) {
      const res = await t.app.inject({ method: 'POST', url: path, payload: {} });
      assert.equal(res.statusCode, 200);
      await t.engine.idle();
      const jobs = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', caller).execute();
      const job = await readJob(t, jobs[0]?.id as number);
      assert.equal(job.status, 'succeeded', job.error ?? '');
      assert.deepEqual(job.output(2), { message: marker });
    }
  });

  test('a callee that fails, is stopped, is too slow, or is not a function fails the calling step', async () => {
    const failing = await createRecipe(
      t,
      fn([{ keyword: 'stop', input: { stop_with_error: 'true', stop_reason: 'no stock' } }]),
      { name: 'Fails' },
    );
    await startRecipe(t, failing);
    const slow = await createRecipe(t, fn([action('clock', 'wait_for_interval', 'w', { interval: '0.8' })]), {
      name: 'Slow',
    });
    await startRecipe(t, slow);
    const stopped = await createRecipe(t, fn([]), { name: 'Stopped' });
    const cases: Array<[number, RegExp, string]> = [
      [failing, /failed: no stock/, 'Recipe function error'],
      [slow, /did not finish within 300 ms/, 'Timeout'],
      [stopped, /is not running/, 'Bad request'],
    ];
    for (const [target, message, type] of cases) {
      const { path } = await webhookRecipe(t, [
        action('workato_recipe_function', 'call_recipe', 'c', { flow_id: String(target), parameters: {} }),
      ]);
      await t.app.inject({ method: 'POST', url: path, payload: {} });
      await t.engine.idle(5000);
      const callerJob = await t.ctx.db
        .selectFrom('jobs')
        .select('id')
        .where('calling_recipe_id', 'is', null)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const job = await readJob(t, callerJob.id);
      assert.equal(job.status, 'failed');
      assert.equal(job.errorType, type);
      assert.match(job.error ?? '', message);
    }
    const notFunction = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'calls',
        input: {},
        block: [action('workato_recipe_function', 'call_recipe', 'c', { flow_id: String(failing + 1000) })],
      }),
    );
    const start = await t.call('PUT', `/api/recipes/${notFunction}/start`);
    assert.equal(start.body.success, false);
    assert.match(start.body.code_errors[0][1][0][2], /does not name a recipe/);
  });
});

describe('validate_request on a recipe-backed endpoint', () => {
  const schema = JSON.stringify([
    { name: 'guest_email', type: 'string', optional: false },
    { name: 'nights', type: 'integer', optional: true },
    { name: 'check_in', type: 'date', optional: true },
    { name: 'vip', type: 'boolean', optional: true },
    { name: 'room', type: 'object', optional: true, properties: [{ name: 'number', type: 'integer' }] },
  ]);

  async function validated(validate: boolean) {
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_api_platform',
        name: 'receive_request',
        as: 'req',
        input: { request: { content_type: 'json', schema } },
        block: [respond('200', { email: req('guest_email') })],
      }),
    );
    await startRecipe(t, id);
    const path = `booking${++counter}`;
    const e = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
      body: { name: path, method: 'POST', path, flow_id: id, validate_request: validate },
    });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.body.validate_request, validate);
    assert.equal((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`)).status, 200);
    return { id, url: decodeURIComponent(new URL(e.body.url).pathname) };
  }

  async function jobCount(recipeId: number): Promise<number> {
    const rows = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', recipeId).execute();
    return rows.length;
  }

  test('a call that matches the schema runs; one that does not answers 400 naming the fields, and stores no job', async () => {
    const { id, url } = await validated(true);
    assert.deepEqual(await gw('POST', url, { guest_email: 'ada@example.com', nights: '3', vip: true }), {
      status: 200,
      body: { email: 'ada@example.com' },
    });
    const bad = await gw('POST', url, { nights: 'three', check_in: 'tomorrow', vip: 'maybe', room: { number: 'x' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, {
      error: 'Bad request',
      errors: [
        'guest_email is required',
        'nights must be an integer (got "three")',
        'check_in must be an ISO 8601 date (got "tomorrow")',
        'vip must be true or false (got "maybe")',
        'room.number must be an integer (got "x")',
      ],
    });
    assert.equal(await jobCount(id), 1);
  });

  test('without validate_request the same call runs (the schema is not enforced)', async () => {
    const { id, url } = await validated(false);
    assert.equal((await gw('POST', url, { nights: 'three' })).status, 200);
    assert.equal(await jobCount(id), 1);
    const wrongType = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
      body: { name: 'x', method: 'POST', path: 'x-bad', flow_id: id, validate_request: 'yes' },
    });
    assert.equal(wrongType.status, 400);
  });
});
