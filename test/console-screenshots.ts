// `npm run screenshots`: the console's main pages as PNGs in docs/console/ (the README shows them).
// A test app with a little data, Debian's Chromium, the same helpers as the browser tests.
import path from 'node:path';
import fs from 'node:fs';
import { openBrowser, openSite, shoot, signIn } from './console-browser.ts';
import { log, webhookRecipe } from './recipes.ts';

const dir = path.resolve(import.meta.dirname, '../docs/console');
fs.mkdirSync(dir, { recursive: true });
const site = await openSite();
const { t, base } = site;
try {
  await t.call('PUT', `/api/recipes/${site.recipe.id}/start`);
  const failing = await webhookRecipe(t, [log('check', 'checking stock'), { keyword: 'stop', input: { stop_with_error: 'true', stop_reason: 'Out of stock' } }], { name: 'Reserve stock' });
  for (let i = 0; i < 40; i++) {
    await t.app.inject({ method: 'POST', url: site.recipe.path, payload: { order_id: `A-${1000 + i}`, customer: { name: 'Ada Lovelace', email: 'ada@example.com' }, items: [{ sku: 'SKU-1', qty: 2 }] } });
    if (i % 5 === 0) await t.app.inject({ method: 'POST', url: failing.path, payload: { order_id: `A-${1000 + i}` } });
  }
  await t.engine.idle();
  // A real recipe exported from the vendor (nested IF, try/catch, recipe function calls), for its step tree.
  const exported = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, 'fixtures/recipes/dewy-resort/orchestrator-recipes/create_booking_orchestrator.recipe.json'), 'utf8')) as Record<string, unknown>;
  const booking = await t.call('POST', '/api/recipes', { body: exported });
  const topic = await t.call('POST', '/api/event_streams/topics', { body: { name: 'order-events', description: 'Orders as they change' } });
  for (const state of ['created', 'paid', 'shipped']) await t.call('POST', `/api/v1/topics/${topic.body.id}/publish`, { body: { order_id: 'A-1042', state } });
  await t.call('POST', '/api/connections', { body: { name: 'Orders backend', provider: 'rest', input: { base_url: 'http://127.0.0.1:8081', auth_type: 'none' } } });

  const wide = await openBrowser();
  try {
    const { page } = wide;
    await page.goto(`${base}/console/sign-in`);
    await shoot(page, dir, 'sign-in');
    await signIn(page, base, t.adminToken);
    await shoot(page, dir, 'dashboard');
    await page.goto(`${base}/console/recipes`);
    await shoot(page, dir, 'recipes');
    await page.goto(`${base}/console/recipes/${booking.body.id}`);
    await shoot(page, dir, 'recipe');
    await page.goto(`${base}/console/recipes/${site.recipe.id}/jobs`);
    await shoot(page, dir, 'jobs');
    await page.locator('table a').first().click();
    await shoot(page, dir, 'job');
    await page.goto(`${base}/console/lookup-tables/${site.tableId}`);
    await shoot(page, dir, 'lookup-table');
    await page.goto(`${base}/console/api-platform`);
    await page.getByRole('button', { name: 'Refresh secret of Partner token' }).click();
    await shoot(page, dir, 'api-platform');
    await page.goto(`${base}/console/connections`);
    await shoot(page, dir, 'connections');
    await page.goto(`${base}/console/topics/${topic.body.id}`);
    await shoot(page, dir, 'topic');
  } finally {
    await wide.close();
  }
  const narrow = await openBrowser({ width: 390 });
  try {
    await signIn(narrow.page, base, t.adminToken);
    await narrow.page.goto(`${base}/console/recipes/${site.recipe.id}/jobs`);
    await shoot(narrow.page, dir, 'jobs-narrow');
  } finally {
    await narrow.close();
  }
  console.log(`screenshots in ${path.relative(process.cwd(), dir)}: ${fs.readdirSync(dir).filter((f) => f.endsWith('.png')).join(', ')}`);
} finally {
  await site.close();
}
