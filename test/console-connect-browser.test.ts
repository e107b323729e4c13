// Connect in Chromium: a Salesforce connection made through the API is connected from its console
// page, through the provider's consent (a stand-in on loopback) and back to GET /oauth/callback;
// the page then says it is connected. No script runs inline and no CSP rule is broken on the way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { openBrowser, signIn } from './console-browser.ts';
import { freePort } from './process-helpers.ts';
import { fixture as salesforceFixture } from './stand-ins/salesforce.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';

let t: TestApp;
let base: string;
let salesforce: StandIn;

before(async () => {
  salesforce = await startStandIn(salesforceFixture.spec);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({ env: { PUBLIC_BASE_URL: base, CONNECTOR_ORIGINS: JSON.stringify(salesforce.origins()) } });
  await t.app.listen({ port, host: '127.0.0.1' });
});
after(async () => {
  await t.close();
  await salesforce.close();
});

describe('Connect in the browser', () => {
  test('an admin connects a Salesforce connection through the provider and comes back to it connected', async () => {
    const profile = await t.call('POST', '/api/custom_oauth_profiles', {
      body: {
        name: 'Salesforce app',
        provider: 'salesforce',
        data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
      },
    });
    assert.equal(profile.status, 200, profile.text);
    const created = await t.call('POST', '/api/connections', {
      body: { name: 'Prod Salesforce', provider: 'salesforce' },
    });
    assert.equal(created.status, 200, created.text);
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await signIn(page, base, t.adminToken);
      await page.getByRole('link', { name: 'Connections' }).click();
      await page.getByRole('link', { name: 'Prod Salesforce' }).click();
      assert.match(await page.locator('dl.facts').innerText(), /Salesforce salesforce[\s\S]*not connected/);
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
      await page.waitForURL(`${base}/console/connections/${created.body.id}?authorization=success`);
      await page.getByText('Connected.').waitFor();
      assert.match(await page.locator('dl.facts').innerText(), /success/);
      const cookies = await browser.context.cookies();
      assert.ok(!cookies.some((c) => c.name === 'sb_oauth' && c.value !== ''), 'the redirect cookie is gone');
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
    }
    const connection = await t.call('GET', `/api/connections/${created.body.id}`);
    assert.equal(connection.body.authorization_status, 'success');
    const authorize = salesforce.requests.find((r) => r.path === '/services/oauth2/authorize');
    assert.equal(authorize?.query.get('redirect_uri'), `${base}/oauth/callback`);
  });
});
