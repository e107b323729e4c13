import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { ALL_PRIVILEGES, READ_PRIVILEGES } from '../../auth/privileges.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function roleCount(): Promise<number> {
  return (await t.call('GET', '/api/developer_api_client_roles')).body.result.count;
}

describe('GET /api/developer_api_client_roles', () => {
  test('lists the seed roles: an admin role with every privilege and a read-only role', async () => {
    const res = await t.call('GET', '/api/developer_api_client_roles?per_page=100');
    assert.equal(res.status, 200);
    const [admin, readOnly] = res.body.result.items;
    assert.equal(res.body.result.count, 2);
    assert.equal(admin.name, 'Admin');
    assert.deepEqual([...admin.privileges].sort(), [...ALL_PRIVILEGES].sort());
    assert.match(readOnly.name, /read/i);
    assert.deepEqual([...readOnly.privileges].sort(), [...READ_PRIVILEGES].sort());
    assert.ok(readOnly.privileges.every((p: string) => p.endsWith(':read')));
    assert.match(admin.created_at, /\+00:00$/);
  });

  test('pages', async () => {
    const res = await t.call('GET', '/api/developer_api_client_roles?page=2&per_page=1');
    assert.equal(res.body.result.items.length, 1);
    assert.equal(res.body.result.items[0].name, 'Read only');
    assert.equal(res.body.result.count, 2);
  });

  test('401 without a token; 403 for a role without the privilege', async () => {
    assert.equal((await t.call('GET', '/api/developer_api_client_roles', { token: null })).status, 401);
    await t.call('POST', '/api/developer_api_client_roles/1/copy', {
      body: { name: 'No roles', privileges: ['workspace_details:read'] },
    });
    const token = await t.tokenFor('No roles');
    assert.equal((await t.call('GET', '/api/developer_api_client_roles', { token })).status, 403);
  });

  test('another workspace sees only its own roles', async () => {
    const other = await t.newWorkspace('Elsewhere');
    const res = await t.call('GET', '/api/developer_api_client_roles', { token: other.adminToken });
    assert.equal(res.body.result.count, 2);
    assert.ok(res.body.result.items.every((r: { name: string }) => r.name !== 'No roles'));
  });
});

describe('POST /api/developer_api_client_roles/:id/copy', () => {
  test('copies a role, with the source privileges or a given list', async () => {
    const copy = await t.call('POST', '/api/developer_api_client_roles/2/copy', { body: { name: 'Auditors' } });
    assert.equal(copy.status, 200);
    assert.equal(copy.body.result.name, 'Auditors');
    assert.deepEqual([...copy.body.result.privileges].sort(), [...READ_PRIVILEGES].sort());
    const narrow = await t.call('POST', '/api/developer_api_client_roles/1/copy', {
      body: { name: 'Deployer', privileges: ['recipes:read', 'recipes:write', 'recipes:read'] },
    });
    assert.deepEqual(narrow.body.result.privileges, ['recipes:read', 'recipes:write']);
    const listed = await t.call('GET', '/api/developer_api_client_roles');
    assert.ok(listed.body.result.items.some((r: { id: number }) => r.id === narrow.body.result.id));
  });

  test('errors: 404 unknown role, 422 duplicate name, 400 bad input, 403 escalation; nothing created', async () => {
    const before = await roleCount();
    assert.equal(
      (await t.call('POST', '/api/developer_api_client_roles/999/copy', { body: { name: 'x' } })).status,
      404,
    );
    const dup = await t.call('POST', '/api/developer_api_client_roles/1/copy', { body: { name: 'admin' } });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.body.errors, { name: ['has already been taken'] });
    for (const body of [
      {},
      { name: 12 },
      { name: '  ' },
      { name: 'x', privileges: ['recipes:delete'] },
      { name: 'x', privileges: 'recipes:read' },
    ]) {
      const res = await t.call('POST', '/api/developer_api_client_roles/1/copy', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.errors, res.text);
    }
    assert.equal(
      (await t.call('POST', '/api/developer_api_client_roles/abc/copy', { body: { name: 'x' } })).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/developer_api_client_roles/1/copy', {
          raw: '{',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    const readOnly = await t.tokenFor('Read only');
    assert.equal(
      (await t.call('POST', '/api/developer_api_client_roles/1/copy', { token: readOnly, body: { name: 'y' } })).status,
      403,
    );
    // A client that may copy roles still cannot mint privileges it lacks.
    await t.call('POST', '/api/developer_api_client_roles/2/copy', {
      body: {
        name: 'Role copier',
        privileges: ['developer_api_client_roles:read', 'developer_api_client_roles:write'],
      },
    });
    const copier = await t.tokenFor('Role copier');
    const escalate = await t.call('POST', '/api/developer_api_client_roles/1/copy', {
      token: copier,
      body: { name: 'Sneaky admin' },
    });
    assert.equal(escalate.status, 403);
    assert.equal(await roleCount(), before + 1, 'only the Role copier role was added');
  });
});
