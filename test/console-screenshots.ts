// `npm run screenshots`: the console's main pages as PNGs in docs/console/ (the README shows them).
// A test app with a little data, Debian's Chromium, the same helpers as the browser tests.
import path from 'node:path';
import fs from 'node:fs';
import { openBrowser, openSite, shoot, signIn } from './console-browser.ts';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { action, condition, dp, log, numbered, webhookRecipe, webhookTrigger } from './recipes.ts';

const dir = path.resolve(import.meta.dirname, '../docs/console');
fs.mkdirSync(dir, { recursive: true });
const site = await openSite();
const { t, base } = site;
try {
  await t.call('PUT', `/api/recipes/${site.recipe.id}/start`);
  const failing = await webhookRecipe(
    t,
    [
      log('check', 'checking stock'),
      { keyword: 'stop', input: { stop_with_error: 'true', stop_reason: 'Out of stock' } },
    ],
    { name: 'Reserve stock' },
  );
  for (let i = 0; i < 40; i++) {
    await t.app.inject({
      method: 'POST',
      url: site.recipe.path,
      payload: {
        order_id: `A-${1000 + i}`,
        customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
        items: [{ sku: 'SKU-1', qty: 2 }],
      },
    });
    if (i % 5 === 0) await t.app.inject({ method: 'POST', url: failing.path, payload: { order_id: `A-${1000 + i}` } });
  }
  await t.engine.idle();
  // A real recipe exported from the vendor (nested IF, try/catch, recipe function calls), for its step tree.
  const exported = JSON.parse(
    fs.readFileSync(
      path.resolve(
        import.meta.dirname,
        'fixtures/recipes/dewy-resort/orchestrator-recipes/create_booking_orchestrator.recipe.json',
      ),
      'utf8',
    ),
  ) as Record<string, unknown>;
  const booking = await t.call('POST', '/api/recipes', { body: exported });
  const topic = await t.call('POST', '/api/event_streams/topics', {
    body: { name: 'order-events', description: 'Orders as they change' },
  });
  for (const state of ['created', 'paid', 'shipped'])
    await t.call('POST', `/api/v1/topics/${topic.body.data.id}/publish`, { body: { order_id: 'A-1042', state } });
  await t.call('POST', '/api/connections', {
    body: { name: 'Orders backend', provider: 'rest', input: { base_url: 'http://127.0.0.1:8081', auth_type: 'none' } },
  });
  // A project built and deployed to test, a test run, a data table, an open workflow task.
  const project = await t.createProject('Orders');
  const tested = await t.call('POST', '/api/recipes', {
    body: {
      recipe: {
        name: 'Confirm order',
        folder_id: project.folderId,
        code: JSON.stringify(
          numbered(
            webhookTrigger([log('say', `Order #{${dp('workato_webhooks', 'hook', 'payload', 'order_id')}} confirmed`)]),
          ),
        ),
      },
    },
  });
  for (const [name, expected] of [
    ['Order is confirmed', 'Order A-1 confirmed'],
    ['Order id is echoed', 'Order B-2 confirmed'],
  ] as const) {
    const created = await t.call('POST', `/api/recipes/${tested.body.id}/test_cases`, {
      body: {
        name,
        trigger_output: { payload: { order_id: 'A-1' } },
        expectations: [{ step: 'say', output_path: ['message'], equals: expected }],
      },
    });
    assert.equal(created.status, 200, created.text);
  }
  const cases = (await t.call('GET', `/api/recipes/${tested.body.id}/test_cases`)).body.data;
  const testCaseUrl = `/console/recipes/${tested.body.id}/test-cases/${cases[0].id}`;
  // A job failing at an IF: its line reads with the condition of the version it ran.
  const coupons = await webhookRecipe(
    t,
    [
      {
        keyword: 'if',
        input: condition('equals_to', `=${dp('workato_webhooks', 'hook', 'payload', 'coupon')}.upcase`, 'SPRING'),
        block: [log('coupon', 'A coupon')],
      },
    ],
    { name: 'Coupons' },
  );
  await t.app.inject({ method: 'POST', url: coupons.path, payload: { order_id: 'A-1010' } });
  await t.engine.idle();
  const couponJob = (await t.call('GET', `/api/recipes/${coupons.id}/jobs`)).body.items[0].id as string;
  const run = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: tested.body.id } });
  const build = await t.call('POST', `/api/projects/${project.projectId}/build`, {
    body: { description: 'First release', include_test_cases: true },
  });
  const waitUntil = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 400 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  };
  await waitUntil(async () => (await t.call('GET', `/api/project_builds/${build.body.id}`)).body.state !== 'pending');
  const deployment = await t.call('POST', `/api/project_builds/${build.body.id}/deploy?environment_type=test`, {
    body: { description: 'To test' },
  });
  await waitUntil(async () => (await t.call('GET', `/api/deployments/${deployment.body.id}`)).body.state !== 'pending');
  await waitUntil(
    async () =>
      (await t.call('GET', `/api/test_cases/run_requests/${run.body.data.id}`)).body.data.status === 'completed',
  );
  const table = await t.call('POST', '/api/data_tables', {
    body: {
      name: 'Customers',
      schema: [
        { name: 'email', type: 'string', optional: false },
        { name: 'orders', type: 'integer' },
        { name: 'vip', type: 'boolean' },
      ],
    },
  });
  await t.call('POST', `/api/data_tables/${table.body.data.id}/records/batch`, {
    body: {
      records: [
        ['ada@example.com', 12, true],
        ['grace@example.com', 3, false],
        ['alan@example.com', 7, false],
      ].map(([email, orders, vip]) => ({ email, orders, vip })),
    },
  });
  const review = await webhookRecipe(
    t,
    [
      action('workato_workflow_task', 'human_review_on_existing_record', 'review', {
        name: `Approve refund for order #{${dp('workato_webhooks', 'hook', 'payload', 'order_id')}}`,
        email: 'ops@example.com',
        form_fields: [{ name: 'amount', label: 'Refund amount', type: 'number' }],
      }),
    ],
    { name: 'Refund review' },
  );
  await t.app.inject({ method: 'POST', url: review.path, payload: { order_id: 'A-1007' } });
  await t.engine.idle();
  const openTask = (await t.call('GET', '/api/workflow_tasks?status=open')).body.items[0];

  // More to show: a second version to compare, a record and a row to edit, a client, a connection.
  await t.call('PUT', `/api/recipes/${tested.body.id}`, {
    body: {
      recipe: {
        code: JSON.stringify(
          numbered(
            webhookTrigger([
              log('say', `Order #{${dp('workato_webhooks', 'hook', 'payload', 'order_id')}} confirmed, thank you`),
            ]),
          ),
        ),
      },
    },
  });
  const record = (await t.call('GET', `/api/data_tables/${table.body.data.id}/records`)).body.data[0].record_id;
  const row = (await t.call('GET', `/api/lookup_tables/${site.tableId}/rows`)).body[0]?.id;
  const client = (await t.call('GET', '/api/api_clients')).body[0]?.id;
  const connection = (await t.call('GET', '/api/connections')).body[0]?.id;
  const job = (await t.call('GET', `/api/recipes/${site.recipe.id}/jobs`)).body.items[0].id as string;
  const jobUrl = `/console/recipes/${site.recipe.id}/jobs/${job}`;

  /** Every page of the console, each at 1280 and at 390 pixels wide (`<name>-narrow.png`). */
  const pages: Array<{ name: string; url: string; then?: (page: Page) => Promise<void> }> = [
    { name: 'dashboard', url: '/console/' },
    { name: 'recipes', url: '/console/recipes' },
    { name: 'recipe', url: `/console/recipes/${booking.body.id}` },
    { name: 'recipe-tested', url: `/console/recipes/${tested.body.id}` },
    { name: 'editor', url: `/console/recipes/${booking.body.id}/edit` },
    { name: 'editor-new', url: '/console/recipes/new' },
    { name: 'recipe-diff', url: `/console/recipes/${tested.body.id}/versions/diff` },
    { name: 'jobs', url: `/console/recipes/${site.recipe.id}/jobs` },
    { name: 'jobs-search', url: `/console/recipes/${site.recipe.id}/jobs?q=missing` },
    { name: 'job', url: jobUrl },
    {
      name: 'job-condition',
      url: `/console/recipes/${coupons.id}/jobs/${couponJob}`,
      then: (page) =>
        page
          .locator('ol.lines > li')
          .nth(1)
          .evaluate((li) => (li as unknown as { scrollIntoView(): void }).scrollIntoView()),
    },
    { name: 'test-case-from-job', url: `${jobUrl}/test-case` },
    { name: 'test-case-new', url: `/console/recipes/${tested.body.id}/test-cases/new` },
    {
      name: 'test-case',
      url: testCaseUrl,
      // Scrolled to the form's rows (a screenshot is the window's height).
      then: (page) => page.locator('#exp-0-kind').scrollIntoViewIfNeeded(),
    },
    { name: 'test-runs', url: '/console/test-runs' },
    { name: 'test-run', url: `/console/test-runs/${run.body.data.id}` },
    { name: 'lookup-tables', url: '/console/lookup-tables' },
    { name: 'lookup-table-new', url: '/console/lookup-tables/new' },
    { name: 'lookup-table', url: `/console/lookup-tables/${site.tableId}` },
    { name: 'lookup-row', url: `/console/lookup-tables/${site.tableId}/rows/${row}` },
    { name: 'data-tables', url: '/console/data-tables' },
    { name: 'data-table-new', url: '/console/data-tables/new' },
    { name: 'data-table', url: `/console/data-tables/${table.body.data.id}` },
    { name: 'data-table-schema', url: `/console/data-tables/${table.body.data.id}/schema` },
    { name: 'data-record', url: `/console/data-tables/${table.body.data.id}/records/${record}` },
    { name: 'workflow-tasks', url: '/console/workflow-tasks' },
    { name: 'workflow-task', url: `/console/workflow-tasks/${openTask.id}` },
    { name: 'topics', url: '/console/topics' },
    { name: 'topic-new', url: '/console/topics/new' },
    { name: 'topic', url: `/console/topics/${topic.body.data.id}` },
    { name: 'builds', url: '/console/builds' },
    { name: 'build', url: `/console/builds/${build.body.id}` },
    { name: 'deployments', url: '/console/deployments' },
    { name: 'connections', url: '/console/connections' },
    { name: 'connection', url: `/console/connections/${connection}` },
    {
      name: 'api-platform',
      url: '/console/api-platform',
      then: (page) => page.getByRole('button', { name: 'Refresh secret of Partner token' }).click(),
    },
    { name: 'api-client-new', url: '/console/api-platform/clients/new' },
    { name: 'api-client', url: `/console/api-platform/clients/${client}` },
    { name: 'properties', url: '/console/properties' },
    { name: 'not-found', url: '/console/recipes/999999' },
  ];
  for (const [width, suffix] of [
    [1280, ''],
    [390, '-narrow'],
  ] as const) {
    const browser = await openBrowser({ width });
    try {
      const { page } = browser;
      await page.goto(`${base}/console/sign-in`);
      await shoot(page, dir, `sign-in${suffix}`);
      await signIn(page, base, t.adminToken);
      for (const { name, url, then } of pages) {
        await page.goto(`${base}${url}`);
        if (then) await then(page);
        await shoot(page, dir, `${name}${suffix}`);
      }
    } finally {
      await browser.close();
    }
  }
  console.log(
    `screenshots in ${path.relative(process.cwd(), dir)}: ${fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .join(', ')}`,
  );
} finally {
  await site.close();
}
