// Forms older exports carry, run through real jobs: job and recipe metadata pills without `data.`,
// the HTTP actions named by their method, the `webhook_input` trigger, elsif/else/catch placed after
// their if/try, datapills naming the other spelling of a step's provider; and the older callable
// recipes (workato_service) with wait_for_async_jobs.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import {
  action,
  condition,
  createRecipe,
  fire,
  log,
  numbered,
  pill,
  readJob,
  startRecipe,
  webhookRecipe,
  webhookTrigger,
  type StepDoc,
} from '../../test/recipes.ts';

let t: TestApp;
const seen: Array<{ method: string; url: string; body: string; type: string }> = [];
const upstream = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', body, type: String(req.headers['content-type'] ?? '') });
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/missing')) {
      res.statusCode = 404;
      res.end('{"error":"no such order"}');
      return;
    }
    let echo: unknown = body === '' ? null : body;
    try {
      echo = JSON.parse(body);
    } catch {
      // a form or text body is echoed as text
    }
    res.end(JSON.stringify({ id: 'A-7', status: 'created', echo }));
  });
});
let base = '';

before(async () => {
  t = await createTestApp({ engine: { limits: { callTimeoutMs: 5000 } } });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(async () => {
  await t.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/** Post to a recipe's webhook and read that recipe's latest job (the jobs it called are newer). */
async function fireRecipe(recipeId: number, path: string, payload: unknown) {
  const res = await t.app.inject({ method: 'POST', url: path, payload: payload as Record<string, unknown> });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const job = await t.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('recipe_id', '=', recipeId)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return readJob(t, job.id);
}

async function startErrors(code: StepDoc): Promise<string> {
  const id = await createRecipe(t, code);
  const res = await t.call('PUT', `/api/recipes/${id}/start`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.success, false, res.text);
  return JSON.stringify(res.body.code_errors);
}

describe('job and recipe metadata pills without data.', () => {
  test("_('job.started_at'), _('job.id'), _('recipe.name'), _('user.id') read the running job", async () => {
    const { id, path } = await webhookRecipe(t, [
      log('meta', "#{_('job.id')}|#{_('job.started_at')}|#{_('recipe.name')}|#{_('recipe.id')}|#{_('user.id')}"),
      log('formula', "=_('job.started_at').to_s.length > 10"),
    ]);
    const job = await fire(t, path, { a: 1 });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const row = await t.ctx.db
      .selectFrom('jobs')
      .select(['handle', 'started_at'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    const [handle, startedAt, name, recipeId, userId] = (job.output(1) as { message: string }).message.split('|');
    assert.equal(handle, row.handle);
    assert.equal(startedAt, row.started_at);
    assert.equal(name, recipe.body.name);
    assert.equal(recipeId, String(id));
    assert.match(userId ?? '', /^\d+$/);
    assert.deepEqual(job.output(2), { message: 'true' });
  });

  test('an unknown metadata pill and a connection pill are code errors at start', async () => {
    assert.match(await startErrors(webhookTrigger([log('m', "#{_('job.nope')}")])), /not a job datapill/);
    assert.match(
      await startErrors(webhookTrigger([log('m', "#{_('connections.crm.token')}")])),
      /connection credentials cannot be read by datapills/,
    );
  });
});

describe('HTTP actions named by their method (http post, get, ...)', () => {
  test('post sends the payload as JSON; the answer is the output, its fields also at the top', async () => {
    const { path } = await webhookRecipe(t, [
      action('http', 'post', 'create', {
        url: `${base}/orders`,
        payload: { sku: pill('workato_webhooks', 'hook', 'payload', 'sku'), qty: 2 },
      }),
      log('id', `#{${'_dp(\'{"pill_type":"output","provider":"http","line":"create","path":["id"]}\')'}}`),
    ]);
    const job = await fire(t, path, { sku: 'X-1' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const last = seen.at(-1);
    assert.equal(last?.method, 'POST');
    assert.equal(last?.url, '/orders');
    assert.deepEqual(JSON.parse(last?.body ?? ''), { sku: 'X-1', qty: 2 });
    const out = job.output(1) as Record<string, unknown>;
    assert.equal(out.status_code, 200);
    assert.equal(out.id, 'A-7');
    assert.deepEqual((out.body as Record<string, unknown>).echo, { sku: 'X-1', qty: 2 });
    assert.deepEqual(job.output(2), { message: 'A-7' });
  });

  test('get sends its query; a legacy rest step reads the same; a non-2xx answer fails the step', async () => {
    const { path } = await webhookRecipe(t, [
      action('http', 'get', 'read', { url: `${base}/orders/A-7`, query: { expand: 'lines' } }),
      action('rest', 'delete', 'gone', { request: { url: `${base}/missing/1` } }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(seen.at(-2)?.method, 'GET');
    assert.equal(seen.at(-2)?.url, '/orders/A-7?expand=lines');
    assert.equal(seen.at(-1)?.method, 'DELETE');
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Not found');
    assert.equal(job.error, 'Not found: 404 Not found: {"error":"no such order"}');
  });

  test('a request without a url is the step error; a put with a form body', async () => {
    const { path } = await webhookRecipe(t, [
      action('http', 'put', 'form', { url: `${base}/forms`, payload: { a: 'b c' }, request_format: 'form' }),
      action('http', 'patch', 'nourl', { payload: { a: 1 } }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(seen.at(-1)?.body, 'a=b+c');
    assert.equal(seen.at(-1)?.type, 'application/x-www-form-urlencoded');
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'Bad request: the request needs a url');
    assert.equal(job.errorType, 'Bad request');
  });
});

describe('workato_webhooks/webhook_input', () => {
  test('the payload fields are pills at the top of the trigger, as well as under payload', async () => {
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'webhook_input',
        as: 'hook',
        input: { webhook_suffix: 'legacy' },
        block: [
          log(
            'flat',
            `#{${"_('data.workato_webhooks.hook.order_id')"}}/#{${"_('data.workato_webhooks.hook.payload.total')"}}`,
          ),
        ],
      }),
    );
    await startRecipe(t, id);
    const hook = new URL((await t.call('GET', `/api/recipes/${id}`)).body.webhook_url as string).pathname;
    assert.match(hook, /\/legacy$/);
    const job = await fire(t, hook, { order_id: 'O-9', total: 12 });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { message: 'O-9/12' });
    const trigger = job.output(0) as Record<string, unknown>;
    assert.equal(trigger.order_id, 'O-9');
    assert.deepEqual(trigger.payload, { order_id: 'O-9', total: 12 });
  });
});

describe('structure the vendor accepts', () => {
  const isRed = condition('equals_to', pill('workato_webhooks', 'hook', 'payload', 'color'), 'red');
  const isBlue = condition('equals_to', pill('workato_webhooks', 'hook', 'payload', 'color'), 'blue');

  test('elsif and else placed after their if (siblings) are its branches', async () => {
    const { path } = await webhookRecipe(t, [
      { keyword: 'if', input: isRed, block: [log('red', 'red')] },
      { keyword: 'elsif', input: isBlue, block: [log('blue', 'blue')] },
      { keyword: 'else', input: isRed, block: [log('other', 'other')] },
      log('after', 'after'),
    ]);
    const blue = await fire(t, path, { color: 'blue' });
    assert.deepEqual(
      blue.lines.filter((l) => l.adapter === 'logger').map((l) => (l.output as { message: string }).message),
      ['blue', 'after'],
    );
    const green = await fire(t, path, { color: 'green' });
    assert.deepEqual(
      green.lines.filter((l) => l.adapter === 'logger').map((l) => (l.output as { message: string }).message),
      ['other', 'after'],
    );
  });

  test('a catch placed after its try catches its errors, with its pills', async () => {
    const { path } = await webhookRecipe(t, [
      { keyword: 'try', block: [action('json_parser', 'parse_json_v2', 'bad', { document: '{no' })] },
      {
        keyword: 'catch',
        provider: 'catch',
        as: 'oops',
        input: { max_retry_count: '0' },
        block: [
          log('caught', `#{${'_dp(\'{"pill_type":"output","provider":"catch","line":"oops","path":["message"]}\')'}}`),
        ],
      },
      log('after', 'after'),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.match((job.output(4) as { message: string }).message, /JSON/);
    assert.deepEqual(job.output(5), { message: 'after' });
  });

  test('an else keeps no condition of its own; a datapill naming http for a rest step reads it', async () => {
    const { path } = await webhookRecipe(t, [
      action('rest', 'make_request_v2', 'req', { request: { method: 'GET', url: `${base}/orders/1` } }),
      {
        keyword: 'if',
        input: isRed,
        block: [
          log('red', 'red'),
          {
            keyword: 'else',
            input: { broken: '#{_dp(\'{"pill_type":"output","provider":"x","line":"nope"}\')}' },
            block: [],
          },
        ],
      },
      log('id', `#{${'_dp(\'{"pill_type":"output","provider":"http","line":"req","path":["body","id"]}\')'}}`),
    ]);
    const job = await fire(t, path, { color: 'green' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(5), { message: 'A-7' });
  });

  test('what the vendor refuses stays refused: an else after the else, a pill naming another connector', async () => {
    const twoElses = webhookTrigger([
      { keyword: 'if', input: isRed, block: [log('a', 'a'), { keyword: 'else', block: [] }] },
      { keyword: 'else', block: [log('b', 'b')] },
    ]);
    assert.match(await startErrors(twoElses), /is not allowed inside a trigger block/);
    const mismatch = webhookTrigger([
      log('one', 'x'),
      log('two', `#{${'_dp(\'{"pill_type":"output","provider":"rest","line":"one","path":["message"]}\')'}}`),
    ]);
    assert.match(await startErrors(mismatch), /names provider \\"rest\\" but step \\"one\\" is logger/);
    const stray = webhookTrigger([log('a', 'a'), { keyword: 'catch', as: 'c', block: [] }]);
    assert.match(await startErrors(stray), /catch.*is not allowed inside a trigger block/);
  });
});

function callableRecipe(block: StepDoc[]): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'workato_service',
    name: 'receive_request',
    as: 'call',
    input: {},
    block,
  });
}
const request = (field: string) => pill('workato_service', 'call', 'request', field);

describe('workato_service (callable recipes)', () => {
  let callee = 0;
  let failing = 0;
  before(async () => {
    callee = await createRecipe(
      t,
      callableRecipe([
        action('workato_service', 'send_reply', 'reply', {
          response_type: 'success',
          response: {
            doubled: `=${'_dp(\'{"pill_type":"output","provider":"workato_service","line":"call","path":["request","n"]}\')'} * 2`,
            who: request('who'),
          },
        }),
      ]),
    );
    await startRecipe(t, callee);
    failing = await createRecipe(
      t,
      callableRecipe([
        action('workato_service', 'send_reply', 'reply', {
          response_type: 'error',
          error_message: `no ${request('who')}`,
        }),
      ]),
    );
    await startRecipe(t, failing);
  });

  test('call_service waits for the reply: output reply, job_id, job_url; the callee sees request and context', async () => {
    const { id, path } = await webhookRecipe(t, [
      action('workato_service', 'call_service', 'ask', { flow_id: String(callee), request: { n: 21, who: 'ada' } }),
    ]);
    const job = await fireRecipe(id, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const out = job.output(1) as { reply: unknown; job_id: string; job_url: string };
    assert.deepEqual(out.reply, { doubled: 42, who: 'ada' });
    assert.match(out.job_url, new RegExp(`/api/recipes/${callee}/jobs/${out.job_id}$`));
    const calleeJob = await t.ctx.db
      .selectFrom('jobs')
      .select('id')
      .where('handle', '=', out.job_id)
      .executeTakeFirstOrThrow();
    const ran = await readJob(t, calleeJob.id);
    const trigger = ran.output(0) as { request: unknown; context: { calling_recipe_id: number } };
    assert.deepEqual(trigger.request, { n: 21, who: 'ada' });
    assert.equal(trigger.context.calling_recipe_id, id);
  });

  test('an error reply fails the calling step; recipe_function call_recipe reaches a callable recipe too', async () => {
    const { id, path } = await webhookRecipe(t, [
      action('workato_recipe_function', 'call_recipe', 'fn', {
        flow_id: String(callee),
        parameters: { n: 1, who: 'x' },
      }),
      action('workato_service', 'call_service', 'ask', { flow_id: String(failing), request: { who: 'bob' } }),
    ]);
    const job = await fireRecipe(id, path, {});
    assert.deepEqual((job.output(1) as { result: unknown }).result, { doubled: 2, who: 'x' });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Recipe function error');
    assert.match(job.error ?? '', /failed: Recipe error: no bob$/);
  });

  test('call_service_async starts jobs; wait_for_async_jobs waits for all of them and reports each', async () => {
    const { id, path } = await webhookRecipe(t, [
      action('workato_service', 'call_service_async', 'a1', { flow_id: String(callee), request: { n: 1 } }),
      action('workato_recipe_function', 'call_recipe_async', 'a2', { flow_id: String(callee), parameters: { n: 2 } }),
      action('workato_service', 'call_service_async', 'a3', { flow_id: String(failing), request: { who: 'z' } }),
      action('workato_service', 'wait_for_async_jobs', 'wait', { timeout: '30' }),
    ]);
    const job = await fireRecipe(id, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const waited = job.output(4) as {
      jobs: Array<{ job_id: string; status: string; error: string | null }>;
      succeeded_count: number;
      failed_count: number;
    };
    const started = [1, 2, 3].map((n) => (job.output(n) as { job_id: string }).job_id);
    assert.deepEqual(
      waited.jobs.map((j) => j.job_id),
      started,
    );
    assert.deepEqual(
      waited.jobs.map((j) => j.status),
      ['succeeded', 'succeeded', 'failed'],
    );
    assert.equal(waited.succeeded_count, 2);
    assert.equal(waited.failed_count, 1);
    assert.equal(waited.jobs[2]?.error, 'Recipe error: no z');
  });

  test('a call still running at the timeout fails the step; a bad timeout is the step error', async () => {
    const slow = await createRecipe(
      t,
      callableRecipe([action('clock', 'wait_for_interval', 'nap', { interval: '2' })]),
    );
    await startRecipe(t, slow);
    const { id, path } = await webhookRecipe(t, [
      action('workato_service', 'call_service_async', 'a1', { flow_id: String(slow), request: {} }),
      {
        keyword: 'try',
        block: [
          action('workato_recipe_function', 'wait_for_async_jobs', 'wait', { timeout: '0.2' }),
          {
            keyword: 'catch',
            as: 'late',
            block: [action('workato_service', 'wait_for_async_jobs', 'bad', { timeout: 'soon' })],
          },
        ],
      },
    ]);
    const job = await fireRecipe(id, path, {});
    assert.equal((job.lines.find((l) => l.n === 3)?.error ?? '').includes('has not ended within 0.2 s'), true);
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Bad request');
    assert.match(job.error ?? '', /timeout must be a number of seconds/);
    await t.engine.idle();
  });

  test('a callable recipe named by flow_id that is not callable is a code error at start', async () => {
    const plain = await createRecipe(t, webhookTrigger([log('x', 'x')]));
    const code = webhookTrigger([action('workato_service', 'call_service', 'c', { flow_id: String(plain) })]);
    assert.match(await startErrors(code), /is not a recipe function/);
  });
});
