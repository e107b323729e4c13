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
    // The vendor's schema: the system columns first, then each column by its UUID and title.
    assert.deepEqual(
      body.schema.map((c: { id: string; title: string; type: string }) => [c.id, c.title, c.type]),
      [
        ['11fbe9a6-a16d-4d7e-86ea-afe42ec03005', 'Record ID', 'short-text'],
        ['a5612739-5401-4ae7-bd07-782c1a6fb2d1', 'Created time', 'date-time'],
        ['61aae604-a95e-4519-9091-bb0bf754a67f', 'Last modified time', 'date-time'],
        [email!.field_id, 'email', 'short-text'],
        [score!.field_id, 'score', 'integer'],
      ],
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

  test('a table file with a bad schema or records of the wrong type fails alone, with its reason; the rest imports', async () => {
    const target = await t.createProject(`Bad ${Date.now()}`, 'test');
    const done = await importZip(
      target.folderId,
      await makeZip({
        'x.workato_db_table.json': JSON.stringify({ name: 'Bad one', schema: [{ name: 'n', type: 'blob' }] }),
        'y.workato_db_table.json': JSON.stringify({
          name: 'Bad two',
          schema: [{ name: 'n', type: 'integer', field_id: '5d420ed4-eafd-44d7-89ae-77ed9c46dba5' }],
          data: [{ '5d420ed4-eafd-44d7-89ae-77ed9c46dba5': 'many' }],
        }),
        'z.workato_db_table.json': '{"name": "Cut short", "schema": [',
        'good.workato_db_table.json': JSON.stringify({
          name: 'Good one',
          schema: [{ id: '0f5e2a3c-1b2d-4e5f-8a9b-0c1d2e3f4a5b', title: 'n', type: 'integer', required: false }],
        }),
      }),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const byPath = Object.fromEntries(done.files.map((f: { path: string }) => [f.path, f]));
    assert.equal(byPath['x.workato_db_table.json'].result, 'failed');
    assert.match(byPath['x.workato_db_table.json'].reason, /schema\.0\.type/);
    assert.equal(byPath['y.workato_db_table.json'].result, 'failed');
    assert.match(byPath['y.workato_db_table.json'].reason, /data\[0\]: n must be an integer/);
    assert.equal(byPath['z.workato_db_table.json'].result, 'failed');
    assert.match(byPath['z.workato_db_table.json'].reason, /not valid JSON/);
    assert.deepEqual(byPath['good.workato_db_table.json'], {
      path: 'good.workato_db_table.json',
      type: 'workato_db_table',
      result: 'imported',
      change: 'created',
    });
    assert.match(done.warnings.join('\n'), /x\.workato_db_table\.json: not imported: /);
    const names = (await t.call('GET', '/api/data_tables', { token: testToken })).body.data.map(
      (x: { name: string }) => x.name,
    );
    assert.ok(names.includes('Good one'), names.join(', '));
    assert.ok(
      !names.includes('Bad one') && !names.includes('Bad two') && !names.includes('Cut short'),
      names.join(', '),
    );

    // Alone, a bad file leaves nothing to import: the package fails, saying why.
    const alone = await importZip(
      target.folderId,
      await makeZip({
        'x.workato_db_table.json': JSON.stringify({ name: 'Bad one', schema: [{ name: 'n', type: 'blob' }] }),
      }),
    );
    assert.equal(alone.status, 'failed');
    assert.match(alone.error, /No file of the package could be imported/);
    assert.match(alone.error_parts.join('\n'), /x\.workato_db_table\.json: .*schema\.0\.type/);
  });

  test("a table in the vendor's schema: system columns skipped, types read, file and relation columns left out with a note", async () => {
    const target = await t.createProject(`Vendor ${Date.now()}`, 'test');
    const ids = [
      '6a0c1f52-7d8e-4b1a-9c3d-2e4f5a6b7c8d',
      '7b1d2e63-8e9f-4c2b-8d4e-3f5a6b7c8d9e',
      '8c2e3f74-9fa0-4d3c-9e5f-4a6b7c8d9eaf',
    ];
    const done = await importZip(
      target.folderId,
      await makeZip({
        'Data Tables/requests.workato_db_table.json': JSON.stringify({
          name: 'Requests',
          schema: [
            {
              id: '11fbe9a6-a16d-4d7e-86ea-afe42ec03005',
              title: 'Record ID',
              type: 'short-text',
              read_only: true,
              hidden: true,
            },
            {
              id: 'a5612739-5401-4ae7-bd07-782c1a6fb2d1',
              title: 'Created time',
              type: 'date-time',
              read_only: true,
              hidden: true,
            },
            {
              id: '61aae604-a95e-4519-9091-bb0bf754a67f',
              title: 'Last modified time',
              type: 'date-time',
              read_only: true,
              hidden: true,
            },
            {
              id: ids[0],
              title: 'Summary',
              type: 'long-text',
              read_only: false,
              hidden: false,
              required: true,
              metadata: {},
            },
            {
              id: ids[1],
              title: 'Due',
              type: 'date-time',
              read_only: false,
              hidden: false,
              required: false,
              metadata: {},
            },
            {
              id: ids[2],
              title: 'Amount',
              type: 'number',
              read_only: false,
              hidden: false,
              required: false,
              metadata: {},
            },
            {
              id: '9d3f4085-a0b1-4e4d-8f6a-5b7c8d9eafb0',
              title: 'Attachment',
              type: 'file',
              read_only: false,
              hidden: false,
              metadata: {},
            },
          ],
          project_name: '[App] Requests',
        }),
      }),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.files[0].result, 'imported');
    assert.match(done.files[0].reason, /column "Attachment" \(file\) left out/);
    const table = (await t.call('GET', '/api/data_tables', { token: testToken })).body.data.find(
      (x: { name: string }) => x.name === 'Requests',
    );
    assert.deepEqual(
      table.schema.map((c: { field_id: string; name: string; type: string; optional: boolean }) => [
        c.field_id,
        c.name,
        c.type,
        c.optional,
      ]),
      [
        [ids[0], 'Summary', 'string', false],
        [ids[1], 'Due', 'date_time', true],
        [ids[2], 'Amount', 'decimal', true],
      ],
    );
  });
});
