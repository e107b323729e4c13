import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, startRecipe, webhookTrigger } from '../../../test/recipes.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

interface ProjectBody {
  id: number;
  description: string;
  folder_id: number;
  name: string;
  color: string | null;
  icon: string | null;
}

/** A project made the way a client makes one (POST /api/folders without a parent). */
async function project(name: string, token?: string): Promise<{ projectId: number; folderId: number }> {
  const res = await t.call('POST', '/api/folders', { body: { name }, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, res.text);
  return { projectId: res.body.project_id, folderId: res.body.id };
}

async function listed(token?: string): Promise<ProjectBody[]> {
  const res = await t.call('GET', '/api/projects?per_page=100', token ? { token } : {});
  assert.equal(res.status, 200);
  return res.body;
}

async function snapshot() {
  return {
    folders: await t.ctx.db.selectFrom('folders').selectAll().orderBy('id').execute(),
    projects: await t.ctx.db.selectFrom('projects').selectAll().orderBy('id').execute(),
    properties: await t.ctx.db.selectFrom('properties').selectAll().orderBy('id').execute(),
  };
}

/** The id of a project folder that is not itself the id of any project: a path that must 404. */
async function folderIdThatIsNoProjectId(): Promise<number> {
  const projectIds = new Set((await listed()).map((p) => p.id));
  const candidate = (await listed()).map((p) => p.folder_id).find((id) => !projectIds.has(id));
  assert.ok(candidate !== undefined);
  return candidate;
}

describe('GET /api/projects', () => {
  test('lists projects by ascending id as a bare array of { id, description, folder_id, name }', async () => {
    const b = await project('Zeta project');
    const a = await project('Alpha project');
    const res = await t.call('GET', '/api/projects');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    const mine = res.body.filter((p: ProjectBody) => [a.projectId, b.projectId].includes(p.id));
    assert.deepEqual(mine, [
      { id: b.projectId, description: '', folder_id: b.folderId, name: 'Zeta project', color: null, icon: null },
      { id: a.projectId, description: '', folder_id: a.folderId, name: 'Alpha project', color: null, icon: null },
    ]);
    const ids = res.body.map((p: ProjectBody) => p.id);
    assert.deepEqual(
      ids,
      [...ids].sort((x: number, y: number) => x - y),
    );
    // The duality: the folder's project_id is the project's id, the project's folder_id the folder's id.
    const folderOfA = (await t.call('GET', `/api/folders/${a.folderId}`)).body;
    assert.equal(folderOfA.project_id, a.projectId);
    assert.equal(folderOfA.is_project, true);
  });

  test('pages; junk paging falls back to defaults; past the end is []', async () => {
    const other = await t.newWorkspace('Paging Co');
    const made = [];
    for (const name of ['one', 'two', 'three']) made.push((await project(name, other.adminToken)).projectId);
    const page = async (q: string) =>
      (await t.call('GET', `/api/projects?${q}`, { token: other.adminToken })).body.map((p: ProjectBody) => p.id);
    assert.deepEqual(await page('per_page=2'), made.slice(0, 2));
    assert.deepEqual(await page('per_page=2&page=2'), made.slice(2));
    assert.deepEqual(await page('per_page=2&page=3'), []);
    assert.deepEqual(await page('page=0&per_page=500'), made);
    assert.deepEqual(await page('page=x&per_page=y'), made);
  });

  test('a client limited to some projects lists only those; other environments and workspaces are apart', async () => {
    const visible = await project('Listed for scoped');
    await project('Not listed for scoped');
    const { token } = await t.scopedClient([visible.folderId]);
    assert.deepEqual(
      (await listed(token)).map((p) => p.id),
      [visible.projectId],
    );
    const testToken = await t.tokenFor('Admin', 'test');
    const testProject = await project('Test env project', testToken);
    assert.deepEqual(
      (await listed(testToken)).map((p) => p.id),
      [testProject.projectId],
    );
    assert.ok(!(await listed()).some((p) => p.id === testProject.projectId));
    const other = await t.newWorkspace('Empty Co');
    assert.deepEqual(await listed(other.adminToken), []);
  });

  test('401 without a token; 403 for a role without projects_folders:read', async () => {
    assert.equal((await t.call('GET', '/api/projects', { token: null })).status, 401);
    const res = await t.call('GET', '/api/projects', {
      token: await t.tokenWith('Properties only', ['environment_properties:read']),
    });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /projects_folders:read/);
  });
});

describe('PUT /api/projects/:project_id', () => {
  test('updates name and description; the project folder is renamed too', async () => {
    const p = await project('Before rename');
    const res = await t.call('PUT', `/api/projects/${p.projectId}`, {
      body: { name: '  After rename ', description: 'Procure-to-pay automations' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: p.projectId,
      description: 'Procure-to-pay automations',
      folder_id: p.folderId,
      name: 'After rename',
      color: null,
      icon: null,
    });
    assert.equal((await t.call('GET', `/api/folders/${p.folderId}`)).body.name, 'After rename');
    const partial = await t.call('PUT', `/api/projects/${p.projectId}`, { body: { description: '' } });
    assert.deepEqual(partial.body, {
      id: p.projectId,
      description: '',
      folder_id: p.folderId,
      name: 'After rename',
      color: null,
      icon: null,
    });
    assert.deepEqual(
      (await listed()).find((x) => x.id === p.projectId),
      partial.body,
    );
  });

  test('sets and clears the colour and icon; a package imported into the project sets them too', async () => {
    const p = await project('Colourful');
    const set = await t.call('PUT', `/api/projects/${p.projectId}`, { body: { color: ' blue ', icon: 'rocket' } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.body.color, set.body.icon, set.body.description], ['blue', 'rocket', '']);
    const onlyIcon = await t.call('PUT', `/api/projects/${p.projectId}`, { body: { icon: 'gear' } });
    assert.deepEqual([onlyIcon.body.color, onlyIcon.body.icon], ['blue', 'gear'], 'a field not sent is not changed');
    assert.deepEqual(
      (await listed()).find((x) => x.id === p.projectId),
      onlyIcon.body,
    );
    const cleared = await t.call('PUT', `/api/projects/${p.projectId}`, { body: { color: null, icon: '' } });
    assert.deepEqual([cleared.body.color, cleared.body.icon], [null, null]);
    const fits = await t.call('PUT', `/api/projects/${p.projectId}`, {
      body: { color: 'c'.repeat(40), icon: 'i'.repeat(100) },
    });
    assert.equal(fits.status, 200, '40 and 100 characters fit');

    // The vendor's project.json sets them on the project a package is imported into.
    const imported = await t.call('POST', `/api/packages/import/${p.folderId}`, {
      raw: await makeZip({ 'project.json': JSON.stringify({ description: 'Orders', color: 'green', icon: 'cart' }) }),
      headers: { 'content-type': 'application/zip' },
    });
    assert.equal(imported.status, 200, imported.text);
    assert.equal((await waitPackage(t, imported.body.id)).status, 'completed');
    const shown = (await listed()).find((x) => x.id === p.projectId);
    assert.deepEqual([shown?.description, shown?.color, shown?.icon], ['Orders', 'green', 'cart']);
  });

  test('422 for the name of another project (case-insensitive); 400 for bad input; nothing changes', async () => {
    const p = await project('Stable project');
    await project('Existing project');
    await t.call('PUT', `/api/projects/${p.projectId}`, { body: { description: 'kept' } });
    const before = await snapshot();
    const dup = await t.call('PUT', `/api/projects/${p.projectId}`, {
      body: { name: 'EXISTING project', description: 'not kept' },
    });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.body.errors, { name: ['has already been taken'] });
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ title: 'typo' }, 'body'],
      [{ name: '' }, 'name'],
      [{ name: 12 }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'tab\there' }, 'name'],
      [{ description: 5 }, 'description'],
      [{ description: null }, 'description'],
      [{ description: 'd'.repeat(1001) }, 'description'],
      [{ description: 'nul\u0000' }, 'description'],
      [{ color: 5 }, 'color'],
      [{ color: 'c'.repeat(41) }, 'color'],
      [{ color: 'line\nbreak' }, 'color'],
      [{ icon: ['rocket'] }, 'icon'],
      [{ icon: 'i'.repeat(101) }, 'icon'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('PUT', `/api/projects/${p.projectId}`, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.errors[field], `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal(
      (
        await t.call('PUT', `/api/projects/${p.projectId}`, {
          raw: '{"name"',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/projects/${p.projectId}`, {
          raw: '<name/>',
          headers: { 'content-type': 'application/xml' },
        })
      ).status,
      415,
    );
    assert.equal((await t.call('PUT', `/api/projects/${p.projectId}`)).status, 400);
    assert.equal((await t.call('PUT', '/api/projects/abc', { body: { name: 'x' } })).status, 400);
    assert.deepEqual(await snapshot(), before);
    assert.equal(
      (await t.call('PUT', `/api/projects/${p.projectId}`, { body: { description: 'd'.repeat(1000) } })).status,
      200,
      '1,000 characters fit',
    );
  });

  test('the path takes the project id: a folder id, another environment, another workspace or out of scope is 404', async () => {
    const p = await project('Path checks');
    const other = await t.newWorkspace('Put project Co');
    const foreign = await project('Foreign project', other.adminToken);
    const testToken = await t.tokenFor('Admin', 'test');
    const { token: scoped } = await t.scopedClient([(await project('Scoped editor project')).folderId]);
    const folderId = await folderIdThatIsNoProjectId();
    const before = await snapshot();
    for (const [id, token] of [
      [folderId, undefined],
      [999_999, undefined],
      [foreign.projectId, undefined],
      [p.projectId, testToken],
      [p.projectId, other.adminToken],
      [p.projectId, scoped],
    ] as const) {
      const res = await t.call('PUT', `/api/projects/${id}`, {
        body: { name: 'Hijacked' },
        ...(token ? { token } : {}),
      });
      assert.equal(res.status, 404, `${id}`);
      assert.deepEqual(res.body, { message: 'Not found' });
    }
    assert.deepEqual(await snapshot(), before);
  });

  test('401 without a token; 403 for a read-only role; nothing changes', async () => {
    const p = await project('Put auth project');
    const before = await snapshot();
    assert.equal(
      (await t.call('PUT', `/api/projects/${p.projectId}`, { token: null, body: { name: 'x' } })).status,
      401,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/projects/${p.projectId}`, {
          token: await t.tokenFor('Read only'),
          body: { name: 'x' },
        })
      ).status,
      403,
    );
    assert.deepEqual((await snapshot()).projects, before.projects);
  });
});

describe('DELETE /api/projects/:project_id', () => {
  test('403 while one of its recipes is running, nothing deleted; once it is stopped, the project goes with its recipes', async () => {
    const doomed = await project('Project with a running recipe');
    const sub = await t.call('POST', '/api/folders', { body: { name: 'Recipes here', parent_id: doomed.folderId } });
    const recipe = await createRecipe(t, webhookTrigger([log('note', 'hello')]), { folder_id: sub.body.id });
    await startRecipe(t, recipe);
    const refused = await t.call('DELETE', `/api/projects/${doomed.projectId}`);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, { message: 'Cannot destroy folder' });
    assert.ok((await listed()).some((p) => p.id === doomed.projectId));
    assert.equal((await t.call('GET', `/api/folders/${sub.body.id}`)).status, 200);
    assert.equal((await t.call('PUT', `/api/recipes/${recipe}/stop`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/projects/${doomed.projectId}`)).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${recipe}`)).status, 404);
  });

  test('deletes the project with its folders and properties; other projects stay', async () => {
    const doomed = await project('Doomed project');
    const keeper = await project('Keeper project');
    const sub = await t.call('POST', '/api/folders', { body: { name: 'Doomed sub', parent_id: doomed.folderId } });
    const deep = await t.call('POST', '/api/folders', { body: { name: 'Doomed deep', parent_id: sub.body.id } });
    for (const p of [doomed, keeper]) {
      assert.equal(
        (
          await t.call('POST', `/api/properties?project_id=${p.projectId}`, {
            body: { properties: { 'app.url': 'https://example.com' } },
          })
        ).status,
        200,
      );
    }
    const res = await t.call('DELETE', `/api/projects/${doomed.projectId}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.ok(!(await listed()).some((p) => p.id === doomed.projectId));
    for (const id of [doomed.folderId, sub.body.id, deep.body.id])
      assert.equal((await t.call('GET', `/api/folders/${id}`)).status, 404);
    assert.equal((await t.call('GET', `/api/properties?project_id=${doomed.projectId}`)).status, 404);
    const left = await t.ctx.db
      .selectFrom('properties')
      .select('project_id')
      .where('project_id', 'is not', null)
      .execute();
    assert.deepEqual(
      left.map((r) => r.project_id),
      [keeper.projectId],
    );
    assert.deepEqual((await t.call('GET', `/api/properties?project_id=${keeper.projectId}`)).body, {
      'app.url': 'https://example.com',
    });
    assert.equal((await t.call('DELETE', `/api/projects/${doomed.projectId}`)).status, 404, 'gone');
  });

  test('the project leaves the scope of clients limited to it; they keep their other projects', async () => {
    const doomed = await project('Scoped doomed');
    const kept = await project('Scoped kept');
    const client = await t.scopedClient([doomed.folderId, kept.folderId]);
    assert.equal(
      (await t.call('DELETE', `/api/projects/${doomed.projectId}`, { token: client.token })).status,
      200,
      'a client may delete a project in its scope',
    );
    const after = await t.call('GET', `/api/developer_api_clients/${client.id}`);
    assert.deepEqual(after.body.result.folder_ids, [kept.folderId]);
    assert.equal(after.body.result.all_folders, false);
    assert.deepEqual(
      (await listed(client.token)).map((p) => p.id),
      [kept.projectId],
    );
  });

  test('404 for a folder id, an unknown id, another environment or workspace, out of scope; nothing is deleted', async () => {
    const p = await project('Delete guard project');
    const other = await t.newWorkspace('Delete project Co');
    const testToken = await t.tokenFor('Admin', 'test');
    const { token: scoped } = await t.scopedClient([(await project('Delete guard other')).folderId]);
    const folderId = await folderIdThatIsNoProjectId();
    const before = await snapshot();
    for (const [id, token] of [
      [folderId, undefined],
      [999_999, undefined],
      [p.projectId, testToken],
      [p.projectId, other.adminToken],
      [p.projectId, scoped],
    ] as const) {
      const res = await t.call('DELETE', `/api/projects/${id}`, token ? { token } : {});
      assert.equal(res.status, 404, `${id}`);
    }
    assert.equal((await t.call('DELETE', '/api/projects/abc')).status, 400);
    assert.equal((await t.call('DELETE', '/api/projects/0')).status, 400);
    assert.deepEqual(await snapshot(), before);
  });

  test('401 without a token; 403 for a read-only role; nothing is deleted', async () => {
    const p = await project('Delete auth project');
    const before = await snapshot();
    assert.equal((await t.call('DELETE', `/api/projects/${p.projectId}`, { token: null })).status, 401);
    assert.equal(
      (await t.call('DELETE', `/api/projects/${p.projectId}`, { token: await t.tokenFor('Read only') })).status,
      403,
    );
    assert.deepEqual(await snapshot(), before);
  });
});
