// A connection authored in Chromium at a phone's width: a custom connector picked from the
// console's catalog, its connection fields filled from the keyboard, created and tested against a
// local stand-in of its API, then tested again from its page. No CSP rule is broken on the way and
// the key never shows in a page or a URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from './helpers.ts';
import { openBrowser, signIn } from './console-browser.ts';
import { API_KEY_CONNECTION, startKeyedApi, type KeyedApi } from './custom-connector-kit.ts';
import { releasedConnector } from './custom-oauth-kit.ts';

const KEY = 'k-browser-5e7a';
let t: TestApp;
let base: string;
let acme: KeyedApi;

before(async () => {
  acme = await startKeyedApi(KEY, () => false);
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  await releasedConnector(t, `{\n  title: 'Acme CRM',\n${API_KEY_CONNECTION}\n}\n`, 'Acme CRM');
});
after(async () => {
  await t.close();
  await acme.close();
});

describe('Connections authored in the browser', () => {
  test('an admin creates a custom connector connection from the catalog, and tests it again', async () => {
    const browser = await openBrowser({ width: 390 });
    try {
      const { page } = browser;
      await signIn(page, base, t.adminToken);
      await page.getByRole('link', { name: 'Connections' }).click();
      await page.getByRole('link', { name: 'New connection' }).click();
      await page.getByLabel('Filter by name').fill('acme');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}/console/connections/new?q=acme`);
      assert.equal(await page.getByRole('link', { name: 'Salesforce' }).count(), 0, 'the search narrows the catalog');
      await page.getByRole('link', { name: 'Acme CRM' }).click();
      await page.getByRole('heading', { name: 'New Acme CRM connection' }).waitFor();

      // From the keyboard: each field is reached with Tab from the one before.
      await page.getByLabel('Name').focus();
      await page.keyboard.type('Acme production');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.type(acme.url);
      await page.keyboard.press('Tab');
      await page.keyboard.type(KEY);
      assert.equal(await page.getByLabel('API key').getAttribute('type'), 'password');
      const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      assert.equal(overflow, 0, 'the form fits 390 px');
      await page.keyboard.press('Enter');

      await page.getByText('Connection created.').waitFor();
      assert.match(page.url(), /\/console\/connections\/\d+\?done=connection_created$/);
      assert.match(await page.locator('dl.facts').innerText(), /Acme CRM[\s\S]*success/);
      const seen = acme.seen.filter((r) => r.url === '/me' && r.apiKey === KEY).length;
      assert.equal(seen, 1, 'created and tested against the stand-in');

      await page.getByRole('button', { name: 'Test connection' }).click();
      await page.getByText('Connection tested.').waitFor();
      assert.equal(acme.seen.filter((r) => r.url === '/me' && r.apiKey === KEY).length, 2);
      assert.ok(!(await page.content()).includes(KEY), 'the key is never in a page');
      assert.ok(!page.url().includes(KEY));
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
    }
  });
});
