// PUBLIC_AUTH_URL, PUBLIC_GATEWAY_URL and PUBLIC_EVENT_STREAMS_URL with hosts of their own are routed by Host header.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({
    env: {
      PUBLIC_BASE_URL: 'https://admin.example.com',
      PUBLIC_AUTH_URL: 'https://auth.example.com',
      PUBLIC_GATEWAY_URL: 'https://api.example.com',
    },
  });
});
after(() => t.close());

const on = (host: string, method: 'GET' | 'POST', url: string) =>
  t.app.inject({
    method,
    url,
    headers: { host, authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: method === 'POST' ? 'grant_type=client_credentials' : undefined,
  });

test('the gateway host serves published APIs and the token endpoint, not the management API', async () => {
  assert.equal((await on('api.example.com', 'GET', '/api/users/me')).statusCode, 404);
  assert.equal((await on('api.example.com', 'GET', '/docs')).statusCode, 404);
  assert.equal(
    (await on('api.example.com', 'POST', '/oauth2/token')).statusCode,
    400,
    'reaches the token endpoint (no credentials)',
  );
  const gateway = await on('api.example.com', 'GET', '/w1-dev/orders-v1/x');
  assert.deepEqual(JSON.parse(gateway.body), { error: 'Not found' });
  assert.equal((await on('api.example.com', 'GET', '/health')).statusCode, 200);
  const anonymous = await t.app.inject({ method: 'GET', url: '/api/users/me', headers: { host: 'api.example.com' } });
  assert.deepEqual(
    [anonymous.statusCode, JSON.parse(anonymous.body)],
    [404, { error: 'Not found' }],
    'a 404 before any 401',
  );
});

test('the auth host serves only the token endpoint', async () => {
  assert.equal((await on('auth.example.com', 'POST', '/oauth2/token')).statusCode, 400);
  assert.equal((await on('auth.example.com', 'GET', '/api/users/me')).statusCode, 404);
  assert.equal((await on('auth.example.com', 'GET', '/w1-dev/orders-v1/x')).statusCode, 404);
});

test('the base host serves everything; collection URLs advertise the gateway host', async () => {
  assert.equal((await on('admin.example.com', 'GET', '/api/users/me')).statusCode, 200);
  const collection = await t.call('POST', '/api/api_collections', {
    headers: { host: 'admin.example.com' },
    body: { name: 'Orders' },
  });
  assert.match(collection.body.url, /^https:\/\/api\.example\.com\/w\d+-dev\/orders-v1$/);
  assert.match(collection.body.api_spec_url, /^https:\/\/admin\.example\.com\/doc\/service\//);
});

describe('PUBLIC_EVENT_STREAMS_URL with a host of its own', () => {
  let e: TestApp;
  before(async () => {
    e = await createTestApp({
      env: { PUBLIC_BASE_URL: 'https://admin.example.com', PUBLIC_EVENT_STREAMS_URL: 'https://events.example.com' },
    });
  });
  after(() => e.close());

  const onEvents = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    e.call(method, url, { headers: { host: 'events.example.com' }, ...(body !== undefined ? { body } : {}) });

  test('serves the three operations and the legacy paths, nothing else', async () => {
    const topic = (
      await e.call('POST', '/api/event_streams/topics', {
        headers: { host: 'admin.example.com' },
        body: { name: 'Orders' },
      })
    ).body.data.id;
    const published = await onEvents('POST', `/api/v1/topics/${topic}/publish`, { n: 1 });
    assert.equal(published.status, 200, published.text);
    assert.equal(
      (await onEvents('POST', `/api/v1/batch/topics/${topic}/publish`, { payloads: [{ n: 2 }] })).status,
      200,
    );
    assert.equal((await onEvents('POST', `/api/pubsub/topics/${topic}/publish`, { n: 3 })).status, 200);
    assert.equal((await onEvents('POST', `/api/v1/topics/${topic}/consume`, {})).body.messages.length, 3);
    assert.equal((await onEvents('POST', `/api/pubsub/topics/${topic}/consume`, {})).body.messages.length, 3);
    for (const [method, url] of [
      ['GET', '/api/users/me'],
      ['GET', '/api/event_streams/topics'],
      ['GET', '/docs'],
      ['GET', '/w1-dev/orders-v1/x'],
    ] as const) {
      const res = await onEvents(method, url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body, { message: 'Not found' });
    }
    assert.equal((await onEvents('POST', '/oauth2/token', {})).status, 404);
    // Without a token too: what is not served on this host is a 404, never a 401 that tells it exists.
    const anonymous = await e.call('GET', '/api/users/me', { token: null, headers: { host: 'events.example.com' } });
    assert.deepEqual([anonymous.status, anonymous.body], [404, { message: 'Not found' }]);
    assert.equal((await onEvents('GET', '/health')).status, 200);
  });

  test('the base host keeps serving everything, the event streams paths included', async () => {
    assert.equal((await e.call('GET', '/api/users/me', { headers: { host: 'admin.example.com' } })).status, 200);
    const topic = (await e.call('GET', '/api/event_streams/topics', { headers: { host: 'admin.example.com' } })).body
      .data[0].id;
    assert.equal(
      (await e.call('POST', `/api/v1/topics/${topic}/consume`, { headers: { host: 'admin.example.com' }, body: {} }))
        .status,
      200,
    );
  });
});
