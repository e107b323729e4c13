import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type Reply, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, startRecipe, webhookTrigger } from '../../../test/recipes.ts';

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

describe('PUT /api/folders/:folder_id', () => {
  test('renames a folder; renaming a project folder renames the project', async () => {
    const p = await project('Rename project');
    const sub = await folder('Old name', p.id);
    const renamed = await t.call('PUT', `/api/folders/${sub.id}`, { body: { name: ' New name ' } });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'New name');
    assert.equal(renamed.body.parent_id, p.id);
    assert.deepEqual((await t.call('GET', `/api/folders/${sub.id}`)).body, renamed.body);
    const renamedProject = await t.call('PUT', `/api/folders/${p.id}`, { body: { name: 'Renamed project' } });
    assert.equal(renamedProject.status, 200);
    assert.equal(renamedProject.body.is_project, true);
    const listed = (await t.call('GET', '/api/projects')).body.find((x: { id: number }) => x.id === p.project_id);
    assert.equal(listed.name, 'Renamed project');
    assert.equal(
      (await t.call('PUT', `/api/folders/${sub.id}`, { body: { name: 'new NAME' } })).status,
      200,
      'a change of case of its own name is no clash',
    );
  });

  test('moves a folder within its project and into another project, with its sub-folders', async () => {
    const p1 = await project('Move source');
    const p2 = await project('Move target');
    const a = await folder('Mover', p1.id);
    const child = await folder('Mover child', a.id);
    const b = await folder('Landing', p1.id);
    const within = await t.call('PUT', `/api/folders/${a.id}`, { body: { parent_id: b.id } });
    assert.equal(within.status, 200);
    assert.equal(within.body.parent_id, b.id);
    assert.equal(within.body.project_id, p1.project_id);
    const across = await t.call('PUT', `/api/folders/${a.id}`, { body: { parent_id: String(p2.id), name: 'Moved' } });
    assert.equal(across.status, 200);
    assert.equal(across.body.parent_id, p2.id);
    assert.equal(across.body.name, 'Moved');
    assert.equal(across.body.project_id, p2.project_id);
    assert.equal(
      (await t.call('GET', `/api/folders/${child.id}`)).body.project_id,
      p2.project_id,
      'sub-folders follow',
    );
    assert.deepEqual(
      (await t.call('GET', `/api/folders?parent_id=${p1.id}&with_nested_folders=true`)).body.map(
        (f: FolderBody) => f.id,
      ),
      [b.id],
    );
  });

  test('400 for impossible moves and bad input, 422 for a name clash; nothing changes', async () => {
    const p = await project('Move rules');
    const other = await project('Move rules other');
    const a = await folder('Rule A', p.id);
    const a1 = await folder('Rule A1', a.id);
    const a2 = await folder('Rule A2', a1.id);
    await folder('Rule B', p.id);
    await folder('rule a', other.id);
    const before = await snapshot();
    const cases: [number, unknown, number, string | RegExp][] = [
      [a.id, { parent_id: a.id }, 400, 'A folder cannot be moved into itself'],
      [a.id, { parent_id: a2.id }, 400, 'A folder cannot be moved into one of its own sub-folders'],
      [a.id, { parent_id: a1.id }, 400, 'A folder cannot be moved into one of its own sub-folders'],
      [a.id, { parent_id: null }, 400, /top level/],
      [a.id, { parent_id: homeId }, 400, /top level/],
      [p.id, { parent_id: other.id }, 400, 'A project cannot be moved into a folder'],
      [homeId, { name: 'My home' }, 400, 'The Home folder cannot be renamed or moved'],
      [a.id, {}, 400, 'Nothing to update'],
      [a.id, { nmae: 'typo' }, 400, 'Nothing to update'],
      [a.id, { name: '' }, 400, /blank/],
      [a.id, { name: 7 }, 400, /name/],
      [a.id, { parent_id: 'x' }, 400, /parent_id/],
      [a.id, { name: 'rule b' }, 422, 'Name has already been taken'],
      [a.id, { parent_id: other.id }, 422, 'Name has already been taken'],
      [p.id, { name: 'MOVE RULES OTHER' }, 422, 'Name has already been taken'],
    ];
    for (const [id, body, status, message] of cases) {
      const res = await t.call('PUT', `/api/folders/${id}`, { body });
      assert.equal(res.status, status, `${id} ${JSON.stringify(body)}: ${res.text}`);
      if (typeof message === 'string') assert.equal(res.body.message, message);
      else assert.match(res.body.message, message);
    }
    const malformed = await t.call('PUT', `/api/folders/${a.id}`, {
      raw: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(
      (await t.call('PUT', `/api/folders/${a.id}`, { raw: 'name=x', headers: { 'content-type': 'text/plain' } }))
        .status,
      415,
    );
    assert.equal((await t.call('PUT', `/api/folders/${a.id}`)).status, 400, 'no body');
    assert.deepEqual(await snapshot(), before);
    // Moving a project "to the top level" leaves it where it is.
    assert.equal((await t.call('PUT', `/api/folders/${p.id}`, { body: { parent_id: homeId } })).body.parent_id, homeId);
  });

  test('404 unknown, other environment or workspace, target out of reach; nothing changes', async () => {
    const p = await project('Put 404');
    const sub = await folder('Put 404 sub', p.id);
    const testToken = await t.tokenFor('Admin', 'test');
    const testProject = await project('Put 404 test env', testToken);
    const other = await t.newWorkspace('Put Co');
    const foreign = await project('Put foreign', other.adminToken);
    const hidden = await project('Put hidden');
    const { token: scoped } = await t.scopedClient([p.id]);
    const before = await snapshot();
    const cases: [number, unknown, string | undefined][] = [
      [999_999, { name: 'x' }, undefined],
      [testProject.id, { name: 'x' }, undefined],
      [foreign.id, { name: 'x' }, undefined],
      [sub.id, { parent_id: testProject.id }, undefined],
      [sub.id, { parent_id: foreign.id }, undefined],
      [sub.id, { parent_id: 999_999 }, undefined],
      [sub.id, { parent_id: hidden.id }, scoped],
      [hidden.id, { name: 'Taken over' }, scoped],
    ];
    for (const [id, body, token] of cases) {
      const res = await t.call('PUT', `/api/folders/${id}`, { body, ...(token ? { token } : {}) });
      assert.equal(res.status, 404, `${id} ${JSON.stringify(body)}`);
    }
    assert.equal(
      (await t.call('PUT', `/api/folders/${sub.id}`, { token: testToken, body: { name: 'x' } })).status,
      404,
    );
    assert.equal((await t.call('PUT', '/api/folders/abc', { body: { name: 'x' } })).status, 400);
    assert.deepEqual(await snapshot(), before);
    assert.equal(
      (await t.call('PUT', `/api/folders/${sub.id}`, { token: scoped, body: { name: 'Scoped rename' } })).status,
      200,
    );
  });

  test('401 without a token; 403 for a read-only role; nothing changes', async () => {
    const p = await project('Put auth');
    const before = await snapshot();
    assert.equal((await t.call('PUT', `/api/folders/${p.id}`, { token: null, body: { name: 'x' } })).status, 401);
    assert.equal(
      (await t.call('PUT', `/api/folders/${p.id}`, { token: await t.tokenFor('Read only'), body: { name: 'x' } }))
        .status,
      403,
    );
    assert.deepEqual((await snapshot()).folders, before.folders);
  });
});

describe('DELETE /api/folders/:folder_id', () => {
  test('deletes a folder with its sub-folders; the rest of the project stays', async () => {
    const p = await project('Delete within');
    const doomed = await folder('Doomed', p.id);
    const doomedChild = await folder('Doomed child', doomed.id);
    const doomedGrandchild = await folder('Doomed grandchild', doomedChild.id);
    const keeper = await folder('Keeper', p.id);
    const res = await t.call('DELETE', `/api/folders/${doomed.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    for (const id of [doomed.id, doomedChild.id, doomedGrandchild.id])
      assert.equal((await t.call('GET', `/api/folders/${id}`)).status, 404);
    assert.deepEqual(
      (await t.call('GET', `/api/folders?parent_id=${p.id}&with_nested_folders=true`)).body.map(
        (f: FolderBody) => f.id,
      ),
      [keeper.id],
    );
    assert.equal((await t.call('DELETE', `/api/folders/${doomed.id}`)).status, 404, 'gone');
  });

  test('422 while a recipe anywhere below is running, nothing deleted; once it is stopped, the folder goes with its recipes', async () => {
    const p = await project('Delete with recipes');
    const doomed = await folder('Has a running recipe', p.id);
    const deep = await folder('Deep inside', (await folder('Inside', doomed.id)).id);
    const running = await createRecipe(t, webhookTrigger([log('note', 'hello')]), { folder_id: deep.id });
    const stopped = await createRecipe(t, webhookTrigger([log('note', 'hello')]), { folder_id: doomed.id });
    await startRecipe(t, running);
    const before = await snapshot();
    const refused = await t.call('DELETE', `/api/folders/${doomed.id}`);
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body, { message: 'Folder contains running recipes' });
    assert.deepEqual(await snapshot(), before);
    assert.equal((await t.call('GET', `/api/recipes/${running}`)).body.running, true, 'the recipe still runs');
    assert.equal((await t.call('PUT', `/api/recipes/${running}/stop`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/folders/${doomed.id}`)).status, 200);
    for (const id of [running, stopped]) assert.equal((await t.call('GET', `/api/recipes/${id}`)).status, 404);
  });

  test('400 for a project folder and for Home; nothing is deleted', async () => {
    const p = await project('Not via folders');
    await folder('Inside a project', p.id);
    const before = await snapshot();
    const res = await t.call('DELETE', `/api/folders/${p.id}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { message: 'Use DELETE /api/projects/:project_id to delete a project' });
    const home = await t.call('DELETE', `/api/folders/${homeId}`);
    assert.equal(home.status, 400);
    assert.equal(home.body.message, 'The Home folder cannot be deleted');
    assert.deepEqual(await snapshot(), before);
  });

  test('404 unknown, other environment or workspace, out of scope; 400 bad id; 401; 403; nothing is deleted', async () => {
    const p = await project('Delete guard');
    const sub = await folder('Guarded', p.id);
    const testToken = await t.tokenFor('Admin', 'test');
    const other = await t.newWorkspace('Delete Co');
    const { token: scoped } = await t.scopedClient([(await project('Delete elsewhere')).id]);
    const readOnly = await t.tokenFor('Read only');
    const before = await snapshot();
    assert.equal((await t.call('DELETE', '/api/folders/999999')).status, 404);
    for (const token of [testToken, other.adminToken, scoped])
      assert.equal((await t.call('DELETE', `/api/folders/${sub.id}`, { token })).status, 404);
    assert.equal((await t.call('DELETE', '/api/folders/abc')).status, 400);
    assert.equal((await t.call('DELETE', `/api/folders/${sub.id}`, { token: null })).status, 401);
    assert.equal((await t.call('DELETE', `/api/folders/${sub.id}`, { token: readOnly })).status, 403);
    assert.deepEqual(await snapshot(), before);
  });
});
