import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let adminRoleId: number;
let readOnlyRoleId: number;

before(async () => {
  t = await createTestApp();
  adminRoleId = await t.roleId('Admin');
  readOnlyRoleId = await t.roleId('Read only');
});
after(() => t.close());

async function clientCount(): Promise<number> {
  const res = await t.call('GET', '/api/developer_api_clients');
  return res.body.result.count;
}

async function create(body: Record<string, unknown>, token?: string) {
  return t.call('POST', '/api/developer_api_clients', { body, ...(token ? { token } : {}) });
}

describe('GET /api/developer_api_clients', () => {
  test('lists the workspace clients in the result envelope, without token values', async () => {
    const res = await t.call('GET', '/api/developer_api_clients');
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.result.count, 'number');
    assert.ok(res.body.result.items.length >= 1);
    const first = res.body.result.items[0];
    assert.equal(first.name, 'Bootstrap admin');
    assert.equal(first.environment_name, 'Development');
    assert.deepEqual(Object.keys(first.token), ['updated_at']);
    assert.match(first.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.match(first.token.updated_at, /Z$/);
  });

  test('pages with page/per_page; count is the total; junk paging falls back to defaults', async () => {
    for (let i = 0; i < 3; i++)
      assert.equal(
        (await create({ name: `paging-${i}`, api_privilege_group_id: readOnlyRoleId, all_folders: true })).status,
        200,
      );
    const total = await clientCount();
    const page1 = await t.call('GET', '/api/developer_api_clients?page=1&per_page=2');
    const page2 = await t.call('GET', '/api/developer_api_clients?page=2&per_page=2');
    assert.equal(page1.body.result.items.length, 2);
    assert.equal(page1.body.result.count, total);
    assert.notEqual(page1.body.result.items[0].id, page2.body.result.items[0].id);
    assert.ok(page1.body.result.items[1].id < page2.body.result.items[0].id, 'ascending id order across pages');
    const junk = await t.call('GET', '/api/developer_api_clients?page=abc&per_page=-5');
    assert.equal(junk.status, 200);
    assert.equal(junk.body.result.items.length, Math.min(total, 100));
    const past = await t.call('GET', '/api/developer_api_clients?page=999');
    assert.deepEqual(past.body.result.items, []);
    const clamped = await t.call('GET', '/api/developer_api_clients?per_page=100000');
    assert.equal(clamped.status, 200);
  });

  test('401 without a token, with an unknown token, and with a legacy key header', async () => {
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token: null })).status, 401);
    const unknown = await t.call('GET', '/api/developer_api_clients', { token: 'wrkdev-' + '0'.repeat(64) });
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown.body, { message: 'Unauthorized' });
    const legacy = await t.call('GET', '/api/developer_api_clients', {
      token: null,
      headers: { 'x-user-email': 'a@b.c', 'x-user-token': t.adminToken },
    });
    assert.equal(legacy.status, 401);
    const basic = await t.call('GET', '/api/developer_api_clients', {
      token: null,
      headers: { authorization: `Basic ${t.adminToken}` },
    });
    assert.equal(basic.status, 401);
  });

  test('the Bearer scheme name is matched case-insensitively', async () => {
    const res = await t.call('GET', '/api/developer_api_clients', {
      token: null,
      headers: { authorization: `bearer ${t.adminToken}` },
    });
    assert.equal(res.status, 200);
  });

  test('403 for a role without the privilege', async () => {
    const copy = await t.call('POST', `/api/developer_api_client_roles/${readOnlyRoleId}/copy`, {
      body: { name: 'Only users/me', privileges: ['workspace_details:read'] },
    });
    assert.equal(copy.status, 200);
    const token = await t.tokenFor('Only users/me');
    const res = await t.call('GET', '/api/developer_api_clients', { token });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /developer_api_clients:read/);
    assert.equal((await t.call('GET', '/api/users/me', { token })).status, 200);
  });
});

describe('POST /api/developer_api_clients', () => {
  test('creates a client and shows its token once; the token works at once', async () => {
    const res = await create({
      name: 'ci-deployer-test',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: true,
      environment_name: 'Test',
      description: 'CI',
    });
    assert.equal(res.status, 200);
    const client = res.body.result;
    assert.equal(client.name, 'ci-deployer-test');
    assert.equal(client.api_privilege_group_id, readOnlyRoleId);
    assert.equal(client.environment_name, 'Test');
    assert.equal(client.all_folders, true);
    assert.deepEqual(client.folder_ids, []);
    assert.equal(client.description, 'CI');
    assert.match(client.token.value, /^wrktest-[0-9a-f]{64}$/);
    // A read-only token of the test environment can list but not create.
    const list = await t.call('GET', '/api/developer_api_clients', { token: client.token.value });
    assert.equal(list.status, 200);
    const write = await create(
      { name: 'nope', api_privilege_group_id: readOnlyRoleId, all_folders: true },
      client.token.value,
    );
    assert.equal(write.status, 403);
    // The value is never shown again.
    const got = await t.call('GET', `/api/developer_api_clients/${client.id}`);
    assert.equal(got.body.result.token.value, undefined);
    assert.ok(!got.text.includes(client.token.value));
  });

  test('defaults to the caller environment; accepts environment DEV/TEST/PROD and id strings', async () => {
    const res = await create({ name: 'string-ids', api_privilege_group_id: String(readOnlyRoleId), all_folders: true });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.environment_name, 'Development');
    assert.equal(res.body.result.api_privilege_group_id, readOnlyRoleId);
    const prod = await create({
      name: 'prod-client',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: true,
      environment: 'PROD',
    });
    assert.equal(prod.body.result.environment_name, 'Production');
    assert.match(prod.body.result.token.value, /^wrkprod-/);
  });

  test('project scope: folder_ids must be project folders of the environment', async () => {
    const p1 = await t.createProject('Procure to pay');
    const p2 = await t.createProject('Billing');
    const res = await create({
      name: 'scoped',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: false,
      folder_ids: [String(p2.folderId), p1.folderId, p1.folderId],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.result.folder_ids,
      [p1.folderId, p2.folderId].sort((a, b) => a - b),
    );
    assert.equal(res.body.result.all_folders, false);

    const before = await clientCount();
    const testProject = await t.createProject('Only in test', 'test');
    const wrongEnv = await create({
      name: 'scoped-wrong-env',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: false,
      folder_ids: [testProject.folderId],
    });
    assert.equal(wrongEnv.status, 400);
    assert.ok(wrongEnv.body.errors.folder_ids);
    const unknown = await create({
      name: 'scoped-unknown',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: false,
      folder_ids: [999999],
    });
    assert.equal(unknown.status, 400);
    const empty = await create({ name: 'scoped-empty', api_privilege_group_id: readOnlyRoleId, all_folders: false });
    assert.equal(empty.status, 400);
    assert.ok(empty.body.errors.folder_ids);
    assert.equal(await clientCount(), before);
  });

  test('ip_allow_list: array or string in, comma-separated string out; enforced on use', async () => {
    const res = await create({
      name: 'ip-listed',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: true,
      ip_allow_list: ['203.0.113.10', '198.51.100.0/24'],
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.ip_allow_list, '203.0.113.10,198.51.100.0/24');
    // inject comes from 127.0.0.1, which is not listed.
    const denied = await t.call('GET', '/api/developer_api_clients', { token: res.body.result.token.value });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { message: 'IP address not allowed' });
    const local = await create({
      name: 'ip-local',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: true,
      ip_allow_list: '127.0.0.0/8, ::1',
    });
    assert.equal(local.body.result.ip_allow_list, '127.0.0.0/8,::1');
    assert.equal(
      (await t.call('GET', '/api/developer_api_clients', { token: local.body.result.token.value })).status,
      200,
    );
  });

  test('422 for a duplicate name (case-insensitive), and nothing is created', async () => {
    const before = await clientCount();
    const res = await create({ name: 'BOOTSTRAP ADMIN', api_privilege_group_id: adminRoleId, all_folders: true });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      message: 'Name has already been taken',
      errors: { name: ['has already been taken'] },
    });
    assert.equal(await clientCount(), before);
  });

  test('bad input: each a 400 naming the field, and nothing changes', async () => {
    const before = await clientCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ api_privilege_group_id: adminRoleId, all_folders: true }, 'name'],
      [{ name: 'x', all_folders: true }, 'api_privilege_group_id'],
      [{ name: 'x', api_privilege_group_id: adminRoleId }, 'all_folders'],
      [{ name: 42, api_privilege_group_id: adminRoleId, all_folders: true }, 'name'],
      [{ name: '   ', api_privilege_group_id: adminRoleId, all_folders: true }, 'name'],
      [{ name: 'x', api_privilege_group_id: 'abc', all_folders: true }, 'api_privilege_group_id'],
      [{ name: 'x', api_privilege_group_id: 1.5, all_folders: true }, 'api_privilege_group_id'],
      [{ name: 'x', api_privilege_group_id: 999999, all_folders: true }, 'api_privilege_group_id'],
      [{ name: 'x', api_privilege_group_id: adminRoleId, all_folders: 'yes' }, 'all_folders'],
      [{ name: 'x', api_privilege_group_id: adminRoleId, all_folders: false, folder_ids: 'abc' }, 'folder_ids'],
      [
        { name: 'x', api_privilege_group_id: adminRoleId, all_folders: true, ip_allow_list: ['not-an-ip'] },
        'ip_allow_list',
      ],
      [
        { name: 'x', api_privilege_group_id: adminRoleId, all_folders: true, ip_allow_list: '10.0.0.0/33' },
        'ip_allow_list',
      ],
      [{ name: 'x', api_privilege_group_id: adminRoleId, all_folders: true, environment: 'STAGING' }, 'environment'],
      [
        {
          name: 'x',
          api_privilege_group_id: adminRoleId,
          all_folders: true,
          environment: 'DEV',
          environment_name: 'Production',
        },
        'environment',
      ],
      [{ name: 'x'.repeat(256), api_privilege_group_id: adminRoleId, all_folders: true }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal(await clientCount(), before);
  });

  test('malformed JSON, wrong Content-Type, a non-object body and an oversized body are refused', async () => {
    const before = await clientCount();
    const malformed = await t.call('POST', '/api/developer_api_clients', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
    const text = await t.call('POST', '/api/developer_api_clients', {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(text.status, 415);
    assert.match(text.body.message, /Content-Type/);
    const array = await t.call('POST', '/api/developer_api_clients', { body: [1, 2] });
    assert.equal(array.status, 400);
    const empty = await t.call('POST', '/api/developer_api_clients', {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    const huge = await t.call('POST', '/api/developer_api_clients', {
      raw: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413);
    assert.deepEqual(huge.body, { message: 'Request body is too large' });
    const proto = await t.call('POST', '/api/developer_api_clients', {
      raw: '{"__proto__": {"admin": true}, "name": "p"}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(proto.status, 400);
    assert.equal(await clientCount(), before);
  });

  test('403: a client cannot grant a role with privileges it does not hold, nor all_folders when scoped', async () => {
    const copy = await t.call('POST', `/api/developer_api_client_roles/${readOnlyRoleId}/copy`, {
      body: {
        name: 'Client manager',
        privileges: ['developer_api_clients:read', 'developer_api_clients:write', 'developer_api_client_roles:read'],
      },
    });
    assert.equal(copy.status, 200);
    const managerToken = await t.tokenFor('Client manager');
    const before = await clientCount();
    const escalate = await create(
      { name: 'escalated', api_privilege_group_id: adminRoleId, all_folders: true },
      managerToken,
    );
    assert.equal(escalate.status, 403);
    assert.equal(await clientCount(), before);
    const same = await create(
      { name: 'peer-manager', api_privilege_group_id: copy.body.result.id, all_folders: true },
      managerToken,
    );
    assert.equal(same.status, 200);

    const project = await t.createProject('Scoped project');
    const scoped = await create({
      name: 'scoped-manager',
      api_privilege_group_id: copy.body.result.id,
      all_folders: false,
      folder_ids: [project.folderId],
    });
    const scopedToken = scoped.body.result.token.value;
    const widen = await create(
      { name: 'widened', api_privilege_group_id: copy.body.result.id, all_folders: true },
      scopedToken,
    );
    assert.equal(widen.status, 403);
    const other = await t.createProject('Other project');
    const outside = await create(
      {
        name: 'outside',
        api_privilege_group_id: copy.body.result.id,
        all_folders: false,
        folder_ids: [other.folderId],
      },
      scopedToken,
    );
    assert.equal(outside.status, 403);
    const inside = await create(
      {
        name: 'inside',
        api_privilege_group_id: copy.body.result.id,
        all_folders: false,
        folder_ids: [project.folderId],
      },
      scopedToken,
    );
    assert.equal(inside.status, 200);
  });
});

describe('GET /api/developer_api_clients/:id', () => {
  test('returns one client', async () => {
    const created = await create({ name: 'get-me', api_privilege_group_id: readOnlyRoleId, all_folders: true });
    const res = await t.call('GET', `/api/developer_api_clients/${created.body.result.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.result.name, 'get-me');
    assert.equal(res.body.result.id, created.body.result.id);
  });

  test('404 for an unknown id, 400 for a non-numeric one', async () => {
    const missing = await t.call('GET', '/api/developer_api_clients/999999');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { message: 'Not found' });
    for (const bad of ['abc', '1.5', '-3', '0', '99999999999999999999']) {
      const res = await t.call('GET', `/api/developer_api_clients/${bad}`);
      assert.equal(res.status, 400, `${bad} -> ${res.status}`);
      assert.ok(res.body.errors.id);
    }
  });

  test('401 without a token', async () => {
    assert.equal((await t.call('GET', '/api/developer_api_clients/1', { token: null })).status, 401);
  });

  test('another workspace cannot see it (404)', async () => {
    const other = await t.newWorkspace('Other Co');
    const res = await t.call('GET', '/api/developer_api_clients/1', { token: other.adminToken });
    assert.equal(res.status, 404);
    const list = await t.call('GET', '/api/developer_api_clients', { token: other.adminToken });
    assert.deepEqual(
      list.body.result.items.map((c: { name: string }) => c.name),
      ['admin'],
    );
  });
});
