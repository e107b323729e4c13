import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type Reply, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let homeId: number;

before(async () => {
  t = await createTestApp();
  homeId = (await t.call('GET', '/api/users/me')).body.root_folder_id;
});
after(() => t.close());

interface FolderBody {
  id: number;
  name: string;
  parent_id: number | null;
  is_project: boolean;
  project_id: number | null;
  created_at: string;
  updated_at: string;
}

async function post(body: unknown, token?: string): Promise<Reply> {
  return t.call('POST', '/api/folders', { body, ...(token ? { token } : {}) });
}

async function project(name: string, token?: string): Promise<FolderBody> {
  const res = await post({ name }, token);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function folder(name: string, parentId: number, token?: string): Promise<FolderBody> {
  const res = await post({ name, parent_id: parentId }, token);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Every folder and project row of the server, to show that a refused call changed nothing. */
async function snapshot() {
  const folders = await t.ctx.db.selectFrom('folders').selectAll().orderBy('id').execute();
  const projects = await t.ctx.db.selectFrom('projects').selectAll().orderBy('id').execute();
  return { folders, projects };
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

describe('POST /api/folders', () => {
  test('without a parent creates a project: a folder under Home plus a project with its own id', async () => {
    const res = await post({ name: '  Procurement  ' });
    assert.equal(res.status, 200);
    const created = res.body;
    assert.deepEqual(Object.keys(created), [
      'id',
      'name',
      'parent_id',
      'is_project',
      'project_id',
      'created_at',
      'updated_at',
    ]);
    assert.equal(created.name, 'Procurement', 'trimmed');
    assert.equal(created.parent_id, homeId);
    assert.equal(created.is_project, true);
    assert.equal(typeof created.project_id, 'number');
    assert.notEqual(created.project_id, created.id, 'the project id differs from its folder id');
    assert.match(created.created_at, TIMESTAMP);
    const projects = (await t.call('GET', '/api/projects')).body;
    assert.deepEqual(
      projects.find((p: { id: number }) => p.id === created.project_id),
      { id: created.project_id, description: '', folder_id: created.id, name: 'Procurement', color: null, icon: null },
    );
    assert.deepEqual((await t.call('GET', `/api/folders/${created.id}`)).body, created);
  });

  test('with the Home folder as parent (integer or string) it creates a project too', async () => {
    for (const [i, parent_id] of [homeId, String(homeId), null].entries()) {
      const res = await post({ name: `Home child ${i}`, parent_id });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.is_project, true);
      assert.equal(res.body.parent_id, homeId);
    }
  });

  test('with a parent creates a sub-folder of the same project, at any depth; parent_id may be a string', async () => {
    const p = await project('Invoicing');
    const sub = await post({ name: 'Inbound', parent_id: String(p.id) });
    assert.equal(sub.status, 200);
    assert.equal(sub.body.parent_id, p.id);
    assert.equal(sub.body.is_project, false);
    assert.equal(sub.body.project_id, p.project_id);
    const deep = await folder('Archive', sub.body.id);
    assert.equal(deep.project_id, p.project_id);
    assert.equal(deep.parent_id, sub.body.id);
    assert.ok(
      !(await t.call('GET', '/api/projects')).body.some((x: { folder_id: number }) => x.folder_id === sub.body.id),
      'a sub-folder is no project',
    );
  });

  test('422 for a sibling with the same name (case-insensitive, after trimming); nothing is created', async () => {
    const p = await project('Sales ops');
    await folder('Leads', p.id);
    const before = await snapshot();
    for (const body of [
      { name: 'sales OPS' },
      { name: ' Sales ops ', parent_id: homeId },
      { name: 'LEADS', parent_id: p.id },
      { name: 'Leads ', parent_id: String(p.id) },
    ]) {
      const res = await post(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.body, {
        message: 'Name has already been taken',
        errors: { name: ['has already been taken'] },
      });
    }
    assert.deepEqual(await snapshot(), before);
    // The same name elsewhere is fine: another parent, or another environment.
    const other = await project('Sales ops 2');
    assert.equal((await post({ name: 'Leads', parent_id: other.id })).status, 200);
    assert.equal((await post({ name: 'Sales ops' }, await t.tokenFor('Admin', 'test'))).status, 200);
  });

  test('concurrent creates of one name: the database lets exactly one through', async () => {
    const replies = await Promise.all(Array.from({ length: 5 }, () => post({ name: 'Race' })));
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 422, 422, 422, 422]);
    assert.equal((await t.call('GET', '/api/folders')).body.filter((f: FolderBody) => f.name === 'Race').length, 1);
  });

  test('404 for a parent that is unknown, in another environment or in another workspace; nothing is created', async () => {
    const testToken = await t.tokenFor('Admin', 'test');
    const testProject = await project('Test-only project', testToken);
    const other = await t.newWorkspace('Foreign Co');
    const foreignProject = await project('Foreign project', other.adminToken);
    const before = await snapshot();
    for (const parent_id of [999_999, testProject.id, foreignProject.id]) {
      const res = await post({ name: 'Stray', parent_id });
      assert.equal(res.status, 404, String(parent_id));
      assert.equal(res.body.message, 'Parent folder not found');
    }
    // Nor can another environment use this environment's Home folder as a parent.
    assert.equal((await post({ name: 'Stray', parent_id: homeId }, testToken)).status, 404);
    assert.deepEqual(await snapshot(), before);
  });

  test('400 for bad input, 415 for a body that is not JSON; nothing is created', async () => {
    const p = await project('Validation');
    const before = await snapshot();
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: null }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'line\nbreak', parent_id: p.id }, 'name'],
      [{ name: 'nul\u0000', parent_id: p.id }, 'name'],
      [{ name: 'ok', parent_id: true }, 'parent_id'],
      [{ name: 'ok', parent_id: 'abc' }, 'parent_id'],
      [{ name: 'ok', parent_id: 1.5 }, 'parent_id'],
      [{ name: 'ok', parent_id: 0 }, 'parent_id'],
      [{ name: 'ok', parent_id: '' }, 'parent_id'],
      [[{ name: 'array body' }], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
      assert.ok(res.body.message);
      assert.ok(res.body.errors[field], `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal((await post({ name: 'x'.repeat(255), parent_id: p.id })).status, 200, '255 characters fit');
    const afterLongName = await snapshot();
    const malformed = await t.call('POST', '/api/folders', {
      raw: '{"name": "x"',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
    const form = await t.call('POST', '/api/folders', {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.match(form.body.message, /Unsupported Content-Type/);
    assert.equal((await t.call('POST', '/api/folders')).status, 400, 'no body');
    assert.deepEqual(await snapshot(), afterLongName);
    assert.equal(afterLongName.folders.length, before.folders.length + 1);
  });

  test('401 without a token; 403 for a role without projects_folders:write; nothing is created', async () => {
    const before = await snapshot();
    const anonymous = await t.call('POST', '/api/folders', { token: null, body: { name: 'No token attempt' } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { message: 'Unauthorized' });
    const readOnly = await t.tokenFor('Read only');
    const denied = await post({ name: 'Read only attempt' }, readOnly);
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /projects_folders:write/);
    const reader = await t.tokenWith('Folder reader', ['projects_folders:read']);
    assert.equal((await post({ name: 'Reader attempt' }, reader)).status, 403);
    assert.deepEqual(await snapshot(), before);
  });

  test('a client limited to some projects creates folders only inside them, and no projects', async () => {
    const mine = await project('Scoped mine');
    const theirs = await project('Scoped theirs');
    const { token } = await t.scopedClient([mine.id]);
    const before = await snapshot();
    const newProject = await post({ name: 'Scoped new project' }, token);
    assert.equal(newProject.status, 403);
    assert.match(newProject.body.message, /all_folders/);
    assert.equal((await post({ name: 'Intrusion', parent_id: theirs.id }, token)).status, 404);
    assert.deepEqual(await snapshot(), before);
    const inside = await folder('Inside', mine.id, token);
    assert.equal(inside.project_id, mine.project_id);
    assert.equal((await folder('Deeper', inside.id, token)).project_id, mine.project_id);
  });
});

describe('GET /api/folders', () => {
  test('without parent_id lists the projects under Home by name (case-insensitive), then id; a bare array', async () => {
    const other = await t.newWorkspace('Listing Co');
    for (const name of ['beta', 'Alpha', 'gamma', 'Delta']) await project(name, other.adminToken);
    const p = (await t.call('GET', '/api/folders', { token: other.adminToken })).body;
    assert.ok(Array.isArray(p));
    assert.deepEqual(
      p.map((f: FolderBody) => f.name),
      ['Alpha', 'beta', 'Delta', 'gamma'],
    );
    assert.ok(p.every((f: FolderBody) => f.is_project && f.parent_id !== null));
    await folder('Sub of alpha', p[0].id, other.adminToken);
    const again = (await t.call('GET', '/api/folders', { token: other.adminToken })).body;
    assert.equal(again.length, 4, 'sub-folders are not listed at the top');
    const explicitHome = (
      await t.call('GET', `/api/folders?parent_id=${again[0].parent_id}`, { token: other.adminToken })
    ).body;
    assert.deepEqual(explicitHome, again);
    assert.deepEqual(
      (await t.call('GET', '/api/folders?parent_id=', { token: other.adminToken })).body,
      again,
      'an empty parent_id means Home',
    );
  });

  test('parent_id lists direct children; with_nested_folders=true every descendant, flattened and ordered', async () => {
    const p = await project('Tree');
    const b = await folder('b-branch', p.id);
    const a = await folder('A-branch', p.id);
    const leaf = await folder('a-leaf', b.id);
    const children = (await t.call('GET', `/api/folders?parent_id=${p.id}`)).body;
    assert.deepEqual(
      children.map((f: FolderBody) => f.id),
      [a.id, b.id],
    );
    const nested = (await t.call('GET', `/api/folders?parent_id=${p.id}&with_nested_folders=true`)).body;
    assert.deepEqual(
      nested.map((f: FolderBody) => f.id),
      [a.id, leaf.id, b.id],
      'A-branch, a-leaf, b-branch',
    );
    assert.deepEqual((await t.call('GET', `/api/folders?parent_id=${p.id}&with_nested_folders=1`)).body, nested);
    assert.deepEqual((await t.call('GET', `/api/folders?parent_id=${p.id}&with_nested_folders=false`)).body, children);
    assert.deepEqual((await t.call('GET', `/api/folders?parent_id=${leaf.id}`)).body, []);
    const everything = (await t.call('GET', '/api/folders?with_nested_folders=true&per_page=100')).body;
    for (const id of [p.id, a.id, b.id, leaf.id]) assert.ok(everything.some((f: FolderBody) => f.id === id));
    assert.ok(!everything.some((f: FolderBody) => f.id === homeId), 'Home itself is not its own descendant');
  });

  test('pages with page/per_page; junk paging falls back to defaults; past the end is []', async () => {
    const p = await project('Paging');
    const ids: number[] = [];
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) ids.push((await folder(name, p.id)).id);
    const page = async (q: string) =>
      (await t.call('GET', `/api/folders?parent_id=${p.id}&${q}`)).body.map((f: FolderBody) => f.id);
    assert.deepEqual(await page('per_page=2'), ids.slice(0, 2));
    assert.deepEqual(await page('per_page=2&page=2'), ids.slice(2, 4));
    assert.deepEqual(await page('per_page=2&page=3'), ids.slice(4));
    assert.deepEqual(await page('per_page=2&page=4'), []);
    assert.deepEqual(await page('page=0&per_page=500'), ids);
    assert.deepEqual(await page('page=abc&per_page=-1'), ids);
  });

  test('a client limited to some projects sees only those, at the top and nested', async () => {
    const mine = await project('Visible project');
    const theirs = await project('Hidden project');
    const inMine = await folder('Visible sub', mine.id);
    const inTheirs = await folder('Hidden sub', theirs.id);
    const { token } = await t.scopedClient([mine.id]);
    assert.deepEqual(
      (await t.call('GET', '/api/folders', { token })).body.map((f: FolderBody) => f.id),
      [mine.id],
    );
    assert.deepEqual(
      (await t.call('GET', '/api/folders?with_nested_folders=true', { token })).body.map((f: FolderBody) => f.id),
      [mine.id, inMine.id],
    );
    assert.equal((await t.call('GET', `/api/folders?parent_id=${theirs.id}`, { token })).status, 404);
    assert.equal((await t.call('GET', `/api/folders?parent_id=${inTheirs.id}`, { token })).status, 404);
  });

  test('each environment and workspace sees only its own folders; foreign parents are 404', async () => {
    const devProject = await project('Dev only');
    const testToken = await t.tokenFor('Admin', 'test');
    const testProject = await project('Test side', testToken);
    const testList = (await t.call('GET', '/api/folders', { token: testToken })).body;
    assert.ok(testList.some((f: FolderBody) => f.id === testProject.id));
    assert.ok(!testList.some((f: FolderBody) => f.id === devProject.id));
    assert.ok(!(await t.call('GET', '/api/folders')).body.some((f: FolderBody) => f.id === testProject.id));
    assert.equal((await t.call('GET', `/api/folders?parent_id=${testProject.id}`)).status, 404);
    const other = await t.newWorkspace('Isolated Co');
    assert.deepEqual((await t.call('GET', '/api/folders', { token: other.adminToken })).body, []);
    assert.equal(
      (await t.call('GET', `/api/folders?parent_id=${devProject.id}`, { token: other.adminToken })).status,
      404,
    );
  });

  test('400 for a non-numeric parent_id or an unreadable with_nested_folders; 404 for an unknown parent', async () => {
    for (const q of ['parent_id=abc', 'parent_id=-1', 'parent_id=1.5', 'parent_id=0', 'with_nested_folders=maybe']) {
      const res = await t.call('GET', `/api/folders?${q}`);
      assert.equal(res.status, 400, q);
      assert.ok(res.body.errors, q);
    }
    assert.equal((await t.call('GET', '/api/folders?parent_id=999999')).status, 404);
  });

  test('401 without a token; 403 for a role without projects_folders:read', async () => {
    assert.equal((await t.call('GET', '/api/folders', { token: null })).status, 401);
    const token = await t.tokenWith('No folders', ['environment_properties:read']);
    const res = await t.call('GET', '/api/folders', { token });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /projects_folders:read/);
    assert.equal((await t.call('GET', '/api/folders', { token: await t.tokenFor('Read only') })).status, 200);
  });
});

describe('GET /api/folders/:folder_id', () => {
  test('returns a folder; the Home folder has no parent and no project', async () => {
    const p = await project('Get me');
    const sub = await folder('Sub to get', p.id);
    assert.deepEqual((await t.call('GET', `/api/folders/${sub.id}`)).body, sub);
    const home = await t.call('GET', `/api/folders/${homeId}`);
    assert.equal(home.status, 200);
    assert.equal(home.body.name, 'Home');
    assert.equal(home.body.parent_id, null);
    assert.equal(home.body.is_project, false);
    assert.equal(home.body.project_id, null);
  });

  test('404 unknown, other environment, other workspace, out of scope; 400 non-numeric', async () => {
    const testProject = await project('Get other env', await t.tokenFor('Admin', 'test'));
    const other = await t.newWorkspace('Get Co');
    const foreign = await project('Foreign get', other.adminToken);
    const hidden = await project('Get hidden');
    const { token: scoped } = await t.scopedClient([(await project('Get visible')).id]);
    for (const [id, token] of [
      [999_999, undefined],
      [testProject.id, undefined],
      [foreign.id, undefined],
      [hidden.id, scoped],
    ] as const) {
      const res = await t.call('GET', `/api/folders/${id}`, token ? { token } : {});
      assert.equal(res.status, 404, String(id));
      assert.deepEqual(res.body, { message: 'Not found' });
    }
    assert.equal(
      (await t.call('GET', `/api/folders/${homeId}`, { token: scoped })).status,
      200,
      'Home is visible to every client',
    );
    for (const bad of ['abc', '1.5', '0', '-2', '99999999999999999999']) {
      const res = await t.call('GET', `/api/folders/${bad}`);
      assert.equal(res.status, 400, bad);
      assert.ok(res.body.errors.folder_id);
    }
  });

  test('401 without a token; 403 without projects_folders:read', async () => {
    assert.equal((await t.call('GET', `/api/folders/${homeId}`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', `/api/folders/${homeId}`, {
          token: await t.tokenWith('No folders either', ['workspace_details:read']),
        })
      ).status,
      403,
    );
  });
});
