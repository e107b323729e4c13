// PUBLIC_AUTH_URL and PUBLIC_GATEWAY_URL with hosts of their own are routed by Host header.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://admin.example.com', PUBLIC_AUTH_URL: 'https://auth.example.com', PUBLIC_GATEWAY_URL: 'https://api.example.com' } });
});
after(() => t.close());

const on = (host: string, method: 'GET' | 'POST', url: string) => t.app.inject({ method, url, headers: { host, authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: method === 'POST' ? 'grant_type=client_credentials' : undefined });

test('the gateway host serves published APIs and the token endpoint, not the management API', async () => {
  assert.equal((await on('api.example.com', 'GET', '/api/users/me')).statusCode, 404);
  assert.equal((await on('api.example.com', 'GET', '/docs')).statusCode, 404);
  assert.equal((await on('api.example.com', 'POST', '/oauth2/token')).statusCode, 400, 'reaches the token endpoint (no credentials)');
  const gateway = await on('api.example.com', 'GET', '/w1-dev/orders-v1/x');
  assert.deepEqual(JSON.parse(gateway.body), { error: 'Not found' });
  assert.equal((await on('api.example.com', 'GET', '/health')).statusCode, 200);
});

test('the auth host serves only the token endpoint', async () => {
  assert.equal((await on('auth.example.com', 'POST', '/oauth2/token')).statusCode, 400);
  assert.equal((await on('auth.example.com', 'GET', '/api/users/me')).statusCode, 404);
  assert.equal((await on('auth.example.com', 'GET', '/w1-dev/orders-v1/x')).statusCode, 404);
});

test('the base host serves everything; collection URLs advertise the gateway host', async () => {
  assert.equal((await on('admin.example.com', 'GET', '/api/users/me')).statusCode, 200);
  const collection = await t.call('POST', '/api/api_collections', { headers: { host: 'admin.example.com' }, body: { name: 'Orders' } });
  assert.match(collection.body.url, /^https:\/\/api\.example\.com\/w\d+-dev\/orders-v1$/);
  assert.match(collection.body.api_spec_url, /^https:\/\/admin\.example\.com\/doc\/service\//);
});
