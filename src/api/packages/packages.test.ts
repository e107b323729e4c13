import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { fire, log, webhookTrigger, action } from '../../../test/recipes.ts';
import { readZip } from './zip.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

async function importZip(t: TestApp, folderId: number, zip: Buffer, query = '', token?: string) {
  return t.call('POST', `/api/packages/import/${folderId}${query}`, {
    raw: zip,
    headers: { 'content-type': 'application/octet-stream' },
    ...(token ? { token } : {}),
  });
}

async function exportFolder(
  t: TestApp,
  folderId: number,
  options: { includeData?: boolean; token?: string } = {},
): Promise<Map<string, Buffer>> {
  const token = options.token ? { token: options.token } : {};
  const manifest = await t.call('POST', '/api/export_manifests', {
    ...token,
    body: {
      export_manifest: {
        name: 'release',
        folder_id: folderId,
        auto_generate_assets: true,
        include_data: options.includeData ?? false,
      },
    },
  });
  assert.equal(manifest.status, 201, manifest.text);
  const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`, token);
  assert.equal(started.status, 200, started.text);
  assert.equal(started.body.operation_type, 'export');
  assert.equal(started.body.status, 'in_progress');
  const done = await waitPackage(t, started.body.id, options.token);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.match(done.download_url, new RegExp(`/api/packages/${started.body.id}/download$`));
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/packages/${started.body.id}/download`,
    headers: { authorization: `Bearer ${options.token ?? t.adminToken}` },
  });
  assert.equal(download.statusCode, 200);
  assert.equal(download.headers['content-type'], 'application/zip');
  return readZip(download.rawPayload, LIMITS);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function parse(files: Map<string, Buffer>, name: string): any {
  const file = files.get(name);
  assert.ok(file, `the zip holds ${name}; it holds ${[...files.keys()].join(', ')}`);
  return JSON.parse(file.toString('utf8'));
}

describe('packages: export a project from dev, import it into test', () => {
  let t: TestApp;
  let testToken: string;
  let source: { folderId: number; projectId: number };
  let target: { folderId: number; projectId: number };

  before(async () => {
    t = await createTestApp();
    testToken = await t.tokenFor('Admin', 'test');
    source = await t.createProject('Finance');
    target = await t.createProject('Finance', 'test');
    const orders = await t.call('POST', '/api/folders', { body: { name: 'Orders', parent_id: source.folderId } });
    assert.equal(orders.status, 200, orders.text);
    const conn = await t.call('POST', '/api/connections', {
      body: {
        name: 'Ledger API',
        provider: 'rest',
        folder_id: source.folderId,
        input: { base_url: 'http://127.0.0.1:9/', auth_type: 'none', password: 'hunter2-secret-value' },
      },
    });
    assert.ok(conn.status === 200 || conn.status === 201, conn.text);
    const table = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'Country codes', project_id: source.projectId, schema: [{ label: 'code' }, { label: 'name' }] },
    });
    assert.equal(table.status, 200, table.text);
    for (const [code, name] of [
      ['CZ', 'Czechia'],
      ['DE', 'Germany'],
    ]) {
      assert.equal(
        (await t.call('POST', `/api/lookup_tables/${table.body.id}/rows`, { body: { data: { code, name } } })).status,
        200,
      );
    }
    const topic = await t.call('POST', '/api/event_streams/topics', {
      body: { name: 'orders', folder_id: orders.body.id, description: 'Paid orders' },
    });
    assert.ok(topic.status === 200 || topic.status === 201, topic.text);
    assert.equal(
      (
        await t.call('POST', '/api/properties', {
          body: { project_id: source.projectId, properties: { region: 'eu' } },
        })
      ).status,
      200,
    );
    const code = webhookTrigger([
      action('lookup_table', 'get_entry', 'country', {
        lookup_table_id: String(table.body.id),
        parameters: { code: 'CZ' },
      }),
      log('say', '=_dp(\'{"pill_type":"output","provider":"lookup_table","line":"country","path":["entry","name"]}\')'),
    ]);
    const created = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Sync paid orders',
          folder_id: orders.body.id,
          code: JSON.stringify(code),
          config: JSON.stringify([{ keyword: 'application', provider: 'rest', account_id: conn.body.id }]),
        },
      },
    });
    assert.equal(created.status, 200, created.text);
  });
  after(() => t.close());

  test("GET /api/export_manifests/folder_assets lists the folder's assets with their zip names", async () => {
    const res = await t.call('GET', `/api/export_manifests/folder_assets?folder_id=${source.folderId}`);
    assert.equal(res.status, 200, res.text);
    const byType = Object.fromEntries(
      res.body.result.assets.map((a: { type: string; zip_name: string }) => [a.type, a.zip_name]),
    );
    assert.deepEqual(byType, {
      recipe: 'Orders/sync_paid_orders.recipe.json',
      connection: 'ledger_api.connection.json',
      lookup_table: 'country_codes.lookup_table.json',
      topic: 'Orders/orders.topic.json',
      project_property: 'properties.project_properties.json',
    });
    for (const asset of res.body.result.assets) {
      for (const key of [
        'id',
        'name',
        'type',
        'root_folder',
        'zip_name',
        'checked',
        'folder',
        'absolute_path',
        'unreachable',
      ])
        assert.ok(key in asset, `${key} in ${JSON.stringify(asset)}`);
    }
    const recipe = res.body.result.assets.find((a: { type: string }) => a.type === 'recipe');
    assert.equal(recipe.folder, 'Orders');
    assert.equal(recipe.absolute_path, 'Home/Finance/Orders');
    assert.equal(recipe.version, 1);
  });

  test('an export is a zip of plain JSON files laid out like the folders, without credentials', async () => {
    const files = await exportFolder(t, source.folderId, { includeData: true });
    assert.deepEqual([...files.keys()].sort(), [
      'Orders/orders.topic.json',
      'Orders/sync_paid_orders.recipe.json',
      'country_codes.lookup_table.json',
      'ledger_api.connection.json',
      // The project's description, colour and icon, as the vendor's export tool writes them.
      'project.json',
      'properties.project_properties.json',
    ]);
    assert.deepEqual(parse(files, 'project.json'), { description: '', color: null, icon: null });
    const recipe = parse(files, 'Orders/sync_paid_orders.recipe.json');
    assert.deepEqual(Object.keys(recipe).sort(), [
      'code',
      'concurrency',
      'config',
      'description',
      'name',
      'private',
      'version',
    ]);
    assert.equal(typeof recipe.code, 'object');
    assert.deepEqual(recipe.code.block[0].input.lookup_table_id, {
      zip_name: 'country_codes.lookup_table.json',
      name: 'Country codes',
      folder: '',
    });
    assert.deepEqual(recipe.config.find((c: { provider: string }) => c.provider === 'rest').account_id, {
      zip_name: 'ledger_api.connection.json',
      name: 'Ledger API',
      folder: '',
    });
    assert.deepEqual(parse(files, 'ledger_api.connection.json'), {
      name: 'Ledger API',
      provider: 'rest',
      root_folder: false,
    });
    assert.deepEqual(parse(files, 'country_codes.lookup_table.json'), {
      name: 'Country codes',
      schema: [
        { label: 'code', name: 'col1' },
        { label: 'name', name: 'col2' },
      ],
      data: [
        { col1: 'CZ', col2: 'Czechia' },
        { col1: 'DE', col2: 'Germany' },
      ],
    });
    // The project's properties in the vendor's file, names with their values.
    assert.deepEqual(parse(files, 'properties.project_properties.json'), { data: { region: 'eu' } });
    for (const content of files.values())
      assert.ok(!content.toString('utf8').includes('hunter2'), 'no credential in the package');
  });

  test('import into test: assets in place, connections without credentials, the recipe runs; a second import updates in place; export again gives the same files', async () => {
    const files = await exportFolder(t, source.folderId, { includeData: true });
    const zip = await makeZip(Object.fromEntries(files));
    const started = await importZip(t, target.folderId, zip, '', testToken);
    assert.equal(started.status, 200, started.text);
    assert.deepEqual(Object.keys(started.body).sort(), [
      'download_url',
      'files',
      'id',
      'operation_type',
      'recipe_status',
      'status',
      'warnings',
    ]);
    assert.deepEqual(started.body.warnings, []);
    assert.equal(started.body.operation_type, 'import');
    const done = await waitPackage(t, started.body.id, testToken);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(
      done.files.map((f: { path: string; result: string }) => `${f.path} ${f.result}`),
      [...files.keys()].sort().map((path) => `${path} imported`),
    );
    assert.equal(done.recipe_status.length, 1);
    assert.equal(done.recipe_status[0].import_result, 'no_update_or_updated_without_restart');
    const imported = await t.call('GET', `/api/recipes/${done.recipe_status[0].id}`, { token: testToken });
    assert.equal(imported.status, 200);
    assert.equal(imported.body.name, 'Sync paid orders');
    const connections = await t.call('GET', '/api/connections', { token: testToken });
    const ledger = connections.body.find((c: { name: string }) => c.name === 'Ledger API');
    assert.ok(ledger, 'the connection exists in test');
    assert.notEqual(ledger.authorization_status, 'success');
    assert.equal(imported.body.config.find((c: { provider: string }) => c.provider === 'rest').account_id, ledger.id);
    const tables = await t.call('GET', '/api/lookup_tables', { token: testToken });
    const table = tables.body.find((x: { name: string }) => x.name === 'Country codes');
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: testToken })).body.length, 2);
    const props = await t.call('GET', `/api/properties?project_id=${target.projectId}`, { token: testToken });
    assert.deepEqual(props.body, { region: 'eu' });
    // test gives the connection its own credentials; the recipe starts and runs there.
    const authorized = await t.call('PUT', `/api/connections/${ledger.id}`, {
      token: testToken,
      body: { shell_connection: false, input: { base_url: 'http://127.0.0.1:9/', auth_type: 'none' } },
    });
    assert.equal(authorized.status, 200, authorized.text);
    assert.equal(authorized.body.authorization_status, 'success');
    const start = await t.call('PUT', `/api/recipes/${imported.body.id}/start`, { token: testToken });
    assert.deepEqual(start.body, { success: true }, start.text);
    const job = await fire(t, new URL(imported.body.webhook_url).pathname, { a: 1 });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.equal((await t.call('PUT', `/api/recipes/${imported.body.id}/stop`, { token: testToken })).status, 200);

    // test sets its own value of the property; the next release keeps it.
    const setInTest = await t.call('POST', '/api/properties', {
      token: testToken,
      body: { project_id: target.projectId, properties: { region: 'us-test' } },
    });
    assert.equal(setInTest.status, 200, setInTest.text);
    const again = await importZip(t, target.folderId, zip, '', testToken);
    const second = await waitPackage(t, again.body.id, testToken);
    assert.equal(second.status, 'completed', JSON.stringify(second));
    assert.deepEqual(
      (await t.call('GET', `/api/properties?project_id=${target.projectId}`, { token: testToken })).body,
      { region: 'us-test' },
      "a release keeps the target's property values",
    );
    assert.deepEqual(second.recipe_status, [
      { id: imported.body.id, import_result: 'no_update_or_updated_without_restart' },
    ]);
    const recipes = await t.call('GET', `/api/recipes?folder_id=${imported.body.folder_id}`, { token: testToken });
    assert.equal(recipes.body.items.length, 1, 'no duplicate recipe');
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: testToken })).body.length,
      2,
      'rows replaced, not added',
    );

    const back = await exportFolder(t, target.folderId, { includeData: true, token: testToken });
    assert.deepEqual([...back.keys()].sort(), [...files.keys()].sort());
    for (const [name, content] of files) {
      const a = JSON.parse(content.toString('utf8'));
      const b = JSON.parse(back.get(name)!.toString('utf8'));
      if (name.endsWith('.recipe.json')) {
        // The version is each environment's own counter of saves.
        delete a.version;
        delete b.version;
      }
      // test's own value of the property is what test exports.
      if (name.endsWith('.project_properties.json')) a.data.region = 'us-test';
      assert.deepEqual(b, a, name);
    }
  });

  test('a running recipe is updated only with restart_recipes; without it nothing is imported', async () => {
    const project = await t.createProject('Restart target', 'test');
    const first = await makeZip({
      'r.recipe.json': JSON.stringify({ name: 'Hook', code: webhookTrigger([log('a', 'one')]), config: [] }),
    });
    const done = await waitPackage(t, (await importZip(t, project.folderId, first, '', testToken)).body.id, testToken);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const id = done.recipe_status[0].id;
    assert.equal((await t.call('PUT', `/api/recipes/${id}/start`, { token: testToken })).body.success, true);
    const changed = await makeZip({
      'r.recipe.json': JSON.stringify({ name: 'Hook', code: webhookTrigger([log('a', 'two')]), config: [] }),
      'extra.lookup_table.json': JSON.stringify({ name: 'Only if imported', schema: [{ label: 'k' }] }),
    });
    const refused = await waitPackage(
      t,
      (await importZip(t, project.folderId, changed, '', testToken)).body.id,
      testToken,
    );
    assert.equal(refused.status, 'failed');
    assert.match(refused.error, /nothing was imported/);
    assert.match(refused.error_parts.join('\n'), /is running; import with restart_recipes=true/);
    const tables = await t.call('GET', '/api/lookup_tables', { token: testToken });
    assert.ok(!tables.body.some((x: { name: string }) => x.name === 'Only if imported'), 'nothing half-imported');
    assert.equal((await t.call('GET', `/api/recipes/${id}`, { token: testToken })).body.version_no, 1);

    const restarted = await waitPackage(
      t,
      (await importZip(t, project.folderId, changed, '?restart_recipes=true', testToken)).body.id,
      testToken,
    );
    assert.equal(restarted.status, 'completed', JSON.stringify(restarted));
    assert.deepEqual(restarted.recipe_status, [{ id, import_result: 'restarted' }]);
    const recipe = await t.call('GET', `/api/recipes/${id}`, { token: testToken });
    assert.equal(recipe.body.running, true);
    assert.equal(recipe.body.version_no, 2);
    assert.match(recipe.body.code, /two/);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`, { token: testToken })).status, 200);
  });
});
