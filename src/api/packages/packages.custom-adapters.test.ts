// Packages holding a custom connector as the vendor's export tool writes it (contract 15 §13):
// `<name>.custom_adapter.json` (title, description, version_no, note) beside `<name>.custom_adapter.rb`,
// a connection whose provider is a reference to that file, and a recipe naming the connector by
// its vendor provider name (`<slug>_connector_<account>_<stamp>`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { action, webhookTrigger } from '../../../test/recipes.ts';
import { findConnectorByProvider } from '../custom_connectors/custom_connectors.store.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { readZip } from './zip.ts';

const PROVIDER = 'acme_crm_connector_123456_1700000000';
const CODE_V1 = "{\n  title: 'Acme CRM',\n  test: lambda { |connection| get('https://acme.example/me') }\n}\n";
const CODE_V2 = CODE_V1.replace('/me', '/v2/me');

function packageFiles(code: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'acme_crm.custom_adapter.json': JSON.stringify({
      title: 'Acme CRM',
      description: 'Our CRM',
      logo_file_name: null,
      logo_content_type: null,
      version_no: 3,
      note: 'search added',
    }),
    'acme_crm.custom_adapter.rb': code,
    'acme.connection.json': JSON.stringify({
      name: 'Acme',
      provider: { zip_name: 'acme_crm.custom_adapter.json', name: 'Acme CRM', folder: '' },
      root_folder: false,
    }),
    'sync.recipe.json': JSON.stringify({
      name: 'Sync contacts',
      description: '',
      version: 1,
      private: true,
      concurrency: 1,
      code: webhookTrigger([action(PROVIDER, 'create_contact', 'contact', { name: 'x' })]),
      config: [
        { keyword: 'application', provider: 'workato_webhooks', skip_validation: false, account_id: null },
        {
          keyword: 'application',
          provider: PROVIDER,
          skip_validation: false,
          account_id: { zip_name: 'acme.connection.json', name: 'Acme', folder: '' },
        },
      ],
    }),
    ...extra,
  };
}

async function importFiles(t: TestApp, folderId: number, files: Record<string, string>) {
  const reply = await t.call('POST', `/api/packages/import/${folderId}`, {
    raw: await makeZip(files),
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(reply.status, 200, reply.text);
  return waitPackage(t, reply.body.id);
}

describe('POST /api/packages/import/:folder_id with a custom connector', () => {
  let t: TestApp;
  let folderId: number;
  let environmentId: number;

  before(async () => {
    t = await createTestApp();
    folderId = (await t.createProject('CRM sync')).folderId;
    environmentId = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev'))!.id;
  });
  after(() => t.close());

  test('the connector is created with its code released; the recipe and the connection name it by the vendor provider name', async () => {
    const done = await importFiles(t, folderId, packageFiles(CODE_V1));
    assert.equal(done.status, 'completed', JSON.stringify(done));

    const list = await t.call('GET', '/api/custom_connectors');
    assert.equal(list.status, 200);
    const connectors = list.body.result.filter((c: { title: string }) => c.title === 'Acme CRM');
    assert.equal(connectors.length, 1);
    const connector = connectors[0];
    assert.equal(connector.latest_released_version, 1);
    assert.equal(connector.latest_released_version_note, 'search added');
    assert.match(connector.name, new RegExp(`^acme_crm_connector_${connector.id}_\\d+$`));
    const code = await t.call('GET', `/api/custom_connectors/${connector.id}/code`);
    assert.equal(code.body.data.code, CODE_V1);

    const found = await findConnectorByProvider(t.ctx.db, environmentId, PROVIDER);
    assert.equal(found?.id, connector.id, 'the vendor provider name finds the imported connector');
    assert.equal((await findConnectorByProvider(t.ctx.db, environmentId, connector.name))?.id, connector.id);

    const connections = await t.call('GET', '/api/connections');
    const acme = connections.body.find((c: { name: string }) => c.name === 'Acme');
    assert.equal(acme.provider, PROVIDER, 'the connection has the provider name its recipes use');

    const recipes = await t.call('GET', `/api/recipes?folder_id=${folderId}`);
    const recipe = recipes.body.items.find((r: { name: string }) => r.name === 'Sync contacts');
    assert.ok(recipe, 'the recipe was imported');
    const config = JSON.parse(JSON.stringify(recipe.config)) as Array<{ provider: string; account_id: unknown }>;
    assert.equal(config.find((c) => c.provider === PROVIDER)?.account_id, acme.id);
  });

  test('imported again: the same code adds no version; new code is a new released version of the same connector', async () => {
    assert.equal((await importFiles(t, folderId, packageFiles(CODE_V1))).status, 'completed');
    let list = (await t.call('GET', '/api/custom_connectors')).body.result.filter(
      (c: { title: string }) => c.title === 'Acme CRM',
    );
    assert.equal(list.length, 1);
    assert.equal(list[0].latest_released_version, 1);

    assert.equal((await importFiles(t, folderId, packageFiles(CODE_V2))).status, 'completed');
    list = (await t.call('GET', '/api/custom_connectors')).body.result.filter(
      (c: { title: string }) => c.title === 'Acme CRM',
    );
    assert.equal(list.length, 1);
    assert.equal(list[0].latest_released_version, 2);
    assert.equal((await t.call('GET', `/api/custom_connectors/${list[0].id}/code`)).body.data.code, CODE_V2);
    assert.equal(list[0].static_webhook_url, null, 'no webhook_keys: no static webhook URL');
  });

  test('a source declaring webhook_keys gets its static webhook URL on import, and loses it with new code without them', async () => {
    const adapter = (code: string) => ({
      'hooks.custom_adapter.json': JSON.stringify({ title: 'Hook CRM', description: null, version_no: 1, note: null }),
      'hooks.custom_adapter.rb': code,
    });
    const withKeys =
      "{\n  title: 'Hook CRM',\n  webhook_keys: lambda { |params, headers, payload| payload['account'] }\n}\n";
    const find = async () =>
      (await t.call('GET', '/api/custom_connectors?title=hook%20crm')).body.result as Array<{
        id: number;
        static_webhook_url: string | null;
      }>;
    assert.equal((await importFiles(t, folderId, adapter(withKeys))).status, 'completed');
    const [hooks] = await find();
    assert.equal(hooks!.static_webhook_url, `${t.ctx.config.publicBaseUrl}/webhooks/connectors/${hooks!.id}/event`);
    assert.equal((await importFiles(t, folderId, adapter("{\n  title: 'Hook CRM'\n}\n"))).status, 'completed');
    assert.deepEqual(
      (await find()).map((c) => [c.id, c.static_webhook_url]),
      [[hooks!.id, null]],
    );
  });

  test('another package naming the connector by another account id and stamp finds it by its title', async () => {
    const other = 'acme_crm_connector_999_1800000000';
    const files = packageFiles(CODE_V2);
    delete files['acme_crm.custom_adapter.json'];
    delete files['acme_crm.custom_adapter.rb'];
    delete files['acme.connection.json'];
    files['sync.recipe.json'] = files['sync.recipe.json']!.replaceAll(PROVIDER, other).replace(
      '"account_id":{"zip_name":"acme.connection.json","name":"Acme","folder":""}',
      '"account_id":null',
    );
    assert.equal((await importFiles(t, folderId, files)).status, 'completed');
    const found = await findConnectorByProvider(t.ctx.db, environmentId, other);
    assert.equal(found?.title, 'Acme CRM');
  });

  test('exported: the adapter files with the released code, the connection naming the adapter file, the recipe unchanged; imported into test the same', async () => {
    const manifest = await t.call('POST', '/api/export_manifests', {
      body: { export_manifest: { name: 'crm', folder_id: folderId, auto_generate_assets: true, include_data: false } },
    });
    assert.equal(manifest.status, 201, manifest.text);
    const assets = manifest.body.result.assets as Array<{ type: string; name: string; zip_name: string }>;
    const adapter = assets.find((a) => a.type === 'custom_adapter');
    assert.deepEqual(adapter && { name: adapter.name, zip_name: adapter.zip_name }, {
      name: 'Acme CRM',
      zip_name: 'acme_crm.custom_adapter.json',
    });
    const started = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`);
    assert.equal((await waitPackage(t, started.body.id)).status, 'completed');
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/packages/${started.body.id}/download`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    const files = await readZip(download.rawPayload, {
      maxEntries: 1000,
      maxEntryBytes: 1 << 26,
      maxTotalBytes: 1 << 28,
    });
    const meta = JSON.parse(files.get('acme_crm.custom_adapter.json')!.toString('utf8'));
    assert.equal(meta.title, 'Acme CRM');
    assert.equal(meta.version_no, 2);
    assert.equal(files.get('acme_crm.custom_adapter.rb')!.toString('utf8'), CODE_V2);
    const connection = JSON.parse(files.get('acme.connection.json')!.toString('utf8'));
    assert.deepEqual(connection.provider, { zip_name: 'acme_crm.custom_adapter.json', name: 'Acme CRM', folder: '' });
    // The recipe as the last import left it: it names the connector by the other package's provider name.
    assert.match(
      files.get('sync_contacts.recipe.json')!.toString('utf8'),
      /"provider": "acme_crm_connector_999_1800000000"/,
    );

    const testToken = await t.tokenFor('Admin', 'test');
    const target = await t.createProject('CRM sync', 'test');
    const reply = await t.call('POST', `/api/packages/import/${target.folderId}`, {
      raw: download.rawPayload,
      headers: { 'content-type': 'application/octet-stream' },
      token: testToken,
    });
    assert.equal((await waitPackage(t, reply.body.id, testToken)).status, 'completed');
    const testEnv = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'test'))!.id;
    const found = await findConnectorByProvider(t.ctx.db, testEnv, 'acme_crm_connector_999_1800000000');
    assert.equal(found?.title, 'Acme CRM');
    assert.equal(
      (await t.call('GET', `/api/custom_connectors/${found!.id}/code`, { token: testToken })).body.data.code,
      CODE_V2,
    );
    assert.notEqual(found?.environment_id, environmentId);
  });

  test('bad packages: code without its metadata, metadata without code, a reference to an adapter not in the package', async () => {
    for (const [files, pattern] of [
      [
        { 'lonely.custom_adapter.rb': CODE_V1 },
        /lonely\.custom_adapter\.rb: no lonely\.custom_adapter\.json beside it/,
      ],
      [
        { 'x.custom_adapter.json': JSON.stringify({ title: 'X' }) },
        /x\.custom_adapter\.json: the connector's code x\.custom_adapter\.rb is missing/,
      ],
      [
        { 'x.custom_adapter.json': JSON.stringify({ note: 'n' }), 'x.custom_adapter.rb': CODE_V1 },
        /x\.custom_adapter\.json: title is missing/,
      ],
      [
        {
          'c.connection.json': JSON.stringify({ name: 'C', provider: { zip_name: 'gone.custom_adapter.json' } }),
        },
        /c\.connection\.json: its provider names gone\.custom_adapter\.json, which the package does not hold/,
      ],
    ] as const) {
      const done = await importFiles(t, folderId, files as Record<string, string>);
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.match(JSON.stringify(done), pattern);
    }
  });
});
