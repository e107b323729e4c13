// The editor's connector catalog sent once a page: GET /console/recipes/catalog (versioned URL,
// ETag), a step's picker listing its own application, *Other applications* and the catalog's
// search without script (POST /console/recipes/new with op apps:<path> and findapp:<path>).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';

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
});
