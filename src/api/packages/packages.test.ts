import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { fire, log, webhookTrigger, action } from '../../../test/recipes.ts';
import { readZip } from './zip.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

/** A zip with every occurrence of a name's bytes replaced by others of the same length. */
function renamed(zip: Buffer, from: string, to: string): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.indexOf(from); at !== -1; at = out.indexOf(from, at + 1)) out.write(to, at, 'latin1');
  return out;
}

/**
 * A zip whose entry `name` declares `size` bytes uncompressed (in its local header and in the
 * central directory), whatever it inflates to.
 */
function lyingAbout(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  for (const [signature, nameAt, sizeAt] of [
    [0x04034b50, 30, 22],
    [0x02014b50, 46, 24],
  ] as const) {
    for (let at = 0; at + nameAt <= out.length; at += 1) {
      if (out.readUInt32LE(at) !== signature) continue;
      const nameLength = out.readUInt16LE(at + (signature === 0x04034b50 ? 26 : 28));
      if (out.toString('latin1', at + nameAt, at + nameAt + nameLength) === name) out.writeUInt32LE(size, at + sizeAt);
    }
  }
  return out;
}

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
      project_property: 'region.project_property.json',
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
      'region.project_property.json',
    ]);
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
      'id',
      'operation_type',
      'recipe_status',
      'status',
    ]);
    assert.equal(started.body.operation_type, 'import');
    const done = await waitPackage(t, started.body.id, testToken);
    assert.equal(done.status, 'completed', JSON.stringify(done));
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

    const again = await importZip(t, target.folderId, zip, '', testToken);
    const second = await waitPackage(t, again.body.id, testToken);
    assert.equal(second.status, 'completed', JSON.stringify(second));
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

describe('POST /api/packages/import/:folder_id: bad input', () => {
  let t: TestApp;
  let project: { folderId: number; projectId: number };
  before(async () => {
    t = await createTestApp({ env: { PACKAGE_MAX_BYTES: '200000', PACKAGE_MAX_UNCOMPRESSED_BYTES: '1000000' } });
    project = await t.createProject('Landing');
  });
  after(() => t.close());

  const count = async (table: 'packages' | 'recipes' | 'folders') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('refused at once with a 4xx in the error shape: empty, not a zip, wrong Content-Type, unknown folder, too large, bad flags', async () => {
    const packagesBefore = await count('packages');
    const good = await makeZip({ 'a.recipe.json': JSON.stringify({ name: 'A', code: webhookTrigger([]) }) });
    const cases: Array<[string, string | Buffer, string, number, string | RegExp]> = [
      [
        `/api/packages/import/${project.folderId}`,
        Buffer.alloc(0),
        'application/octet-stream',
        400,
        'The request body is empty: send the package zip',
      ],
      [
        `/api/packages/import/${project.folderId}`,
        'hello, this is not a zip',
        'application/zip',
        400,
        'The request body is not a zip archive',
      ],
      [
        `/api/packages/import/${project.folderId}`,
        '{"a":1}',
        'application/json',
        415,
        'Unsupported Content-Type: application/json; send the zip as application/octet-stream, application/zip or multipart/form-data',
      ],
      ['/api/packages/import/999999', good, 'application/octet-stream', 404, 'Folder not found'],
      [
        `/api/packages/import/${project.folderId}`,
        Buffer.alloc(300_000, 1),
        'application/octet-stream',
        413,
        'The package is too large: at most 200000 bytes',
      ],
      [
        `/api/packages/import/${project.folderId}?restart_recipes=maybe`,
        good,
        'application/octet-stream',
        400,
        /restart_recipes must be true or false/i,
      ],
      [
        `/api/packages/import/${project.folderId}?folder_id_for_home_assets=999999`,
        good,
        'application/octet-stream',
        400,
        /folder_id_for_home_assets is not a folder/i,
      ],
      [
        '/api/packages/import/abc',
        good,
        'application/octet-stream',
        400,
        'Validation failed: path parameter folder_id must be an integer',
      ],
    ];
    for (const [url, raw, type, status, message] of cases) {
      const res = await t.call('POST', url, { raw, headers: { 'content-type': type } });
      assert.equal(res.status, status, `${url} ${type}: ${res.text}`);
      if (typeof message === 'string') assert.equal(res.body.message, message, res.text);
      else assert.match(res.body.message, message);
    }
    assert.equal(await count('packages'), packagesBefore, 'no package was created');
    const multipart = await t.call('POST', `/api/packages/import/${project.folderId}`, {
      raw: '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n--b--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    assert.equal(multipart.status, 400);
    assert.equal(multipart.body.message, 'The multipart body must hold one file part with the zip');
  });

  test('a multipart form with one file part is accepted, as the old documented sample sends it', async () => {
    const zip = await makeZip({
      'multi.recipe.json': JSON.stringify({ name: 'From a form', code: webhookTrigger([]) }),
    });
    const body = Buffer.concat([
      Buffer.from(
        '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="p.zip"\r\nContent-Type: application/zip\r\n\r\n',
      ),
      zip,
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const res = await t.call('POST', `/api/packages/import/${project.folderId}`, {
      raw: body,
      headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((await waitPackage(t, res.body.id)).status, 'completed');
  });

  test('what the zip holds is checked before anything changes: the package fails with the reason', async () => {
    const recipesBefore = await count('recipes');
    const foldersBefore = await count('folders');
    const valid = JSON.stringify({ name: 'Fine', code: webhookTrigger([]) });
    const bomb = Buffer.alloc(2_000_000, 0);
    const cases: Array<[string, Buffer, RegExp]> = [
      // yazl refuses such a name, so the zip is made with one of the same length and patched.
      [
        'escaping path',
        renamed(await makeZip({ 'ok.recipe.json': valid, 'x/aa/aa/evil.recipe.json': valid }), 'x/aa/aa/', 'x/../../'),
        /invalid relative path/,
      ],
      [
        'absolute path',
        renamed(await makeZip({ 'ok.recipe.json': valid, 'xetc/evil.recipe.json': valid }), 'xetc/', '/etc/'),
        /absolute path/,
      ],
      ['bomb', await makeZip({ 'ok.recipe.json': valid, 'big.recipe.json': bomb }), /bytes uncompressed/],
      [
        'unknown type',
        await makeZip({ 'ok.recipe.json': valid, 'sheet.spreadsheet.json': '{}' }),
        /not a known asset file/,
      ],
      ['not JSON', await makeZip({ 'sub/ok.recipe.json': valid, 'bad.recipe.json': '{"name": ' }), /not valid JSON/],
      [
        'recipe without code',
        await makeZip({ 'ok.recipe.json': valid, 'nocode.recipe.json': '{"name":"x"}' }),
        /code must be an object/,
      ],
      [
        'broken recipe code',
        await makeZip({
          'ok.recipe.json': valid,
          'broken.recipe.json': JSON.stringify({ name: 'B', code: '{"keyword": "trigger", ' }),
        }),
        /broken.recipe.json/,
      ],
      [
        'symlink',
        await makeZip({ 'ok.recipe.json': valid }, (zip) =>
          zip.addBuffer(Buffer.from('/etc/passwd'), 'link.recipe.json', { mode: 0o120777 }),
        ),
        /symbolic links/,
      ],
      ['empty archive', await makeZip({}), /no asset files/],
      [
        'a recipe of 50,000 nested blocks',
        await makeZip({
          'ok.recipe.json': valid,
          'deep.recipe.json': `{"name":"Deep","code":{"keyword":"trigger","block":[${'{"block":['.repeat(50_000)}${']}'.repeat(50_000)}]}}`,
        }),
        /^deep\.recipe\.json: nests objects and arrays more than 512 levels deep$/m,
      ],
      [
        'a file inflating to far more than it declares',
        lyingAbout(
          await makeZip({ 'ok.recipe.json': valid, 'liar.recipe.json': Buffer.alloc(900_000, ' ') }),
          'liar.recipe.json',
          100,
        ),
        /the archive is not valid: .*too many bytes|once inflated/,
      ],
      [
        'endpoint without its recipe',
        await makeZip({
          'ok.recipe.json': valid,
          'api_collection.json': '{"name":"c"}',
          'e.api_endpoint.json': JSON.stringify({ name: 'e', method: 'GET', path: 'e', recipe_name: 'missing' }),
        }),
        /neither in the package nor in the target/,
      ],
    ];
    for (const [what, zip, reason] of cases) {
      const res = await t.call('POST', `/api/packages/import/${project.folderId}`, {
        raw: zip,
        headers: { 'content-type': 'application/zip' },
      });
      assert.equal(res.status, 200, `${what}: ${res.text}`);
      const done = await waitPackage(t, res.body.id);
      assert.equal(done.status, 'failed', `${what}: ${JSON.stringify(done)}`);
      assert.match(`${done.error}\n${(done.error_parts ?? []).join('\n')}`, reason, what);
      assert.deepEqual(done.recipe_status, []);
    }
    assert.equal(await count('recipes'), recipesBefore, 'nothing half-imported');
    assert.equal(await count('folders'), foldersBefore, 'no folder left behind');
  });

  test('GET /api/packages/:id and /download: unknown ids, an import has no zip', async () => {
    assert.equal((await t.call('GET', '/api/packages/999999')).status, 404);
    assert.equal((await t.call('GET', '/api/packages/999999/download')).status, 404);
    const zip = await makeZip({ 'x.recipe.json': JSON.stringify({ name: 'X', code: webhookTrigger([]) }) });
    const res = await t.call('POST', `/api/packages/import/${project.folderId}`, {
      raw: zip,
      headers: { 'content-type': 'application/octet-stream' },
    });
    await waitPackage(t, res.body.id);
    const download = await t.call('GET', `/api/packages/${res.body.id}/download`);
    assert.equal(download.status, 404);
    assert.equal(
      download.body.message,
      'The package has no zip to download: only a completed export has one, for PACKAGE_RETENTION_HOURS',
    );
    const testToken = await t.tokenFor('Admin', 'test');
    assert.equal(
      (await t.call('GET', `/api/packages/${res.body.id}`, { token: testToken })).status,
      404,
      'another environment does not see it',
    );
    assert.equal((await t.call('GET', `/api/packages/${res.body.id}`, { token: null })).status, 401);
    const readOnly = await t.tokenFor('Read only');
    assert.equal(
      (
        await t.call('POST', `/api/packages/import/${project.folderId}`, {
          token: readOnly,
          raw: zip,
          headers: { 'content-type': 'application/zip' },
        })
      ).status,
      403,
    );
  });

  test("a client limited to some projects changes nothing outside them: environment properties and other projects' tables are refused", async () => {
    const mine = await t.createProject('Mine');
    const theirs = await t.createProject('Theirs');
    assert.equal(
      (
        await t.call('POST', '/api/lookup_tables', {
          body: { name: 'Shared name', project_id: theirs.projectId, schema: [{ label: 'k' }] },
        })
      ).status,
      200,
    );
    const scoped = await t.scopedClient([mine.folderId]);
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [
        'environment property',
        { 'region.account_property.json': JSON.stringify({ name: 'region', value: 'eu' }) },
        /environment properties apply to every project/,
      ],
      [
        "another project's table",
        {
          'shared.lookup_table.json': JSON.stringify({
            name: 'Shared name',
            schema: [{ label: 'k' }],
            data: [{ col1: 'x' }],
          }),
        },
        /exists outside the target's project/,
      ],
    ];
    for (const [what, files, reason] of cases) {
      const res = await importZip(t, mine.folderId, await makeZip(files), '', scoped.token);
      assert.equal(res.status, 200, res.text);
      const done = await waitPackage(t, res.body.id, scoped.token);
      assert.equal(done.status, 'failed', what);
      assert.match(done.error_parts.join('\n'), reason, what);
    }
    const theirTable = (await t.call('GET', '/api/lookup_tables')).body.find(
      (x: { name: string }) => x.name === 'Shared name',
    );
    assert.equal(theirTable.project_id, String(theirs.projectId));
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${theirTable.id}/rows`)).body.length,
      0,
      'their table is untouched',
    );
    assert.deepEqual((await t.call('GET', '/api/properties')).body, {}, 'no environment property was written');
    const own = await importZip(
      t,
      mine.folderId,
      await makeZip({ 'mine.lookup_table.json': JSON.stringify({ name: 'Mine only', schema: [{ label: 'k' }] }) }),
      '',
      scoped.token,
    );
    assert.equal((await waitPackage(t, own.body.id, scoped.token)).status, 'completed');
    assert.equal(
      (await importZip(t, theirs.folderId, await makeZip({ 'x.recipe.json': '{}' }), '', scoped.token)).status,
      404,
      'a folder outside the scope is not found',
    );
  });
});
