// Authoring in Chromium, at a phone's width, from the keyboard: the editor's formula mode (checked
// as it is typed through the console's same-origin check, saved in the vendor's "=" form), the
// catalog of connector icons, a test case from a past job, written from nothing and edited on its
// page, a data table and its columns. One browser for the file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openBrowser, openSite, signIn, type ConsoleSite } from './console-browser.ts';

let site: ConsoleSite;
let browser: Awaited<ReturnType<typeof openBrowser>>;
before(async () => {
  site = await openSite();
  browser = await openBrowser({ width: 390 });
  await signIn(browser.page, site.base, site.t.adminToken);
});
after(async () => {
  await browser?.close();
  await site?.close();
});

describe('authoring in a browser', () => {
  test('formula mode from the keyboard: checked as it is typed, saved as =…', async () => {
    const { page } = browser;
    await page.goto(`${site.base}/console/recipes/${site.recipe.id}/edit`);
    const first = page.locator('li#step-1 fieldset').first();
    const message = first.getByLabel('Message (required)', { exact: true });
    const status = first.locator('.formula-status').first();
    // The mode's checkbox is reached with Tab from the field, and switched with Space.
    await message.focus();
    await page.keyboard.press('Tab');
    const toggle = first.getByLabel('Message (required): formula mode');
    assert.equal(await page.evaluate('document.activeElement.name'), 'fm:0:message');
    assert.equal(await toggle.isChecked(), false);
    await page.keyboard.press('Space');
    assert.equal(await toggle.isChecked(), true);
    assert.equal(await message.getAttribute('data-formula'), '1');
    await message.fill('');
    await message.pressSequentially('(1 +');
    await status.getByText('formula ends too early').waitFor();
    assert.equal(await message.getAttribute('aria-invalid'), 'true');
    await message.pressSequentially(' 2) * 14');
    await status.getByText('Formula OK: gives 42').waitFor();
    assert.equal(await message.getAttribute('aria-invalid'), null);
    // Typing "=" into an empty text field switches it too.
    const second = page.locator('li#step-2 fieldset').first();
    const thanks = second.getByLabel('Message (required)', { exact: true });
    await thanks.fill('');
    await thanks.pressSequentially('="ok".upcase');
    await second.locator('.formula-status').getByText('Formula OK: gives "OK"').waitFor();
    assert.equal(await second.getByLabel('Message (required): formula mode').isChecked(), true);
    // Nothing sticks out of a phone's width.
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `the page is ${String(overflow)} px wider than the window`);

    await page.getByLabel("What changed (the version's comment)").fill('Formulas');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Recipe saved.').waitFor();
    const code = JSON.parse((await site.t.call('GET', `/api/recipes/${site.recipe.id}`)).body.code);
    assert.deepEqual(
      code.block.map((s: { input: { message: string } }) => s.input.message),
      ['=(1 + 2) * 14', '="ok".upcase'],
    );
    // The recipe's trigger and steps with their connectors' icons, loaded from this origin under the strict CSP.
    const icons = await page.evaluate(
      `[...document.querySelectorAll('img.icon')].map((img) => [img.getAttribute('src'), img.complete && img.naturalWidth])`,
    );
    assert.deepEqual(icons, [
      ['/console/assets/icons/workato_webhooks.svg', 24],
      ['/console/assets/icons/workato_webhooks.svg', 24],
      ['/console/assets/icons/logger.svg', 24],
      ['/console/assets/icons/logger.svg', 24],
    ]);
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });

  test('a new step picks its application from the catalog of icons, from the keyboard', async () => {
    const { page } = browser;
    await page.goto(`${site.base}/console/recipes/new`);
    await page.getByRole('button', { name: '+ Action' }).click();
    const step = page.locator('li.kw-action fieldset').first();
    await step.getByText('Browse the applications').focus();
    await page.keyboard.press('Enter');
    const logger = step.getByRole('button', { name: 'Logger', exact: true });
    await logger.focus();
    await page.keyboard.press('Enter');
    await page.locator('li.kw-action legend', { hasText: 'Logger' }).waitFor();
    assert.equal(
      await page
        .locator('li.kw-action legend img.icon')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      24,
    );
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });

  test("a step's application picker gets the whole catalog when focused; the catalog is searched as typed", async () => {
    const { page } = browser;
    await page.goto(`${site.base}/console/recipes/${site.recipe.id}/edit`);
    await page.locator('html[data-editor="ready"]').waitFor();
    const picker = page.locator('li#step-1 fieldset').first().getByLabel('Application', { exact: true });
    assert.deepEqual(await picker.locator('option').allTextContents(), ['Logger'], 'its own application only');
    await picker.focus();
    assert.ok((await picker.locator('option').count()) > 50, 'the whole catalog once focused');
    assert.equal(await picker.inputValue(), 'logger', 'still the one chosen');
    await page.locator('li#step-1 button.other-apps').waitFor({ state: 'hidden' });
    await page.keyboard.press('Tab');
    await page.goto(`${site.base}/console/recipes/new`);
    await page.getByRole('button', { name: '+ Action' }).click();
    const step = page.locator('li.kw-action fieldset').first();
    await step.getByText('Browse the applications').click();
    await step.getByLabel('Filter by name').fill('sales');
    assert.deepEqual(await step.locator('ul.catalog-grid li:not([hidden])').allInnerTexts(), ['Salesforce']);
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });

  test('a test case from a past job, from the keyboard at a phone width', async () => {
    const { page } = browser;
    const started = await site.t.call('PUT', `/api/recipes/${site.recipe.id}/start`);
    assert.equal(started.status, 200, started.text);
    const fired = await fetch(site.base + site.recipe.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: 'C-9' }),
    });
    assert.equal(fired.status, 200);
    await site.t.engine.idle();
    await page.goto(`${site.base}/console/recipes/${site.recipe.id}/jobs`);
    await page.locator('table a').first().click();
    const create = page.getByRole('link', { name: 'Create test case' });
    await create.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New test case from a job' }).waitFor();
    const mock = page.locator('select[name="mock:1"]');
    await mock.focus();
    await mock.selectOption('output');
    await page.getByLabel('Name', { exact: true }).fill('Order C-9');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `the page is ${String(overflow)} px wider than the window`);
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await page.getByText('Test case created: run it from the list below.').waitFor();
    const cases = (await site.t.call('GET', `/api/recipes/${site.recipe.id}/test_cases`)).body.data;
    const created = (await site.t.call('GET', `/api/recipes/${site.recipe.id}/test_cases/${cases[0].id}`)).body.data;
    assert.equal(created.name, 'Order C-9');
    assert.equal(created.trigger_output.payload.order_id, 'C-9');
    assert.equal(created.mocks.length, 1);
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });

  test('a test case edited on its page: bad JSON shown in place, mocks and expectations changed, run, deleted', async () => {
    const { page } = browser;
    const { t, recipe } = site;
    const made = await t.call('POST', `/api/recipes/${recipe.id}/test_cases`, {
      body: {
        name: 'Edit me',
        trigger_output: { payload: { order_id: 'E-1' } },
        mocks: [{ step: 'thank', output: { message: 'mocked' } }],
      },
    });
    assert.equal(made.status, 200, made.text);
    await page.goto(`${site.base}/console/recipes/${recipe.id}`);
    const link = page.getByRole('link', { name: 'Edit me', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Edit me' }).waitFor();
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `the page is ${String(overflow)} px wider than the window`);

    // JSON that does not parse: the problem on the field, the text typed kept, nothing saved.
    const trigger = page.getByLabel('Trigger output');
    await trigger.fill('{"payload": {"order_id": "E-2"');
    await page.getByRole('button', { name: 'Save test case' }).click();
    await page.getByText('The test case was not saved').waitFor();
    // The refusal is a 400 page, which the browser reports; nothing else is.
    assert.deepEqual(browser.problems.splice(0), [
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    assert.equal(await page.getByLabel('Trigger output').getAttribute('aria-invalid'), 'true');
    assert.match(await page.locator('#tc-trigger-error').innerText(), /Trigger output is not JSON/);
    assert.equal(await page.getByLabel('Trigger output').inputValue(), '{"payload": {"order_id": "E-2"');
    const kept = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${made.body.data.id}`)).body.data;
    assert.deepEqual(kept.trigger_output, { payload: { order_id: 'E-1' } });

    // Fixed, the mock changed, an expectation added in the empty row: from the keyboard.
    await page.getByLabel('Trigger output').fill('{"payload": {"order_id": "E-2"}}');
    await page.locator('#mock-0-value').fill('{"message": "changed"}');
    const kind = page.locator('#exp-0-kind');
    await kind.focus();
    await kind.selectOption('equals');
    await page.keyboard.press('Tab');
    await page.locator('#exp-0-step').selectOption('thank');
    await page.locator('#exp-0-path').fill('message');
    await page.locator('#exp-0-value').fill('"changed"');
    await page.locator('#exp-0-value').press('Enter');
    await page.getByText('Test case saved.').waitFor();
    const saved = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${made.body.data.id}`)).body.data;
    assert.deepEqual(saved.trigger_output, { payload: { order_id: 'E-2' } });
    assert.deepEqual(saved.mocks, [{ step: 'thank', output: { message: 'changed' } }]);
    assert.deepEqual(saved.expectations, [{ step: 'thank', output_path: ['message'], equals: 'changed' }]);

    // Run from the page: the run's page shows it passed.
    await page.getByRole('button', { name: 'Run this test case' }).click();
    await page.waitForURL(/\/console\/test-runs\/cirr-/);
    // The run's page does not refresh itself: reloaded until the run completed (a generous last guard).
    const deadline = Date.now() + 30_000;
    const state = page.locator('dl.facts dd span.badge').first();
    while (!(await state.innerText()).startsWith('completed') && Date.now() < deadline) {
      await site.t.engine.idle();
      await page.reload();
    }
    assert.equal(await state.innerText(), 'completed: all passed');
    assert.match(await page.locator('main').innerText(), /Edit me\s+passed/);

    // Deleted after a confirmation.
    await page.goBack();
    const asked: string[] = [];
    page.once('dialog', (dialog) => void asked.push(dialog.message()));
    await page.getByRole('button', { name: 'Delete test case' }).click();
    await page.getByText('Test case deleted.').waitFor();
    assert.deepEqual(asked, ['Delete the test case Edit me?']);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${made.body.data.id}`)).status, 404);
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });

  test("a test case written from nothing on the recipe's page, from the keyboard at a phone width", async () => {
    const { page } = browser;
    const { t, recipe } = site;
    await page.goto(`${site.base}/console/recipes/${recipe.id}`);
    const link = page.getByRole('link', { name: 'New test case', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New test case', exact: true }).waitFor();
    // The page's script (deferred: it has run once the document is parsed) makes the path follow the step.
    await page.waitForLoadState('domcontentloaded');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `the page is ${String(overflow)} px wider than the window`);
    await page.getByLabel('Name', { exact: true }).fill('Written in the browser');
    await page.keyboard.press('Tab');
    await page.keyboard.type('typed, not copied');
    await page.getByLabel('Trigger output').fill('{"payload": {"order_id": "W-1"}}');
    const mockStep = page.locator('#mock-0-step');
    await mockStep.focus();
    await mockStep.selectOption('greet');
    await page.locator('#mock-0-value').fill('{"message": "mocked"}');
    // The path offers the output fields of the step chosen beside it, and follows a new choice.
    const kind = page.locator('#exp-0-kind');
    await kind.focus();
    await kind.selectOption('present');
    await page.keyboard.press('Tab');
    const step = page.locator('#exp-0-step');
    assert.equal(await page.evaluate('document.activeElement.id'), 'exp-0-step', 'Tab goes from the kind to the step');
    await step.selectOption('hook');
    const path = page.locator('#exp-0-path');
    assert.equal(await path.getAttribute('list'), 'tc-paths-0');
    const offered = await page
      .locator('#tc-paths-0 option')
      .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    assert.deepEqual(offered, ['payload', 'headers', 'query_params']);
    await step.selectOption('thank');
    assert.equal(await path.getAttribute('list'), null, 'the logger describes no output fields');
    await step.selectOption('hook');
    await path.fill('payload.order_id');
    await path.press('Enter');
    await page.getByText('Test case created: run it from here.').waitFor();
    await page.getByRole('heading', { name: 'Written in the browser' }).waitFor();
    const cases = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases`)).body.data as Array<{
      id: string;
      name: string;
    }>;
    const id = cases.find((c) => c.name === 'Written in the browser')?.id;
    assert.ok(id);
    const saved = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${id}`)).body.data;
    assert.equal(saved.description, 'typed, not copied');
    assert.deepEqual(saved.trigger_output, { payload: { order_id: 'W-1' } });
    assert.deepEqual(saved.mocks, [{ step: 'greet', output: { message: 'mocked' } }]);
    assert.deepEqual(saved.expectations, [{ step: 'hook', output_path: ['payload', 'order_id'], present: true }]);
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });

  test('a data table created with its columns, then a column added, from the keyboard', async () => {
    const { page } = browser;
    await page.goto(`${site.base}/console/data-tables`);
    await page.getByRole('link', { name: 'New data table' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Phone leads');
    await page.getByLabel('New column 1: name').fill('email');
    await page.getByLabel('Required').first().check();
    await page.getByLabel('New column 2: name').fill('score');
    await page.locator('#col-type-1').selectOption('integer');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(Number(overflow) <= 0, `the page is ${String(overflow)} px wider than the window`);
    await page.getByLabel('New column 2: name').press('Enter');
    await page.getByText('Data table created: add its records.').waitFor();
    await page.getByRole('link', { name: 'Table and columns' }).click();
    await page.getByLabel('New column 1: name').fill('vip');
    await page.locator('#col-type-0').selectOption('boolean');
    await page.getByLabel('New column 1: name').press('Enter');
    await page.getByText('Table saved.').waitFor();
    const tables = (await site.t.call('GET', '/api/data_tables')).body.data;
    const table = tables.find((x: { name: string }) => x.name === 'Phone leads');
    assert.deepEqual(
      table.schema.map((c: { name: string; type: string; optional: boolean }) => [c.name, c.type, c.optional]),
      [
        ['email', 'string', false],
        ['score', 'integer', true],
        ['vip', 'boolean', true],
      ],
    );
    assert.deepEqual(browser.problems, [], 'no script error, no CSP violation');
  });
});
