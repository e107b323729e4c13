// A project promoted dev → test → prod with packages, as a platform team moves one: recipes (with
// test cases), a connection, a custom connector, properties, a lookup table, a data table in the
// vendor's schema and a file this server does not use. Each environment keeps what is its own
// (its connection's credentials, its property values, its rows when the package carries none),
// takes every change of the release, and the recipe runs in prod against prod's own service.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { readZip } from '../src/api/packages/zip.ts';
import { createTestApp, makeZip, waitPackage, type TestApp } from './helpers.ts';
import { action, fire, log, webhookTrigger } from './recipes.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };
const ADAPTER_PROVIDER = 'acme_crm_connector_123456_1700000000';
const ADAPTER_CODE = "{\n  title: 'Acme CRM',\n  test: lambda { |connection| get('https://acme.example/me') }\n}\n";
const AMOUNT = '5d420ed4-eafd-44d7-89ae-77ed9c46dba5';
const LCAP_APP = '{\n  "name": "Greeter requests",\n  "tabs": [{"name": "Requests", "kind": "new_request"}]\n}\n';

const ref = (zip_name: string, name: string) => ({ zip_name, name, folder: '' });
const pill = (doc: Record<string, unknown>) => `#{_dp('${JSON.stringify(doc)}')}`;

/** The recipe: reads the project's `tier`, the lookup table's row, and calls the greeter service. */
function greetCode(version: string) {
  return webhookTrigger([
    action('lookup_table', 'get_entry', 'tier_row', {
      lookup_table_id: ref('tiers.lookup_table.json', 'Tiers'),
      parameters: { col1: 'T' },
    }),
    action('rest', 'make_request_v2', 'call', {
      request: {
        method: 'GET',
        url: `/greet?tier=${pill({ pill_type: 'project_property', property_name: 'tier' })}&label=${pill({
          pill_type: 'output',
          provider: 'lookup_table',
          line: 'tier_row',
          path: ['entry', 'col2'],
        })}&v=${version}`,
      },
      response: {},
    }),
    log('done', `greeted ${version}`),
  ]);
}

/** The project as the vendor's export tool writes it, imported into dev to start with. */
function devPackage(): Record<string, string> {
  return {
    'greet.recipe.json': JSON.stringify({
      name: 'Greet',
      description: '',
      version: 1,
      private: false,
      concurrency: 1,
      code: greetCode('v1'),
      config: [
        { keyword: 'application', provider: 'workato_webhooks', skip_validation: false, account_id: null },
        { keyword: 'application', provider: 'lookup_table', skip_validation: false, account_id: null },
        {
          keyword: 'application',
          provider: 'rest',
          skip_validation: false,
          account_id: ref('greeter_api.connection.json', 'Greeter API'),
        },
      ],
      test_cases: [{ name: 'Finds the tier', trigger_output: {}, expectations: [{ step: 'tier_row', ran: true }] }],
    }),
    'sync_contacts.recipe.json': JSON.stringify({
      name: 'Sync contacts',
      version: 1,
      code: webhookTrigger([action(ADAPTER_PROVIDER, 'create_contact', 'contact', { name: 'x' })]),
      config: [
        { keyword: 'application', provider: 'workato_webhooks', skip_validation: false, account_id: null },
        {
          keyword: 'application',
          provider: ADAPTER_PROVIDER,
          skip_validation: false,
          account_id: ref('acme.connection.json', 'Acme'),
        },
      ],
    }),
    'greeter_api.connection.json': JSON.stringify({ name: 'Greeter API', provider: 'rest', root_folder: false }),
    'acme.connection.json': JSON.stringify({
      name: 'Acme',
      provider: ref('acme_crm.custom_adapter.json', 'Acme CRM'),
      root_folder: false,
    }),
    'acme_crm.custom_adapter.json': JSON.stringify({
      title: 'Acme CRM',
      description: 'Our CRM',
      logo_file_name: null,
      logo_content_type: null,
      version_no: 1,
      note: null,
    }),
    'acme_crm.custom_adapter.rb': ADAPTER_CODE,
    'tiers.lookup_table.json': JSON.stringify({
      name: 'Tiers',
      schema: [
        { label: 'code', name: 'col1' },
        { label: 'name', name: 'col2' },
      ],
      data: [{ col1: 'T', col2: 'Gold-dev' }],
    }),
    'Data Tables/orders.workato_db_table.json': JSON.stringify({
      name: 'Greeter orders',
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
        { id: AMOUNT, title: 'Amount', type: 'integer', read_only: false, hidden: false, required: true, metadata: {} },
      ],
      data: [{ [AMOUNT]: 1 }, { [AMOUNT]: 2 }],
    }),
    'properties.project_properties.json': JSON.stringify({ data: { tier: null } }),
    'greeter_requests.lcap_app.json': LCAP_APP,
  };
}

describe('a project promoted dev → test → prod keeps each environment its own values', () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  const received: string[] = [];
  const tokens: Record<'dev' | 'test' | 'prod', string> = { dev: '', test: '', prod: '' };
  const projects: Record<'dev' | 'test' | 'prod', { folderId: number; projectId: number }> = {} as never;

  before(async () => {
    server = createServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp();
    tokens.dev = t.adminToken;
    tokens.test = await t.tokenFor('Admin', 'test');
    tokens.prod = await t.tokenFor('Admin', 'prod');
    for (const env of ['dev', 'test', 'prod'] as const) projects[env] = await t.createProject('Greeter', env);
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => server.close(resolve));
  });

  type Env = 'dev' | 'test' | 'prod';
  const call = (env: Env, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    t.call(method, url, { token: tokens[env], ...(body !== undefined ? { body } : {}) });

  async function importInto(env: Env, zip: Buffer, query = '') {
    const res = await t.call('POST', `/api/packages/import/${projects[env].folderId}${query}`, {
      token: tokens[env],
      raw: zip,
      headers: { 'content-type': 'application/zip' },
    });
    assert.equal(res.status, 200, res.text);
    const done = await waitPackage(t, res.body.id, tokens[env]);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    return done;
  }

  async function exportFrom(env: Env): Promise<Map<string, Buffer>> {
    const manifest = await call(env, 'POST', '/api/export_manifests', {
      export_manifest: {
        name: `Greeter from ${env}`,
        folder_id: projects[env].folderId,
        auto_generate_assets: true,
        include_test_cases: true,
      },
    });
    assert.equal(manifest.status, 201, manifest.text);
    const started = await call(env, 'POST', `/api/packages/export/${manifest.body.result.id}`);
    const done = await waitPackage(t, started.body.id, tokens[env]);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/packages/${started.body.id}/download`,
      headers: { authorization: `Bearer ${tokens[env]}` },
    });
    return readZip(download.rawPayload, LIMITS);
  }

  const zipOf = (files: Map<string, Buffer>) => makeZip(Object.fromEntries(files));

  async function recipeNamed(env: Env, name: string) {
    const list = await call(env, 'GET', `/api/recipes?folder_id=${projects[env].folderId}`);
    const found = list.body.items.find((r: { name: string }) => r.name === name);
    assert.ok(found, `${name} in ${env}`);
    return found as { id: number; running: boolean; code: string };
  }

  /** This environment's own settings: the connection's service, the tier, the lookup row, data records. */
  async function setOwnValues(env: Env) {
    const conns = await call(env, 'GET', '/api/connections');
    const greeter = conns.body.find((c: { name: string }) => c.name === 'Greeter API');
    const put = await call(env, 'PUT', `/api/connections/${greeter.id}`, {
      shell_connection: false,
      input: { base_url: `${base}/${env}`, auth_type: 'none' },
    });
    assert.equal(put.status, 200, put.text);
    const props = await call(env, 'POST', '/api/properties', {
      project_id: projects[env].projectId,
      properties: { tier: `${env}-tier` },
    });
    assert.equal(props.status, 200, props.text);
    const tables = await call(env, 'GET', '/api/lookup_tables');
    const tiers = tables.body.find((x: { name: string }) => x.name === 'Tiers');
    const row = await call(env, 'POST', `/api/lookup_tables/${tiers.id}/rows`, {
      data: { code: 'T', name: `Gold-${env}` },
    });
    assert.equal(row.status, 200, row.text);
    const dataTable = (await call(env, 'GET', '/api/data_tables')).body.data.find(
      (x: { name: string }) => x.name === 'Greeter orders',
    );
    const record = await call(env, 'POST', `/api/data_tables/${dataTable.id}/records`, { data: { Amount: 40 } });
    assert.equal(record.status, 200, record.text);
  }

  async function ownValues(env: Env) {
    const props = (await call(env, 'GET', `/api/properties?project_id=${projects[env].projectId}`)).body;
    const tiers = (await call(env, 'GET', '/api/lookup_tables')).body.find((x: { name: string }) => x.name === 'Tiers');
    const rows = (await call(env, 'GET', `/api/lookup_tables/${tiers.id}/rows`)).body.map(
      (r: { data: Record<string, string> }) => r.data.name,
    );
    const dataTable = (await call(env, 'GET', '/api/data_tables')).body.data.find(
      (x: { name: string }) => x.name === 'Greeter orders',
    );
    const records = (await call(env, 'GET', `/api/data_tables/${dataTable.id}/records`)).body.data.map(
      (r: { data: { Amount: number } }) => r.data.Amount,
    );
    return { props, rows, records };
  }

  async function greetIn(env: Env): Promise<string> {
    const recipe = await recipeNamed(env, 'Greet');
    const hook = (await call(env, 'GET', `/api/recipes/${recipe.id}`)).body.webhook_url;
    const job = await fire(t, new URL(hook).pathname, {});
    assert.equal(job.status, 'succeeded', job.error ?? JSON.stringify(job.lines));
    return received.at(-1)!;
  }

  test('dev → test → prod, then a change made in test promoted again', async () => {
    // dev: the vendor's package, then dev's own values.
    const first = await importInto('dev', await makeZip(devPackage()));
    assert.deepEqual(
      first.files
        .filter((f: { result: string }) => f.result !== 'imported')
        .map((f: { path: string; result: string }) => [f.path, f.result]),
      [['greeter_requests.lcap_app.json', 'kept']],
    );
    assert.equal(
      (
        await call('dev', 'POST', '/api/properties', {
          project_id: projects.dev.projectId,
          properties: { tier: 'dev-tier' },
        })
      ).status,
      200,
    );

    // dev → test (no rows: include_data is off), then test's own values.
    const fromDev = await exportFrom('dev');
    assert.deepEqual(JSON.parse(fromDev.get('properties.project_properties.json')!.toString('utf8')), {
      data: { tier: 'dev-tier' },
    });
    assert.equal(fromDev.get('greeter_requests.lcap_app.json')?.toString('utf8'), LCAP_APP);
    await importInto('test', await zipOf(fromDev));
    assert.deepEqual(await ownValues('test'), { props: { tier: 'dev-tier' }, rows: [], records: [] });
    await setOwnValues('test');
    const testGreet = await recipeNamed('test', 'Greet');
    assert.equal((await call('test', 'GET', `/api/recipes/${testGreet.id}/test_cases`)).body.data.length, 1);
    assert.equal((await call('test', 'PUT', `/api/recipes/${testGreet.id}/start`)).body.success, true);
    assert.equal(await greetIn('test'), '/test/greet?tier=test-tier&label=Gold-test&v=v1');

    // test → prod the first time; prod's own values; the recipe runs in prod against prod's service.
    await importInto('prod', await zipOf(await exportFrom('test')));
    await setOwnValues('prod');
    const prodGreet = await recipeNamed('prod', 'Greet');
    assert.equal((await call('prod', 'PUT', `/api/recipes/${prodGreet.id}/start`)).body.success, true);
    assert.equal(await greetIn('prod'), '/prod/greet?tier=prod-tier&label=Gold-prod&v=v1');
    const prodBefore = await ownValues('prod');
    assert.deepEqual(prodBefore, { props: { tier: 'prod-tier' }, rows: ['Gold-prod'], records: [40] });

    // A change made in test: the recipe's next version and a new property.
    assert.equal((await call('test', 'PUT', `/api/recipes/${testGreet.id}/stop`)).status, 200);
    const changed = await call('test', 'PUT', `/api/recipes/${testGreet.id}`, {
      recipe: { code: JSON.stringify(greetCode('v2')) },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.notEqual(changed.body.success, false, changed.text);
    await call('test', 'POST', '/api/properties', {
      project_id: projects.test.projectId,
      properties: { greeting: 'hi' },
    });

    // Promoted to prod again: the release arrives, running recipes restart on it, prod keeps its own.
    const release = await importInto('prod', await zipOf(await exportFrom('test')), '?restart_recipes=true');
    assert.deepEqual(
      release.recipe_status.find((r: { id: number }) => r.id === prodGreet.id),
      {
        id: prodGreet.id,
        import_result: 'restarted',
      },
    );
    assert.deepEqual(await ownValues('prod'), {
      props: { greeting: 'hi', tier: 'prod-tier' },
      rows: ['Gold-prod'],
      records: [40],
    });
    assert.equal(await greetIn('prod'), '/prod/greet?tier=prod-tier&label=Gold-prod&v=v2');
    assert.equal((await call('prod', 'GET', `/api/recipes/${prodGreet.id}/test_cases`)).body.data.length, 1);
    const connectors = (await call('prod', 'GET', '/api/custom_connectors')).body.result;
    assert.deepEqual(
      connectors.map((c: { title: string }) => c.title),
      ['Acme CRM'],
    );
    assert.ok((await recipeNamed('prod', 'Sync contacts')).id > 0);

    // The kept file went dev → test → prod unchanged, and goes on with prod's exports.
    assert.equal((await exportFrom('prod')).get('greeter_requests.lcap_app.json')?.toString('utf8'), LCAP_APP);
    // test kept its own values through all of this.
    assert.deepEqual(await ownValues('test'), {
      props: { greeting: 'hi', tier: 'test-tier' },
      rows: ['Gold-test'],
      records: [40],
    });
    for (const env of ['test', 'prod'] as const)
      await call(env, 'PUT', `/api/recipes/${(await recipeNamed(env, 'Greet')).id}/stop`);
  });
});
