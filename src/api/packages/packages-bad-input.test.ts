import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { webhookTrigger } from '../../../test/recipes.ts';

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

  test('an endpoint naming a recipe in neither the package nor the target is imported disabled, with a warning', async () => {
    const folder = await t.createProject('Endpoints without recipes');
    const zip = await makeZip({
      'ok.recipe.json': JSON.stringify({ name: 'Fine', code: webhookTrigger([]) }),
      'api_collection.json': '{"name":"Orders API"}',
      'orders.api_endpoint.json': JSON.stringify({
        name: 'List orders',
        method: 'GET',
        path: 'orders',
        recipe_name: 'List orders recipe',
      }),
    });
    const res = await importZip(t, folder.folderId, zip);
    assert.equal(res.status, 200, res.text);
    const done = await waitPackage(t, res.body.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const shown = await t.call('GET', `/api/packages/${res.body.id}`);
    assert.deepEqual(shown.body.warnings, [
      'orders.api_endpoint.json: names recipe "List orders recipe", which is neither in the package nor in the target: imported disabled, without a recipe',
    ]);
    const endpoints = await t.call('GET', '/api/api_endpoints?per_page=100');
    const endpoint = endpoints.body.find((x: { name: string }) => x.name === 'List orders');
    assert.ok(endpoint, 'the endpoint was imported');
    assert.equal(endpoint.active, false);
    assert.equal(endpoint.flow_id, null);
    assert.equal(endpoint.path, 'orders');
    const clean = await importZip(
      t,
      folder.folderId,
      await makeZip({ 'x.recipe.json': JSON.stringify({ name: 'Y', code: webhookTrigger([]) }) }),
    );
    await waitPackage(t, clean.body.id);
    assert.deepEqual((await t.call('GET', `/api/packages/${clean.body.id}`)).body.warnings, []);
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

  test('a recipe whose code nests 20,000 levels deep: its export fails saying so, and an import of what it holds says why', async () => {
    const folder = await t.createProject('Deep code');
    const deep = `{"keyword":"trigger","provider":"workato_webhooks","name":"new_event","block":[${'{"block":['.repeat(20_000)}${']}'.repeat(20_000)}]}`;
    // The API refuses such code (deeper than 256 levels); a row stored before that rule still exports safely.
    const refused = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Deep', folder_id: folder.folderId, code: deep } },
    });
    assert.equal(refused.status, 400, refused.text);
    const created = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Deep', folder_id: folder.folderId, code: '{"keyword":"trigger","block":[]}' } },
    });
    assert.equal(created.status, 200, created.text);
    await t.ctx.db.updateTable('recipes').set({ code: deep }).where('id', '=', created.body.id).execute();
    const manifest = await t.call('POST', '/api/export_manifests', {
      body: { export_manifest: { name: 'deep', folder_id: folder.folderId, auto_generate_assets: true } },
    });
    assert.equal(manifest.status, 201, manifest.text);
    const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`);
    assert.equal(started.status, 200, started.text);
    const done = await waitPackage(t, started.body.id);
    assert.equal(done.status, 'failed', JSON.stringify(done));
    assert.match(done.error, /the recipe's code nests more than 500 levels deep/);
    const imported = await importZip(
      t,
      folder.folderId,
      await makeZip({ 'deep.recipe.json': `{"name":"Deep","code":${deep}}` }),
    );
    assert.equal(imported.status, 200, imported.text);
    const failed = await waitPackage(t, imported.body.id);
    assert.equal(failed.status, 'failed');
    assert.match(
      failed.error_parts.join('\n'),
      /deep\.recipe\.json: nests objects and arrays more than 512 levels deep/,
    );
  });
});
