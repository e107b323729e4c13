// GET /api/packages/:id: each imported file says what it did to its asset (`change`: created,
// updated or unchanged) for lookup tables, properties, API collections and endpoints, and custom
// connectors (the Ruby source with its JSON), as for recipes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { webhookTrigger } from '../../../test/recipes.ts';

const RECIPE_CODE = webhookTrigger([]);
const CODE = "{\n  title: 'Ledger',\n  test: lambda { |_connection| true }\n}\n";

function files(over: Record<string, unknown> = {}): Record<string, string> {
  const base: Record<string, unknown> = {
    'orders.recipe.json': { name: 'Orders', code: RECIPE_CODE },
    'tiers.lookup_table.json': { name: 'Change tiers', schema: [{ label: 'code', name: 'col1' }] },
    'properties.project_properties.json': { data: { region: 'eu', owner: null } },
    'account_properties.properties.json': { change_env_flag: 'on' },
    'api_collection.json': { name: 'Change API' },
    'orders.api_endpoint.json': { name: 'List orders', method: 'GET', path: 'orders', recipe_name: 'Orders' },
    'ledger.custom_adapter.json': { title: 'Ledger', description: null, version_no: 1, note: null },
    ...over,
  };
  const out: Record<string, string> = { 'ledger.custom_adapter.rb': CODE };
  for (const [path, body] of Object.entries(base))
    if (body !== undefined) out[path] = typeof body === 'string' ? body : JSON.stringify(body);
  return out;
}

describe('GET /api/packages/:id: the change of each file', () => {
  let t: TestApp;
  let folderId: number;
  let projectId: number;

  before(async () => {
    t = await createTestApp();
    ({ folderId, projectId } = await t.createProject('Changes'));
  });
  after(() => t.close());

  async function importFiles(zipFiles: Record<string, string>): Promise<Record<string, string | undefined>> {
    const res = await t.call('POST', `/api/packages/import/${folderId}`, {
      raw: await makeZip(zipFiles),
      headers: { 'content-type': 'application/zip' },
    });
    assert.equal(res.status, 200, res.text);
    const done = await waitPackage(t, res.body.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const shown = await t.call('GET', `/api/packages/${res.body.id}`);
    return Object.fromEntries(
      (shown.body.files as Array<{ path: string; result: string; change?: string }>).map((f) => [
        f.path,
        f.result === 'imported' ? f.change : f.result,
      ]),
    );
  }

  test('created, then unchanged, then updated by what each file changes', async () => {
    const first = await importFiles(files());
    assert.deepEqual(first, {
      'account_properties.properties.json': 'created',
      'api_collection.json': 'created',
      'ledger.custom_adapter.json': 'created',
      'ledger.custom_adapter.rb': 'created',
      'orders.api_endpoint.json': 'created',
      'orders.recipe.json': 'created',
      'properties.project_properties.json': 'created',
      'tiers.lookup_table.json': 'created',
    });

    // The same package again: nothing changes, and every file says so.
    const again = await importFiles(files());
    assert.ok(
      Object.values(again).every((c) => c === 'unchanged'),
      JSON.stringify(again),
    );

    // The target's own value stays (unchanged); an empty one the package fills and a new name are updates.
    assert.equal(
      (
        await t.call('POST', '/api/properties', {
          body: { project_id: projectId, properties: { region: 'us' } },
        })
      ).status,
      200,
    );
    const kept = await importFiles(files());
    assert.equal(kept['properties.project_properties.json'], 'unchanged');
    const filled = await importFiles(
      files({ 'properties.project_properties.json': { data: { region: 'eu', owner: 'ops' } } }),
    );
    assert.equal(filled['properties.project_properties.json'], 'updated');
    const props = await t.call('GET', `/api/properties?project_id=${projectId}`);
    assert.deepEqual(props.body, { owner: 'ops', region: 'us' });
    const added = await importFiles(
      files({ 'account_properties.properties.json': { change_env_flag: 'off', x2: 'y' } }),
    );
    assert.equal(added['account_properties.properties.json'], 'updated');

    // A lookup table's new column or carried rows, an endpoint's new description, a connector's new code.
    const changed = await importFiles(
      files({
        'tiers.lookup_table.json': {
          name: 'Change tiers',
          schema: [
            { label: 'code', name: 'col1' },
            { label: 'name', name: 'col2' },
          ],
        },
        'orders.api_endpoint.json': {
          name: 'List orders',
          method: 'GET',
          path: 'orders',
          recipe_name: 'Orders',
          description: 'Every order',
        },
        'ledger.custom_adapter.rb': CODE.replace('true', 'false'),
      }),
    );
    assert.deepEqual(
      [
        changed['tiers.lookup_table.json'],
        changed['orders.api_endpoint.json'],
        changed['ledger.custom_adapter.json'],
        changed['ledger.custom_adapter.rb'],
        changed['api_collection.json'],
        changed['orders.recipe.json'],
      ],
      ['updated', 'updated', 'updated', 'updated', 'unchanged', 'unchanged'],
    );
    const rows = await importFiles(
      files({
        'tiers.lookup_table.json': {
          name: 'Change tiers',
          schema: [
            { label: 'code', name: 'col1' },
            { label: 'name', name: 'col2' },
          ],
          data: [{ col1: 'G', col2: 'Gold' }],
        },
      }),
    );
    assert.equal(rows['tiers.lookup_table.json'], 'updated');
    const table = (await t.call('GET', '/api/lookup_tables')).body.find(
      (x: { name: string }) => x.name === 'Change tiers',
    );
    const stored = await t.call('GET', `/api/lookup_tables/${table.id}/rows`);
    assert.deepEqual(
      stored.body.map((r: { data: unknown }) => r.data),
      [{ code: 'G', name: 'Gold' }],
    );
  });
});
