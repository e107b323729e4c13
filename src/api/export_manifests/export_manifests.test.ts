import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { readZip } from '../packages/zip.ts';
import { createRecipe, webhookTrigger, log } from '../../../test/recipes.ts';

const ZIP_LIMITS = { maxEntries: 1_000, maxEntryBytes: 16 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

describe('export manifests', () => {
  let t: TestApp;
  let project: { folderId: number; projectId: number };
  let recipeId: number;
  before(async () => {
    t = await createTestApp();
    project = await t.createProject('Billing');
    recipeId = await createRecipe(t, webhookTrigger([log('a', 'x')]), {
      folder_id: project.folderId,
      name: 'Invoice sync',
    });
  });
  after(() => t.close());

  test('POST /api/export_manifests answers 201 with every key; GET shows it; PUT replaces the assets; DELETE archives it', async () => {
    const created = await t.call('POST', '/api/export_manifests', {
      body: {
        export_manifest: {
          name: 'billing-1.0',
          folder_id: project.folderId,
          assets: [{ id: recipeId, type: 'recipe' }],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const m = created.body.result;
    for (const key of [
      'id',
      'name',
      'folder_id',
      'last_exported_at',
      'created_at',
      'updated_at',
      'deleted_at',
      'project_path',
      'status',
    ])
      assert.ok(key in m, key);
    assert.equal(m.status, 'working');
    assert.equal(m.project_path, 'Billing');
    assert.equal(m.last_exported_at, null);
    assert.deepEqual(
      m.assets.map((a: { zip_name: string; status: string; name: string }) => [a.zip_name, a.status, a.name]),
      [['asset_0.recipe.json', 'added', 'Invoice sync']],
    );
    const got = await t.call('GET', `/api/export_manifests/${m.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.result, m);
    const put = await t.call('PUT', `/api/export_manifests/${m.id}`, {
      body: {
        export_manifest: {
          name: 'billing-1.1',
          assets: [{ id: recipeId, type: 'recipe', zip_name: 'flows/invoice.recipe.json', checked: true }],
        },
      },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.result.name, 'billing-1.1');
    assert.equal(put.body.result.assets[0].zip_name, 'flows/invoice.recipe.json');
    const del = await t.call('DELETE', `/api/export_manifests/${m.id}`);
    assert.deepEqual(del.body, { result: { success: true } });
    assert.equal((await t.call('GET', `/api/export_manifests/${m.id}`)).status, 404);
    assert.equal((await t.call('POST', `/api/packages/export/${m.id}`)).status, 404);
  });

  test('exporting a saved manifest again ships each recipe as it is then, unless the manifest pinned a version', async () => {
    const id = await createRecipe(t, webhookTrigger([log('a', 'first words')]), {
      folder_id: project.folderId,
      name: 'Changing recipe',
    });
    const exportOnce = async (manifestId: number) => {
      const started = await t.call('POST', `/api/packages/export/${manifestId}`);
      assert.equal(started.status, 200, started.text);
      const done = await waitPackage(t, started.body.id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const download = await t.app.inject({
        method: 'GET',
        url: `/api/packages/${started.body.id}/download`,
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
      const files = await readZip(download.rawPayload, ZIP_LIMITS);
      const name = [...files.keys()].find((n) => n.endsWith('changing_recipe.recipe.json'));
      return JSON.parse(String(files.get(name as string)));
    };
    const auto = await t.call('POST', '/api/export_manifests', {
      body: { export_manifest: { name: 'auto', folder_id: project.folderId, auto_generate_assets: true } },
    });
    const pinned = await t.call('POST', '/api/export_manifests', {
      body: {
        export_manifest: {
          name: 'pinned',
          folder_id: project.folderId,
          assets: [{ id, type: 'recipe', version: 1, zip_name: 'changing_recipe.recipe.json' }],
        },
      },
    });
    assert.equal(pinned.status, 201, pinned.text);
    assert.equal((await exportOnce(auto.body.result.id)).version, 1);
    const changed = await t.call('PUT', `/api/recipes/${id}`, {
      body: { recipe: { code: JSON.stringify(webhookTrigger([log('a', 'second words')])) } },
    });
    assert.deepEqual(changed.body, { success: true }, changed.text);
    const shown = await t.call('GET', `/api/export_manifests/${auto.body.result.id}`);
    const asset = shown.body.result.assets.find(
      (a: { id: number; type: string }) => a.id === id && a.type === 'recipe',
    );
    assert.deepEqual([asset.version, asset.status, 'version_pinned' in asset], [2, 'updated', false]);
    const again = await exportOnce(auto.body.result.id);
    assert.equal(again.version, 2);
    assert.match(JSON.stringify(again.code), /second words/);
    const old = await exportOnce(pinned.body.result.id);
    assert.equal(old.version, 1);
    assert.match(JSON.stringify(old.code), /first words/);
  });

  test('auto_run starts the export at once and returns its package_id', async () => {
    const created = await t.call('POST', '/api/export_manifests', {
      body: {
        export_manifest: { name: 'auto', folder_id: project.folderId, auto_generate_assets: true, auto_run: true },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(typeof created.body.result.package_id, 'number');
    const pkg = await t.call('GET', `/api/packages/${created.body.result.package_id}`);
    assert.equal(pkg.body.operation_type, 'export');
    assert.equal(pkg.body.export_manifest_id, created.body.result.id);
  });

  test('bad manifests are refused with 400 naming the field, and nothing is created', async () => {
    const before = await t.ctx.db
      .selectFrom('export_manifests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const cases: Array<[unknown, string]> = [
      [{ export_manifest: { assets: [] } }, 'name'],
      [{ export_manifest: { name: 'x' } }, 'assets'],
      [{ export_manifest: { name: 'x', assets: [{ id: recipeId, type: 'spreadsheet' }] } }, 'assets[0].type'],
      [{ export_manifest: { name: 'x', assets: [{ id: recipeId, type: 'lcap_app' }] } }, 'assets[0].type'],
      [{ export_manifest: { name: 'x', assets: [{ id: 999999, type: 'recipe' }] } }, 'assets[0]'],
      [
        {
          export_manifest: { name: 'x', assets: [{ id: recipeId, type: 'recipe', zip_name: '../escape.recipe.json' }] },
        },
        'assets[0].zip_name',
      ],
      [
        { export_manifest: { name: 'x', assets: [{ id: recipeId, type: 'recipe', zip_name: 'a.json' }] } },
        'assets[0].zip_name',
      ],
      [{ export_manifest: { name: 'x', assets: [{ id: recipeId, type: 'recipe', version: 7 }] } }, 'assets[0].version'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/export_manifests', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.body.errors[field], `${field} named in ${res.text}`);
    }
    assert.equal(
      (await t.call('POST', '/api/export_manifests', { body: { export_manifest: { name: 5, assets: [] } } })).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/export_manifests', {
          raw: '{"export_manifest": {',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/export_manifests', {
          raw: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.equal(
      (
        await t.call('POST', '/api/export_manifests', {
          body: { export_manifest: { name: 'x', folder_id: 999999, auto_generate_assets: true } },
        })
      ).status,
      404,
    );
    const after = await t.ctx.db
      .selectFrom('export_manifests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  test('a manifest cannot name an asset of another environment; a scoped client sees its projects only', async () => {
    const testToken = await t.tokenFor('Admin', 'test');
    const res = await t.call('POST', '/api/export_manifests', {
      token: testToken,
      body: { export_manifest: { name: 'x', assets: [{ id: recipeId, type: 'recipe' }] } },
    });
    assert.equal(res.status, 400);
    assert.match(res.body.errors['assets[0]'][0], /does not exist in this environment/);
    const other = await t.createProject('Elsewhere');
    const scoped = await t.scopedClient([other.folderId]);
    assert.equal(
      (
        await t.call('GET', `/api/export_manifests/folder_assets?folder_id=${project.folderId}`, {
          token: scoped.token,
        })
      ).status,
      404,
    );
    assert.equal((await t.call('GET', '/api/export_manifests/folder_assets', { token: scoped.token })).status, 400);
    const own = await t.call('GET', `/api/export_manifests/folder_assets?folder_id=${other.folderId}`, {
      token: scoped.token,
    });
    assert.deepEqual(own.body, { result: { assets: [] } });
  });

  test('unknown ids, missing privileges and no token', async () => {
    assert.equal((await t.call('GET', '/api/export_manifests/999999')).status, 404);
    assert.equal((await t.call('PUT', '/api/export_manifests/999999', { body: { name: 'x' } })).status, 404);
    assert.equal((await t.call('DELETE', '/api/export_manifests/999999')).status, 404);
    assert.equal((await t.call('GET', '/api/export_manifests/abc')).status, 400);
    assert.equal((await t.call('GET', '/api/export_manifests/1', { token: null })).status, 401);
    const readOnly = await t.tokenFor('Read only');
    assert.equal(
      (await t.call('POST', '/api/export_manifests', { token: readOnly, body: { name: 'x', assets: [] } })).status,
      403,
    );
  });
});
