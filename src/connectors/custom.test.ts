// Custom connectors in recipes (contract 21): a package holding the vendor's custom adapter files
// and a recipe naming the connector by its vendor provider name imports, the recipe starts, and
// its jobs run the connector's Ruby against a local stand-in of its API, through the connection.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_KEY_CONNECTION, startKeyedApi, type KeyedApi } from '../../test/custom-connector-kit.ts';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../test/helpers.ts';
import { action, fire, pill, readJob, webhookTrigger } from '../../test/recipes.ts';
import { createEngine } from '../engine/engine.ts';

const PROVIDER = 'acme_crm_connector_123456_1700000000';

// Written in the vendor's documented style: api_key authorization applied as a header, base_uri
// from a connection field, a test, and actions whose execute lambdas call the API.
const CODE = `{
  title: 'Acme CRM',
${API_KEY_CONNECTION}
  actions: {
    create_contact: {
      title: 'Create contact',
      input_fields: lambda { |_| [{ name: 'name' }] },
      execute: lambda do |_connection, input|
        post('/contacts', name: input['name'].upcase)
      end
    },
    broken: {
      title: 'Broken',
      execute: lambda do |_connection, _input|
        error('the contact is locked')
      end
    }
  }
}
`;

function startAcme(): Promise<KeyedApi> {
  return startKeyedApi('k-123456', (req, url, res) => {
    if (req.method !== 'POST' || url.pathname !== '/contacts') return false;
    const { name } = JSON.parse(req.body) as { name: string };
    res.statusCode = 201;
    res.end(JSON.stringify({ id: 42, name }));
    return true;
  });
}

function packageFiles(code: string, actionName = 'create_contact'): Record<string, string> {
  return {
    'acme_crm.custom_adapter.json': JSON.stringify({ title: 'Acme CRM', description: null, version_no: 1, note: null }),
    'acme_crm.custom_adapter.rb': code,
    'acme.connection.json': JSON.stringify({
      name: 'Acme',
      provider: { zip_name: 'acme_crm.custom_adapter.json', name: 'Acme CRM', folder: '' },
      root_folder: false,
    }),
    'sync.recipe.json': JSON.stringify({
      name: `Sync contacts ${actionName}`,
      description: '',
      version: 1,
      private: true,
      concurrency: 1,
      code: webhookTrigger([
        action(PROVIDER, actionName, 'contact', { name: pill('workato_webhooks', 'hook', 'payload', 'name') }),
      ]),
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
  };
}

describe('a custom connector in a recipe', () => {
  let t: TestApp;
  let acme: KeyedApi;

  before(async () => {
    t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    acme = await startAcme();
  });
  after(async () => {
    await t.close();
    await acme.close();
  });

  async function importPackage(files: Record<string, string>, project: string) {
    const folderId = (await t.createProject(project)).folderId;
    const reply = await t.call('POST', `/api/packages/import/${folderId}`, {
      raw: await makeZip(files),
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(reply.status, 200, reply.text);
    const done = await waitPackage(t, reply.body.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const recipes = await t.call('GET', `/api/recipes?folder_id=${folderId}`);
    const connections = await t.call('GET', `/api/connections?folder_id=${folderId}`);
    return { recipe: recipes.body.items[0], connection: connections.body[0] ?? connections.body.items?.[0] };
  }

  async function startAndPath(recipeId: number): Promise<string> {
    const start = await t.call('PUT', `/api/recipes/${recipeId}/start`);
    assert.equal(start.status, 200, start.text);
    assert.deepEqual(start.body, { success: true }, start.text);
    const recipe = await t.call('GET', `/api/recipes/${recipeId}`);
    return new URL(recipe.body.webhook_url as string).pathname;
  }

  test('imported from a package, the recipe starts and its job calls the API through the connection', async () => {
    const { recipe, connection } = await importPackage(packageFiles(CODE), 'CRM sync');
    assert.equal(connection.provider, PROVIDER);
    const wrong = await t.call('PUT', `/api/connections/${connection.id}`, {
      body: { input: { base_url: acme.url, api_key: 'wrong-key' }, shell_connection: false },
    });
    assert.equal(wrong.status, 200, wrong.text);
    assert.equal(wrong.body.authorization_status, 'failed');
    assert.match(wrong.body.authorization_error, /Acme CRM/);
    assert.match(wrong.body.authorization_error, /401/);
    assert.doesNotMatch(wrong.body.authorization_error, /wrong-key/);

    const update = await t.call('PUT', `/api/connections/${connection.id}`, {
      body: { input: { base_url: acme.url, api_key: 'k-123456' }, shell_connection: false },
    });
    assert.equal(update.status, 200, update.text);
    assert.equal(update.body.authorization_status, 'success', update.text);
    assert.equal(acme.seen.at(-1)!.url, '/me');

    const path = await startAndPath(recipe.id);
    const job = await fire(t, path, { name: 'ada' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { id: 42, name: 'ADA' });
    const call = acme.seen.at(-1)!;
    assert.equal(call.method, 'POST');
    assert.equal(call.url, '/contacts');
    assert.equal(call.apiKey, 'k-123456');
    assert.deepEqual(JSON.parse(call.body), { name: 'ADA' });

    // New code is a version of its own: recipes keep the released one until it is released.
    const connectors = await t.call('GET', '/api/custom_connectors');
    const connectorId = connectors.body.result.find((c: { title: string }) => c.title === 'Acme CRM').id as number;
    const updated = await t.call('PUT', `/api/custom_connectors/${connectorId}`, {
      body: { code: CODE.replace("input['name'].upcase", "input['name'].reverse") },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual((await fire(t, path, { name: 'ada' })).output(1), { id: 42, name: 'ADA' });
    const released = await t.call('POST', `/api/custom_connectors/${connectorId}/release`);
    assert.equal(released.status, 200, released.text);
    assert.deepEqual((await fire(t, path, { name: 'ada' })).output(1), {
      id: 42,
      name: 'ada'.split('').reverse().join(''),
    });
  });

  test("a node that did not start the recipe (a restarted server) loads the connector at the recipe's first webhook", async () => {
    const { recipe, connection } = await importPackage(packageFiles(CODE), 'CRM restarted');
    const update = await t.call('PUT', `/api/connections/${connection.id}`, {
      body: { input: { base_url: acme.url, api_key: 'k-123456' }, shell_connection: false },
    });
    assert.equal(update.body.authorization_status, 'success', update.text);
    const key = (await startAndPath(recipe.id)).split('/').filter(Boolean).at(-2)!;
    // A second engine on the same database knows nothing of the recipe yet, as after a restart.
    const restarted = createEngine(t.ctx, { pollMs: 50 });
    try {
      const received = await restarted.receiveWebhook(key, { payload: { name: 'grace' } } as never);
      assert.equal(received.status, 200, JSON.stringify(received));
      await restarted.idle();
      await t.engine.idle();
      const row = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
      const job = await readJob(t, row.id);
      assert.equal(job.status, 'succeeded', job.error ?? '');
      assert.deepEqual(job.output(1), { id: 42, name: 'GRACE' });
    } finally {
      await restarted.close();
    }
  });

  test('an action that raises fails the step with the connector, the action and the line', async () => {
    const { recipe, connection } = await importPackage(packageFiles(CODE, 'broken'), 'CRM broken');
    const update = await t.call('PUT', `/api/connections/${connection.id}`, {
      body: { input: { base_url: acme.url, api_key: 'k-123456' }, shell_connection: false },
    });
    assert.equal(update.body.authorization_status, 'success', update.text);
    const path = await startAndPath(recipe.id);
    const job = await fire(t, path, { name: 'ada' });
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /Acme CRM/);
    assert.match(job.error ?? '', /actions\.broken\.execute/);
    assert.match(job.error ?? '', /the contact is locked/);
    assert.match(job.error ?? '', /line 28/);
  });

  test('a recipe naming an action the connector does not have is refused at start', async () => {
    const { recipe } = await importPackage(packageFiles(CODE, 'delete_contact'), 'CRM unknown');
    const start = await t.call('PUT', `/api/recipes/${recipe.id}/start`);
    assert.notEqual(start.body.success, true, start.text);
    assert.match(start.text, /no action named delete_contact/);
  });
});
