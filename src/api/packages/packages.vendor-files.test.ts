// The vendor's package files besides assets (contract 15 §13): its property files, and the files
// this server does not use (low-code apps and pages, unknown types), kept as they came and exported
// again unchanged; and the result of each file in GET /api/packages/:id.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { webhookTrigger } from '../../../test/recipes.ts';
import { readZip } from './zip.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

async function importZip(t: TestApp, folderId: number, zip: Buffer, token?: string) {
  const res = await t.call('POST', `/api/packages/import/${folderId}`, {
    raw: zip,
    headers: { 'content-type': 'application/octet-stream' },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  return waitPackage(t, res.body.id, token);
}

async function exportFolder(t: TestApp, folderId: number, token?: string): Promise<Map<string, Buffer>> {
  const as = token ? { token } : {};
  const manifest = await t.call('POST', '/api/export_manifests', {
    ...as,
    body: { export_manifest: { name: 'again', folder_id: folderId, auto_generate_assets: true } },
  });
  assert.equal(manifest.status, 201, manifest.text);
  const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`, as);
  const done = await waitPackage(t, started.body.id, token);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/packages/${started.body.id}/download`,
    headers: { authorization: `Bearer ${token ?? t.adminToken}` },
  });
  return readZip(download.rawPayload, LIMITS);
}

const recipe = JSON.stringify({ name: 'Intake', code: webhookTrigger([]), config: [] });

describe("packages: the vendor's property files and the files this server keeps", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('property files: names travel, a value only where the target has none; the export writes them back', async () => {
    const project = await t.createProject('Properties');
    // The target already holds some: its values stay; an empty one takes the package's value.
    assert.equal(
      (
        await t.call('POST', '/api/properties', {
          body: { project_id: project.projectId, properties: { tier: 'prod-tier', owner: '' } },
        })
      ).status,
      200,
    );
    assert.equal(
      (await t.call('POST', '/api/properties', { body: { properties: { region: 'eu-prod' } } })).status,
      200,
    );
    const done = await importZip(
      t,
      project.folderId,
      await makeZip({
        'intake.recipe.json': recipe,
        // As the vendor writes them: names with null values.
        'account_properties.properties.json': JSON.stringify({ region: null, api_host: null }),
        'properties.project_properties.json': JSON.stringify({
          data: { tier: 'dev-tier', owner: 'ops@example.com', retries: 3, colour: null },
        }),
      }),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(
      done.files.map((f: { path: string; type: string; result: string }) => [f.path, f.type, f.result]),
      [
        ['account_properties.properties.json', 'account_property', 'imported'],
        ['intake.recipe.json', 'recipe', 'imported'],
        ['properties.project_properties.json', 'project_property', 'imported'],
      ],
    );
    const env = await t.call('GET', '/api/properties');
    assert.equal(env.body.region, 'eu-prod', "the target's value stays");
    assert.equal(env.body.api_host, '', 'a new name is created empty');
    const own = await t.call('GET', `/api/properties?project_id=${project.projectId}`);
    assert.deepEqual(own.body, { colour: '', owner: 'ops@example.com', retries: '3', tier: 'prod-tier' });

    // Exported: one file a level, in the vendor's shape, with this environment's values.
    const files = await exportFolder(t, project.folderId);
    assert.deepEqual(JSON.parse(files.get('properties.project_properties.json')!.toString('utf8')), {
      data: { colour: '', owner: 'ops@example.com', retries: '3', tier: 'prod-tier' },
    });
    assert.ok(![...files.keys()].some((k) => k.endsWith('.project_property.json')), [...files.keys()].join(', '));
  });

  test("the environment's properties travel in account_properties.properties.json with an export of Home", async () => {
    const homeId = (await t.call('GET', '/api/users/me')).body.root_folder_id as number;
    const files = await exportFolder(t, homeId);
    const props = JSON.parse(files.get('account_properties.properties.json')!.toString('utf8'));
    assert.equal(props.region, 'eu-prod');
    assert.equal(props.api_host, '');
  });

  test('a malformed property file fails alone with its reason; the rest imports', async () => {
    const project = await t.createProject('Bad properties');
    const done = await importZip(
      t,
      project.folderId,
      await makeZip({
        'intake.recipe.json': recipe,
        'account_properties.properties.json': '{"region": ',
        'properties.project_properties.json': JSON.stringify({ tier: 'flat, without data' }),
        'other.project_properties.json': JSON.stringify({ data: { nested: { no: 1 }, fine: 'x' } }),
        'name.project_property.json': JSON.stringify({ name: 'bad\tname', value: 'v' }),
      }),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const byPath = Object.fromEntries(done.files.map((f: { path: string }) => [f.path, f]));
    assert.equal(byPath['intake.recipe.json'].result, 'imported');
    assert.equal(byPath['account_properties.properties.json'].result, 'failed');
    assert.match(byPath['account_properties.properties.json'].reason, /not valid JSON/);
    assert.equal(byPath['properties.project_properties.json'].result, 'failed');
    assert.match(byPath['properties.project_properties.json'].reason, /must hold \{"data": \{\.\.\.\}\}/);
    assert.equal(byPath['other.project_properties.json'].result, 'failed');
    assert.match(byPath['other.project_properties.json'].reason, /property "nested": value must be text/);
    assert.equal(byPath['name.project_property.json'].result, 'failed');
    assert.match(byPath['name.project_property.json'].reason, /control characters/);
    assert.equal(done.warnings.filter((w: string) => / not imported: /.test(w)).length, 4);
    const own = await t.call('GET', `/api/properties?project_id=${project.projectId}`);
    assert.deepEqual(own.body, {}, 'nothing of a failed file is written, not even its good names');
    assert.equal((await t.call('GET', `/api/recipes?folder_id=${project.folderId}`)).body.items.length, 1);
  });

  test("for a client limited to some projects the environment's property file fails alone; the rest imports", async () => {
    const project = await t.createProject('Scoped import');
    const scoped = await t.scopedClient([project.folderId]);
    const done = await importZip(
      t,
      project.folderId,
      await makeZip({
        'intake.recipe.json': recipe,
        'account_properties.properties.json': JSON.stringify({ scoped_only: null }),
        'properties.project_properties.json': JSON.stringify({ data: { lane: null } }),
      }),
      scoped.token,
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const byPath = Object.fromEntries(done.files.map((f: { path: string }) => [f.path, f]));
    assert.equal(byPath['account_properties.properties.json'].result, 'failed');
    assert.match(byPath['account_properties.properties.json'].reason, /environment properties apply to every project/);
    assert.equal(byPath['properties.project_properties.json'].result, 'imported');
    assert.equal(byPath['intake.recipe.json'].result, 'imported');
    assert.ok(!('scoped_only' in (await t.call('GET', '/api/properties')).body), 'no environment property created');
    assert.deepEqual((await t.call('GET', `/api/properties?project_id=${project.projectId}`)).body, { lane: '' });
  });

  test('project properties imported outside a project (into Home) fail alone', async () => {
    const homeId = (await t.call('GET', '/api/users/me')).body.root_folder_id as number;
    const done = await importZip(
      t,
      homeId,
      await makeZip({
        'intake.recipe.json': recipe,
        'properties.project_properties.json': JSON.stringify({ data: { tier: null } }),
      }),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const file = done.files.find((f: { path: string }) => f.path === 'properties.project_properties.json');
    assert.equal(file.result, 'failed');
    assert.match(file.reason, /need a target folder inside a project/);
  });

  test('low-code apps, pages and unknown files are kept as they came and exported again unchanged; hidden files are skipped', async () => {
    const project = await t.createProject('Workflow app');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0x00, 0x7f]);
    const app =
      '{\n  "name": "Requests",\n  "workato_db_table": {"zip_name": "requests.workato_db_table.json", "name": "Requests", "folder": ""}\n}\n';
    const page = '{"name":"Submit","path":"submit","content":{"type":"common","layout":[]}}';
    const pageZip = await makeZip({ 'index.html': '<p>page</p>' });
    const kept: Record<string, string | Buffer> = {
      'requests.lcap_app.json': app,
      'requests.lcap_app.png': png,
      'Pages/submit.lcap_page.json': page,
      'Pages/submit.lcap_page.zip': pageZip,
      'Insights/totals.insights_query.json': '{"not": "a type this server knows"}',
      'README.txt': 'notes kept with the project\n',
    };
    const done = await importZip(
      t,
      project.folderId,
      await makeZip({
        'intake.recipe.json': recipe,
        ...kept,
        '.DS_Store': Buffer.from([0, 0, 0, 1]),
        '__MACOSX/._intake.recipe.json': Buffer.from([0, 5, 22]),
      }),
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(
      done.files.map((f: { path: string; result: string }) => [f.path, f.result]),
      [
        ['.DS_Store', 'skipped'],
        ['Insights/totals.insights_query.json', 'kept'],
        ['Pages/submit.lcap_page.json', 'kept'],
        ['Pages/submit.lcap_page.zip', 'kept'],
        ['README.txt', 'kept'],
        ['__MACOSX/._intake.recipe.json', 'skipped'],
        ['intake.recipe.json', 'imported'],
        ['requests.lcap_app.json', 'kept'],
        ['requests.lcap_app.png', 'kept'],
      ],
    );
    assert.match(done.files[1].reason, /kept as it came: not used by this server/);
    assert.equal(done.files[1].type, null);

    // The next export of the project carries each kept file byte for byte, in its folder.
    const files = await exportFolder(t, project.folderId);
    for (const [path, content] of Object.entries(kept))
      assert.ok(files.get(path)?.equals(Buffer.from(content)), `${path} exported unchanged`);
    assert.ok(!files.has('.DS_Store') && !files.has('__MACOSX/._intake.recipe.json'));

    // Imported again with a changed page: replaced, not duplicated; the others stay.
    const again = await importZip(
      t,
      project.folderId,
      await makeZip({ 'Pages/submit.lcap_page.json': page.replace('Submit', 'Send') }),
    );
    assert.equal(again.status, 'completed', JSON.stringify(again));
    const next = await exportFolder(t, project.folderId);
    assert.match(next.get('Pages/submit.lcap_page.json')!.toString('utf8'), /"Send"/);
    assert.ok(next.get('requests.lcap_app.png')?.equals(png));
    assert.equal([...next.keys()].filter((k) => k.startsWith('Pages/')).length, 2);

    // Another project's export does not carry them.
    const other = await t.createProject('Other project');
    await importZip(t, other.folderId, await makeZip({ 'intake.recipe.json': recipe }));
    const theirs = await exportFolder(t, other.folderId);
    assert.ok(![...theirs.keys()].some((k) => k.includes('lcap')), [...theirs.keys()].join(', '));
  });

  test('a package of kept files only imports; one of nothing usable fails saying why', async () => {
    const project = await t.createProject('Only kept');
    const done = await importZip(t, project.folderId, await makeZip({ 'a.lcap_app.json': '{}' }));
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.recipe_status, []);
    const hidden = await importZip(t, project.folderId, await makeZip({ '.DS_Store': 'x' }));
    assert.equal(hidden.status, 'failed');
    assert.match(hidden.error, /no asset files/);
  });
});
