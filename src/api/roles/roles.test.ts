import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { openSqlite } from '../../db/index.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import * as foundation from '../../db/migrations/0001_foundation.ts';
import { toStored } from '../../time.ts';
import { insertWorkspace } from '../../workspaces/workspaces.store.ts';
import { insertCollaboratorRole } from './roles.store.ts';

let t: TestApp;
let rolesReadOnly: string;
let noRoles: string;
before(async () => {
  t = await createTestApp();
  rolesReadOnly = await t.tokenWith('Roles reader', ['collaborator_roles:read']);
  noRoles = await t.tokenWith('No roles', ['workspace_details:read']);
});
after(() => t.close());

interface Role {
  id: number;
  name: string;
  all_folders: boolean;
  folder_ids: number[];
  inheritable: boolean;
  privileges: Record<string, string[]>;
  created_at: string;
  updated_at: string;
}

async function roles(token?: string): Promise<Role[]> {
  const res = await t.call('GET', '/api/roles?per_page=500', token ? { token } : {});
  assert.equal(res.status, 200);
  return res.body;
}

async function roleNamed(name: string): Promise<Role> {
  const role = (await roles()).find((r) => r.name === name);
  assert.ok(role, name);
  return role;
}

describe('GET /api/roles', () => {
  test('a new workspace lists the custom roles Analyst and Operator, as a bare array', async () => {
    const res = await t.call('GET', '/api/roles');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    const [analyst, operator] = res.body as Role[];
    assert.equal(analyst?.name, 'Analyst');
    assert.equal(operator?.name, 'Operator');
    assert.deepEqual(Object.keys(analyst!), [
      'id',
      'name',
      'inheritable',
      'all_folders',
      'folder_ids',
      'created_at',
      'updated_at',
      'privileges',
    ]);
    assert.equal(analyst!.inheritable, false);
    assert.equal(analyst!.all_folders, true);
    assert.deepEqual(analyst!.folder_ids, []);
    assert.deepEqual(analyst!.privileges.Recipes, ['read']);
    assert.ok(operator!.privileges.Recipes?.includes('run'));
    assert.match(analyst!.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.ok(!res.body.some((r: Role) => r.name === 'Admin'), 'system roles are not listed');
  });

  test('pages: default 100, up to 500 per page, junk falls back, past the end is []', async () => {
    const other = await t.newWorkspace('Many roles');
    const now = toStored(new Date());
    for (let i = 0; i < 510; i++)
      await insertCollaboratorRole(t.ctx.db, {
        workspaceId: other.workspaceId,
        name: `Role ${String(i).padStart(3, '0')}`,
        inheritable: false,
        allFolders: true,
        privileges: {},
        now,
      });
    const get = async (query: string) =>
      (await t.call('GET', `/api/roles${query}`, { token: other.adminToken })).body as Role[];
    assert.equal((await get('')).length, 100);
    assert.equal((await get('?per_page=1000')).length, 500);
    const last = await get('?page=2&per_page=500');
    assert.equal(last.length, 12);
    assert.equal(last.at(-1)?.name, 'Role 509');
    assert.equal((await get('?page=0&per_page=abc')).length, 100);
    assert.deepEqual(await get('?page=99'), []);
    const second = await get('?page=2&per_page=3');
    assert.deepEqual(
      second.map((r) => r.name),
      ['Role 001', 'Role 002', 'Role 003'],
      'ascending id: Analyst, Operator, Role 000 on page 1',
    );
    assert.ok(!(await roles()).some((r) => r.name.startsWith('Role ')), 'another workspace does not see them');
  });

  test('401 without a token; 403 for a role without collaborator_roles', async () => {
    assert.equal((await t.call('GET', '/api/roles', { token: null })).status, 401);
    const forbidden = await t.call('GET', '/api/roles', { token: noRoles });
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /collaborator_roles:read/);
    assert.equal((await t.call('GET', '/api/roles', { token: rolesReadOnly })).status, 200);
  });
});

describe('POST /api/roles/:role_id/copy', () => {
  test('copies privileges and folders of the source; the copy is listed', async () => {
    const operator = await roleNamed('Operator');
    const res = await t.call('POST', `/api/roles/${operator.id}/copy`, { body: { name: '  Night operator ' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Night operator');
    assert.notEqual(res.body.id, operator.id);
    assert.deepEqual(res.body.privileges, operator.privileges);
    assert.equal(res.body.all_folders, true);
    assert.deepEqual(res.body.folder_ids, []);
    assert.deepEqual(await roleNamed('Night operator'), res.body);
  });

  test('folder_ids (integers or strings) restrict the copy; a copy of a restricted role keeps its folders', async () => {
    const analyst = await roleNamed('Analyst');
    const a = await t.createProject('Finance');
    const b = await t.createProject('Sales');
    const res = await t.call('POST', `/api/roles/${analyst.id}/copy`, {
      body: { name: 'Finance analyst', folder_ids: [String(b.folderId), a.folderId, a.folderId] },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.all_folders, false);
    assert.deepEqual(res.body.folder_ids, [a.folderId, b.folderId]);
    const again = await t.call('POST', `/api/roles/${res.body.id}/copy`, { body: { name: 'Finance analyst 2' } });
    assert.deepEqual(again.body.folder_ids, [a.folderId, b.folderId]);
    assert.equal(again.body.all_folders, false);
  });

  test('422 for a taken name (any case) or the system role name; nothing is created', async () => {
    const analyst = await roleNamed('Analyst');
    const before = (await roles()).length;
    const dup = await t.call('POST', `/api/roles/${analyst.id}/copy`, { body: { name: 'OPERATOR' } });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.body, {
      message: 'Name has already been taken',
      errors: { name: ['has already been taken'] },
    });
    const system = await t.call('POST', `/api/roles/${analyst.id}/copy`, { body: { name: 'admin' } });
    assert.equal(system.status, 422);
    assert.deepEqual(system.body.errors, { name: ['is the name of a system role'] });
    assert.equal((await roles()).length, before);
  });

  test("404 for an unknown role and for another workspace's role", async () => {
    const other = await t.newWorkspace('Copy elsewhere');
    const theirs = (await t.call('GET', '/api/roles', { token: other.adminToken })).body[0];
    const before = (await roles()).length;
    for (const id of [999999, theirs.id]) {
      const res = await t.call('POST', `/api/roles/${id}/copy`, { body: { name: `Copy of ${id}` } });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { message: 'Not found' });
    }
    assert.equal((await roles()).length, before);
  });

  test('bad input: each a 400 naming the field, and nothing is created', async () => {
    const analyst = await roleNamed('Analyst');
    const testProject = await t.createProject('Test only', 'test');
    const before = await roles();
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: 12 }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'tab\there' }, 'name'],
      [{ name: 'x', folder_ids: 'all' }, 'folder_ids'],
      [{ name: 'x', folder_ids: ['abc'] }, 'folder_ids.0'],
      [{ name: 'x', folder_ids: [999999] }, 'folder_ids'],
      [{ name: 'x', folder_ids: [testProject.folderId] }, 'folder_ids'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', `/api/roles/${analyst.id}/copy`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)} -> ${res.text}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
    }
    for (const id of ['abc', '0', '-1', '1.5'])
      assert.equal((await t.call('POST', `/api/roles/${id}/copy`, { body: { name: 'x' } })).status, 400, id);
    assert.equal(
      (
        await t.call('POST', `/api/roles/${analyst.id}/copy`, {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', `/api/roles/${analyst.id}/copy`, {
          raw: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.deepEqual(await roles(), before);
  });

  test('401 without a token; 403 for a read-only role; nothing is created', async () => {
    const analyst = await roleNamed('Analyst');
    const before = (await roles()).length;
    assert.equal(
      (await t.call('POST', `/api/roles/${analyst.id}/copy`, { token: null, body: { name: 'anon' } })).status,
      401,
    );
    const forbidden = await t.call('POST', `/api/roles/${analyst.id}/copy`, {
      token: rolesReadOnly,
      body: { name: 'reader copy' },
    });
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /collaborator_roles:write/);
    assert.equal((await roles()).length, before);
  });

  test('a client limited to some projects may only name folders of its projects', async () => {
    const mine = await t.createProject('Scoped mine');
    const theirs = await t.createProject('Scoped theirs');
    await t.call('POST', '/api/developer_api_client_roles/1/copy', {
      body: { name: 'Role manager', privileges: ['collaborator_roles:read', 'collaborator_roles:write'] },
    });
    const { token: scoped } = await t.scopedClient([mine.folderId], 'Role manager');
    const analyst = await roleNamed('Analyst');
    const before = (await roles()).length;
    const all = await t.call('POST', `/api/roles/${analyst.id}/copy`, { token: scoped, body: { name: 'Scoped all' } });
    assert.equal(all.status, 403);
    const outside = await t.call('POST', `/api/roles/${analyst.id}/copy`, {
      token: scoped,
      body: { name: 'Scoped outside', folder_ids: [theirs.folderId] },
    });
    assert.equal(outside.status, 400);
    assert.ok(outside.body.errors.folder_ids);
    assert.equal((await roles()).length, before);
    const inside = await t.call('POST', `/api/roles/${analyst.id}/copy`, {
      token: scoped,
      body: { name: 'Scoped inside', folder_ids: [mine.folderId] },
    });
    assert.equal(inside.status, 200);
    assert.deepEqual(inside.body.folder_ids, [mine.folderId]);
  });

  test('a deleted folder drops out of the roles that named it (the role does not widen)', async () => {
    const analyst = await roleNamed('Analyst');
    const doomed = await t.createProject('Doomed');
    const copy = await t.call('POST', `/api/roles/${analyst.id}/copy`, {
      body: { name: 'Doomed analyst', folder_ids: [doomed.folderId] },
    });
    await t.ctx.db.deleteFrom('projects').where('id', '=', doomed.projectId).execute();
    await t.ctx.db.deleteFrom('folders').where('id', '=', doomed.folderId).execute();
    const after = await roleNamed('Doomed analyst');
    assert.equal(after.id, copy.body.id);
    assert.deepEqual(after.folder_ids, []);
    assert.equal(after.all_folders, false);
  });
});

describe('PUT /api/roles/:role_id', () => {
  async function freshRole(name: string): Promise<Role> {
    const analyst = await roleNamed('Analyst');
    const res = await t.call('POST', `/api/roles/${analyst.id}/copy`, { body: { name } });
    assert.equal(res.status, 200);
    return res.body;
  }

  test('all_folders as the documented string, or a boolean; folder_ids alone restricts', async () => {
    const role = await freshRole('Put target');
    const p = await t.createProject('Put project');
    const restricted = await t.call('PUT', `/api/roles/${role.id}`, {
      body: { all_folders: 'false', folder_ids: [String(p.folderId)] },
    });
    assert.equal(restricted.status, 200);
    assert.equal(restricted.body.all_folders, false);
    assert.deepEqual(restricted.body.folder_ids, [p.folderId]);
    assert.deepEqual(await roleNamed('Put target'), restricted.body);

    const keep = await t.call('PUT', `/api/roles/${role.id}`, { body: { all_folders: false } });
    assert.deepEqual(keep.body.folder_ids, [p.folderId], 'all_folders false alone keeps the list');

    const all = await t.call('PUT', `/api/roles/${role.id}`, {
      body: { all_folders: 'true', folder_ids: [p.folderId] },
    });
    assert.equal(all.body.all_folders, true);
    assert.deepEqual(all.body.folder_ids, [], '"true" clears folder_ids');

    const q = await t.createProject('Put project 2');
    const only = await t.call('PUT', `/api/roles/${role.id}`, { body: { folder_ids: [q.folderId, p.folderId] } });
    assert.equal(only.body.all_folders, false);
    assert.deepEqual(
      only.body.folder_ids,
      [p.folderId, q.folderId].sort((x, y) => x - y),
    );
    assert.equal(only.body.name, 'Put target');
    assert.deepEqual(only.body.privileges, role.privileges);
  });

  test('bad input, unknown folders, 404s, 401 and 403 change nothing', async () => {
    const role = await freshRole('Put unchanged');
    const before = await roles();
    const testProject = await t.createProject('Put test env', 'test');
    const cases: Array<[unknown, string]> = [
      [{}, 'all_folders'],
      [{ all_folders: 'maybe' }, 'all_folders'],
      [{ all_folders: 1 }, 'all_folders'],
      [{ folder_ids: [999999] }, 'folder_ids'],
      [{ folder_ids: [testProject.folderId] }, 'folder_ids'],
      [{ folder_ids: 5 }, 'folder_ids'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('PUT', `/api/roles/${role.id}`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.text}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
    }
    const other = await t.newWorkspace('Put elsewhere');
    const theirs = (await t.call('GET', '/api/roles', { token: other.adminToken })).body[0];
    assert.equal((await t.call('PUT', `/api/roles/${theirs.id}`, { body: { all_folders: 'true' } })).status, 404);
    assert.equal((await t.call('PUT', '/api/roles/999999', { body: { all_folders: 'true' } })).status, 404);
    assert.equal((await t.call('PUT', '/api/roles/abc', { body: { all_folders: 'true' } })).status, 400);
    assert.equal(
      (await t.call('PUT', `/api/roles/${role.id}`, { token: null, body: { all_folders: 'false' } })).status,
      401,
    );
    assert.equal(
      (await t.call('PUT', `/api/roles/${role.id}`, { token: rolesReadOnly, body: { all_folders: 'false' } })).status,
      403,
    );
    assert.equal(
      (await t.call('PUT', `/api/roles/${role.id}`, { raw: '{', headers: { 'content-type': 'application/json' } }))
        .status,
      400,
    );
    assert.deepEqual(await roles(), before);
  });
});

describe('migration 0005_roles_invitations', () => {
  test('existing workspaces get the seed roles Analyst and Operator', async () => {
    const db = openSqlite(':memory:');
    try {
      const onlyFoundation = new Migrator({
        db,
        provider: { getMigrations: async () => ({ '0001_foundation': { up: (k) => foundation.up(k, 'sqlite') } }) },
      });
      assert.equal((await onlyFoundation.migrateToLatest()).error, undefined);
      const now = toStored(new Date());
      const first = await insertWorkspace(db, {
        name: 'Old one',
        companyName: null,
        ownerEmail: 'a@example.com',
        planId: 'self_hosted',
        now,
      });
      const second = await insertWorkspace(db, {
        name: 'Old two',
        companyName: null,
        ownerEmail: 'b@example.com',
        planId: 'self_hosted',
        now,
      });
      assert.ok((await migrateToLatest(db, 'sqlite')).includes('0005_roles_invitations'));
      for (const workspace of [first, second]) {
        const rows = await db
          .selectFrom('collaborator_roles')
          .select(['name', 'all_folders'])
          .where('workspace_id', '=', workspace.id)
          .orderBy('id')
          .execute();
        assert.deepEqual(
          rows.map((r) => ({ ...r })),
          [
            { name: 'Analyst', all_folders: 1 },
            { name: 'Operator', all_folders: 1 },
          ],
        );
      }
    } finally {
      await db.destroy();
    }
  });
});

describe('PUT /api/roles/:role_id by a caller limited to some projects', () => {
  test('a role reaching all folders or other projects is not touched (403, unchanged); one within its projects is', async () => {
    const mine = await t.createProject('Put scope mine');
    const theirs = await t.createProject('Put scope theirs');
    const managerCopy = await t.call('POST', '/api/developer_api_client_roles/1/copy', {
      body: { name: 'Scoped role putter', privileges: ['collaborator_roles:read', 'collaborator_roles:write'] },
    });
    assert.equal(managerCopy.status, 200);
    const client = await t.call('POST', '/api/developer_api_clients', {
      body: {
        name: 'scoped role putter',
        api_privilege_group_id: managerCopy.body.result.id,
        all_folders: false,
        folder_ids: [mine.folderId],
      },
    });
    const scoped = client.body.result.token.value as string;
    const analyst = await roleNamed('Analyst');
    const wide = (await t.call('POST', `/api/roles/${analyst.id}/copy`, { body: { name: 'Put scope wide' } }))
      .body as Role;
    const other = (
      await t.call('POST', `/api/roles/${analyst.id}/copy`, {
        body: { name: 'Put scope other', folder_ids: [theirs.folderId] },
      })
    ).body as Role;
    const own = (
      await t.call('POST', `/api/roles/${analyst.id}/copy`, {
        body: { name: 'Put scope own', folder_ids: [mine.folderId] },
      })
    ).body as Role;

    for (const target of [wide, other]) {
      const res = await t.call('PUT', `/api/roles/${target.id}`, {
        token: scoped,
        body: { folder_ids: [mine.folderId] },
      });
      assert.equal(res.status, 403, target.name);
      assert.match(res.body.message, /^Forbidden: the role reaches/);
      assert.deepEqual(await roleNamed(target.name), target, `${target.name} unchanged`);
    }
    const ok = await t.call('PUT', `/api/roles/${own.id}`, { token: scoped, body: { all_folders: false } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.folder_ids, [mine.folderId]);
  });
});
