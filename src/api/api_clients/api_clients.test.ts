// API clients (contract 03 §4): the consumers of published APIs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let projectId: number;
let clientId: number;
let readOnly: string;

before(async () => {
  t = await createTestApp();
  projectId = (await t.createProject('Partners')).projectId;
  readOnly = await t.tokenFor('Read only');
});
after(() => t.close());

describe('POST /api/api_clients', () => {
  test('creates a client (project_id as a string is fine)', async () => {
    const res = await t.call('POST', '/api/api_clients', {
      body: { name: 'Partner portal', project_id: String(projectId), description: 'B2B' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Partner portal');
    assert.equal(res.body.project_id, projectId);
    assert.equal(res.body.active, true);
    assert.match(res.body.created_at, /\+00:00$/);
    clientId = res.body.id;
  });

  test('bad input is a 400 and creates nothing; 401; 403', async () => {
    const before = (await t.call('GET', '/api/api_clients')).body.length;
    for (const body of [
      {},
      { name: '' },
      { name: 3 },
      { name: 'x', project_id: 999999 },
      { name: 'x', project_id: 'p1' },
      { name: 'x', api_policy_id: 4242 },
    ]) {
      assert.equal((await t.call('POST', '/api/api_clients', { body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await t.call('POST', '/api/api_clients', { token: null, body: { name: 'x' } })).status, 401);
    assert.equal((await t.call('POST', '/api/api_clients', { token: readOnly, body: { name: 'x' } })).status, 403);
    assert.equal((await t.call('GET', '/api/api_clients')).body.length, before);
  });
});

describe('GET /api/api_clients', () => {
  test('a bare array, filterable by project, invisible to other environments', async () => {
    const res = await t.call('GET', '/api/api_clients');
    assert.ok(Array.isArray(res.body));
    assert.ok(res.body.some((c: { id: number }) => c.id === clientId));
    assert.equal((await t.call('GET', `/api/api_clients?project_id=${projectId}`)).body.length, 1);
    assert.deepEqual((await t.call('GET', '/api/api_clients?project_id=999999')).body, []);
    assert.deepEqual((await t.call('GET', '/api/api_clients', { token: await t.tokenFor('Admin', 'test') })).body, []);
    assert.equal((await t.call('GET', '/api/api_clients', { token: readOnly })).status, 200);
    assert.equal((await t.call('GET', '/api/api_clients', { token: null })).status, 401);
  });
});
