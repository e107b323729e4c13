// API endpoints (contract 03 §3): listed, enabled and disabled here; created through
// POST /api/api_collections/:id/api_endpoints or an OpenAPI import (tested with api_collections).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let projectId: number;
let readOnly: string;
let connId: number;

before(async () => {
  t = await createTestApp();
  projectId = (await t.createProject('Order ops')).projectId;
  readOnly = await t.tokenFor('Read only');
  connId = (
    await t.call('POST', '/api/connections', {
      body: { name: 'Backend', provider: 'rest', input: { base_url: 'http://127.0.0.1:9/api', auth_type: 'none' } },
    })
  ).body.id;
  const proxy = await t.call('POST', '/api/api_collections', {
    body: { name: 'Proxy', project_id: projectId, proxy_connection_id: connId },
  });
  for (const path of ['orders', 'orders/{id}']) {
    assert.equal(
      (
        await t.call('POST', `/api/api_collections/${proxy.body.id}/api_endpoints`, {
          body: { name: path, method: 'GET', path },
        })
      ).status,
      200,
    );
  }
});
after(() => t.close());

const OPENAPI = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Inventory', version: '1.0' },
  paths: { '/items': { get: { summary: 'List items' } } },
});

describe('GET /api/api_endpoints and PUT /api/api_endpoints/:id/enable|disable', () => {
  test('lists all or one collection; unknown collection gives []', async () => {
    const all = await t.call('GET', '/api/api_endpoints');
    assert.ok(all.body.length >= 2);
    assert.deepEqual((await t.call('GET', '/api/api_endpoints?api_collection_id=999999')).body, []);
    assert.equal((await t.call('GET', '/api/api_endpoints?api_collection_id=abc')).status, 400);
    assert.equal((await t.call('GET', '/api/api_endpoints', { token: null })).status, 401);
  });

  test('enable and disable a proxy endpoint (idempotent); a recipe endpoint cannot be enabled without a running recipe', async () => {
    const c = await t.call('POST', '/api/api_collections', {
      body: { name: 'Toggle', project_id: projectId, proxy_connection_id: connId },
    });
    const e = await t.call('POST', `/api/api_collections/${c.body.id}/api_endpoints`, {
      body: { name: 'x', method: 'GET', path: 'x' },
    });
    for (let i = 0; i < 2; i++)
      assert.deepEqual((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`)).body, { success: true });
    assert.equal((await t.call('GET', `/api/api_endpoints?api_collection_id=${c.body.id}`)).body[0].active, true);
    assert.deepEqual(
      (
        await t.call('PUT', `/api/api_endpoints/${e.body.id}/disable`, {
          raw: '',
          headers: { 'content-type': 'application/json' },
        })
      ).body,
      { success: true },
    );
    assert.equal((await t.call('GET', `/api/api_endpoints?api_collection_id=${c.body.id}`)).body[0].active, false);

    const recipeApi = await t.call('POST', '/api/api_collections', {
      body: { name: 'Recipe-backed', project_id: projectId, openapi_spec: { content: OPENAPI, format: 'json' } },
    });
    const [first] = (await t.call('GET', `/api/api_endpoints?api_collection_id=${recipeApi.body.id}`)).body;
    const refused = await t.call('PUT', `/api/api_endpoints/${first.id}/enable`);
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body, { message: 'Recipe must be running to enable the endpoint' });

    assert.equal((await t.call('PUT', '/api/api_endpoints/999999/enable')).status, 404);
    assert.equal((await t.call('PUT', '/api/api_endpoints/abc/enable')).status, 400);
    assert.equal(
      (
        await t.call('PUT', `/api/api_endpoints/${e.body.id}/disable`, {
          raw: 'x',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
      415,
    );
    assert.equal((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`, { token: readOnly })).status, 403);
    assert.equal((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/api_endpoints?api_collection_id=${c.body.id}`)).body[0].active, false);
  });
});
