// Packages in the vendor's layout, both ways, on the real exported files of test/fixtures/recipes:
// the recipes (orchestrator-recipes/*.recipe.json) and an API collection with its endpoints
// (manager-collection/api_collection.json and *.api_endpoint.json, which name their recipe by
// `recipe_name`, the stem of its file) zipped with their directories and imported into a
// project; then that project exported, and its files read as the vendor's layout.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { readZip } from '../src/api/packages/zip.ts';
import { createTestApp, makeZip, waitPackage, type TestApp } from './helpers.ts';
import { numbered } from './recipes.ts';

const ROOT = new URL('./fixtures/recipes/dewy-resort/', import.meta.url).pathname;
const RECIPE_DIR = 'orchestrator-recipes';
const COLLECTION_DIR = 'manager-collection';
const LIMITS = { maxEntries: 1000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function readDir(dir: string): Map<string, Json> {
  return new Map(
    readdirSync(ROOT + dir)
      .sort()
      .map((file) => [`${dir}/${file}`, JSON.parse(readFileSync(`${ROOT}${dir}/${file}`, 'utf8')) as Json]),
  );
}

const fixtureRecipes = readDir(RECIPE_DIR);
const fixtureCollection = readDir(COLLECTION_DIR);
const fixtureEndpoints = [...fixtureCollection]
  .filter(([name]) => name.endsWith('.api_endpoint.json'))
  .map(([, body]) => body);

/**
 * The fixtures hold some of the recipes the endpoints name, not all: each missing one is a small
 * local recipe of the same shape (an API request trigger answering 200), in the recipes' folder.
 */
function localRecipes(): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const endpoint of fixtureEndpoints) {
    const file = `${RECIPE_DIR}/${endpoint.recipe_name}.recipe.json`;
    if (fixtureRecipes.has(file)) continue;
    const name = String(endpoint.recipe_name)
      .replace(/_/g, ' ')
      .replace(/^./, (c) => c.toUpperCase());
    const code = numbered({
      keyword: 'trigger',
      provider: 'workato_api_platform',
      name: 'receive_request',
      as: 'trigger',
      input: { request: { content_type: 'json', schema: '[]' } },
      block: [
        {
          keyword: 'action',
          provider: 'workato_api_platform',
          name: 'return_response',
          as: 'ok',
          input: { http_status_code: '200', response: {} },
        },
      ],
    });
    out.set(file, {
      name,
      version: 1,
      private: false,
      concurrency: 1,
      code,
      config: [{ keyword: 'application', provider: 'workato_api_platform', skip_validation: false, account_id: null }],
    });
  }
  return out;
}

describe('packages in the vendor layout: the exported dewy-resort files', () => {
  let t: TestApp;
  let project: { folderId: number; projectId: number };
  const local = localRecipes();
  const allRecipes = new Map([...fixtureRecipes, ...local]);
  /** Recipe name by the file stem the endpoints use as recipe_name. */
  const recipeNameByStem = new Map(
    [...allRecipes].map(([file, body]) => [
      file.slice(file.lastIndexOf('/') + 1, -'.recipe.json'.length),
      body.name as string,
    ]),
  );
  let exported: Map<string, Buffer>;

  before(async () => {
    t = await createTestApp();
    project = await t.createProject('Dewy resort');
  });
  after(() => t.close());

  test('the zip of the vendor files imports: recipes, the API collection and its endpoints, each serving its recipe', async () => {
    assert.ok(
      local.size > 0 && local.size < fixtureEndpoints.length,
      'some endpoints name recipes of the fixtures, some local ones',
    );
    const files: Record<string, string> = {};
    for (const [name] of [...fixtureRecipes, ...fixtureCollection]) files[name] = readFileSync(ROOT + name, 'utf8');
    for (const [name, body] of local) files[name] = JSON.stringify(body, null, 2);
    const zip = await makeZip(files);

    const started = await t.call('POST', `/api/packages/import/${project.folderId}`, {
      raw: zip,
      headers: { 'content-type': 'application/zip' },
    });
    assert.equal(started.status, 200, started.text);
    const pkg = await waitPackage(t, started.body.id);
    assert.equal(pkg.status, 'completed', JSON.stringify(pkg));
    assert.equal(pkg.recipe_status.length, allRecipes.size);

    const recipes = (await t.call('GET', '/api/recipes?per_page=100')).body.items as Json[];
    assert.deepEqual(
      recipes.map((r) => r.name).sort(),
      [...allRecipes.values()].map((r) => r.name).sort(),
      'each recipe once',
    );
    for (const recipe of recipes) {
      const fixture = [...allRecipes.values()].find((r) => r.name === recipe.name)!;
      assert.deepEqual(JSON.parse(recipe.code), fixture.code, `${recipe.name}: the code as exported by the vendor`);
    }
    const folders = (await t.call('GET', `/api/folders?parent_id=${project.folderId}`)).body as Json[];
    const recipesFolder = folders.find((f) => f.name === RECIPE_DIR);
    assert.ok(recipesFolder, `a folder ${RECIPE_DIR} in the project: ${JSON.stringify(folders)}`);
    assert.ok(
      recipes.every((r) => r.folder_id === recipesFolder.id),
      "the recipes in their directory's folder",
    );

    const collections = (await t.call('GET', '/api/api_collections')).body as Json[];
    const collection = fixtureCollection.get(`${COLLECTION_DIR}/api_collection.json`)!;
    assert.deepEqual(
      collections.map((c) => [c.name, c.version]),
      [[collection.name, collection.version]],
    );
    const endpoints = (await t.call('GET', `/api/api_endpoints?api_collection_id=${collections[0]!.id}&per_page=100`))
      .body as Json[];
    const recipeById = new Map(recipes.map((r) => [r.id as number, r.name as string]));
    assert.deepEqual(
      endpoints.map((e) => [e.name, e.method, e.path, recipeById.get(e.flow_id)]).sort(),
      fixtureEndpoints.map((e) => [e.name, e.method, e.path, recipeNameByStem.get(e.recipe_name)]).sort(),
    );
  });

  test('the project exported reads as the vendor layout: recipe files with the fixture keys and code, endpoint files with their recipe', async () => {
    const manifest = await t.call('POST', '/api/export_manifests', {
      body: { export_manifest: { name: 'dewy', folder_id: project.folderId, auto_generate_assets: true } },
    });
    assert.equal(manifest.status, 201, manifest.text);
    const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`);
    assert.equal(started.status, 200, started.text);
    const pkg = await waitPackage(t, started.body.id);
    assert.equal(pkg.status, 'completed', JSON.stringify(pkg));
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/packages/${started.body.id}/download`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    assert.equal(download.statusCode, 200);
    exported = await readZip(download.rawPayload, LIMITS);
    const parse = (name: string) => JSON.parse(exported.get(name)!.toString('utf8')) as Json;

    const recipeFiles = [...exported.keys()].filter((name) => name.endsWith('.recipe.json'));
    assert.equal(recipeFiles.length, allRecipes.size, [...exported.keys()].join(', '));
    for (const [file, fixture] of fixtureRecipes) {
      const ours = recipeFiles.map(parse).find((r) => r.name === fixture.name);
      assert.ok(ours, `${file} exported`);
      for (const key of Object.keys(fixture)) assert.ok(key in ours, `${file}: the exported recipe holds ${key}`);
      assert.deepEqual(ours.code, fixture.code, `${file}: the code as the vendor exported it`);
      assert.equal(typeof ours.version, 'number');
      assert.equal(typeof ours.private, 'boolean');
      assert.equal(ours.concurrency, fixture.concurrency);
      assert.ok(Array.isArray(ours.config));
      assert.deepEqual(
        ours.config.map((c: Json) => c.provider).sort(),
        fixture.config.map((c: Json) => c.provider).sort(),
        `${file}: the same applications`,
      );
    }

    const endpointFiles = [...exported.keys()].filter((name) => name.endsWith('.api_endpoint.json'));
    assert.equal(endpointFiles.length, fixtureEndpoints.length);
    for (const fixture of fixtureEndpoints) {
      const ours = endpointFiles.map(parse).find((e) => e.name === fixture.name);
      assert.ok(ours, `endpoint ${fixture.name} exported`);
      assert.deepEqual([ours.method, ours.path], [fixture.method, fixture.path]);
      const ref = ours.recipe_id as Json;
      assert.equal(ref.name, recipeNameByStem.get(fixture.recipe_name), `${fixture.name}: the recipe it serves`);
      assert.ok(
        exported.has(ref.zip_name),
        `${fixture.name}: its recipe reference names a file of the zip (${ref.zip_name})`,
      );
      assert.equal(parse(ref.zip_name).name, ref.name);
      assert.ok(
        exported.has(ours.api_group_id.zip_name),
        `${fixture.name}: its collection reference names a file of the zip`,
      );
    }
  });
});
