// Every SaaS connection of the catalog against a local stand-in of its service (contract 22):
// created through the API (a connector that authenticates with its fields is tested at once) or
// connected through the console's Connect (OAuth 2.0 authorization code, with the environment's
// custom OAuth profile), then the custom action `__adhoc_http_action` through a recipe job.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from './helpers.ts';
import { action, fire, webhookRecipe } from './recipes.ts';
import { FIXTURES } from './stand-ins/index.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';
import { workdayRest } from './stand-ins/workday_rest.ts';
import { SAAS_CONNECTORS } from '../src/connectors/saas/index.ts';

let t: TestApp;
let browser: ConsoleBrowser;
const standIns = new Map<string, StandIn>();

before(async () => {
  // Services of one vendor (Google, Microsoft, Slack) share one stand-in, as they share hosts.
  const bySpec = new Map<object, StandIn>();
  for (const fixture of FIXTURES) {
    if (!bySpec.has(fixture.spec)) bySpec.set(fixture.spec, await startStandIn(fixture.spec));
    standIns.set(fixture.provider, bySpec.get(fixture.spec) as StandIn);
  }
  const origins: Record<string, string> = {};
  for (const standIn of bySpec.values()) Object.assign(origins, standIn.origins());
  t = await createTestApp({ env: { CONNECTOR_ORIGINS: JSON.stringify(origins) } });
  browser = await consoleSignIn(t, t.adminToken);
});
after(async () => {
  await t.close();
  for (const standIn of new Set(standIns.values())) await standIn.close();
});

describe('SaaS connections against their stand-ins', () => {
  test('every SaaS connector of the catalog has a stand-in, and at least thirty services are there', () => {
    const providers = SAAS_CONNECTORS.map((c) => c.provider).sort();
    assert.deepEqual(providers, FIXTURES.map((f) => f.provider).sort());
    assert.ok(providers.length >= 30, `${providers.length} services`);
  });

  for (const fixture of FIXTURES) {
    test(`${fixture.provider}: the connection passes its test and the custom action runs through a recipe job`, async () => {
      const standIn = standIns.get(fixture.provider) as StandIn;
      const input: Record<string, string> = { ...fixture.input };
      if (fixture.provider === 'workday_rest')
        Object.assign(input, {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          refresh_token: workdayRest.seed(standIn),
        });
      if (fixture.provider === 'marketo') Object.assign(input, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
      let id: number;
      if (fixture.oauth) {
        const profile = await t.call('POST', '/api/custom_oauth_profiles', {
          body: {
            name: `${fixture.provider} app`,
            provider: fixture.provider,
            data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
          },
        });
        assert.equal(profile.status, 200, profile.text);
        const created = await t.call('POST', '/api/connections', {
          body: { name: `${fixture.provider} stand-in`, provider: fixture.provider, input },
        });
        assert.equal(created.status, 200, created.text);
        assert.equal(created.body.authorization_status, null, 'an OAuth connection starts as a shell');
        id = created.body.id;
        const connected = await connectThroughConsole(t, browser, id);
        assert.equal(connected.status, 200);
        const after = await t.call('GET', `/api/connections/${id}`);
        assert.equal(
          connected.location,
          `/console/connections/${id}?authorization=success`,
          after.body.authorization_error,
        );
      } else {
        const created = await t.call('POST', '/api/connections', {
          body: { name: `${fixture.provider} stand-in`, provider: fixture.provider, input },
        });
        assert.equal(created.status, 200, created.text);
        id = created.body.id;
      }
      const connection = await t.call('GET', `/api/connections/${id}`);
      assert.equal(connection.body.authorization_status, 'success', connection.body.authorization_error);
      assert.equal(connection.body.authorization_error, null);
      assert.ok(connection.body.authorized_at);

      const before = standIn.apiRequests().length;
      const config = [
        { keyword: 'application', provider: 'workato_webhooks', account_id: null },
        { keyword: 'application', provider: fixture.provider, account_id: id },
      ];
      const { path } = await webhookRecipe(
        t,
        [action(fixture.provider, '__adhoc_http_action', 'custom', fixture.adhoc.input)],
        {
          config: JSON.stringify(config),
        },
      );
      const job = await fire(t, path, {});
      assert.equal(job.status, 'succeeded', job.error ?? '');
      fixture.adhoc.check(job.output(1), standIn);
      assert.ok(standIn.apiRequests().length > before, 'the request reached the stand-in');
      const secrets = [
        CLIENT_SECRET,
        ...Object.entries(input)
          .filter(([k]) => /token|key|secret|password/.test(k))
          .map(([, v]) => v),
        ...standIn.accessTokens,
      ];
      const recorded = JSON.stringify(job.lines);
      for (const secret of secrets)
        assert.ok(!recorded.includes(secret), `the job record holds no credential of ${fixture.provider}`);
    });
  }
});
