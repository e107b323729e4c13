// Built-in connector actions, each through a real job: HTTP against a local server (with and
// without a connection), variables and lists, logger, JSON parser, wait.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, dp, fire, log, pill, webhookRecipe } from '../../../test/recipes.ts';

let t: TestApp;
let server: Server;
let base: string;
const received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

before(async () => {
  t = await createTestApp({ engine: { limits: { httpTimeoutMs: 300, httpMaxResponseBytes: 64 * 1024 } } });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/slow')) return void setTimeout(() => res.end('late'), 2500).unref();
      if (req.url?.startsWith('/big')) return void res.end('x'.repeat(100 * 1024));
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end('{"error":"no such order"}');
      }
      if (req.url?.startsWith('/text')) return void res.end('plain words');
      res.writeHead(201, { 'content-type': 'application/json', 'x-trace': 'abc' });
      res.end(JSON.stringify({ ok: true, echo: body === '' ? null : body, path: req.url }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (as: string, req: Record<string, unknown>, response: Record<string, unknown> = {}) =>
  action('rest', 'make_request_v2', as, { request: req, response });

describe('rest make_request_v2', () => {
  test('GET with query and headers; JSON answers are parsed; status and headers are outputs', async () => {
    const { path } = await webhookRecipe(t, [
      request('get', {
        method: 'GET',
        url: `${base}/orders`,
        query: { id: pill('workato_webhooks', 'hook', 'payload', 'id') },
        headers: [{ header: 'X-Api-Key', value: 'k1' }],
      }),
    ]);
    const job = await fire(t, path, { id: 'A 1' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const out = job.output(1) as { status_code: number; headers: Record<string, string>; body: { path: string } };
    assert.equal(out.status_code, 201);
    assert.equal(out.headers['x-trace'], 'abc');
    assert.equal(out.body.path, '/orders?id=A+1');
    assert.equal(received.at(-1)?.headers['x-api-key'], 'k1');
  });

  test('POST bodies: structured JSON, raw JSON text, form fields', async () => {
    const { path } = await webhookRecipe(t, [
      request('json', {
        method: 'POST',
        url: `${base}/a`,
        content_type: 'json',
        body: { sku: pill('workato_webhooks', 'hook', 'payload', 'sku'), qty: 2 },
      }),
      request('raw', {
        method: 'PUT',
        url: `${base}/b`,
        content_type: 'application/json',
        body: `=${dp('workato_webhooks', 'hook', 'payload')}.to_json`,
      }),
      request('form', {
        method: 'POST',
        url: `${base}/c`,
        content_type: 'application/x-www-form-urlencoded',
        body: { a: 'x y', b: '1' },
      }),
    ]);
    const job = await fire(t, path, { sku: 'S-1' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const [json, raw, form] = received.slice(-3);
    assert.deepEqual(JSON.parse(json?.body ?? ''), { sku: 'S-1', qty: 2 });
    assert.equal(json?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(raw?.body ?? ''), { sku: 'S-1' });
    assert.equal(form?.body, 'a=x+y&b=1');
    assert.equal(form?.headers['content-type'], 'application/x-www-form-urlencoded');
  });

  test('a rest connection gives the base URL and its credentials', async () => {
    const conn = await t.call('POST', '/api/connections', {
      body: {
        name: 'Orders API',
        provider: 'rest',
        input: { base_url: `${base}/api`, auth_type: 'bearer', token: 'T0KEN' },
      },
    });
    assert.equal(conn.status, 200, conn.text);
    const config = [
      { keyword: 'application', provider: 'workato_webhooks', name: 'workato_webhooks', account_id: null },
      { keyword: 'application', provider: 'rest', name: 'rest', account_id: conn.body.id },
    ];
    const { path } = await webhookRecipe(t, [request('call', { method: 'GET', url: '/orders/7' })], {
      config: JSON.stringify(config),
    });
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal(received.at(-1)?.url, '/api/orders/7');
    assert.equal(received.at(-1)?.headers.authorization, 'Bearer T0KEN');
    assert.ok(!JSON.stringify(job.lines).includes('T0KEN'), 'credentials never reach the job record');
  });

  test('a non-2xx answer fails the step with the status first, unless ignored', async () => {
    const failing = await webhookRecipe(t, [request('get', { method: 'GET', url: `${base}/missing` })]);
    const job = await fire(t, failing.path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Not found');
    assert.match(job.lines[1]?.error ?? '', /^404 Not found: {"error":"no such order"}/);
    const ignoring = await webhookRecipe(t, [
      request('get', { method: 'GET', url: `${base}/missing` }, { ignore_http_errors: 'true' }),
    ]);
    const ok = await fire(t, ignoring.path, {});
    assert.equal(ok.status, 'succeeded');
    assert.equal((ok.output(1) as { status_code: number }).status_code, 404);
  });

  test('raw text output, an address that does not answer, a slow server, an oversized answer', async () => {
    const text = await fire(
      t,
      (await webhookRecipe(t, [request('t', { url: `${base}/text` }, { output_type: 'rawdatatxt' })])).path,
      {},
    );
    assert.equal((text.output(1) as { body: string }).body, 'plain words');
    const closed = await fire(
      t,
      (await webhookRecipe(t, [request('x', { url: 'http://127.0.0.1:1/nothing' })])).path,
      {},
    );
    assert.equal(closed.errorType, 'Connection error');
    const slow = await fire(
      t,
      (await webhookRecipe(t, [request('s', { url: `${base}/slow`, method: 'POST' })])).path,
      {},
    );
    assert.equal(slow.errorType, 'Timeout');
    const big = await fire(t, (await webhookRecipe(t, [request('b', { url: `${base}/big` })])).path, {});
    assert.equal(big.errorType, 'Response too large');
    const bad = await fire(t, (await webhookRecipe(t, [request('u', { url: "='ftp://example.com'" })])).path, {});
    assert.match(bad.error ?? '', /http or https/);
  });
});

describe('workato_variable', () => {
  test('declare, update, and the five list actions', async () => {
    const vars = (name: string) => dp('workato_variable', 'vars', name);
    const list = () => dp('workato_variable', 'list', 'list_items');
    const { path } = await webhookRecipe(t, [
      action('workato_variable', 'declare_variable', 'vars', {
        variables: {
          schema: JSON.stringify([
            { name: 'count', type: 'integer' },
            { name: 'label', type: 'string' },
            { name: 'on', type: 'boolean' },
          ]),
          data: { count: '5', on: 'yes' },
        },
      }),
      action('workato_variable', 'update_variables', 'upd', {
        name: 'u1:vars:count\nu1:vars:label',
        count: `=${dp('workato_variable', 'vars', 'count')} + 1`,
        label: 'six',
      }),
      action('workato_variable', 'update_variable', 'upd1', { name: 'u1:vars:on', value: false }),
      action('workato_variable', 'declare_list', 'list', { name: 'items', list_items: [{ a: 1 }] }),
      action('workato_variable', 'insert_to_list', 'ins', { name: 'u2:list', location: 'end', list_item: { a: 2 } }),
      action('workato_variable', 'insert_to_list', 'ins0', { name: 'u2:list', location: 'start', list_item: { a: 0 } }),
      action('workato_variable', 'insert_to_list_batch', 'batch', {
        name: 'u2:list',
        list_items: pill('workato_webhooks', 'hook', 'payload', 'more'),
      }),
      log('snapshot', `#{${vars('count')}} #{${vars('label')}} #{${vars('on')}} #{${list()}.pluck('a').join(',')}`),
      action('workato_variable', 'clear_list', 'clear', { name: 'u2:list' }),
      log('after', `#{${list()}.size}`),
    ]);
    const job = await fire(t, path, { more: [{ a: 3 }, { a: 4 }] });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { count: 5, label: null, on: true });
    assert.deepEqual(job.output(8), { message: '6 six false 0,1,2,3,4' });
    assert.deepEqual(job.output(10), { message: '0' });
  });

  test('updating a variable that was never declared fails the step', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_variable', 'update_variables', 'upd', { name: 'x:nothere:v', v: '1' }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /were not declared/);
  });
});

describe('logger, json_parser and clock wait', () => {
  test('log_message records the message; parse_json_v2 parses into document; wait pauses', async () => {
    const { path } = await webhookRecipe(t, [
      action('json_parser', 'parse_json_v2', 'doc', { document: pill('workato_webhooks', 'hook', 'payload', 'raw') }),
      log('msg', `total=#{${dp('json_parser', 'doc', 'document', 'total')}}`),
      action('clock', 'wait_for_interval', 'pause', { interval: '0.02' }),
    ]);
    const job = await fire(t, path, { raw: '{"total": 42}' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { document: { total: 42 } });
    assert.deepEqual(job.output(2), { message: 'total=42' });
    const wait = job.lines.find((l) => l.n === 3);
    assert.ok(wait);
  });

  test('a message over the size limit and a document that is not JSON fail their steps', async () => {
    const tooLong = await fire(t, (await webhookRecipe(t, [log('big', "='x' * 20000")])).path, {});
    assert.match(tooLong.error ?? '', /longer than 10000/);
    const notJson = await fire(
      t,
      (await webhookRecipe(t, [action('json_parser', 'parse_json_v2', 'doc', { document: '[1,' })])).path,
      {},
    );
    assert.match(notJson.error ?? '', /not valid JSON/);
  });
});
