// Tags in packages (contract 15 §3, §8): a manifest with include_tags writes each recipe's and
// connection's tags, by title, into their files; an import with include_tags=true puts them on the
// imported assets (making the titles the target lacks), and without it drops them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, webhookTrigger } from '../../../test/recipes.ts';
import { readZip } from './zip.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };

let t: TestApp;
let testToken: string;
let files: Map<string, Buffer>;
before(async () => {
  t = await createTestApp();
  testToken = await t.tokenFor('Admin', 'test');
  const source = await t.createProject('Tagged release');
  const recipeId = await createRecipe(t, webhookTrigger([log('say', 'hi')]), {
    folder_id: source.folderId,
    name: 'Tagged recipe',
  });
  const conn = await t.call('POST', '/api/connections', {
    body: { name: 'Tagged connection', provider: 'jira', folder_id: source.folderId },
  });
  const critical = await t.call('POST', '/api/tags', {
    body: { title: 'Critical', color: 'red', description: 'Page someone' },
  });
  const finance = await t.call('POST', '/api/tags', { body: { title: 'Finance' } });
  const assign = await t.call('POST', '/api/tags_assignments', {
    body: { add_tags: [critical.body.handle, finance.body.handle], recipe_ids: [recipeId] },
  });
  assert.equal(assign.status, 200, assign.text);
  await t.call('POST', '/api/tags_assignments', {
    body: { add_tags: [finance.body.handle], connection_ids: [conn.body.id] },
  });

  const manifest = await t.call('POST', '/api/export_manifests', {
    body: {
      export_manifest: { name: 'tagged', folder_id: source.folderId, auto_generate_assets: true, include_tags: true },
    },
  });
  assert.equal(manifest.status, 201, manifest.text);
  const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`);
  const done = await waitPackage(t, started.body.id);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const download = await t.app.inject({
    method: 'GET',
    url: `/api/packages/${started.body.id}/download`,
    headers: { authorization: `Bearer ${t.adminToken}` },
  });
  files = await readZip(download.rawPayload, LIMITS);
});
after(() => t.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parse = (name: string): any => JSON.parse((files.get(name) as Buffer).toString('utf8'));

async function importInto(folderId: number, query: string, zip: Buffer) {
  const started = await t.call('POST', `/api/packages/import/${folderId}${query}`, {
    raw: zip,
    headers: { 'content-type': 'application/octet-stream' },
    token: testToken,
  });
  assert.equal(started.status, 200, started.text);
  return waitPackage(t, started.body.id, testToken);
}

async function tagTitles(kind: 'recipe' | 'connection', name: string): Promise<string[]> {
  const tags = (await t.call('GET', '/api/tags', { token: testToken })).body.data.tags as Array<{
    handle: string;
    title: string;
  }>;
  const titleOf = new Map(tags.map((x) => [x.handle, x.title]));
  if (kind === 'recipe') {
    const list = await t.call('GET', '/api/recipes?includes[]=tags', { token: testToken });
    const recipe = list.body.items.find((r: { name: string }) => r.name === name);
    return (recipe?.tags ?? []).map((h: string) => titleOf.get(h)).sort();
  }
  const list = await t.call('GET', '/api/connections', { token: testToken });
  const conn = list.body.find((c: { name: string }) => c.name === name);
  return (conn?.tags ?? []).map((h: string) => titleOf.get(h)).sort();
}

describe('tags in packages', () => {
  test("an export with include_tags carries each asset's tags by title, never a handle", () => {
    assert.deepEqual(parse('tagged_recipe.recipe.json').tags, [
      { title: 'Critical', description: 'Page someone', color: 'red' },
      { title: 'Finance', description: null, color: null },
    ]);
    assert.deepEqual(parse('tagged_connection.connection.json').tags, [
      { title: 'Finance', description: null, color: null },
    ]);
    assert.doesNotMatch([...files.values()].map((f) => f.toString('utf8')).join(''), /tag-[A-Za-z0-9]{8}-/);
  });

  test('an import with include_tags=true tags the imported assets, reusing titles the target has; twice changes nothing', async () => {
    // The target has a "finance" tag already: it is reused (titles match in any case), "Critical" is made.
    const existing = await t.call('POST', '/api/tags', { body: { title: 'finance', color: 'teal' }, token: testToken });
    const target = await t.createProject('Tagged target', 'test');
    const zip = await makeZip(Object.fromEntries(files));
    const done = await importInto(target.folderId, '?include_tags=true', zip);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(await tagTitles('recipe', 'Tagged recipe'), ['Critical', 'finance']);
    assert.deepEqual(await tagTitles('connection', 'Tagged connection'), ['finance']);
    const tags = (await t.call('GET', '/api/tags', { token: testToken })).body.data.tags;
    assert.deepEqual(
      tags.map((x: { title: string; color: string | null }) => [x.title, x.color]),
      [
        ['Critical', 'red'],
        ['finance', 'teal'],
      ],
    );
    assert.ok(tags.some((x: { handle: string }) => x.handle === existing.body.handle));
    const again = await importInto(target.folderId, '?include_tags=true', zip);
    assert.equal(again.status, 'completed');
    assert.equal((await t.call('GET', '/api/tags', { token: testToken })).body.data.tags.length, 2);
    assert.deepEqual(await tagTitles('recipe', 'Tagged recipe'), ['Critical', 'finance']);
  });

  test('without include_tags the tags are dropped; with it, malformed tags fail the package and change nothing', async () => {
    const plain = await t.createProject('Untagged target', 'test');
    const zip = await makeZip(Object.fromEntries(files));
    const done = await importInto(plain.folderId, '', zip);
    assert.equal(done.status, 'completed');
    const recipes = (
      await t.call('GET', `/api/recipes?folder_id=${plain.folderId}&includes[]=tags`, { token: testToken })
    ).body.items;
    assert.equal(recipes.length, 1);
    assert.deepEqual(recipes[0].tags, []);

    const broken = new Map(files);
    const recipe = parse('tagged_recipe.recipe.json');
    broken.set('tagged_recipe.recipe.json', Buffer.from(JSON.stringify({ ...recipe, tags: [{ title: '' }, 7] })));
    const bad = await t.createProject('Broken target', 'test');
    const failed = await importInto(bad.folderId, '?include_tags=true', await makeZip(Object.fromEntries(broken)));
    assert.equal(failed.status, 'failed');
    assert.match(JSON.stringify(failed), /tags must be a list of tags/);
    const none = (await t.call('GET', `/api/recipes?folder_id=${bad.folderId}`, { token: testToken })).body.items;
    assert.deepEqual(none, []);
  });
});
