import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, createRecipe, dp, log, numbered, webhookRecipe, webhookTrigger } from '../../../test/recipes.ts';

let t: TestApp;
let readOnly: string;

before(async () => {
  t = await createTestApp();
  readOnly = await t.tokenFor('Read only');
});
after(() => t.close());

const simple = () => webhookTrigger([log('note', 'hello')]);

async function snapshot(id: number) {
  return (await t.call('GET', `/api/recipes/${id}`)).body;
}

describe('PUT /api/recipes/:id/start', () => {
  test('starts a valid recipe: running at once, its webhook answers', async () => {
    const id = await createRecipe(t, simple());
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.deepEqual(res.body, { success: true });
    const recipe = await snapshot(id);
    assert.equal(recipe.running, true);
    const hook = await t.app.inject({ method: 'POST', url: new URL(recipe.webhook_url).pathname, payload: {} });
    assert.equal(hook.statusCode, 200);
    assert.deepEqual(JSON.parse(hook.body), { status: 'ok' });
    const again = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(again.status, 400);
    assert.equal(again.body.message, "Can't change the recipe state: invalid state running");
  });

  test('code errors: unknown keyword, provider and action, a pill to a missing step, formula syntax, a blank required input', async () => {
    const code = numbered({
      keyword: 'trigger',
      provider: 'workato_webhooks',
      name: 'new_event',
      as: 'hook',
      input: {},
      block: [
        { keyword: 'loop_forever', input: {} },
        action('acme_erp', 'search_orders', 'erp', {}),
        action('logger', 'send_invoicez', 'bad_name', {}),
        log('pill', `#{${dp('rest', 'ghost', 'body')}}`),
        log('syntax', "='a' +"),
        action('logger', 'log_message', 'blank', {}),
        log('method', '=now.frobnicate'),
      ],
    });
    const id = await createRecipe(t, code);
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.deepEqual(res.body.config_errors, []);
    const byStep = new Map<number, unknown[][]>(res.body.code_errors);
    assert.deepEqual([...byStep.keys()], [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(byStep.get(1)?.[0]?.slice(0, 3), ['keyword', 'loop_forever', 'is invalid']);
    assert.equal(byStep.get(2)?.[0]?.[0], 'provider');
    assert.deepEqual(byStep.get(3)?.[0]?.slice(0, 2), ['name', 'send_invoicez']);
    assert.match(String(byStep.get(4)?.[0]?.[2]), /ghost/);
    assert.match(String(byStep.get(5)?.[0]?.[2]), /formula syntax error/);
    assert.equal(byStep.get(5)?.[0]?.[3], 'message');
    assert.deepEqual(byStep.get(6)?.[0], ['Message', null, "can't be blank", 'message']);
    assert.match(String(byStep.get(7)?.[0]?.[2]), /unknown formula method "frobnicate"/);
    assert.equal((await snapshot(id)).running, false);
  });

  test('grammar: else outside an if, an action with a block, a repeat without while_condition', async () => {
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'hook',
        input: {},
        block: [
          { keyword: 'else', input: {}, block: [] },
          { ...log('x', 'x'), block: [log('y', 'y')] },
          { keyword: 'repeat', as: 'r', block: [] },
        ],
      }),
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.body.success, false);
    const messages = res.body.code_errors.flatMap(([, details]: [number, unknown[][]]) => details.map((d) => d[2]));
    assert.ok(
      messages.some((m: string) => /not allowed inside a trigger block/.test(m)),
      messages.join('; '),
    );
    assert.ok(messages.some((m: string) => /cannot have a block/.test(m)));
    assert.ok(messages.some((m: string) => m === "can't be blank"));
  });

  test('an input nested past the engine limit of 64 levels is a code error, not a crash', async () => {
    const depth = 200;
    const code =
      '{"number":0,"keyword":"trigger","provider":"workato_webhooks","name":"new_event","as":"hook","block":[],"input":' +
      '{"a":'.repeat(depth) +
      '1' +
      '}'.repeat(depth) +
      '}';
    const created = await t.call('POST', '/api/recipes', {
      raw: JSON.stringify({ recipe: { code } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(created.status, 200);
    const res = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
    assert.equal(res.body.success, false);
    assert.equal(res.body.code_errors[0][1][0][2], 'input is nested too deeply');
    assert.equal((await t.call('GET', `/api/recipes/${created.body.id}`)).status, 200);
  });

  test('a formula chaining 10,000 operators or calls is a code error, not a crash; 400 terms start', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([log('sum', `=1${'+1'.repeat(10_000)}`), log('chain', `='a'${'.upcase'.repeat(5_000)}`)]),
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.deepEqual(
      res.body.code_errors.map(([step]: [number]) => step),
      [1, 2],
    );
    for (const [, details] of res.body.code_errors as Array<[number, unknown[][]]>)
      assert.match(String(details[0]?.[2]), /formula is nested too deeply/);
    assert.equal((await snapshot(id)).running, false);

    const fine = await createRecipe(t, webhookTrigger([log('sum', `=1${'+1'.repeat(399)}`)]));
    assert.equal((await t.call('PUT', `/api/recipes/${fine}/start`)).body.success, true);
  });

  test('blocks nested past the engine limit of 100 levels are a code error, not a crash', async () => {
    const depth = 120;
    // Written as text: JSON.stringify itself would overflow on the object.
    const open = '{"keyword":"if","input":{"type":"compound","operand":"and","conditions":[]},"block":[';
    const block = open.repeat(depth) + JSON.stringify(log('inner', 'deep')) + ']}'.repeat(depth);
    const code = `{"number":0,"keyword":"trigger","provider":"workato_webhooks","name":"new_event","as":"hook","input":{},"block":[${block}]}`;
    const created = await t.call('POST', '/api/recipes', {
      raw: JSON.stringify({ recipe: { code } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(created.status, 200);
    const res = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.deepEqual(res.body.code_errors[0][1][0], ['block', null, 'is nested too deeply']);
    assert.equal((await t.call('GET', `/api/recipes/${created.body.id}`)).status, 200);
  });

  test('a recipe with errors in a thousand steps: the first 100 steps are listed, the last says how many more', async () => {
    const steps = Array.from({ length: 999 }, () => ({ keyword: 'loop_forever', input: {} }));
    const id = await createRecipe(t, numbered({ ...webhookTrigger([]), block: steps }));
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.code_errors.length, 100);
    const [lastStep, lastDetails] = res.body.code_errors[99];
    assert.equal(lastStep, 100);
    assert.deepEqual(lastDetails.at(-1), ['code', null, 'and 899 more steps have errors']);
    assert.equal((await snapshot(id)).running, false);
  });

  test('config errors: a connection that does not exist, or a relative URL with no connection', async () => {
    const config = [{ keyword: 'application', provider: 'rest', name: 'rest', account_id: 424242 }];
    const id = await createRecipe(
      t,
      webhookTrigger([action('rest', 'make_request_v2', 'r', { request: { url: '/relative' } })]),
      { config: JSON.stringify(config) },
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.deepEqual(res.body.config_errors, [
      [1, [['account_id', 424242, 'unconnected', { key: 'recipe.validation.config_unconnected' }]]],
    ]);
    const bare = await createRecipe(
      t,
      webhookTrigger([action('rest', 'make_request_v2', 'r', { request: { url: '/relative' } })]),
    );
    assert.equal((await t.call('PUT', `/api/recipes/${bare}/start`)).body.config_errors[0][0], 1);
  });

  test('404; 401; 403', async () => {
    const id = await createRecipe(t, simple());
    assert.equal((await t.call('PUT', '/api/recipes/999999/start')).status, 404);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/start`, { token: null })).status, 401);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/start`, { token: readOnly })).status, 403);
    assert.equal((await snapshot(id)).running, false);
  });
});

describe('PUT /api/recipes/:id/stop', () => {
  test('stops: running false, stopped_at set; its webhook answers 404; queued jobs wait for the next start', async () => {
    const { id, path } = await webhookRecipe(t, [log('n', 'x')]);
    const res = await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.deepEqual(res.body, { success: true });
    const recipe = await snapshot(id);
    assert.equal(recipe.running, false);
    assert.match(recipe.stopped_at, /\+00:00$/);
    assert.equal(recipe.stop_cause, null);
    assert.equal((await t.app.inject({ method: 'POST', url: path, payload: {} })).statusCode, 404);
    const again = await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.equal(again.status, 400);
    assert.equal(again.body.message, "Can't change the recipe state: invalid state stopped");
  });

  test('404; 401; 403', async () => {
    const { id } = await webhookRecipe(t, [log('n', 'x')]);
    assert.equal((await t.call('PUT', '/api/recipes/999999/stop')).status, 404);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`, { token: null })).status, 401);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`, { token: readOnly })).status, 403);
    assert.equal((await snapshot(id)).running, true);
  });
});
