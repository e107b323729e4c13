// The web console in a real browser: Debian's Chromium driven by playwright-core. Used by
// test/console-browser.test.ts and, with a directory for screenshots, by `npm run screenshots`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from './helpers.ts';
import { log, webhookRecipe, createRecipe, webhookTrigger } from './recipes.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ConsoleSite {
  t: TestApp;
  base: string;
  recipe: { id: number; path: string };
  tableId: number;
  profileId: number;
  profileSecret: string;
  close(): Promise<void>;
}

/** A listening app with a recipe (stopped), a lookup table and an access profile to work on. */
export async function openSite(): Promise<ConsoleSite> {
  const t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const recipe = await webhookRecipe(
    t,
    [log('greet', 'A new order arrived'), log('thank', 'Thank you for your order')],
    { name: 'Greet new orders' },
  );
  // Stopped, so the browser starts it.
  assert.equal((await t.call('PUT', `/api/recipes/${recipe.id}/stop`)).status, 200);
  await createRecipe(t, webhookTrigger([log('note', 'nightly')]), { name: 'Nightly report' });
  const table = await t.call('POST', '/api/lookup_tables', {
    body: { name: 'Countries', schema: [{ label: 'code' }, { label: 'name' }] },
  });
  assert.equal(table.status, 200, table.text);
  for (const [code, name] of [
    ['FR', 'France'],
    ['DE', 'Germany'],
    ['JP', 'Japan'],
  ]) {
    assert.equal(
      (await t.call('POST', `/api/lookup_tables/${table.body.id}/rows`, { body: { data: { code, name } } })).status,
      200,
    );
  }
  const collection = await t.call('POST', '/api/api_collections', { body: { name: 'Orders' } });
  const client = await t.call('POST', '/api/api_clients', { body: { name: 'Partner' } });
  const profile = await t.call('POST', '/api/api_access_profiles', {
    body: {
      name: 'Partner token',
      api_client_id: client.body.id,
      api_collection_ids: [collection.body.id],
      auth_type: 'token',
    },
  });
  assert.equal(profile.status, 200, profile.text);
  await t.call('POST', '/api/properties', {
    body: { properties: { region: 'eu-west', support_email: 'ops@example.com' } },
  });
  return {
    t,
    base,
    recipe,
    tableId: table.body.id,
    profileId: profile.body.id,
    profileSecret: profile.body.secret,
    async close() {
      await t.close();
    },
  };
}

/** A fresh browser profile (its own user data directory, removed on close). */
export async function openBrowser(
  options: { timezoneId?: string; width?: number } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[]; close(): Promise<void> }> {
  assert.ok(fs.existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM} (apt-get install -y chromium)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: options.width ?? 1200, height: 900 },
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // What the page's console reports (a CSP violation, a script error) fails the walk.
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('dialog', (dialog) => void dialog.accept());
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('Developer API token').fill(token);
  await page.getByLabel('Developer API token').press('Enter');
  await page.waitForURL(`${base}/console/`);
}

/** A screenshot of what the window shows (long pages are cut at the window's height). */
export async function shoot(page: Page, dir: string | undefined, name: string): Promise<void> {
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`) });
}
