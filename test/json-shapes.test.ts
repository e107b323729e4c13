// Every JSON text a caller or an upstream controls is measured before it is parsed: its nesting,
// and how many objects and lists it holds (`{},` is 3 bytes of text and tens of bytes once parsed,
// so a few megabytes of it would take the server's heap past gigabytes). Past the bounds it is a
// clear 4xx or a clear step error, never a parse.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MAX_EVENT_CONTAINERS } from '../src/json-shape.ts';
import { WEBHOOK_ERRORS } from '../src/engine/webhook-errors.ts';
import { createTestApp, type TestApp } from './helpers.ts';
import { action, fire, log, webhookRecipe, webhookTrigger } from './recipes.ts';

/** A JSON list holding n objects and lists in all (itself included). */
const many = (n: number) => `[${'{},'.repeat(n - 2)}{}]`;

let t: TestApp;
let upstream: http.Server;
let base: string;
before(async () => {
  t = await createTestApp({ env: { BODY_LIMIT_BYTES: String(4 * 1024 * 1024) } });
  upstream = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/many' ? many(MAX_EVENT_CONTAINERS + 1) : many(1000));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(async () => {
  await t.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('JSON measured before it is parsed', () => {
  test('POST /api/recipes: a body of more than 1,000,000 objects and arrays is a 400 saying so', async () => {
    const code = JSON.stringify(webhookTrigger([]));
    const res = await t.call('POST', '/api/recipes', {
      raw: `{"recipe":{"name":"Padded","code":${JSON.stringify(code)},"pad":${many(1_000_001)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body, { message: 'The JSON body holds more than 1000000 objects and arrays' });
    const fine = await t.call('POST', '/api/recipes', {
      raw: `{"recipe":{"name":"Listed","code":${JSON.stringify(code)}},"pad":${many(1000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(fine.status, 200, fine.text);
  });

  test('a webhook payload of more objects and lists than an event may hold is a 400 saying so; no job', async () => {
    assert.equal(
      WEBHOOK_ERRORS.payload_too_complex.error,
      `Payload holds more than ${MAX_EVENT_CONTAINERS} objects and lists`,
    );
    const { id, path } = await webhookRecipe(t, [log('l', 'x')]);
    const res = await t.app.inject({
      method: 'POST',
      url: path,
      payload: many(MAX_EVENT_CONTAINERS + 1),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(JSON.parse(res.body), {
      error: `Payload holds more than ${MAX_EVENT_CONTAINERS} objects and lists`,
    });
    const ok = await t.app.inject({
      method: 'POST',
      url: path,
      payload: `{"list":${many(1000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(ok.statusCode, 200);
    await t.engine.idle();
    const jobs = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', id).execute();
    assert.equal(jobs.length, 1);
  });

  test("an HTTP step's JSON answer of too many objects fails the step with Response too large", async () => {
    const request = (as: string, url: string) =>
      action('rest', 'make_request_v2', as, { request: { method: 'GET', url }, response: {} });
    const big = await fire(t, (await webhookRecipe(t, [request('big', `${base}/many`)])).path, {});
    assert.equal(big.status, 'failed');
    assert.equal(big.errorType, 'Response too large');
    assert.match(
      big.error ?? '',
      new RegExp(
        `the JSON response holds ${MAX_EVENT_CONTAINERS + 1} objects and lists; at most ${MAX_EVENT_CONTAINERS} are read`,
      ),
    );
    const fine = await fire(t, (await webhookRecipe(t, [request('fine', `${base}/few`)])).path, {});
    assert.equal(fine.status, 'succeeded', fine.error ?? '');
    assert.equal(((fine.output(1) as { body: unknown[] }).body ?? []).length, 999);
  });

  test('parse_json and the JSON parser step refuse a document of too many objects, with the reason', async () => {
    const formula = await fire(
      t,
      (await webhookRecipe(t, [log('p', `=('[' + '{},' * ${MAX_EVENT_CONTAINERS} + '{}]').parse_json.size`)])).path,
      {},
    );
    assert.equal(formula.status, 'failed');
    assert.match(
      formula.error ?? '',
      new RegExp(`parse_json: the document holds more than ${MAX_EVENT_CONTAINERS} objects and lists`),
    );
    const step = await fire(
      t,
      (
        await webhookRecipe(t, [
          action('json_parser', 'parse_json_v2', 'doc', { document: `='[' + '{},' * ${MAX_EVENT_CONTAINERS} + '{}]'` }),
        ])
      ).path,
      {},
    );
    assert.equal(step.status, 'failed');
    assert.match(step.error ?? '', new RegExp(`document holds more than ${MAX_EVENT_CONTAINERS} objects and lists`));
  });
});
