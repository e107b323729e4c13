// The web console in Chromium: sign in, start a recipe, trigger it, read a step's output, edit a
// lookup-table row, refresh an access profile's secret, and a read-only token that cannot start
// or stop anything, even with a request forged from inside its own signed-in page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openBrowser, openSite, signIn, type ConsoleSite } from './console-browser.ts';

let site: ConsoleSite;
before(async () => {
  site = await openSite();
});
after(async () => site.close());

describe('the web console in a browser', () => {
  test("an admin signs in, starts a recipe, triggers it, and reads a step's output", async () => {
    const browser = await openBrowser({ timezoneId: 'Asia/Tokyo' });
    try {
      const { page } = browser;
      await signIn(page, site.base, site.t.adminToken);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Dashboard');
      // The token is not kept by the browser: only the HttpOnly session cookie.
      const cookies = await browser.context.cookies();
      assert.deepEqual(
        cookies.map((c) => [c.name, c.httpOnly, c.sameSite]),
        [['sb_console', true, 'Strict']],
      );
      assert.ok(!cookies.some((c) => c.value.includes(site.t.adminToken)));
      assert.equal(await page.evaluate('document.cookie'), '', "the session cookie is out of the page's reach");
      assert.equal(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)'), '{}{}');

      await page.getByRole('link', { name: 'Recipes', exact: true }).click();
      await page.getByLabel('Name').fill('greet');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('link', { name: 'Greet new orders' }).click();
      assert.match(
        await page.locator('ol.tree').innerText(),
        /Trigger workato_webhooks · new_event[\s\S]*Action logger · log_message/,
      );
      await page.getByRole('button', { name: 'Start recipe' }).click();
      await page.getByText('The recipe is running.').waitFor();

      const fired = await fetch(site.base + site.recipe.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: 'A-1042' }),
      });
      assert.equal(fired.status, 200);
      await site.t.engine.idle();

      await page.getByRole('link', { name: 'Jobs', exact: true }).click();
      await page.locator('table a').first().click();
      await page.getByRole('heading', { name: 'Steps' }).waitFor();
      const steps = await page.locator('li.line').allInnerTexts();
      assert.match(steps[0] ?? '', /A-1042/, "the trigger's output");
      assert.match(steps[1] ?? '', /Output[\s\S]*A new order arrived/, 'the first logger step');
      // Times are shown in the browser's time zone (Tokyo), not the server's UTC text.
      const started = page.locator('dl.facts time').first();
      const iso = await started.getAttribute('datetime');
      assert.ok(iso);
      assert.notEqual(await started.textContent(), iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
    }
  });

  test("an admin edits a lookup-table row and refreshes an access profile's secret", async () => {
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await signIn(page, site.base, site.t.adminToken);
      await page.getByRole('link', { name: 'Lookup tables' }).click();
      await page.getByRole('link', { name: 'Countries' }).click();
      await page.getByLabel('Value').fill('DE');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: /^Edit row/ }).click();
      await page.getByLabel('name').fill('Deutschland');
      await page.getByRole('button', { name: 'Save row' }).click();
      await page.getByText('Row saved.').waitFor();
      assert.match(await page.locator('table').innerText(), /DE\s+Deutschland/);
      const row = await site.t.call('GET', `/api/lookup_tables/${site.tableId}/lookup?by[code]=DE`);
      assert.equal(row.body.data.name, 'Deutschland', row.text);

      await page.getByRole('link', { name: 'API platform' }).click();
      await page.getByRole('button', { name: 'Refresh secret of Partner token' }).click();
      const secret = (await page.locator('#issued-secret').textContent()) ?? '';
      assert.ok(secret.length >= 16 && secret !== site.profileSecret, 'a new secret');
      await page.getByRole('link', { name: 'API platform' }).click();
      await page.getByRole('heading', { name: 'Access profiles' }).waitFor();
      assert.equal(await page.locator('#issued-secret').count(), 0, 'shown once');
      assert.ok(!(await page.content()).includes(secret));
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
    }
  });

  test('a new user builds a recipe in the editor (webhook → IF → logger with a datapill), saves, starts and opens its job', async () => {
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await signIn(page, site.base, site.t.adminToken);
      await page.getByRole('link', { name: 'Recipes', exact: true }).click();
      await page.getByRole('link', { name: 'New recipe' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Large orders');
      await page.getByLabel('Payload fields (comma separated: their datapills)').fill('order_id, total');
      await page.getByRole('button', { name: '+ IF' }).click();
      const ifStep = page.locator('li.kw-if fieldset').first();
      // A datapill goes where the cursor is.
      await ifStep.getByLabel('Value to test').click();
      await ifStep.locator('details.pills summary').click();
      await ifStep.getByRole('button', { name: 'Step 0 · payload.total' }).click();
      assert.match(
        await ifStep.getByLabel('Value to test').inputValue(),
        /^#\{_dp\('.*"path":\["payload","total"\]\}'\)\}$/,
      );
      await ifStep.getByLabel('Comparison').selectOption('greater_than');
      await ifStep.getByLabel('Compared with').fill('1000');
      await ifStep.getByRole('button', { name: '+ Action' }).click();
      // Picking an application applies it at once (the script), then its action.
      const action = page.locator('li.kw-action fieldset').first();
      await action.getByLabel('Application').selectOption('logger');
      await page.locator('li.kw-action fieldset').first().getByLabel('Action').selectOption('log_message');
      const logger = page.locator('li.kw-action fieldset').first();
      await logger.locator('legend', { hasText: 'Log message in Logger' }).waitFor();
      await logger.getByLabel('Message (required)', { exact: true }).click();
      await logger.locator('details.pills summary').click();
      await logger.getByRole('button', { name: 'Step 0 · payload.order_id' }).click();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Recipe saved.').waitFor();
      await page.getByRole('button', { name: 'Start recipe' }).click();
      await page.getByText('The recipe is running.').waitFor();
      const webhook = (await page.locator('dt:text("Webhook") + dd code').textContent()) as string;
      const fired = await fetch(site.base + new URL(webhook).pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: 'B-77', total: 1500 }),
      });
      assert.equal(fired.status, 200);
      await site.t.engine.idle();
      await page.getByRole('link', { name: 'Jobs', exact: true }).click();
      await page.locator('table a').first().click();
      await page.getByRole('heading', { name: 'Steps' }).waitFor();
      const steps = await page.locator('li.line').allInnerTexts();
      assert.match(steps.at(-1) ?? '', /Output[\s\S]*B-77/, 'the logger inside the IF ran with the datapill');
      assert.deepEqual(browser.problems, []);
    } finally {
      await browser.close();
    }
  });

  test('a read-only token cannot start or stop anything, even with a forged request', async () => {
    const running = await site.t.call('PUT', `/api/recipes/${site.recipe.id}/start`);
    assert.ok(running.status === 200 || running.status === 400, running.text);
    const browser = await openBrowser({ width: 390 });
    try {
      const { page } = browser;
      await signIn(page, site.base, await site.t.tokenFor('Read only'));
      await page.goto(`${site.base}/console/recipes/${site.recipe.id}`);
      assert.equal(await page.getByRole('button', { name: /Start recipe|Stop recipe/ }).count(), 0);
      await page.getByText('Your role may not start or stop recipes.').waitFor();
      // A request forged from inside the signed-in page, with its real CSRF token.
      const statuses = await page.evaluate(`(async () => {
        const csrf = document.querySelector('input[name=_csrf]').value;
        const send = (action) => fetch('/console/recipes/${site.recipe.id}/' + action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + encodeURIComponent(csrf) }).then((r) => r.status);
        return [await send('stop'), await send('start')];
      })()`);
      assert.deepEqual(statuses, [403, 403]);
      const recipe = await site.t.call('GET', `/api/recipes/${site.recipe.id}`);
      assert.equal(recipe.body.running, true, 'still running');
      // At a phone's width, table headings and cells break between words, never inside one.
      await page.goto(`${site.base}/console/recipes`);
      const broken = await page.evaluate(`(() => {
        const out = [];
        for (const cell of document.querySelectorAll('main th, main td')) {
          const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent;
            for (const match of text.matchAll(/\\S+/g)) {
              if (match[0].length > 24) continue; // an id or a URL may break
              const range = document.createRange();
              range.setStart(node, match.index);
              range.setEnd(node, match.index + match[0].length);
              const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
              if (lines.size > 1) out.push(match[0]);
            }
          }
        }
        return out;
      })()`);
      assert.deepEqual(broken, [], 'words broken across lines');
      await page.goto(`${site.base}/console/lookup-tables/${site.tableId}`);
      assert.equal(await page.getByRole('button', { name: /Delete/ }).count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'Add a row' }).count(), 0);
    } finally {
      await browser.close();
    }
  });
});
