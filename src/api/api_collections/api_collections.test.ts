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
});
after(() => t.close());

async function collectionCount(): Promise<number> {
  return (await t.call('GET', '/api/api_collections')).body.length;
}

const OPENAPI = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Inventory', version: '1.0' },
  paths: {
    '/items': { get: { summary: 'List items' }, post: { operationId: 'createItem' } },
    '/items/{id}': { get: {}, head: {}, delete: { summary: 'Delete item' } },
    '/bad path': { get: { summary: 'Bad' } },
  },
});

describe('POST /api/api_collections', () => {
  test('creates an empty collection in a project, with its gateway URL and spec URL', async () => {
    const res = await t.call('POST', '/api/api_collections', {
      body: { name: 'Order status', project_id: String(projectId), proxy_connection_id: connId },
    });
    assert.equal(res.status, 200);
    const c = res.body;
    assert.equal(c.name, 'Order status');
    assert.equal(c.version, '1.0');
    assert.equal(c.project_id, projectId, 'a string project_id comes back as an integer');
    assert.match(c.url, /^http:\/\/127\.0\.0\.1:3000\/w\d+-dev\/order-status-v1$/);
    assert.match(c.api_spec_url, /\/doc\/service\/order-status-v1\/swagger\?token=[0-9a-f]{32}$/);
    assert.equal(c.message, undefined);
    assert.equal(c.import_results, undefined);
  });

  test('imports endpoints from an OpenAPI document and reports the operations it could not take', async () => {
    const res = await t.call('POST', '/api/api_collections', {
      body: {
        name: 'Inventory',
        version: '2.1',
        project_id: projectId,
        proxy_connection_id: connId,
        openapi_spec: { content: OPENAPI, format: 'json' },
      },
    });
    assert.equal(res.status, 200);
    assert.match(res.body.url, /\/inventory-v2$/);
    assert.deepEqual(res.body.import_results, {
      success: true,
      total_endpoints: 6,
      failed_endpoints: 2,
      failed_actions: ['HEAD /items/{id}: unsupported method', 'GET /bad path: unsupported path'],
    });
    const endpoints = await t.call('GET', `/api/api_endpoints?api_collection_id=${res.body.id}`);
    assert.deepEqual(
      endpoints.body.map((e: { method: string; path: string; name: string }) => `${e.method} ${e.path} ${e.name}`),
      [
        'GET items List items',
        'POST items createItem',
        'GET items/{id} GET /items/{id}',
        'DELETE items/{id} Delete item',
      ],
    );
    assert.ok(
      endpoints.body.every((e: { active: boolean }) => e.active === false),
      'imported endpoints start inactive',
    );
  });

  test('YAML documents are read too; a bad document is a 400 and creates nothing', async () => {
    const yaml = 'openapi: 3.1.0\ninfo: {title: T, version: "1"}\npaths:\n  /ping:\n    get:\n      summary: Ping\n';
    const ok = await t.call('POST', '/api/api_collections', {
      body: { name: 'Yaml API', project_id: projectId, openapi_spec: { content: yaml, format: 'yaml' } },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.import_results.total_endpoints, 1);
    const before = await collectionCount();
    for (const spec of [
      { content: '{not json', format: 'json' },
      { content: '{"swagger":"1.2","paths":{}}', format: 'json' },
      { content: ': : :', format: 'yaml' },
      { content: '{"openapi":"3.0.0"}', format: 'json' },
    ]) {
      const res = await t.call('POST', '/api/api_collections', {
        body: { name: `Bad ${Math.random()}`, project_id: projectId, openapi_spec: spec },
      });
      assert.equal(res.status, 400, JSON.stringify(spec));
      assert.equal(res.body.message, 'Invalid OpenAPI specification');
      assert.ok(res.body.errors.openapi_spec);
    }
    assert.equal(await collectionCount(), before);
  });

  test('a duplicate name in the project is 422; the same name with another version in another project is fine', async () => {
    const before = await collectionCount();
    const dup = await t.call('POST', '/api/api_collections', { body: { name: 'Order status', project_id: projectId } });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.body.errors, { name: ['has already been taken'] });
    assert.equal(await collectionCount(), before);
    const other = await t.createProject('Elsewhere');
    const again = await t.call('POST', '/api/api_collections', {
      body: { name: 'Order status', project_id: other.projectId },
    });
    assert.equal(again.status, 200);
    assert.match(again.body.url, /order-status-v1-2$/, 'slugs stay unique in the environment');
  });

  test('bad input: 400 naming the field, nothing created', async () => {
    const before = await collectionCount();
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: 7 }, 'name'],
      [{ name: 'x', project_id: 'abc' }, 'project_id'],
      [{ name: 'x', project_id: 999999 }, 'project_id'],
      [{ name: 'x', openapi_spec: { content: '{}' } }, 'openapi_spec.format'],
      [{ name: 'x', public_access: 'yes' }, 'public_access'],
      [{ name: 'x', proxy_connection_id: 999999 }, 'proxy_connection_id'],
      [{ name: 'x', proxy_connection_id: 'abc' }, 'proxy_connection_id'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/api_collections', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} ${res.text}`);
      assert.ok(res.body.errors[field], `${field} in ${res.text}`);
    }
    const salesforce = await t.call('POST', '/api/connections', {
      body: { name: 'CRM', provider: 'salesforce', shell_connection: true },
    });
    const notRest = await t.call('POST', '/api/api_collections', {
      body: { name: 'x', proxy_connection_id: salesforce.body.id },
    });
    assert.equal(notRest.status, 400);
    assert.deepEqual(notRest.body.errors, { proxy_connection_id: ['must name a rest (HTTP) connection'] });
    assert.equal(
      (await t.call('POST', '/api/api_collections', { raw: '{', headers: { 'content-type': 'application/json' } }))
        .status,
      400,
    );
    assert.equal(
      (await t.call('POST', '/api/api_collections', { raw: 'name=x', headers: { 'content-type': 'text/plain' } }))
        .status,
      415,
    );
    assert.equal(await collectionCount(), before);
  });

  test('401 without a token, 403 for a read-only role', async () => {
    assert.equal((await t.call('POST', '/api/api_collections', { token: null, body: { name: 'x' } })).status, 401);
    assert.equal((await t.call('POST', '/api/api_collections', { token: readOnly, body: { name: 'x' } })).status, 403);
  });
});

describe('GET /api/api_collections', () => {
  test('a bare array in id order, paged; other environments and workspaces see none of it', async () => {
    const all = await t.call('GET', '/api/api_collections');
    assert.equal(all.status, 200);
    assert.ok(Array.isArray(all.body) && all.body.length >= 3);
    const ids = all.body.map((c: { id: number }) => c.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => a - b),
    );
    const page2 = await t.call('GET', '/api/api_collections?page=2&per_page=1');
    assert.deepEqual(
      page2.body.map((c: { id: number }) => c.id),
      [ids[1]],
    );
    assert.equal((await t.call('GET', '/api/api_collections', { token: readOnly })).status, 200);
    const prod = await t.tokenFor('Admin', 'prod');
    assert.deepEqual((await t.call('GET', '/api/api_collections', { token: prod })).body, []);
    const other = await t.newWorkspace('Other');
    assert.deepEqual((await t.call('GET', '/api/api_collections', { token: other.adminToken })).body, []);
  });

  test('a client limited to some projects sees only their collections', async () => {
    const scopedProject = await t.createProject('Scoped');
    await t.call('POST', '/api/api_collections', { body: { name: 'Scoped API', project_id: scopedProject.projectId } });
    const { token } = await t.scopedClient([scopedProject.folderId], 'Read only');
    const res = await t.call('GET', '/api/api_collections', { token });
    assert.deepEqual(
      res.body.map((c: { name: string }) => c.name),
      ['Scoped API'],
    );
  });

  test('401 without a token; 403 for a role without the privilege', async () => {
    assert.equal((await t.call('GET', '/api/api_collections', { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', '/api/api_collections', {
          token: await t.tokenWith('No platform', ['workspace_details:read']),
        })
      ).status,
      403,
    );
  });
});

describe('PUT /api/api_collections/:id', () => {
  test('renames (the URL keeps its slug), toggles public access; 404/400/422 change nothing', async () => {
    const created = await t.call('POST', '/api/api_collections', {
      body: { name: 'Renamable', project_id: projectId },
    });
    const id = created.body.id;
    const res = await t.call('PUT', `/api/api_collections/${id}`, { body: { name: 'Renamed', public_access: true } });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Renamed');
    assert.equal(res.body.public_access, true);
    assert.equal(res.body.url, created.body.url);
    assert.equal((await t.call('PUT', '/api/api_collections/999999', { body: { name: 'x' } })).status, 404);
    assert.equal((await t.call('PUT', `/api/api_collections/${id}`, { body: {} })).status, 400);
    assert.equal((await t.call('PUT', `/api/api_collections/${id}`, { body: { name: '' } })).status, 400);
    assert.equal((await t.call('PUT', `/api/api_collections/${id}`, { body: { name: 'Order status' } })).status, 422);
    assert.equal(
      (await t.call('PUT', `/api/api_collections/${id}`, { token: readOnly, body: { name: 'ro' } })).status,
      403,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/api_collections/${id}`, {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal((await t.call('PUT', `/api/api_collections/${id}`, { body: { public_access: 'yes' } })).status, 400);
    assert.equal(
      (await t.call('PUT', `/api/api_collections/${id}`, { body: { proxy_connection_id: 999999 } })).status,
      400,
    );
    assert.equal((await t.call('PUT', '/api/api_collections/abc', { body: { name: 'x' } })).status, 400);
    const list = await t.call('GET', '/api/api_collections');
    assert.equal(list.body.find((c: { id: number }) => c.id === id).name, 'Renamed');
  });
});

describe('DELETE /api/api_collections/:id', () => {
  test('deletes the collection with its endpoints', async () => {
    const created = await t.call('POST', '/api/api_collections', {
      body: { name: 'Doomed', project_id: projectId, openapi_spec: { content: OPENAPI, format: 'json' } },
    });
    const res = await t.call('DELETE', `/api/api_collections/${created.body.id}`);
    assert.deepEqual(res.body, { result: { success: true } });
    assert.deepEqual((await t.call('GET', `/api/api_endpoints?api_collection_id=${created.body.id}`)).body, []);
    assert.equal((await t.call('DELETE', `/api/api_collections/${created.body.id}`)).status, 404);
    assert.equal((await t.call('DELETE', '/api/api_collections/abc')).status, 400);
    assert.equal((await t.call('DELETE', '/api/api_collections/1', { token: readOnly })).status, 403);
    assert.equal((await t.call('DELETE', '/api/api_collections/1', { token: null })).status, 401);
  });
});

describe('POST /api/api_collections/:id/api_endpoints', () => {
  test('adds an endpoint to a proxy collection (leading slash stripped); duplicates are 422', async () => {
    const c = await t.call('POST', '/api/api_collections', {
      body: { name: 'Proxy', project_id: projectId, proxy_connection_id: connId },
    });
    const res = await t.call('POST', `/api/api_collections/${c.body.id}/api_endpoints`, {
      body: { name: 'Get order', method: 'get', path: '/orders/{id}' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.method, 'GET');
    assert.equal(res.body.path, 'orders/{id}');
    assert.equal(res.body.api_collection_id, c.body.id);
    assert.equal(res.body.url, `${c.body.url}/orders/{id}`);
    assert.equal(res.body.base_path, `${new URL(c.body.url).pathname}/orders/{id}`);
    assert.equal(res.body.active, false);
    assert.equal(res.body.legacy_url, null);
    const dup = await t.call('POST', `/api/api_collections/${c.body.id}/api_endpoints`, {
      body: { name: 'Again', method: 'GET', path: 'orders/{id}' },
    });
    assert.equal(dup.status, 422);
  });

  test('a recipe-backed collection needs a recipe (none exist yet): 400 on flow_id', async () => {
    const c = await t.call('POST', '/api/api_collections', { body: { name: 'Recipes API', project_id: projectId } });
    const res = await t.call('POST', `/api/api_collections/${c.body.id}/api_endpoints`, {
      body: { name: 'x', method: 'GET', path: 'x', flow_id: 12 },
    });
    assert.equal(res.status, 400);
    assert.ok(res.body.errors.flow_id);
  });

  test('bad method, bad path, unknown collection', async () => {
    const c = await t.call('POST', '/api/api_collections', {
      body: { name: 'Proxy 2', project_id: projectId, proxy_connection_id: connId },
    });
    for (const body of [
      { name: 'x', method: 'FETCH', path: 'a' },
      { name: 'x', method: 'GET', path: 'a b' },
      { name: 'x', method: 'GET', path: '../etc' },
      { name: 'x', method: 'GET' },
      { name: 'x', method: 'GET', path: 'a/{}' },
    ]) {
      const res = await t.call('POST', `/api/api_collections/${c.body.id}/api_endpoints`, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal(
      (
        await t.call('POST', '/api/api_collections/999999/api_endpoints', {
          body: { name: 'x', method: 'GET', path: 'a' },
        })
      ).status,
      404,
    );
    assert.deepEqual((await t.call('GET', `/api/api_endpoints?api_collection_id=${c.body.id}`)).body, []);
  });
});
