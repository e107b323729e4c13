// Data tables in packages: a recipe naming a table brings it into its export (with its records
// when include_data), the table keeps its column UUIDs through an import into another
// environment, and the imported recipe runs there against the imported table.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { action, fire, webhookTrigger } from '../../../test/recipes.ts';
import { readZip } from '../packages/zip.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

let t: TestApp;
let testToken: string;
before(async () => {
  t = await createTestApp();
  testToken = await t.tokenFor('Admin', 'test');
});
after(async () => {
  await t.close();
});

async function exportFolder(folderId: number, includeData: boolean): Promise<Map<string, Buffer>> {
  const manifest = await t.call('POST', '/api/export_manifests', {
    body: {
      export_manifest: { name: 'release', folder_id: folderId, auto_generate_assets: true, include_data: includeData },
    },
  });
  assert.equal(manifest.status, 201, manifest.text);
  assert.ok(manifest.body.result.id);
  const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`);
  const done = await waitPackage(t, started.body.id);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/packages/${started.body.id}/download`,
    headers: { authorization: `Bearer ${t.adminToken}` },
  });
  return readZip(download.rawPayload, LIMITS);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function importZip(folderId: number, zip: Buffer): Promise<Record<string, any>> {
  const res = await t.call('POST', `/api/packages/import/${folderId}`, {
    raw: zip,
    headers: { 'content-type': 'application/octet-stream' },
    token: testToken,
  });
  assert.equal(res.status, 200, res.text);
  return waitPackage(t, res.body.id, testToken);
}

describe('data tables in packages (workato_db_table)', () => {
  test('export with data, import into test: same column UUIDs, the records, and the recipe runs against the imported table', async () => {
    const source = await t.createProject('Sales');
    const target = await t.createProject('Sales', 'test');
    // The table lives outside the project (Home): the recipe's reference brings it into the manifest.
    const created = await t.call('POST', '/api/data_tables', {
      body: {
        name: 'Leads',
        schema: [
          { name: 'email', type: 'string' },
          { name: 'score', type: 'integer' },
        ],
      },
    });
    assert.equal(created.status, 200, created.text);
    const table = created.body.data;
    const [email, score] = table.schema as Array<{ field_id: string }>;
    await t.call('POST', `/api/data_tables/${table.id}/records/batch`, {
      body: {
        records: [
          { email: 'a@x.io', score: 1 },
          { email: 'b@x.io', score: 2 },
        ],
      },
    });
    const code = webhookTrigger([
      action('workato_db_table', 'add_record', 'add', {
        table_id: String(table.id),
        parameters: { [email!.field_id.replaceAll('-', '_')]: 'c@x.io', [score!.field_id.replaceAll('-', '_')]: '3' },
      }),
    ]);
    const recipe = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Add lead', folder_id: source.folderId, code: JSON.stringify(code) } },
    });
    assert.equal(recipe.status, 200, recipe.text);

    const assets = await t.call('GET', `/api/export_manifests/folder_assets?folder_id=${source.folderId}`);
    assert.ok(
      assets.body.result.assets.some(
        (a: { type: string; id: number }) => a.type === 'workato_db_table' && a.id === table.id,
      ),
      JSON.stringify(assets.body),
    );

    const files = await exportFolder(source.folderId, true);
    const tableFile = [...files.keys()].find((k) => k.endsWith('.workato_db_table.json'));
    assert.ok(tableFile, [...files.keys()].join(', '));
    const body = JSON.parse(files.get(tableFile)!.toString('utf8'));
    assert.equal(body.name, 'Leads');
    assert.deepEqual(
      body.schema.map((c: { field_id: string }) => c.field_id),
      [email!.field_id, score!.field_id],
    );
    assert.deepEqual(body.data, [
      { [email!.field_id]: 'a@x.io', [score!.field_id]: 1 },
      { [email!.field_id]: 'b@x.io', [score!.field_id]: 2 },
    ]);
    const recipeFile = JSON.parse(
      files.get([...files.keys()].find((k) => k.endsWith('.recipe.json'))!)!.toString('utf8'),
    );
    assert.deepEqual(recipeFile.code.block[0].input.table_id, { zip_name: tableFile, name: 'Leads', folder: '' });

    const done = await importZip(target.folderId, await makeZip(Object.fromEntries(files)));
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const tables = await t.call('GET', '/api/data_tables', { token: testToken });
    const imported = tables.body.data.find((x: { name: string }) => x.name === 'Leads');
    assert.ok(imported);
    assert.deepEqual(
      imported.schema.map((c: { field_id: string }) => c.field_id),
      [email!.field_id, score!.field_id],
    );
    assert.equal(imported.record_count, 2);
    const recipeId = done.recipe_status[0].id;
    const start = await t.call('PUT', `/api/recipes/${recipeId}/start`, { token: testToken });
    assert.deepEqual(start.body, { success: true }, start.text);
    const hook = (await t.call('GET', `/api/recipes/${recipeId}`, { token: testToken })).body.webhook_url;
    const job = await fire(t, new URL(hook).pathname, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const records = await t.call('GET', `/api/data_tables/${imported.id}/records`, { token: testToken });
    assert.deepEqual(
      records.body.data.map((r: { data: { email: string } }) => r.data.email),
      ['a@x.io', 'b@x.io', 'c@x.io'],
    );
    assert.equal(
      (await t.call('GET', `/api/data_tables/${table.id}`)).body.data.record_count,
      2,
      'the dev table is untouched',
    );
    await t.call('PUT', `/api/recipes/${recipeId}/stop`, { token: testToken });

    // Imported again: records replaced, not added; no second table.
    const again = await importZip(target.folderId, await makeZip(Object.fromEntries(files)));
    assert.equal(again.status, 'completed', JSON.stringify(again));
    const after = (await t.call('GET', '/api/data_tables', { token: testToken })).body.data.filter(
      (x: { name: string }) => x.name === 'Leads',
    );
    assert.equal(after.length, 1);
    assert.equal(after[0].record_count, 2);
  });

  test('a table file with a bad schema or records of the wrong type fails the import; nothing is imported', async () => {
    const target = await t.createProject(`Bad ${Date.now()}`, 'test');
    const badSchema = await importZip(
      target.folderId,
      await makeZip({
        'x.workato_db_table.json': JSON.stringify({ name: 'Bad one', schema: [{ name: 'n', type: 'blob' }] }),
      }),
    );
    assert.equal(badSchema.status, 'failed');
    assert.match(JSON.stringify(badSchema), /schema\.0\.type/);
    const badData = await importZip(
      target.folderId,
      await makeZip({
        'y.workato_db_table.json': JSON.stringify({
          name: 'Bad two',
          schema: [{ name: 'n', type: 'integer', field_id: '5d420ed4-eafd-44d7-89ae-77ed9c46dba5' }],
          data: [{ '5d420ed4-eafd-44d7-89ae-77ed9c46dba5': 'many' }],
        }),
      }),
    );
    assert.equal(badData.status, 'failed');
    assert.match(JSON.stringify(badData), /data\[0\]: n must be an integer/);
    const names = (await t.call('GET', '/api/data_tables', { token: testToken })).body.data.map(
      (x: { name: string }) => x.name,
    );
    assert.ok(!names.includes('Bad one') && !names.includes('Bad two'), names.join(', '));
  });
});
