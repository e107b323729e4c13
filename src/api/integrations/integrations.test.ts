import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { goDecode, slice, struct } from '../../../test/go-decode.ts';
import { WK } from '../../../test/wk.ts';
import { CONNECTORS } from '../../engine/connectors/index.ts';
import { connectorCatalog, type CatalogSource } from './catalog.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const List = struct({ items: slice(WK.Connector) });
const CODE = "{ title: 'Acme CRM', connection: { fields: [] }, actions: {} }";

describe('GET /api/integrations', () => {
  test('every built-in connector of the engine, by name, with its title and what it offers', async () => {
    const res = await t.call('GET', '/api/integrations');
    assert.equal(res.status, 200, res.text);
    goDecode(res.body, List);
    const names = res.body.items.map((c: { name: string }) => c.name);
    for (const name of Object.keys(CONNECTORS)) assert.ok(names.includes(name), name);
    assert.deepEqual(names, [...names].sort());
    const clock = res.body.items.find((c: { name: string }) => c.name === 'clock');
    assert.equal(clock.title, 'Scheduler');
    assert.equal(clock.source, 'built_in');
    assert.match(clock.description, /^Built-in connector\. Triggers: .+\./);
    // The SaaS services, by the provider names the vendor's exports use.
    const salesforce = res.body.items.find((c: { name: string }) => c.name === 'salesforce');
    assert.deepEqual([salesforce?.title, salesforce?.source], ['Salesforce', 'saas']);
    assert.ok(names.includes('slack_bot') && names.includes('gmail'), names.join(', '));
  });

  test("the environment's custom connectors join the list; another environment's do not", async () => {
    const made = await t.call('POST', '/api/custom_connectors', {
      body: { title: 'Acme CRM', code: CODE, description: 'CRM' },
    });
    assert.equal(made.status, 200, made.text);
    const res = await t.call('GET', '/api/integrations');
    const created = made.body.data;
    const acme = res.body.items.find((c: { name: string }) => c.name === created.name);
    assert.deepEqual(acme, { name: created.name, title: 'Acme CRM', description: 'CRM', source: 'custom' });
    const prod = await t.tokenFor('Admin', 'prod');
    const inProd = await t.call('GET', '/api/integrations', { token: prod });
    assert.ok(!inProd.body.items.some((c: { name: string }) => c.name === created.name));
  });

  test('applications names exactly the connectors to list; unknown names are left out', async () => {
    const res = await t.call('GET', '/api/integrations?applications=clock,%20rest,nope');
    assert.deepEqual(
      res.body.items.map((c: { name: string }) => c.name),
      ['clock', 'rest'],
    );
    assert.deepEqual((await t.call('GET', '/api/integrations?applications=nope')).body, { items: [] });
    const all = await t.call('GET', '/api/integrations?applications=');
    assert.ok(all.body.items.length >= Object.keys(CONNECTORS).length);
  });

  test('401 without a token; 403 without connections:read; an oversized filter is a 400', async () => {
    assert.equal((await t.call('GET', '/api/integrations', { token: null })).status, 401);
    const noConn = await t.tokenWith('No connections', ['tags:read']);
    assert.equal((await t.call('GET', '/api/integrations', { token: noConn })).status, 403);
    assert.equal((await t.call('GET', `/api/integrations?applications=${'a'.repeat(10_001)}`)).status, 400);
  });
});

describe('connectorCatalog', () => {
  test('a further source joins the catalog; a name already given by an earlier source is listed once', async () => {
    const saas: CatalogSource = () => [
      { name: 'salesforce', title: 'Salesforce', description: null, source: 'built_in' },
      { name: 'clock', title: 'Shadowed', description: null, source: 'built_in' },
    ];
    const scope = { workspaceId: t.workspaceId, environmentId: 1 };
    const builtIn: CatalogSource = () => [{ name: 'clock', title: 'Scheduler', description: null, source: 'built_in' }];
    const list = await connectorCatalog(t.ctx, scope, [builtIn, saas]);
    assert.deepEqual(
      list.map((c) => `${c.name}:${c.title}`),
      ['clock:Scheduler', 'salesforce:Salesforce'],
    );
  });
});
