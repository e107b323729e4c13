// Conventions every endpoint shares (contract 00): error shapes, headers, routing, paging.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parsePage } from '../src/http/pagination.ts';
import { createTestApp, type TestApp } from './helpers.ts';
import { CONTRACT_EXTRAS, SPEC_OPERATIONS } from './route-catalog.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('routing', () => {
  test('unknown routes and wrong methods answer 404 in the error shape', async () => {
    for (const [method, url] of [
      ['GET', '/api/nope'],
      ['GET', '/api'],
      ['GET', '/oauth2/nope'],
      ['GET', '/docs/nope/x'],
      ['DELETE', '/api/users/me'],
      ['PATCH', '/api/developer_api_clients/1'],
    ] as const) {
      const res = await t.call(method, url);
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.deepEqual(res.body, { message: 'Not found' });
    }
    // Any other first segment is an API prefix of the gateway, which answers in its own shape.
    const gateway = await t.call('GET', '/nope/some/path');
    assert.equal(gateway.status, 404);
    assert.deepEqual(gateway.body, { error: 'Not found' });
  });

  test('every reply carries X-Request-Id = X-Correlation-Id; /api replies are not cached', async () => {
    const res = await t.call('GET', '/api/users/me');
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.equal(res.headers['x-correlation-id'], res.headers['x-request-id']);
    assert.equal(res.headers['cache-control'], 'no-cache, no-store');
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
    const traced = await t.call('GET', '/api/users/me', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(traced.headers['x-request-id'], 'trace-123');
    const hostile = await t.call('GET', '/api/users/me', { headers: { 'x-request-id': 'bad id\twith<script>' } });
    assert.notEqual(hostile.headers['x-request-id'], 'bad id\twith<script>');
  });

  test('JSON replies carry X-Content-Type-Options: nosniff: API answers, errors, the token endpoint, webhooks, health', async () => {
    const replies = [
      await t.call('GET', '/api/users/me'),
      await t.call('GET', '/api/users/me', { token: null }),
      await t.call('GET', '/api/recipes/999999'),
      await t.call('POST', '/api/folders', { raw: '{', headers: { 'content-type': 'application/json' } }),
      await t.call('POST', '/oauth2/token', { token: null, body: { grant_type: 'client_credentials' } }),
      await t.call('POST', '/webhooks/rest/nope/event', { token: null, body: {} }),
      await t.call('GET', '/health', { token: null }),
      await t.call('GET', '/api/openapi.json', { token: null }),
    ];
    for (const res of replies) {
      assert.match(String(res.headers['content-type']), /^application\/json/, res.text.slice(0, 100));
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${res.status} ${res.text.slice(0, 100)}`);
    }
  });

  test('errors from unauthenticated bad requests answer 401 before the body is looked at', async () => {
    const res = await t.call('POST', '/api/developer_api_clients', {
      token: null,
      raw: '{bad',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 401);
  });

  test('a Content-Type with parameters is accepted; a missing one with a body is refused', async () => {
    const ok = await t.call('POST', '/api/developer_api_client_roles/2/copy', {
      raw: JSON.stringify({ name: 'Charset role' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(ok.status, 200);
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/developer_api_client_roles/2/copy',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': '' },
      payload: 'name=x',
    });
    assert.equal(none.statusCode, 415);
    assert.deepEqual(JSON.parse(none.body), { message: 'Unsupported Content-Type: missing; send application/json' });
  });
});

describe('server errors', () => {
  test('an unexpected failure answers a generic 500 with a correlation id and no stack trace', async () => {
    const app = await createTestApp();
    // Closing the database makes the next authenticated call fail inside the store.
    await app.ctx.db.destroy();
    const res = await app.app.inject({
      method: 'GET',
      url: '/api/users/me',
      headers: { authorization: `Bearer ${app.adminToken}` },
    });
    assert.equal(res.statusCode, 500);
    const body = JSON.parse(res.body);
    assert.deepEqual(Object.keys(body).sort(), ['id', 'message']);
    assert.equal(body.message, 'Server error');
    assert.equal(body.id, res.headers['x-request-id']);
    assert.ok(!res.body.includes('    at '), 'no stack trace');
    await app.app.close();
  });
});

describe('hostile input every endpoint shares', () => {
  test('GET /api/workflow_tasks?__proto__=1 (or constructor, toString): 400 naming the parameter', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await t.call('GET', `/api/workflow_tasks?${name}=1`);
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.equal(res.body.message, `Validation failed: query parameter ${name} is not a permitted field`);
      assert.deepEqual(Object.keys(res.body.errors), [name]);
      assert.deepEqual(res.body.errors[name], ['is not a permitted field']);
    }
  });

  test('no GET of the API answers 500 to query parameters named like Object.prototype members', async () => {
    const gets = [...SPEC_OPERATIONS, ...CONTRACT_EXTRAS]
      .filter((r) => r.startsWith('GET /api/'))
      .map((r) => r.slice(4).replace(/:[A-Za-z_]+/g, '1'));
    assert.ok(gets.length > 30);
    for (const path of gets) {
      const res = await t.call('GET', `${path}?__proto__=1&constructor=1&toString=x&__proto__[a]=1`);
      assert.ok(res.status < 500, `GET ${path}: ${res.status} ${res.text.slice(0, 200)}`);
      if (res.status >= 400) assert.equal(typeof res.body?.message, 'string', `GET ${path}: the error shape`);
    }
  });

  test('a JSON body nested 5,000 levels deep is a 400 saying why, before anything walks it', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    for (const [method, url] of [
      ['POST', '/api/folders'],
      ['POST', '/api/lookup_tables'],
      ['POST', '/api/recipes/1/test_cases'],
    ] as const) {
      const res = await t.call(method, url, {
        raw: `{"name":"x","trigger_output":${deep}}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400, `${method} ${url}: ${res.text}`);
      assert.deepEqual(res.body, { message: 'The JSON body nests objects and arrays more than 128 levels deep' });
    }
    // At the limit the body is read, and answered as usual.
    const atLimit = '['.repeat(127) + ']'.repeat(127);
    const res = await t.call('POST', '/api/folders', {
      raw: `{"name":${atLimit}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /^Validation failed: name/);
  });
});

describe('parsePage', () => {
  test('defaults, clamping and leniency (contract 00 §7)', () => {
    assert.deepEqual(parsePage({}), { page: 1, perPage: 100, offset: 0 });
    assert.deepEqual(parsePage({ page: '3', per_page: '20' }), { page: 3, perPage: 20, offset: 40 });
    assert.deepEqual(parsePage({ page: 0, per_page: 500 }), { page: 1, perPage: 100, offset: 0 });
    assert.deepEqual(parsePage({ page: '-2', per_page: 'ten' }), { page: 1, perPage: 100, offset: 0 });
    assert.deepEqual(parsePage({ per_page: 500 }, { max: 500 }), { page: 1, perPage: 500, offset: 0 });
    assert.deepEqual(parsePage({ page: '1e3' }), { page: 1, perPage: 100, offset: 0 });
  });
});
