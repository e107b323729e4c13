// The connector catalog: one list of every connector (built-in and SaaS) by provider name, which
// the recipe validation uses (an unknown action of a known connector, or a SaaS step without its
// connection, does not start) and which lists each with its operations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { action, createRecipe, webhookTrigger } from './recipes.ts';
import { findConnector, listConnectors } from '../src/engine/catalog.ts';
import { SAAS_CONNECTORS } from '../src/connectors/saas/index.ts';
import { allFields } from '../src/connectors/auth/kinds.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t.close());

describe('the connector catalog', () => {
  test('lists built-in and SaaS connectors once each, by name, with their operations', () => {
    const list = listConnectors();
    const names = list.map((c) => c.name);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b)),
    );
    assert.equal(new Set(names).size, names.length);
    for (const expected of [
      'clock',
      'rest',
      'workato_variable',
      'salesforce',
      'slack_bot',
      'google_sheets',
      'quickbooks',
      'service_now',
    ])
      assert.ok(names.includes(expected), expected);
    assert.ok(!names.includes('http'), 'the alias http is listed as rest');
    const salesforce = list.find((c) => c.name === 'salesforce');
    const op = (name: string, title: string) => ({ name, title, deprecated: false, bulk: false, batch: false });
    assert.deepEqual(salesforce?.actions, [
      op('__adhoc_http_action', 'Custom action'),
      op('create_sobject', 'Create record'),
      op('delete_sobject', 'Delete record'),
      op('get_sobject', 'Get record by ID'),
      op('search_sobjects', 'Search records'),
      op('search_sobjects_soql', 'Search records using SOQL query WHERE clause'),
      op('update_sobject', 'Update record'),
      op('update_sobject_v2', 'Update record'),
      op('upsert_sobject', 'Upsert record'),
    ]);
    assert.deepEqual(
      list.find((c) => c.name === 'slack_bot')?.actions.map((a) => a.name),
      ['__adhoc_http_action', 'post_bot_message', 'post_bot_reply', 'post_bot_reply_v2'],
    );
    assert.equal(salesforce?.oauth, true);
    assert.equal(list.find((c) => c.name === 'stripe')?.oauth, false);
    assert.equal(findConnector('http')?.provider, 'http');
    assert.equal(findConnector('Salesforce'), undefined, 'names are exact');
    assert.equal(findConnector('__proto__'), undefined);
  });

  test('every SaaS connector has the custom action, a connection, a test and no secret field shown in clear', () => {
    for (const connector of SAAS_CONNECTORS) {
      assert.ok(connector.actions.__adhoc_http_action, connector.provider);
      assert.ok(connector.connection, connector.provider);
      assert.equal(connector.needsConnection, true);
      assert.equal(connector.reachesOutside, true);
      for (const field of allFields(connector.connection))
        if (/secret|password|token|api_key/.test(field.name) && !/token_id|_endpoint/.test(field.name))
          assert.equal(field.control_type, 'password', `${connector.provider}.${field.name}`);
    }
  });
});

describe('PUT /api/recipes/:id/start with SaaS steps', () => {
  test('an unknown action of a known connector is refused at start, naming the connector', async () => {
    const id = await createRecipe(t, webhookTrigger([action('salesforce', 'search_everything', 'search', {})]));
    const start = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(start.body.success, false);
    assert.deepEqual(start.body.code_errors, [
      [1, [['name', 'search_everything', 'is invalid: salesforce has no action named search_everything']]],
    ]);
  });

  test('a SaaS step without a connection in its config slot does not start; an unknown provider is a code error', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([action('stripe', '__adhoc_http_action', 'custom', { verb: 'get', path: 'balance' })]),
    );
    const start = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(start.body.success, false);
    assert.deepEqual(start.body.config_errors, [
      [1, [['account_id', null, 'unconnected', { key: 'recipe.validation.config_unconnected' }]]],
    ]);
    const missingPath = await createRecipe(
      t,
      webhookTrigger([action('stripe', '__adhoc_http_action', 'custom', { verb: 'get' })]),
    );
    const refused = await t.call('PUT', `/api/recipes/${missingPath}/start`);
    assert.deepEqual(refused.body.code_errors, [[1, [['Path', null, "can't be blank", 'path']]]]);
    const unknown = await createRecipe(t, webhookTrigger([action('acme_erp', 'get_order', 'order', {})]));
    const bad = await t.call('PUT', `/api/recipes/${unknown}/start`);
    assert.deepEqual(bad.body.code_errors, [
      [1, [['provider', 'acme_erp', 'is invalid: no such connector on this server']]],
    ]);
  });
});
