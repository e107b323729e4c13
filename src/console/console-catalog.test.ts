// The editor's connector catalog sent once a page: GET /console/recipes/catalog (versioned URL,
// ETag), a step's picker listing its own application, *Other applications* and the catalog's
// search without script (POST /console/recipes/new with op apps:<path> and findapp:<path>).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { insertConnector } from '../api/custom_connectors/custom_connectors.store.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;
before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
});
after(() => t.close());

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const url = '/console/recipes/new';

/** Press a button of the new-recipe editor: the draft is the page's, the fields those given. */
async function press(page: string, op: string, fields: Record<string, string> = {}) {
  const code = unescape(/<input type="hidden" name="code" value="([^"]*)">/.exec(page)?.[1] ?? '');
  return admin.post(url, { code, config: '[]', name: 'Catalog', ...fields, op });
}

describe("GET /console/recipes/catalog and the editor's pickers", () => {
  test('the catalog once, kept by the browser; Other applications without script', async () => {
    const page = (await admin.get(url)).body;
    const catalogUrl = unescape(/data-catalog="([^"]+)"/.exec(page)?.[1] ?? '');
    assert.match(catalogUrl, /^\/console\/recipes\/catalog\?v=[A-Za-z0-9_-]{16}$/);
    const catalog = await t.app.inject({ method: 'GET', url: catalogUrl, headers: { cookie: admin.cookie } });
    assert.equal(catalog.statusCode, 200);
    assert.match(String(catalog.headers['content-type']), /^application\/json/);
    assert.equal(catalog.headers['cache-control'], 'private, max-age=86400');
    const groups = (JSON.parse(catalog.body) as { groups: Array<{ label: string; connectors: string[][] }> }).groups;
    assert.deepEqual(
      groups.map((g) => g.label),
      ['Built-in', 'Applications'],
    );
    assert.deepEqual(
      groups[0]?.connectors.find(([name]) => name === 'logger'),
      ['logger', 'Logger'],
    );
    assert.deepEqual(
      groups[1]?.connectors.find(([name]) => name === 'salesforce'),
      ['salesforce', 'Salesforce'],
    );
    const again = await t.app.inject({
      method: 'GET',
      url: catalogUrl,
      headers: { cookie: admin.cookie, 'if-none-match': String(catalog.headers.etag) },
    });
    assert.equal(again.statusCode, 304, 'unchanged: the browser keeps its copy');
    assert.equal((await reader.get(catalogUrl)).statusCode, 403, "the catalog is the editor's: recipes:write");
    assert.equal((await admin.get(`/console/recipes/catalog?v=${'x'.repeat(65)}`)).statusCode, 400);
    const stale = await admin.get('/console/recipes/catalog?v=old');
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.headers['cache-control'], 'private, no-cache', 'an old version is not kept as if current');
    // Without script, *Other applications* draws that step's whole catalog.
    const other = (await press(page, 'apps:')).body;
    assert.match(other, /<optgroup label="Built-in">[\s\S]*<option value="logger">Logger<\/option>/);
    assert.match(other, /<optgroup label="Applications">[\s\S]*<option value="salesforce">Salesforce<\/option>/);
    assert.match(other, /<option value="workato_webhooks" selected>HTTP<\/option>/);
  });

  test('a new step: the grid of icons searched without script', async () => {
    const page = (await press((await admin.get(url)).body, 'add::action')).body;
    // Searched without script: the grid and the picker hold the connectors whose title or name match.
    const found = (await press(page, 'findapp:0', { 'appq:0': 'SALES' })).body;
    assert.match(found, /<details class="catalog" open>/);
    assert.deepEqual(
      [...found.matchAll(/value="pickapp:0:([a-z_]+)"/g)].map((m) => m[1]),
      ['salesforce'],
    );
    assert.deepEqual(
      [...(/<select id="pick-0"[\s\S]*?<\/select>/.exec(found)?.[0] ?? '').matchAll(/<option value="([a-z_]*)"/g)].map(
        (m) => m[1],
      ),
      ['', 'salesforce'],
    );
    const none = (await press(page, 'findapp:0', { 'appq:0': 'no such app' })).body;
    assert.match(none, /No application matches “no such app”\./);
    assert.doesNotMatch(none, /value="pickapp:0:/);
  });

  test('a search without script draws the first 50 matches in the grid and says how many more', async () => {
    // 40 custom connectors beside the built-in and SaaS ones (the last test of the file: they stay).
    const env = await t.ctx.db
      .selectFrom('environments')
      .select('id')
      .where('workspace_id', '=', t.workspaceId)
      .where('type', '=', 'dev')
      .executeTakeFirstOrThrow();
    const stamp = new Date().toISOString();
    for (let i = 0; i < 40; i++)
      await insertConnector(t.ctx.db, {
        workspace_id: t.workspaceId,
        environment_id: env.id,
        name: `catalog_app_${i}`,
        title: `Catalog app ${i}`,
        description: 'A connector of the catalog test',
        oem_shared_version: null,
        oem_shared_at: null,
        static_webhook_url: null,
        created_at: stamp,
        updated_at: stamp,
      });
    const page = (await press((await admin.get(url)).body, 'add::action')).body;
    const catalogUrl = unescape(/data-catalog="([^"]+)"/.exec(page)?.[1] ?? '');
    const groups = (JSON.parse((await admin.get(catalogUrl)).body) as { groups: Array<{ connectors: string[][] }> })
      .groups;
    const matching = groups
      .flatMap((g) => g.connectors)
      .filter(([name, title]) => (title as string).toLowerCase().includes('a') || (name as string).includes('a'));
    assert.ok(matching.length > 50, `the catalog holds more than 50 matches of "a" (${matching.length})`);
    const found = (await press(page, 'findapp:0', { 'appq:0': 'a' })).body;
    assert.deepEqual(
      [...found.matchAll(/value="pickapp:0:([a-z0-9_]+)"/g)].map((m) => m[1]),
      matching.slice(0, 50).map(([name]) => name),
    );
    assert.match(
      found,
      new RegExp(
        `<p class="muted small catalog-more">${matching.length - 50} more: type more of the name to narrow them down\\.</p></details>`,
      ),
    );
    // The picker beside it lists every match.
    assert.equal(
      [...(/<select id="pick-0"[\s\S]*?<\/select>/.exec(found)?.[0] ?? '').matchAll(/<option value="([a-z0-9_]+)"/g)]
        .length,
      matching.length,
    );
  });

  test("the recipe's datapills once a page: each step says how many of the first are its own", async () => {
    let page = (await press((await admin.get(url)).body, 'check', { 'schema:': 'order_id, total' })).body;
    page = (await press(page, 'add::action')).body;
    page = (await press(page, 'add::action')).body;
    const all = /<details class="pills" id="datapills">[\s\S]*?<\/details>/.exec(page)?.[0] ?? '';
    const labels = [
      ...all.matchAll(/<button type="button" class="pill" data-pill="[^"]+">([^<]+)<\/button> <code class="small">/g),
    ].map((m) => m[1]);
    assert.ok(labels.includes('Step 0 · payload.order_id') && labels.includes('Step 0 · payload.total'), labels.join());
    assert.ok(
      labels.every((l) => l?.startsWith('Step 0 · ')),
      'only the trigger gives datapills here',
    );
    const lists = [...page.matchAll(/<details class="pills"( data-pills="(\d+)")?/g)].map((m) => m[2] ?? 'page');
    const n = String(labels.length);
    assert.deepEqual(lists, [n, n, 'page'], "two steps after the trigger, then the page's list");
    assert.equal(page.match(/data-pill="/g)?.length, labels.length, 'each datapill is sent once');
  });
});
