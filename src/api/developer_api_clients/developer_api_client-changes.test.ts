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

const TOKEN_SHAPE = /^wrk(dev|test|prod)-[0-9a-f]{64}$/;

describe('PUT /api/developer_api_clients/:id', () => {
  test('partial update keeps other fields and the token', async () => {
    const created = await create({
      name: 'to-update',
      api_privilege_group_id: readOnlyRoleId,
      all_folders: true,
      ip_allow_list: '127.0.0.1',
      description: 'before',
    });
    const { id, token } = created.body.result;
    const res = await t.call('PUT', `/api/developer_api_clients/${id}`, {
      body: { name: 'updated-name', ip_allow_list: [] },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.name, 'updated-name');
    assert.equal(res.body.result.description, 'before');
    assert.equal(res.body.result.ip_allow_list, undefined);
    assert.equal(res.body.result.api_privilege_group_id, readOnlyRoleId);
    assert.equal(
      (await t.call('GET', '/api/developer_api_clients', { token: token.value })).status,
      200,
      'token unchanged',
    );
  });

  test('a role change applies to the next request at once', async () => {
    const created = await create({ name: 'role-change', api_privilege_group_id: adminRoleId, all_folders: true });
    const token = created.body.result.token.value;
    assert.equal(
      (await create({ name: 'by-admin', api_privilege_group_id: readOnlyRoleId, all_folders: true }, token)).status,
      200,
    );
    const res = await t.call('PUT', `/api/developer_api_clients/${created.body.result.id}`, {
      body: { api_privilege_group_id: readOnlyRoleId },
    });
    assert.equal(res.status, 200);
    assert.equal(
      (await create({ name: 'by-readonly', api_privilege_group_id: readOnlyRoleId, all_folders: true }, token)).status,
      403,
    );
  });

  test('folder_ids alone narrows an all-folders client; all_folders true clears them', async () => {
    const project = await t.createProject('Narrowing');
    const created = await create({ name: 'narrow-me', api_privilege_group_id: readOnlyRoleId, all_folders: true });
    const narrowed = await t.call('PUT', `/api/developer_api_clients/${created.body.result.id}`, {
      body: { folder_ids: [project.folderId] },
    });
    assert.equal(narrowed.body.result.all_folders, false);
    assert.deepEqual(narrowed.body.result.folder_ids, [project.folderId]);
    const widened = await t.call('PUT', `/api/developer_api_clients/${created.body.result.id}`, {
      body: { all_folders: true },
    });
    assert.equal(widened.body.result.all_folders, true);
    assert.deepEqual(widened.body.result.folder_ids, []);
  });

  test('errors: 404 unknown, 400 environment change / empty body / bad types, 422 duplicate name; nothing changes', async () => {
    const created = await create({ name: 'stable', api_privilege_group_id: readOnlyRoleId, all_folders: true });
    const id = created.body.result.id;
    const snapshot = (await t.call('GET', `/api/developer_api_clients/${id}`)).body;
    assert.equal((await t.call('PUT', '/api/developer_api_clients/999999', { body: { name: 'x' } })).status, 404);
    const env = await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { environment: 'PROD' } });
    assert.equal(env.status, 400);
    assert.ok(env.body.errors.environment);
    const same = await t.call('PUT', `/api/developer_api_clients/${id}`, {
      body: { environment_name: 'Development', description: 'same env is fine' },
    });
    assert.equal(same.status, 200);
    assert.equal((await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { description: '' } })).status, 200);
    const nothing = await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { nmae: 'typo' } });
    assert.equal(nothing.status, 400);
    const noBody = await t.call('PUT', `/api/developer_api_clients/${id}`);
    assert.equal(noBody.status, 400);
    assert.equal(
      (await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { all_folders: 'no' } })).status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { all_folders: false } })).status,
      400,
      'no folders to scope to',
    );
    assert.equal(
      (await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { api_privilege_group_id: 424242 } })).status,
      400,
    );
    const dup = await t.call('PUT', `/api/developer_api_clients/${id}`, { body: { name: 'Bootstrap Admin' } });
    assert.equal(dup.status, 422);
    assert.equal(
      (
        await t.call('PUT', `/api/developer_api_clients/${id}`, {
          raw: '{bad',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    const after = (await t.call('GET', `/api/developer_api_clients/${id}`)).body;
    assert.equal(after.result.name, snapshot.result.name);
    assert.equal(after.result.all_folders, true);
    assert.equal(after.result.api_privilege_group_id, readOnlyRoleId);
    assert.equal(after.result.environment_name, 'Development');
  });

  test('403 for a read-only role', async () => {
    const token = await t.tokenFor('Read only');
    const res = await t.call('PUT', '/api/developer_api_clients/1', { token, body: { name: 'hijack' } });
    assert.equal(res.status, 403);
    assert.equal((await t.call('GET', '/api/developer_api_clients/1')).body.result.name, 'Bootstrap admin');
  });
});

describe('DELETE /api/developer_api_clients/:id', () => {
  test('deletes; the token stops working at once', async () => {
    const created = await create({ name: 'doomed', api_privilege_group_id: readOnlyRoleId, all_folders: true });
    const token = created.body.result.token.value;
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token })).status, 200);
    const res = await t.call('DELETE', `/api/developer_api_clients/${created.body.result.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { result: { success: true } });
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token })).status, 401);
    assert.equal((await t.call('GET', `/api/developer_api_clients/${created.body.result.id}`)).status, 404);
  });

  test('a client may delete itself', async () => {
    const created = await create({ name: 'self-deleter', api_privilege_group_id: adminRoleId, all_folders: true });
    const token = created.body.result.token.value;
    const res = await t.call('DELETE', `/api/developer_api_clients/${created.body.result.id}`, { token });
    assert.equal(res.status, 200);
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token })).status, 401);
  });

  test('404 unknown, 400 bad id, 401, 403 read-only; nothing deleted', async () => {
    const before = await clientCount();
    assert.equal((await t.call('DELETE', '/api/developer_api_clients/999999')).status, 404);
    assert.equal((await t.call('DELETE', '/api/developer_api_clients/abc')).status, 400);
    assert.equal((await t.call('DELETE', '/api/developer_api_clients/1', { token: null })).status, 401);
    const readOnly = await t.tokenFor('Read only');
    assert.equal(await clientCount(), before + 1);
    assert.equal((await t.call('DELETE', '/api/developer_api_clients/1', { token: readOnly })).status, 403);
    assert.equal(await clientCount(), before + 1);
  });
});

describe('POST /api/developer_api_clients/:id/regenerate', () => {
  test('issues a new token; the old one stops working at once', async () => {
    const created = await create({ name: 'rotate-me', api_privilege_group_id: readOnlyRoleId, all_folders: true });
    const oldToken = created.body.result.token.value;
    const res = await t.call('POST', `/api/developer_api_clients/${created.body.result.id}/regenerate`);
    assert.equal(res.status, 200);
    const newToken = res.body.result.token.value;
    assert.match(newToken, TOKEN_SHAPE);
    assert.notEqual(newToken, oldToken);
    assert.equal(res.body.result.name, 'rotate-me');
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token: oldToken })).status, 401);
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token: newToken })).status, 200);
  });

  test('accepts an empty JSON body and a self-regeneration', async () => {
    const created = await create({ name: 'rotate-self', api_privilege_group_id: adminRoleId, all_folders: true });
    const token = created.body.result.token.value;
    const res = await t.call('POST', `/api/developer_api_clients/${created.body.result.id}/regenerate`, {
      token,
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200);
    assert.equal((await t.call('GET', '/api/developer_api_clients', { token })).status, 401);
    assert.equal(
      (await t.call('GET', '/api/developer_api_clients', { token: res.body.result.token.value })).status,
      200,
    );
  });

  test('404 unknown, 400 bad id, 401, 403 read-only (the token is not rotated)', async () => {
    assert.equal((await t.call('POST', '/api/developer_api_clients/999999/regenerate')).status, 404);
    assert.equal((await t.call('POST', '/api/developer_api_clients/x/regenerate')).status, 400);
    assert.equal((await t.call('POST', '/api/developer_api_clients/1/regenerate', { token: null })).status, 401);
    const readOnly = await t.tokenFor('Read only');
    assert.equal((await t.call('POST', '/api/developer_api_clients/1/regenerate', { token: readOnly })).status, 403);
    assert.equal((await t.call('GET', '/api/users/me')).status, 200, 'the admin token still works');
  });
});

describe('PUT, DELETE and regenerate on a client that holds more than the caller', () => {
  // The attack: a caller whose role holds only the developer-client privileges, or an Admin
  // limited to one project, acts on an all-folders Admin client.
  async function narrowCallers() {
    const roleCopy = await t.call('POST', `/api/developer_api_client_roles/${readOnlyRoleId}/copy`, {
      body: {
        name: `Client managers ${Math.random().toString(36).slice(2, 8)}`,
        privileges: ['developer_api_clients:read', 'developer_api_clients:write'],
      },
    });
    assert.equal(roleCopy.status, 200);
    const manager = await create({
      name: `manager-${roleCopy.body.result.id}`,
      api_privilege_group_id: roleCopy.body.result.id,
      all_folders: true,
    });
    assert.equal(manager.status, 200);
    const project = await t.createProject(`Scoped admin project ${roleCopy.body.result.id}`);
    const projectAdmin = await create({
      name: `project-admin-${roleCopy.body.result.id}`,
      api_privilege_group_id: adminRoleId,
      all_folders: false,
      folder_ids: [project.folderId],
    });
    assert.equal(projectAdmin.status, 200);
    const target = await create({
      name: `all-folders-admin-${roleCopy.body.result.id}`,
      api_privilege_group_id: adminRoleId,
      all_folders: true,
    });
    assert.equal(target.status, 200);
    return {
      callers: [
        ['a developer-clients-only role', manager.body.result.token.value as string],
        ['an Admin limited to one project', projectAdmin.body.result.token.value as string],
      ] as const,
      target: { id: target.body.result.id as number, token: target.body.result.token.value as string },
      project,
    };
  }

  test('regenerate: 403, no token handed out, the target keeps its token', async () => {
    const { callers, target } = await narrowCallers();
    for (const [who, token] of callers) {
      const res = await t.call('POST', `/api/developer_api_clients/${target.id}/regenerate`, { token });
      assert.equal(res.status, 403, who);
      assert.match(res.body.message, /^Forbidden/);
      assert.equal(JSON.stringify(res.body).includes('wrkdev-'), false, `${who}: no token in the reply`);
      assert.equal(
        (await t.call('GET', '/api/users/me', { token: target.token })).status,
        200,
        `${who}: the target's token still works`,
      );
    }
  });

  test('PUT: 403, the target unchanged (its IP allow list, name and scope)', async () => {
    const { callers, target } = await narrowCallers();
    const before = (await t.call('GET', `/api/developer_api_clients/${target.id}`)).body.result;
    for (const [who, token] of callers) {
      const res = await t.call('PUT', `/api/developer_api_clients/${target.id}`, {
        token,
        body: { ip_allow_list: ['203.0.113.1'] },
      });
      assert.equal(res.status, 403, who);
      const renamed = await t.call('PUT', `/api/developer_api_clients/${target.id}`, {
        token,
        body: { name: 'taken over' },
      });
      assert.equal(renamed.status, 403, who);
    }
    assert.deepEqual((await t.call('GET', `/api/developer_api_clients/${target.id}`)).body.result, before);
    assert.equal(
      (await t.call('GET', '/api/users/me', { token: target.token })).status,
      200,
      'the target is not locked out',
    );
  });

  test('DELETE: 403, the target still exists and its token works', async () => {
    const { callers, target } = await narrowCallers();
    for (const [who, token] of callers) {
      assert.equal((await t.call('DELETE', `/api/developer_api_clients/${target.id}`, { token })).status, 403, who);
    }
    assert.equal((await t.call('GET', `/api/developer_api_clients/${target.id}`)).status, 200);
    assert.equal((await t.call('GET', '/api/users/me', { token: target.token })).status, 200);
  });

  test('a project-limited caller still manages clients within its scope, and may not touch one with a project outside it', async () => {
    const { callers, project } = await narrowCallers();
    const projectAdminToken = callers[1][1];
    const inside = await create(
      {
        name: `inside-${project.folderId}`,
        api_privilege_group_id: readOnlyRoleId,
        all_folders: false,
        folder_ids: [project.folderId],
      },
      projectAdminToken,
    );
    assert.equal(inside.status, 200);
    const regenerated = await t.call('POST', `/api/developer_api_clients/${inside.body.result.id}/regenerate`, {
      token: projectAdminToken,
    });
    assert.equal(regenerated.status, 200);
    assert.equal(
      (
        await t.call('PUT', `/api/developer_api_clients/${inside.body.result.id}`, {
          token: projectAdminToken,
          body: { description: 'mine' },
        })
      ).status,
      200,
    );

    const other = await t.createProject(`Other project ${project.folderId}`);
    const outside = await create({
      name: `outside-${project.folderId}`,
      api_privilege_group_id: readOnlyRoleId,
      all_folders: false,
      folder_ids: [project.folderId, other.folderId],
    });
    assert.equal(outside.status, 200);
    const res = await t.call('POST', `/api/developer_api_clients/${outside.body.result.id}/regenerate`, {
      token: projectAdminToken,
    });
    assert.equal(res.status, 403);
    assert.match(res.body.message, new RegExp(`outside your scope: ${other.folderId}`));
    assert.equal(
      (await t.call('DELETE', `/api/developer_api_clients/${outside.body.result.id}`, { token: projectAdminToken }))
        .status,
      403,
    );
    assert.equal(
      (await t.call('DELETE', `/api/developer_api_clients/${inside.body.result.id}`, { token: projectAdminToken }))
        .status,
      200,
    );
  });
});
