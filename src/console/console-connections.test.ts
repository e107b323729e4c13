// Connections authored in the console through HTTP (inject): the application picked from the
// catalog, its connector's fields as the form, create (tested against a local stand-in), edit
// (secrets shown as set, never sent back, kept when left blank), delete (the API's refusal in
// words), each refusal on its field with nothing saved, CSRF, sizes, media types, a read-only role.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { API_KEY_CONNECTION, startKeyedApi, type KeyedApi } from '../../test/custom-connector-kit.ts';
import { releasedConnector } from '../../test/custom-oauth-kit.ts';
import { resolveConnectionCredentials } from '../api/connections/connections.service.ts';

const KEY = 'k-console-9c1f';
let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;
let acme: KeyedApi;
let provider: string;

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
  acme = await startKeyedApi(KEY, () => false);
  provider = await releasedConnector(t, `{\n  title: 'Acme CRM',\n${API_KEY_CONNECTION}\n}\n`, 'Acme CRM');
});
after(async () => {
  await t.close();
  await acme.close();
});

interface Conn {
  id: number;
  name: string;
  provider: string;
  folder_id: number;
  authorization_status: string | null;
  authorization_error: string | null;
  input_fields: string[];
}

async function connections(): Promise<Conn[]> {
  const res = await t.call('GET', '/api/connections');
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function stored(id: number): Promise<Record<string, unknown>> {
  const scope = { workspaceId: t.workspaceId, environmentId: (await envId()) as number };
  return (await resolveConnectionCredentials(t.ctx, scope, id)).values;
}

async function envId(): Promise<number> {
  const rows = await sql<{ environment_id: number }>`select environment_id from connections limit 1`.execute(t.ctx.db);
  return Number(rows.rows[0]?.environment_id);
}

function assertNoStack(body: string): void {
  assert.doesNotMatch(body, /at .*\.ts:\d+|Error: |node_modules/);
}

describe('GET/POST /console/connections/new', () => {
  test('the catalog lists built-in, SaaS and custom connectors with icons; a search narrows it', async () => {
    const list = await admin.get('/console/connections');
    assert.match(list.body, /<a class="button" href="\/console\/connections\/new">New connection<\/a>/);
    const picker = await admin.get('/console/connections/new');
    assert.equal(picker.statusCode, 200);
    assert.match(picker.body, /<h2>Built-in<\/h2>[\s\S]*<h2>Applications<\/h2>[\s\S]*<h2>Custom connectors<\/h2>/);
    assert.match(
      picker.body,
      /href="\/console\/connections\/new\?provider=salesforce"><img class="icon" src="\/console\/assets\/icons\/salesforce.svg"/,
    );
    assert.match(
      picker.body,
      new RegExp(
        `href="/console/connections/new\\?provider=${provider}"><img class="icon" src="/console/assets/icons/custom.svg" alt="" width="20" height="20"><span>Acme CRM</span>`,
      ),
    );
    assert.doesNotMatch(picker.body, /provider=logger"/, 'a connector without connections is not offered');
    const searched = await admin.get('/console/connections/new?q=acme');
    assert.match(searched.body, /Acme CRM/);
    assert.doesNotMatch(searched.body, /provider=salesforce/);
  });

  test('a custom connector connection is created with its fields, tested against its service, its key never shown', async () => {
    const form = await admin.get(`/console/connections/new?provider=${provider}`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="conn-field-0">Base URL<\/label>/);
    assert.match(form.body, /id="conn-field-1" name="input.api_key"[^>]* required type="password" value=""/);
    assert.match(form.body, /<select id="conn-folder" name="folder_id"><option value="\d+" selected>Home<\/option>/);

    const created = await admin.post('/console/connections/new', {
      provider,
      name: 'Acme prod',
      'input.base_url': acme.url,
      'input.api_key': KEY,
    });
    assert.equal(created.statusCode, 303, created.body);
    const conn = (await connections()).find((c) => c.name === 'Acme prod');
    assert.ok(conn);
    assert.equal(conn.authorization_status, 'success', String(conn.authorization_error));
    assert.equal(created.headers.location, `/console/connections/${conn.id}?done=connection_created`);
    assert.ok(
      acme.seen.some((r) => r.url === '/me' && r.apiKey === KEY),
      'the test reached the stand-in',
    );
    const page = await admin.get(String(created.headers.location));
    assert.match(page.body, /Connection created\./);
    assert.match(page.body, /<span class="badge ok">success<\/span>/);
    assert.ok(!page.body.includes(KEY));
    const row = await sql<{ input_sealed: string }>`select input_sealed from connections where id = ${conn.id}`.execute(
      t.ctx.db,
    );
    assert.ok(!String(row.rows[0]?.input_sealed).includes(KEY), 'encrypted at rest');
    const logged = await t.call('GET', '/api/activity_logs?event_type=connection_created');
    assert.ok(
      logged.body.data.some(
        (e: { resource_id: string; details: { via: string } }) =>
          e.resource_id === String(conn.id) && e.details.via === 'console',
      ),
    );

    const wrong = await admin.post('/console/connections/new', {
      provider,
      name: 'Acme wrong key',
      'input.base_url': acme.url,
      'input.api_key': 'not-the-key',
    });
    assert.equal(wrong.statusCode, 303, 'a failed test still creates the connection, as the API');
    const failed = await admin.get(String(wrong.headers.location));
    assert.match(failed.body, /<span class="badge bad">failed<\/span>/);
    assert.ok(!failed.body.includes('not-the-key'));
  });

  test('refusals come back on the form with what was typed (never a secret); nothing is created', async () => {
    const before = (await connections()).length;
    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [
        { provider, name: '', 'input.base_url': acme.url, 'input.api_key': 'secret-1' },
        400,
        /id="conn-name-error">Name can&#39;t be blank</,
      ],
      [
        { provider, name: 'No key', 'input.base_url': acme.url },
        400,
        /id="conn-field-1-error">API key can&#39;t be blank</,
      ],
      [
        { provider: 'freshdesk', name: 'Desk', 'input.api_key': 'secret-1' },
        400,
        /id="conn-field-0-error">Domain can&#39;t be blank</,
      ],
      [
        { provider: 'rest', name: 'Bad URL', 'input.base_url': 'ftp://x', 'input.token': 'secret-1' },
        400,
        /id="conn-field-0-error">Base URL must be an absolute http\(s\) URL</,
      ],
      [
        { provider: 'rest', name: 'Folder', 'input.base_url': 'http://a.test', folder_id: 'x' },
        400,
        /id="conn-folder-error">Folder must be an integer</,
      ],
      [
        { provider: 'rest', name: 'Folder', 'input.base_url': 'http://a.test', folder_id: '999999' },
        400,
        /id="conn-folder-error">Folder is not a folder of this environment</,
      ],
    ];
    for (const [form, status, problem] of cases) {
      const res = await admin.post('/console/connections/new', form);
      assert.equal(res.statusCode, status, `${JSON.stringify(form)}: ${res.body}`);
      assert.match(res.body, problem, JSON.stringify(form));
      assert.match(res.body, /role="alert"/);
      assert.match(res.body, /aria-invalid="true"/);
      assert.ok(!res.body.includes('secret-1'), 'a secret typed is not sent back');
      if (form.name) assert.match(res.body, new RegExp(`id="conn-name" name="name"[^>]*value="${form.name}"`), 'kept');
      assertNoStack(res.body);
    }
    const unknown = await admin.post('/console/connections/new', { provider: 'nothing_here', name: 'X' });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /is not an application of this environment/);
    assert.equal((await admin.get('/console/connections/new?provider=nothing_here')).statusCode, 400);
    assert.equal((await connections()).length, before, 'nothing created');
  });

  test('an OAuth connector is created without a test, then offers Connect', async () => {
    const created = await admin.post('/console/connections/new', {
      provider: 'salesforce',
      name: 'Sales',
      'input.client_id': 'cid',
      'input.client_secret': 'csecret-77',
    });
    assert.equal(created.statusCode, 303, created.body);
    const page = await admin.get(String(created.headers.location));
    assert.match(page.body, /not connected/);
    assert.match(page.body, /<button type="submit">Connect<\/button>/);
    assert.ok(!page.body.includes('csecret-77'));
  });
});

describe('GET/POST /console/connections/:id/edit', () => {
  test('secrets show as set and stay when left blank; other fields show their value; a change is tested', async () => {
    const res = await t.call('POST', '/api/connections', {
      body: {
        name: 'Orders API',
        provider: 'rest',
        input: { base_url: 'http://orders.test', auth_type: 'bearer', token: 'tok-4411' },
      },
    });
    assert.equal(res.status, 200, res.text);
    const id = res.body.id as number;
    const form = await admin.get(`/console/connections/${id}/edit`);
    assert.equal(form.statusCode, 200);
    assert.ok(!form.body.includes('tok-4411'), 'the secret is never sent back');
    assert.match(form.body, /name="input.base_url"[^>]*value="http:\/\/orders.test"/);
    assert.match(form.body, /<option value="bearer" selected>Bearer token<\/option>/);
    assert.match(form.body, /id="conn-field-4-state">Set: leave blank to keep it\.</);
    assert.match(form.body, /id="conn-field-5-state">Not set\.</);

    const saved = await admin.post(`/console/connections/${id}/edit`, {
      name: 'Orders API v2',
      folder_id: String(res.body.folder_id),
      'input.base_url': 'http://orders2.test',
      'input.auth_type': 'bearer',
      'input.token': '',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/connections/${id}?done=connection_tested`);
    const values = await stored(id);
    assert.equal(values.token, 'tok-4411', 'kept');
    assert.equal(values.base_url, 'http://orders2.test');
    const after = (await connections()).find((c) => c.id === id);
    assert.equal(after?.name, 'Orders API v2');
    assert.equal(after?.authorization_status, 'success');

    const replaced = await admin.post(`/console/connections/${id}/edit`, {
      name: 'Orders API v2',
      'input.base_url': 'http://orders2.test',
      'input.auth_type': 'bearer',
      'input.token': 'tok-new',
    });
    assert.equal(replaced.statusCode, 303);
    assert.equal((await stored(id)).token, 'tok-new');

    const refused = await admin.post(`/console/connections/${id}/edit`, {
      name: '',
      'input.base_url': 'not a url',
      'input.token': 'tok-typed',
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /id="conn-name-error">Name can&#39;t be blank</);
    assert.ok(!refused.body.includes('tok-typed') && !refused.body.includes('tok-new'));
    const base = await admin.post(`/console/connections/${id}/edit`, { name: 'X', 'input.base_url': 'not a url' });
    assert.equal(base.statusCode, 400);
    assert.match(
      base.body,
      /id="conn-field-0"[^>]*aria-describedby="conn-field-0-hint conn-field-0-error" aria-invalid="true"/,
    );
    assert.equal((await stored(id)).token, 'tok-new', 'nothing saved');
    assert.equal((await connections()).find((c) => c.id === id)?.name, 'Orders API v2');
  });

  test('a connection whose provider has no connector here keeps its fields; its name can change', async () => {
    const res = await t.call('POST', '/api/connections', {
      body: { name: 'Legacy', provider: 'legacy_crm', shell_connection: true, input: { api_key: 'legacy-secret' } },
    });
    assert.equal(res.status, 200, res.text);
    const form = await admin.get(`/console/connections/${res.body.id}/edit`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /No connector for legacy_crm on this server/);
    assert.ok(!form.body.includes('legacy-secret'));
    const saved = await admin.post(`/console/connections/${res.body.id}/edit`, { name: 'Legacy CRM' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/connections/${res.body.id}?done=connection_saved`);
    assert.equal((await stored(res.body.id)).api_key, 'legacy-secret');
    assert.equal((await connections()).find((c) => c.id === res.body.id)?.name, 'Legacy CRM');
  });

  test('unknown ids are 404 pages', async () => {
    for (const res of [
      await admin.get('/console/connections/999999/edit'),
      await admin.post('/console/connections/999999/edit', { name: 'x' }),
      await admin.post('/console/connections/999999/delete'),
    ]) {
      assert.equal(res.statusCode, 404, res.body);
      assertNoStack(res.body);
    }
  });
});

describe('POST /console/connections/:id/delete', () => {
  test('deleted after confirmation; refused in words while a connection has it as parent', async () => {
    const parent = await t.call('POST', '/api/connections', {
      body: { name: 'Parent', provider: 'rest', shell_connection: true },
    });
    const child = await t.call('POST', '/api/connections', {
      body: { name: 'Child', provider: 'rest', parent_id: parent.body.id, external_id: 'u1', shell_connection: true },
    });
    assert.equal(child.status, 200, child.text);
    const page = await admin.get(`/console/connections/${parent.body.id}`);
    assert.match(page.body, /data-confirm="Delete the connection Parent\?/);
    const refused = await admin.post(`/console/connections/${parent.body.id}/delete`);
    assert.equal(refused.statusCode, 422);
    assert.match(
      refused.body,
      /role="alert">Not deleted\. Connection is in use: 1 connection\(s\) have it as parent\. Delete those connections first\./,
    );
    assert.equal((await t.call('GET', `/api/connections/${parent.body.id}`)).status, 200);
    assert.equal((await admin.post(`/console/connections/${child.body.id}/delete`)).statusCode, 303);
    const deleted = await admin.post(`/console/connections/${parent.body.id}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/console/connections?done=connection_deleted');
    assert.match((await admin.get(String(deleted.headers.location))).body, /Connection deleted\./);
    assert.equal((await t.call('GET', `/api/connections/${parent.body.id}`)).status, 404);
  });

  test('refused in words while a recipe uses it; nothing deleted', async () => {
    const conn = await t.call('POST', '/api/connections', {
      body: { name: 'Billing API', provider: 'rest', shell_connection: true },
    });
    const recipe = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Invoice sync',
          code: JSON.stringify({
            number: 0,
            keyword: 'trigger',
            provider: 'workato_webhooks',
            name: 'new_event',
            as: 'h',
            input: {},
            block: [],
          }),
          config: JSON.stringify([
            { keyword: 'application', provider: 'rest', name: 'rest', account_id: conn.body.id },
          ]),
        },
      },
    });
    assert.equal(recipe.status, 200, recipe.text);
    const refused = await admin.post(`/console/connections/${conn.body.id}/delete`);
    assert.equal(refused.statusCode, 422);
    assert.match(
      refused.body,
      /role="alert">Not deleted\. Connection is in use: 1 recipe\(s\) use it \(Invoice sync\)\. Give those recipes another connection first\.</,
    );
    assertNoStack(refused.body);
    assert.equal((await t.call('GET', `/api/connections/${conn.body.id}`)).status, 200);
  });
});

describe('connection forms: who may, and bad requests', () => {
  test('a read-only role sees no form and is refused every change; nothing changes', async () => {
    const id = (
      await t.call('POST', '/api/connections', { body: { name: 'Kept', provider: 'rest', shell_connection: true } })
    ).body.id;
    const count = (await connections()).length;
    assert.doesNotMatch((await reader.get('/console/connections')).body, /New connection/);
    const page = await reader.get(`/console/connections/${id}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Edit connection|Delete connection/);
    for (const res of [
      await reader.get('/console/connections/new'),
      await reader.get(`/console/connections/${id}/edit`),
      await reader.post('/console/connections/new', {
        provider: 'rest',
        name: 'Nope',
        'input.base_url': 'http://a.test',
      }),
      await reader.post(`/console/connections/${id}/edit`, { name: 'Nope' }),
      await reader.post(`/console/connections/${id}/delete`),
    ]) {
      assert.equal(res.statusCode, 403, res.body);
      assert.match(res.body, /connections:write/);
    }
    assert.equal((await connections()).length, count);
    assert.equal((await connections()).find((c) => c.id === id)?.name, 'Kept');
  });

  test('no CSRF token: 403; a form over 1 MB: 413; JSON: 415; nothing saved', async () => {
    const id = (
      await t.call('POST', '/api/connections', { body: { name: 'Guarded', provider: 'rest', shell_connection: true } })
    ).body.id;
    const count = (await connections()).length;
    const send = (url: string, payload: string, type = 'application/x-www-form-urlencoded') =>
      t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': type, cookie: admin.cookie } });
    for (const url of [
      '/console/connections/new',
      `/console/connections/${id}/edit`,
      `/console/connections/${id}/delete`,
    ]) {
      assert.equal((await send(url, 'provider=rest&name=Forged')).statusCode, 403, url);
      const big = await send(url, `_csrf=${admin.csrf}&provider=rest&name=${'x'.repeat(1_100_000)}`);
      assert.equal(big.statusCode, 413, url);
      assertNoStack(big.body);
      const json = await send(url, JSON.stringify({ _csrf: admin.csrf, name: 'J' }), 'application/json');
      assert.equal(json.statusCode, 415, url);
    }
    assert.equal((await connections()).length, count);
    assert.equal((await connections()).find((c) => c.id === id)?.name, 'Guarded');
  });
});
