// Recipes written in the vendor's export format (test/fixtures/recipes/written, SOURCES.md):
// each is imported unchanged through the recipes API, started, and run through its webhook,
// with what a user sees checked: the job's status and steps, the data table records, the lookup
// table rows, the stored file, the e-mails sent, and the workflow task that a person completes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startSmtpCapture, type SmtpCapture } from './smtp-capture.ts';
import { createTestApp, type TestApp } from './helpers.ts';

const DIR = new URL('./fixtures/recipes/written/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, DIR), 'utf8');

let smtp: SmtpCapture;

let t: TestApp;
before(async () => {
  smtp = await startSmtpCapture();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Finance <finance@acme.example.com>' } });
});
after(async () => {
  await t.close();
  await smtp.close();
});

/** Imports a fixture unchanged, starts it, and answers its id and webhook path. */
async function importAndStart(file: string): Promise<{ id: number; path: string }> {
  const created = await t.call('POST', '/api/recipes', {
    raw: fixture(file),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(created.status, 200, `${file}: ${created.text}`);
  const started = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
  assert.deepEqual(started.body, { success: true }, `${file}: ${started.text}`);
  const recipe = await t.call('GET', `/api/recipes/${created.body.id}`);
  return { id: created.body.id as number, path: new URL(recipe.body.webhook_url as string).pathname };
}

async function post(path: string, payload: Record<string, unknown>): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: path, payload });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
}

async function jobsOf(recipeId: number): Promise<Array<{ id: string; status: string; error: string | null }>> {
  const res = await t.call('GET', `/api/recipes/${recipeId}/jobs`);
  assert.equal(res.status, 200, res.text);
  return res.body.items;
}

async function stepsOf(recipeId: number, jobId: string): Promise<string[]> {
  const res = await t.call('GET', `/api/recipes/${recipeId}/jobs/${jobId}`);
  return (res.body.lines as Array<{ recipe_line_number: number; adapter_operation: string }>).map(
    (l) => `${l.recipe_line_number}:${l.adapter_operation}`,
  );
}

async function dataTable(file: string): Promise<number> {
  const res = await t.call('POST', '/api/data_tables', {
    raw: fixture(file),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id as number;
}

async function records(tableId: number): Promise<Array<Record<string, unknown>>> {
  const res = await t.call('GET', `/api/data_tables/${tableId}/records?per_page=1000`);
  assert.equal(res.status, 200, res.text);
  return (res.body.data as Array<{ data: Record<string, unknown> }>).map((r) => r.data);
}

describe("recipes written in the vendor's format", () => {
  test("expense approval: Python policy check, a data table record, a manager's workflow task, e-mails", async () => {
    const table = await dataTable('expenses.workato_db_table.json');
    const { id, path } = await importAndStart('expense_approval.recipe.json');
    const expense = (expense_id: string, merchant: string, amount: string) => ({
      expense_id,
      employee_email: 'ana@acme.example.com',
      manager_email: 'Bo@Acme.example.com',
      merchant,
      amount,
    });

    // Within policy: no task, recorded as auto-approved.
    await post(path, expense('EXP-1', 'Bistro Lyon', '42.50'));
    // Above the limit: the job waits for the manager.
    await post(path, expense('EXP-2', 'Air France', '1899.99'));
    await post(path, expense('EXP-3', 'GitHub Inc', '640'));
    const waiting = await jobsOf(id);
    assert.deepEqual(waiting.map((j) => j.status).sort(), ['pending', 'pending', 'succeeded']);
    const tasks = await t.call('GET', `/api/workflow_tasks?recipe_id=${id}&status=open`);
    assert.deepEqual(
      tasks.body.items.map((task: { name: string; assignee: string; task_type: string }) => [
        task.name,
        task.assignee,
        task.task_type,
      ]),
      [
        ['Approve expense EXP-2 (1899.99, travel)', 'bo@acme.example.com', 'approval'],
        ['Approve expense EXP-3 (640, software)', 'bo@acme.example.com', 'approval'],
      ],
    );
    const [travel, software] = tasks.body.items as Array<{ id: number }>;
    assert.equal(
      (await t.call('POST', `/api/workflow_tasks/${travel!.id}/complete`, { body: { status: 'approved' } })).status,
      200,
    );
    assert.equal(
      (
        await t.call('POST', `/api/workflow_tasks/${software!.id}/complete`, {
          body: { status: 'rejected', comments: 'Use the team licence' },
        })
      ).status,
      200,
    );
    await t.engine.idle();

    const jobs = await jobsOf(id);
    assert.deepEqual(
      jobs.map((j) => [j.status, j.error]),
      [
        ['succeeded', null],
        ['succeeded', null],
        ['succeeded', null],
      ],
    );
    assert.deepEqual(
      (await records(table)).map((r) => [r.expense_id, r.amount, r.category, r.status, r.reviewed_by]),
      [
        ['EXP-1', 42.5, 'meals', 'auto_approved', 'policy'],
        ['EXP-2', 1899.99, 'travel', 'approved', 'bo@acme.example.com'],
        ['EXP-3', 640, 'software', 'rejected', 'bo@acme.example.com'],
      ],
    );
    const subjects = smtp.mails.map((m) => [m.to.join(','), /Subject: (.*)/.exec(m.raw)?.[1]]).sort();
    assert.deepEqual(subjects, [
      ['ana@acme.example.com', 'Expense EXP-2 approved'],
      ['ana@acme.example.com', 'Expense EXP-3 rejected'],
    ]);
    assert.match(smtp.mails.find((m) => m.raw.includes('EXP-3'))!.raw, /Use the team licence/);
    smtp.mails.length = 0;
  });

  test('weekly sales report: data table search, Python aggregation, CSV, a stored file, a template, an HTML e-mail', async () => {
    const table = await dataTable('sales_orders.workato_db_table.json');
    const orders = [
      { order_id: 'SO-1', region: 'EMEA', amount: 120.1, status: 'paid' },
      { order_id: 'SO-2', region: 'AMER', amount: 300, status: 'paid' },
      { order_id: 'SO-3', region: 'EMEA', amount: 99.95, status: 'paid' },
      { order_id: 'SO-4', region: 'APAC', amount: 500, status: 'refunded' },
      { order_id: 'SO-5', region: 'APAC', amount: 15.5, status: 'paid' },
    ];
    assert.equal(
      (await t.call('POST', `/api/data_tables/${table}/records/batch`, { body: { records: orders } })).status,
      200,
    );
    const { id, path } = await importAndStart('weekly_sales_report.recipe.json');
    await post(path, { week: '2026-W47', recipients: 'sales@acme.example.com, cfo@acme.example.com' });
    const [job] = await jobsOf(id);
    assert.equal(job!.status, 'succeeded', job!.error ?? '');
    assert.deepEqual(await stepsOf(id, job!.id), [
      '0:new_event',
      '1:get_records',
      '2:invoke_custom_py_code',
      '3:create_csv_lines',
      '4:store_file',
      '5:create_document',
      '6:send_mail',
    ]);
    const file = await t.call(
      'GET',
      `/api/files/content?path=${encodeURIComponent('/reports/sales/sales-2026-W47.csv')}`,
    );
    assert.equal(file.status, 200, file.text);
    assert.equal(file.text, 'region,orders,revenue\nAMER,1,300.00\nEMEA,2,220.05\nAPAC,1,15.50\n');
    assert.equal(smtp.mails.length, 1);
    assert.deepEqual(smtp.mails[0]!.to, ['sales@acme.example.com', 'cfo@acme.example.com']);
    const html = smtp.mails[0]!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    assert.match(html, /Subject: Sales report 2026-W47/);
    assert.match(html, /<p>4 paid orders, 535.55 in total.<\/p>/);
    assert.match(
      html,
      /<tr><td>AMER<\/td><td>1<\/td><td>300.00<\/td><\/tr><tr><td>EMEA<\/td><td>2<\/td><td>220.05<\/td><\/tr>/,
    );
    assert.match(html, /CSV: \/reports\/sales\/sales-2026-W47.csv/);
    smtp.mails.length = 0;
  });

  test("FX rates: a CSV feed parsed, checked in Python, replacing the day's rows of a lookup table in two batch actions", async () => {
    const lookup = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'FX rates', schema: [{ label: 'currency' }, { label: 'rate' }, { label: 'rate_date' }] },
    });
    assert.equal(lookup.status, 200, lookup.text);
    const stale = await t.call('POST', `/api/lookup_tables/${lookup.body.id}/rows`, {
      body: { data: { currency: 'EUR', rate: '0.5', rate_date: '2026-11-25' } },
    });
    assert.equal(stale.status, 200, stale.text);
    const kept = await t.call('POST', `/api/lookup_tables/${lookup.body.id}/rows`, {
      body: { data: { currency: 'EUR', rate: '0.91', rate_date: '2026-11-24' } },
    });
    assert.equal(kept.status, 200, kept.text);
    const { id, path } = await importAndStart('fx_rates_sync.recipe.json');
    await post(path, {
      rate_date: '2026-11-25',
      rates_csv: 'currency;rate\neur;0.9213\nGBP;0.7841\nJPY;n/a\nXX;1.5\nchf;0.8822\n',
    });
    const [job] = await jobsOf(id);
    assert.equal(job!.status, 'succeeded', job!.error ?? '');
    const rows = await t.call('GET', `/api/lookup_tables/${lookup.body.id}/rows`);
    assert.deepEqual(
      (rows.body as Array<{ data: Record<string, string> }>)
        .map((r) => r.data)
        .sort((a, b) => `${a.rate_date}${a.currency}`.localeCompare(`${b.rate_date}${b.currency}`)),
      [
        { currency: 'EUR', rate: '0.91', rate_date: '2026-11-24' },
        { currency: 'CHF', rate: '0.882200', rate_date: '2026-11-25' },
        { currency: 'EUR', rate: '0.921300', rate_date: '2026-11-25' },
        { currency: 'GBP', rate: '0.784100', rate_date: '2026-11-25' },
      ],
    );
    // A feed with nothing valid changes nothing: the IF leaves the table alone.
    await post(path, { rate_date: '2026-11-25', rates_csv: 'currency;rate\nJPY;n/a\n' });
    const latest = (await jobsOf(id))[0]!;
    assert.equal(latest.status, 'succeeded');
    assert.deepEqual(await stepsOf(id, latest.id), ['0:new_event', '1:parse_csv', '2:invoke_custom_py_code']);
    assert.equal(((await t.call('GET', `/api/lookup_tables/${lookup.body.id}/rows`)).body as unknown[]).length, 4);
  });
});
