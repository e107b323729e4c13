// The console's authoring pages through HTTP (inject): creating and deleting lookup tables. Each
// form's happy path, each refusal shown on the form in the contract's wording with what was typed
// (and nothing changed), the API's privilege, and the activity log entry the API's change makes.
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
after(async () => t.close());

function assertNoStack(body: string): void {
  assert.doesNotMatch(body, /at .*\.ts:\d+|Error: |node_modules/);
}

async function tables(): Promise<Array<{ id: number; name: string; schema: string }>> {
  const res = await t.call('GET', '/api/lookup_tables?per_page=100');
  assert.equal(res.status, 200, res.text);
  return res.body.data ?? res.body.result ?? res.body;
}

async function activity(eventType: string): Promise<Array<{ resource_id: string | null; details: { via: string } }>> {
  const res = await t.call('GET', `/api/activity_logs?event_type=${eventType}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

describe('GET/POST /console/lookup-tables/new, POST /console/lookup-tables/:id/delete', () => {
  test('a table created with its columns, rows added to it, then deleted; both in the activity log', async () => {
    const list = await admin.get('/console/lookup-tables');
    assert.match(list.body, /<a class="button" href="\/console\/lookup-tables\/new">New lookup table<\/a>/);
    const form = await admin.get('/console/lookup-tables/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="table-name">Name<\/label>/);
    assert.match(form.body, /name="column_9"/);
    assert.match(form.body, /name="_csrf"/);

    const created = await admin.post('/console/lookup-tables/new', {
      name: 'Country codes',
      column_0: 'code',
      column_1: '',
      column_2: 'name',
    });
    assert.equal(created.statusCode, 303, created.body);
    const table = (await tables()).find((x) => x.name === 'Country codes');
    assert.ok(table);
    assert.deepEqual(
      JSON.parse(table.schema).map((c: { label: string }) => c.label),
      ['code', 'name'],
      'the blank input is left out',
    );
    assert.equal(created.headers.location, `/console/lookup-tables/${table.id}?done=table_created`);
    const shown = await admin.get(String(created.headers.location));
    assert.match(shown.body, /Lookup table created\./);
    assert.match(shown.body, /<label for="add-0">code<\/label>.*<label for="add-1">name<\/label>/);
    const added = await admin.post(`/console/lookup-tables/${table.id}/rows`, { col_0: 'FR', col_1: 'France' });
    assert.equal(added.statusCode, 303);

    const entries = await activity('lookup_table_created');
    assert.ok(
      entries.some((e) => e.resource_id === String(table.id) && e.details.via === 'console'),
      JSON.stringify(entries),
    );

    assert.match(shown.body, new RegExp(`action="/console/lookup-tables/${table.id}/delete"`));
    const deleted = await admin.post(`/console/lookup-tables/${table.id}/delete`);
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal(deleted.headers.location, '/console/lookup-tables?done=table_deleted');
    assert.match((await admin.get('/console/lookup-tables?done=table_deleted')).body, /Lookup table deleted\./);
    assert.equal(
      (await tables()).find((x) => x.id === table.id),
      undefined,
    );
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows`)).status, 404);
    const gone = await activity('lookup_tables_deleted');
    assert.ok(gone.some((e) => e.resource_id === String(table.id) && e.details.via === 'console'));

    const again = await admin.post(`/console/lookup-tables/${table.id}/delete`);
    assert.equal(again.statusCode, 404);
    assertNoStack(again.body);
  });

  test('refusals come back on the form, next to the field, with what was typed; nothing is created', async () => {
    const taken = await t.call('POST', '/api/lookup_tables', { body: { name: 'Taken', schema: [{ label: 'a' }] } });
    assert.equal(taken.status, 200, taken.text);
    const count = (await tables()).length;
    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [{ name: 'taken', column_0: 'a' }, 422, /id="table-name-error">Name has already been taken</],
      [{ name: '', column_0: 'a' }, 400, /id="table-name-error">Name can&#39;t be blank</],
      [{ column_0: 'a' }, 400, /id="table-name-error">Name can&#39;t be blank</],
      [{ name: 'No columns' }, 400, /id="table-columns-error">Columns must have at least one column</],
      [
        { name: 'Twice', column_0: 'code', column_3: 'CODE' },
        400,
        /id="table-column-3-error">Column 4 repeats the label of column 1 \(&quot;code&quot;\)</,
      ],
      [{ name: 'Positional', column_0: 'col2' }, 400, /id="table-column-0-error">Column 1 would be mistaken/],
      [
        { name: 'Project', project_id: 'abc', column_0: 'a' },
        400,
        /id="table-project-error">Project id must be an integer</,
      ],
      [
        { name: 'Project', project_id: '999999', column_0: 'a' },
        404,
        /id="table-project-error">Project id does not exist</,
      ],
    ];
    for (const [form, status, problem] of cases) {
      const res = await admin.post('/console/lookup-tables/new', form);
      assert.equal(res.statusCode, status, `${JSON.stringify(form)}: ${res.body}`);
      assert.match(res.body, problem, JSON.stringify(form));
      assert.match(res.body, /role="alert"/);
      assert.match(res.body, /aria-invalid="true"|<fieldset class="stack" aria-describedby="table-columns-error">/);
      assertNoStack(res.body);
      if (form.name) assert.match(res.body, new RegExp(`id="table-name" name="name"[^>]*value="${form.name}"`), 'kept');
    }
    const tooLong = await admin.post('/console/lookup-tables/new', { name: 'x'.repeat(1001), column_0: 'a' });
    assert.equal(tooLong.statusCode, 400);
    assert.match(tooLong.body, /name/);
    assert.equal((await tables()).length, count, 'nothing created');
  });

  test('a token without lookup_tables:write, a missing CSRF token: refused, nothing changed', async () => {
    const id = (await t.call('POST', '/api/lookup_tables', { body: { name: 'Kept', schema: [{ label: 'a' }] } })).body
      .id as number;
    const count = (await tables()).length;
    assert.doesNotMatch((await reader.get('/console/lookup-tables')).body, /New lookup table/);
    assert.doesNotMatch((await reader.get(`/console/lookup-tables/${id}`)).body, /Delete table/);
    assert.equal((await reader.get('/console/lookup-tables/new')).statusCode, 403);
    const create = await reader.post('/console/lookup-tables/new', { name: 'Nope', column_0: 'a' });
    assert.equal(create.statusCode, 403);
    assert.match(create.body, /lookup_tables:write/);
    assert.equal((await reader.post(`/console/lookup-tables/${id}/delete`)).statusCode, 403);
    const forged = await t.app.inject({
      method: 'POST',
      url: '/console/lookup-tables/new',
      payload: 'name=Forged&column_0=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin.cookie },
    });
    assert.equal(forged.statusCode, 403);
    assert.equal((await tables()).length, count, 'nothing created or deleted');
  });
});

async function topics(): Promise<Array<{ id: number; name: string; retention: number; schema?: unknown }>> {
  const res = await t.call('GET', '/api/event_streams/topics?include_schema=true&per_page=100');
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

describe('GET/POST /console/topics/new, POST /console/topics/:id/delete', () => {
  test('a topic created with its schema and retention, a message checked against it, then deleted', async () => {
    assert.match(
      (await admin.get('/console/topics')).body,
      /<a class="button" href="\/console\/topics\/new">New topic<\/a>/,
    );
    const form = await admin.get('/console/topics/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="topic-name">Name<\/label>/);
    assert.match(form.body, /<option value="days" selected>days<\/option>/);

    const created = await admin.post('/console/topics/new', {
      name: 'orders',
      description: 'New orders',
      retention: '36',
      unit: 'hours',
      schema: '[{"name": "order_id", "type": "integer"}]',
    });
    assert.equal(created.statusCode, 303, created.body);
    const topic = (await topics()).find((x) => x.name === 'orders');
    assert.ok(topic);
    assert.equal(topic.retention, 36 * 3600);
    assert.equal((topic.schema as Array<{ name: string }>)[0]?.name, 'order_id');
    assert.equal(created.headers.location, `/console/topics/${topic.id}?done=topic_created`);
    const shown = await admin.get(String(created.headers.location));
    assert.match(shown.body, /Topic created\./);
    assert.match(shown.body, /<dt>Retention<\/dt><dd>36 h<\/dd>/);
    assert.match(shown.body, /<h2 id="schema-title">Message schema<\/h2><pre>[^<]*order_id/);
    const bad = await admin.post(`/console/topics/${topic.id}/publish`, { payload: '{"order_id": "x"}' });
    assert.equal(bad.statusCode, 400, 'the schema applies to what is published');
    const entries = await activity('topic_created');
    assert.ok(entries.some((e) => e.resource_id === String(topic.id) && e.details.via === 'console'));

    const defaults = await admin.post('/console/topics/new', { name: 'defaults', retention: '', unit: 'days' });
    assert.equal(defaults.statusCode, 303, defaults.body);
    assert.equal((await topics()).find((x) => x.name === 'defaults')?.retention, 604_800, 'the API default, 7 days');

    const deleted = await admin.post(`/console/topics/${topic.id}/delete`);
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal(deleted.headers.location, '/console/topics?done=topic_deleted');
    assert.match((await admin.get('/console/topics?done=topic_deleted')).body, /Topic deleted\./);
    assert.equal(
      (await topics()).find((x) => x.id === topic.id),
      undefined,
    );
    assert.ok((await activity('topic_deleted')).some((e) => e.resource_id === String(topic.id)));
    const again = await admin.post(`/console/topics/${topic.id}/delete`);
    assert.equal(again.statusCode, 404);
    assertNoStack(again.body);
  });

  test('refusals come back on the form, next to the field, with what was typed; nothing is created', async () => {
    assert.equal((await t.call('POST', '/api/event_streams/topics', { body: { name: 'taken' } })).status, 200);
    const count = (await topics()).length;
    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [{ name: 'taken' }, 422, /id="topic-name-error">Name has already been taken</],
      [{ name: '  ' }, 400, /id="topic-name-error">Name can&#39;t be blank</],
      [{}, 400, /id="topic-name-error">Name can&#39;t be blank</],
      [{ name: 'long', retention: '4000', unit: 'days' }, 400, /Retention must be between 60 and 315360000 seconds/],
      [{ name: 'short', retention: '0', unit: 'minutes' }, 400, /Retention must be between 60/],
      [{ name: 'words', retention: 'a week' }, 400, /id="topic-retention-error">Retention must be a whole number/],
      [{ name: 'json', schema: '[{"name": ' }, 400, /id="topic-schema-error">Message schema is not valid JSON</],
      [{ name: 'shape', schema: '{"name": "a"}' }, 400, /id="topic-schema-error">Message schema /],
      [{ name: 'folder', folder_id: 'x' }, 400, /id="topic-folder-error">Folder id must be an integer</],
    ];
    for (const [form, status, problem] of cases) {
      const res = await admin.post('/console/topics/new', form);
      assert.equal(res.statusCode, status, `${JSON.stringify(form)}: ${res.body}`);
      assert.match(res.body, problem, JSON.stringify(form));
      assert.match(res.body, /role="alert"/);
      assertNoStack(res.body);
      if (form.name) assert.match(res.body, new RegExp(`id="topic-name" name="name"[^>]*value="${form.name}"`), 'kept');
      if (form.schema) assert.ok(res.body.includes('&quot;name&quot;'), 'the schema typed is kept');
    }
    const unknownFolder = await admin.post('/console/topics/new', { name: 'nowhere', folder_id: '999999' });
    assert.equal(unknownFolder.statusCode, 400);
    assert.match(unknownFolder.body, /id="topic-folder-error">Folder id is not a folder of this environment</);
    assertNoStack(unknownFolder.body);
    const badUnit = await admin.post('/console/topics/new', { name: 'unit', retention: '1', unit: 'weeks' });
    assert.equal(badUnit.statusCode, 400);
    assert.match(badUnit.body, /unit/);
    assert.equal((await topics()).length, count, 'nothing created');
  });

  test('a token without event_streams:write: refused, nothing changed', async () => {
    const id = (await t.call('POST', '/api/event_streams/topics', { body: { name: 'kept' } })).body.data.id as number;
    const count = (await topics()).length;
    assert.doesNotMatch((await reader.get('/console/topics')).body, /New topic/);
    assert.doesNotMatch((await reader.get(`/console/topics/${id}`)).body, /Delete topic/);
    assert.equal((await reader.get('/console/topics/new')).statusCode, 403);
    const create = await reader.post('/console/topics/new', { name: 'nope' });
    assert.equal(create.statusCode, 403);
    assert.match(create.body, /event_streams:write/);
    assert.equal((await reader.post(`/console/topics/${id}/delete`)).statusCode, 403);
    assert.equal((await topics()).length, count);
  });
});

async function properties(projectId?: number): Promise<Record<string, string>> {
  const res = await t.call('GET', `/api/properties${projectId !== undefined ? `?project_id=${projectId}` : ''}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

describe('GET/POST /console/properties', () => {
  test('environment and project properties set, then changed in place; recorded as the API records them', async () => {
    const page = await admin.get('/console/properties');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2>Environment properties<\/h2>/);
    assert.match(page.body, /<label for="set-name">Name<\/label>/);

    const set = await admin.post('/console/properties', { name: 'region', value: 'eu-west' });
    assert.equal(set.statusCode, 303, set.body);
    assert.equal(set.headers.location, '/console/properties?done=property_saved');
    assert.equal((await properties()).region, 'eu-west');
    const shown = await admin.get('/console/properties?done=property_saved');
    assert.match(shown.body, /Property saved\./);
    assert.match(
      shown.body,
      /<label for="prop-\d+" class="visually-hidden">Value of region<\/label><input id="prop-\d+" name="value" value="eu-west"/,
    );

    const changed = await admin.post('/console/properties', { name: 'region', value: 'eu-north' });
    assert.equal(changed.statusCode, 303);
    assert.equal((await properties()).region, 'eu-north');
    const entries = await activity('properties_updated');
    assert.equal(entries.filter((e) => e.details.via === 'console').length, 2, JSON.stringify(entries));

    const { projectId } = await t.createProject('Props project');
    const atProject = await admin.post('/console/properties', {
      project_id: String(projectId),
      name: 'timeout',
      value: '30',
    });
    assert.equal(atProject.statusCode, 303, atProject.body);
    assert.equal(atProject.headers.location, `/console/properties?project_id=${projectId}&done=property_saved`);
    assert.equal((await properties(projectId)).timeout, '30');
    assert.equal((await properties()).timeout, undefined, 'not at the environment level');
    const projectPage = await admin.get(`/console/properties?project_id=${projectId}`);
    assert.match(projectPage.body, new RegExp(`<h2>Properties of project ${projectId}</h2>`));
    assert.match(projectPage.body, /value="30"/);
    assert.match(projectPage.body, new RegExp(`<input type="hidden" name="project_id" value="${projectId}">`));
    assert.doesNotMatch(projectPage.body, /eu-north/);
  });

  test('refusals come back on the form, next to the field, with what was typed; nothing is saved', async () => {
    const before = await properties();
    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [{ name: '  ', value: 'x' }, 400, /id="set-name-error">Name can&#39;t be blank</],
      [{ value: 'x' }, 400, /id="set-name-error">Name can&#39;t be blank</],
      [
        { name: 'n'.repeat(101), value: 'x' },
        400,
        /id="set-name-error">Name is too long \(maximum is 100 characters\)</,
      ],
      [
        { name: 'long', value: 'v'.repeat(1025) },
        400,
        /id="set-value-error">Value is too long \(maximum is 1024 characters\)</,
      ],
      [{ name: 'tab\there', value: 'x' }, 400, /id="set-name-error">Name must not contain control characters/],
    ];
    for (const [form, status, problem] of cases) {
      const res = await admin.post('/console/properties', form);
      assert.equal(res.statusCode, status, `${JSON.stringify(form)}: ${res.body}`);
      assert.match(res.body, problem, JSON.stringify(form));
      assert.match(res.body, /role="alert">1 property is invalid; nothing was saved</);
      assertNoStack(res.body);
      if (form.value === 'x') assert.match(res.body, /<textarea id="set-value"[^>]*>x<\/textarea>/, 'kept');
    }
    const unknownProject = await admin.post('/console/properties', { project_id: '999999', name: 'a', value: 'b' });
    assert.equal(unknownProject.statusCode, 404);
    assert.match(unknownProject.body, /Project not found/);
    const badProject = await admin.post('/console/properties', { project_id: 'abc', name: 'a', value: 'b' });
    assert.equal(badProject.statusCode, 400);
    assert.match(badProject.body, /project_id/);
    assert.equal((await admin.get('/console/properties?project_id=-1')).statusCode, 400);
    assert.deepEqual(await properties(), before, 'nothing saved');
  });

  test('a token without environment_properties:write: no form, refused, nothing saved', async () => {
    const before = await properties();
    const page = await reader.get('/console/properties');
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Set a property|name="value"/);
    const res = await reader.post('/console/properties', { name: 'reader', value: 'x' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /environment_properties:write/);
    assert.deepEqual(await properties(), before);
  });
});

describe('/console/api-platform/clients: create a client, issue a key (its secret once), revoke it', () => {
  let collectionId: number;
  before(async () => {
    const { projectId } = await t.createProject('Partners');
    const res = await t.call('POST', '/api/api_collections', { body: { name: 'Orders', project_id: projectId } });
    assert.equal(res.status, 200, res.text);
    collectionId = res.body.id;
  });

  async function clients(): Promise<Array<{ id: number; name: string; auth_type: string }>> {
    const res = await t.call('GET', '/api/v2/api_clients?per_page=100');
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  test('the happy path, each step in the activity log', async () => {
    const platform = await admin.get('/console/api-platform');
    assert.match(platform.body, /href="\/console\/api-platform\/clients\/new">New API client<\/a>/);
    const form = await admin.get('/console/api-platform/clients/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, new RegExp(`<input type="checkbox" name="collection_${collectionId}" value="1"> Orders`));

    const created = await admin.post('/console/api-platform/clients/new', {
      name: 'Partner portal',
      description: 'For partners',
      auth_type: 'token',
      [`collection_${collectionId}`]: '1',
    });
    assert.equal(created.statusCode, 303, created.body);
    const client = (await clients()).find((c) => c.name === 'Partner portal');
    assert.ok(client);
    assert.equal(client.auth_type, 'token');
    assert.equal(created.headers.location, `/console/api-platform/clients/${client.id}?done=client_created`);
    const page = await admin.get(String(created.headers.location));
    assert.match(page.body, /API client created/);
    assert.match(page.body, /<dt>Collections<\/dt><dd>Orders<\/dd>/);
    assert.match(page.body, /No key: the client can call nothing yet\./);
    assert.ok(
      (await activity('api_client_created')).some(
        (e) => e.resource_id === String(client.id) && e.details.via === 'console',
      ),
    );

    const issued = await admin.post(`/console/api-platform/clients/${client.id}/keys`, { name: 'production' });
    assert.equal(issued.statusCode, 200, issued.body);
    const secret = /<output class="secret" id="issued-secret">([^<]+)<\/output>/.exec(issued.body)?.[1];
    assert.ok(secret && secret.length >= 20, issued.body);
    assert.match(issued.body, /Copy its secret now: it is not shown again\./);
    const keys = (await t.call('GET', `/api/v2/api_clients/${client.id}/api_keys`)).body.data as Array<{
      id: number;
      name: string;
      auth_token: string;
    }>;
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.name, 'production');
    assert.ok(keys[0]?.auth_token.startsWith(secret.slice(0, 8)), 'the masked token is the secret shown');
    const again = await admin.get(`/console/api-platform/clients/${client.id}`);
    assert.ok(!again.body.includes(secret), 'the secret is shown once');
    assert.ok(again.body.includes(keys[0].auth_token.replace('…', '')) || again.body.includes(keys[0].auth_token));
    assert.ok(
      (await activity('api_key_created')).some(
        (e) => e.resource_id === String(keys[0]?.id) && e.details.via === 'console',
      ),
    );

    // A key is an access profile: Refresh secret on the API platform page, also in the activity log.
    const refreshed = await admin.post(`/console/api-platform/access-profiles/${keys[0].id}/refresh-secret`);
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assert.match(refreshed.body, /id="issued-secret">/);
    assert.ok(
      (await activity('api_access_profile_secret_refreshed')).some(
        (e) => e.resource_id === String(keys[0]?.id) && e.details.via === 'console',
      ),
    );
    const revoked = await admin.post(`/console/api-platform/clients/${client.id}/keys/${keys[0].id}/revoke`);
    assert.equal(revoked.statusCode, 303, revoked.body);
    assert.equal(revoked.headers.location, `/console/api-platform/clients/${client.id}?done=key_revoked`);
    assert.equal((await t.call('GET', `/api/v2/api_clients/${client.id}/api_keys`)).body.data.length, 0);
    assert.ok(
      (await activity('api_key_deleted')).some(
        (e) => e.resource_id === String(keys[0]?.id) && e.details.via === 'console',
      ),
    );
    assert.equal(
      (await admin.post(`/console/api-platform/clients/${client.id}/keys/${keys[0].id}/revoke`)).statusCode,
      404,
    );
  });

  test('refusals come back on the form with what was typed; nothing is created', async () => {
    const count = (await clients()).length;
    const blank = await admin.post('/console/api-platform/clients/new', {
      name: ' ',
      auth_type: 'token',
      [`collection_${collectionId}`]: '1',
    });
    assert.equal(blank.statusCode, 400, blank.body);
    assert.match(blank.body, /id="client-name-error">Name can&#39;t be blank</);
    assert.match(blank.body, new RegExp(`name="collection_${collectionId}" value="1" checked`), 'kept');
    const unknown = await admin.post('/console/api-platform/clients/new', { name: 'Ghost', collection_999999: '1' });
    assert.ok(unknown.statusCode >= 400 && unknown.statusCode < 500, unknown.body);
    assert.match(unknown.body, /role="alert"/);
    assert.match(unknown.body, /value="Ghost"/);
    assertNoStack(unknown.body);
    const badType = await admin.post('/console/api-platform/clients/new', { name: 'Bad', auth_type: 'basic' });
    assert.equal(badType.statusCode, 400);
    assert.match(badType.body, /auth_type/);
    assert.equal((await clients()).length, count, 'nothing created');

    const made = await admin.post('/console/api-platform/clients/new', {
      name: 'Keyless',
      [`collection_${collectionId}`]: '1',
    });
    const id = Number(/clients\/(\d+)/.exec(String(made.headers.location))?.[1]);
    const noName = await admin.post(`/console/api-platform/clients/${id}/keys`, { name: '' });
    assert.equal(noName.statusCode, 400, noName.body);
    assert.match(noName.body, /id="key-name-error">Name can&#39;t be blank</);
    assert.doesNotMatch(noName.body, /issued-secret/);
    assert.equal((await t.call('GET', `/api/v2/api_clients/${id}/api_keys`)).body.data.length, 0);
    assert.equal((await admin.post('/console/api-platform/clients/999999/keys', { name: 'x' })).statusCode, 404);
  });

  test('a token without api_platform_clients:write: refused, nothing changed', async () => {
    const count = (await clients()).length;
    assert.doesNotMatch((await reader.get('/console/api-platform')).body, /New API client/);
    assert.equal((await reader.get('/console/api-platform/clients/new')).statusCode, 403);
    const res = await reader.post('/console/api-platform/clients/new', {
      name: 'Nope',
      [`collection_${collectionId}`]: '1',
    });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /api_platform_clients:write/);
    const id = (await clients())[0]?.id as number;
    assert.doesNotMatch((await reader.get(`/console/api-platform/clients/${id}`)).body, /Issue a key/);
    assert.equal((await reader.post(`/console/api-platform/clients/${id}/keys`, { name: 'x' })).statusCode, 403);
    assert.equal((await clients()).length, count);
  });
});
