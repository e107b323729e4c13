// A new user's whole way through the console in Chromium: a recipe built from nothing in the
// editor (webhook → IF with a datapill → a Salesforce action picked from the catalog with a
// datapill → logger), saved, started, triggered, its job opened; edited into a second version
// with a comment and the two versions compared; a test case written from that job and run.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type TestApp } from './helpers.ts';
import { openBrowser, signIn } from './console-browser.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';
import { records, spec as salesforceSpec } from './stand-ins/salesforce.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';

let t: TestApp;
let base: string;
let salesforce: StandIn;

before(async () => {
  salesforce = await startStandIn(salesforceSpec);
  t = await createTestApp({ env: { CONNECTOR_ORIGINS: JSON.stringify(salesforce.origins()) } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const profile = await t.call('POST', '/api/custom_oauth_profiles', {
    body: {
      name: 'Salesforce app',
      provider: 'salesforce',
      data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
    },
  });
  assert.equal(profile.status, 200, profile.text);
  const created = await t.call('POST', '/api/connections', {
    body: { name: 'Sales org', provider: 'salesforce', input: {} },
  });
  assert.equal(created.status, 200, created.text);
  const admin = await consoleSignIn(t, t.adminToken);
  assert.equal(
    (await connectThroughConsole(t, admin, created.body.id)).location,
    `/console/connections/${created.body.id}?authorization=success`,
  );
});
after(async () => {
  await t?.close();
  await salesforce?.close();
});

describe("a new user's way through the console", () => {
  test('build a recipe from nothing, run it, make a second version and compare, write a test case from its job and run it', async () => {
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await signIn(page, base, t.adminToken);
      // The editor's script applies a pick at once and puts datapills in place: each page of the
      // editor is used once it has run (an action that sends the form waits for the next page to
      // start loading, so this waits on the new page).
      const editorReady = () => page.locator('html[data-editor="ready"]').waitFor();

      // 1. A new recipe: a webhook with two payload fields, an IF on one of them.
      await page.getByRole('link', { name: 'Recipes', exact: true }).click();
      await page.getByRole('link', { name: 'New recipe' }).click();
      await editorReady();
      await page.getByLabel('Name', { exact: true }).fill('Large orders to Salesforce');
      await page.getByLabel('Payload fields (comma separated: their datapills)').fill('order_id, total');
      await page.getByRole('button', { name: '+ IF' }).click();
      await editorReady();
      const ifStep = page.locator('li.kw-if fieldset').first();
      await ifStep.getByLabel('Value to test').click();
      await ifStep.locator('details.pills summary').click();
      await ifStep.getByRole('button', { name: 'Step 0 · payload.total' }).click();
      await ifStep.getByLabel('Comparison').selectOption('greater_than');
      await ifStep.getByLabel('Compared with').fill('1000');

      // 2. Inside the IF, Salesforce found in the catalog by typing its name.
      await ifStep.getByRole('button', { name: '+ Action' }).click();
      await editorReady();
      const inner = page.locator('li.kw-action fieldset').first();
      await inner.getByText('Browse the applications').click();
      await inner.getByLabel('Filter by name').fill('sales');
      await inner.locator('ul.catalog-grid li:not([hidden])').getByRole('button', { name: 'Salesforce' }).click();
      await page.locator('li.kw-action legend', { hasText: 'Salesforce' }).waitFor();
      await editorReady();
      await page.locator('li.kw-action fieldset').first().getByLabel('Action').selectOption('create_sobject');
      const sf = page.locator('li.kw-action fieldset').first();
      await sf.locator('legend', { hasText: 'Create record in Salesforce' }).waitFor();
      await editorReady();
      await sf.getByLabel('Object (required)', { exact: true }).fill('Opportunity');
      await sf.getByLabel('Add a field').fill('Amount');
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await editorReady();
      const sfAgain = page.locator('li.kw-action fieldset').first();
      await sfAgain.getByLabel('Amount', { exact: true }).click();
      await sfAgain.locator('details.pills summary').click();
      await sfAgain.getByRole('button', { name: 'Step 0 · payload.total' }).click();
      assert.match(await sfAgain.getByLabel('Amount', { exact: true }).inputValue(), /"path":\["payload","total"\]/);

      // 3. After the IF, a logger with the order's id.
      await page.locator('div.add-step').last().getByRole('button', { name: '+ Action' }).click();
      await editorReady();
      const logger = page.locator('li.kw-action fieldset').last();
      await logger.getByLabel('Application').selectOption('logger');
      await editorReady();
      await page.locator('li.kw-action fieldset').last().getByLabel('Action').selectOption('log_message');
      const log = page.locator('li.kw-action fieldset').last();
      await log.locator('legend', { hasText: 'Log message' }).waitFor();
      await editorReady();
      await log.getByLabel('Message (required)', { exact: true }).fill('Order ');
      await log.locator('details.pills summary').click();
      await log.getByRole('button', { name: 'Step 0 · payload.order_id' }).click();
      await page.getByLabel('Salesforce', { exact: true }).selectOption({ label: 'Sales org' });
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Recipe saved.').waitFor();
      const id = Number(/\/console\/recipes\/(\d+)/.exec(page.url())?.[1]);
      assert.ok(id > 0, page.url());

      // 4. Started, triggered, its job opened.
      await page.getByRole('button', { name: 'Start recipe' }).click();
      await page.getByText('The recipe is running.').waitFor();
      const webhook = (await page.locator('dt:text("Webhook") + dd code').textContent()) as string;
      const fired = await fetch(base + new URL(webhook).pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: 'B-77', total: 1500 }),
      });
      assert.equal(fired.status, 200);
      await t.engine.idle();
      assert.deepEqual(
        records(salesforce, 'Opportunity').map((r) => r.Amount),
        [1500],
        'Salesforce got the record, its amount from the datapill',
      );
      await page.getByRole('link', { name: 'Jobs', exact: true }).click();
      await page.locator('table a').first().click();
      await page.getByRole('heading', { name: 'Steps' }).waitFor();
      const jobUrl = page.url();
      const lines = await page.locator('li.line').allInnerTexts();
      assert.ok(
        lines.some((l) => /Create record in Salesforce/.test(l)),
        `the Salesforce step is described in words: ${lines.join(' | ')}`,
      );
      assert.match(lines.at(-1) ?? '', /Output[\s\S]*Order B-77/, 'the logger ran with the datapill');

      // 5. A second version, with a comment, then the two compared.
      await page.goto(`${base}/console/recipes/${id}`);
      await page.getByRole('button', { name: 'Stop recipe' }).click();
      await page.getByText('The recipe is stopped.').waitFor();
      await page.getByRole('link', { name: 'Edit recipe' }).click();
      await page.locator('html[data-editor="ready"]').waitFor();
      await page.getByLabel('Compared with').fill('5000');
      await page.getByLabel("What changed (the version's comment)").fill('Only orders over 5000');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Recipe saved.').waitFor();
      await page.getByRole('link', { name: 'Compare the latest two versions' }).click();
      const removed = await page.locator('pre.diff del').allInnerTexts();
      const added = await page.locator('pre.diff ins').allInnerTexts();
      assert.ok(
        removed.some((l) => /"rhs": "1000"/.test(l)),
        `the old threshold removed: ${removed.join(' | ')}`,
      );
      assert.ok(
        added.some((l) => /"rhs": "5000"/.test(l)),
        `the new threshold added: ${added.join(' | ')}`,
      );
      assert.match(await page.locator('main').innerText(), /Only orders over 5000/, "the version's comment shown");

      // 6. A test case from the first version's job, run, passed.
      await page.goto(jobUrl);
      await page.getByRole('link', { name: 'Create test case' }).click();
      await page.getByRole('heading', { name: 'New test case from a job' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Order B-77');
      await page.getByRole('button', { name: /Create test case/ }).click();
      await page.getByText('Test case created: run it from the list below.').waitFor();
      await page.getByRole('button', { name: 'Run all test cases' }).click();
      await page.waitForURL(/\/console\/test-runs\/[^/?]+/);
      const runUrl = page.url();
      for (let i = 0; i < 200; i++) {
        const state = await page.locator('dl').first().innerText();
        if (!/running|pending/.test(state)) break;
        await t.engine.idle();
        await page.goto(runUrl);
      }
      const summary = await page.locator('dl').first().innerText();
      assert.match(summary, /completed: all passed/, summary);
      assert.match(summary, /1 passed, 0 failed/, summary);
      // The case runs on the current version: 1500 is under its new threshold, so the IF and the
      // logger ran and the Salesforce step did not (two steps of three).
      assert.match(summary, /66\.7% of the steps/, summary);
      assert.match(await page.locator('main table').innerText(), /Order B-77\s+passed/);
      assert.equal(records(salesforce, 'Opportunity').length, 1, 'the test run sent Salesforce nothing');
      assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
    } finally {
      await browser.close();
    }
  });
});
