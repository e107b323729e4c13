// Recipes written in the vendor's export format (test/fixtures/recipes/written, SOURCES.md):
// each is imported unchanged through the recipes API, started, and run through its webhook,
// with what a user sees checked: the job's status and steps, the data table records, the lookup
// table rows, the stored file, the e-mails sent, and the workflow task that a person completes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startSmtpCapture, type SmtpCapture } from './smtp-capture.ts';
import { createTestApp, type TestApp } from './helpers.ts';
import { createZipWriter } from '../src/api/packages/zip.ts';
import { readJob } from './recipes.ts';

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

/** What the logger steps of a job wrote, in order (read from the job's stored lines). */
async function loggerMessages(handle: string): Promise<string[]> {
  const job = await t.ctx.db.selectFrom('jobs').select('id').where('handle', '=', handle).executeTakeFirstOrThrow();
  return (await readJob(t, job.id)).lines
    .filter((l) => l.adapter === 'logger')
    .map((l) => (l.output as { message: string }).message);
}

/** Imports a fixture unchanged and starts it (a recipe without a webhook). */
async function importAndStartOnly(file: string): Promise<number> {
  const created = await t.call('POST', '/api/recipes', {
    raw: fixture(file),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(created.status, 200, `${file}: ${created.text}`);
  const started = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
  assert.deepEqual(started.body, { success: true }, `${file}: ${started.text}`);
  return created.body.id as number;
}

describe("the vendor's own platform, in recipes written in its format", () => {
  test('a Workflow app: new requests move through stages, a manager reviews the expensive ones, a drop-down app function', async () => {
    const requests = await dataTable('laptop_requests.workato_db_table.json');
    const app = await t.call('POST', '/api/workflow_apps', {
      body: {
        name: 'Laptop requests',
        data_table_id: requests,
        stages: ['New', 'Manager review', 'Approved', 'Rejected'],
      },
    });
    assert.equal(app.status, 200, app.text);
    const id = await importAndStartOnly('laptop_requests_workflow.recipe.json');
    const add = async (title: string, amount: number) => {
      const res = await t.call('POST', `/api/data_tables/${requests}/records`, { body: { data: { title, amount } } });
      assert.equal(res.status, 200, res.text);
      return res.body.data.record_id as string;
    };
    const stageOf = async (recordId: string) =>
      (await t.call('GET', `/api/workflow_apps/${app.body.id}/requests/${recordId}`)).body.stage.name as string;

    const mac = await add('MacBook Pro', 2600);
    const chromebook = await add('Chromebook', 400);
    await t.engine.idle();
    assert.deepEqual((await jobsOf(id)).map((j) => j.status).sort(), ['pending', 'succeeded']);
    assert.equal(await stageOf(mac), 'Manager review');
    assert.equal(await stageOf(chromebook), 'Approved');
    const tasks = await t.call('GET', `/api/workflow_tasks?recipe_id=${id}&status=open`);
    assert.deepEqual(
      tasks.body.items.map((task: { name: string; assignee: string; record_id: string }) => [
        task.name,
        task.assignee,
        task.record_id,
      ]),
      [['Approve laptop: MacBook Pro (2600)', 'manager@acme.example.com', mac]],
    );
    const done = await t.call('POST', `/api/workflow_tasks/${tasks.body.items[0].id}/complete`, {
      body: { status: 'rejected', comments: 'Too expensive' },
    });
    assert.equal(done.status, 200, done.text);
    await t.engine.idle();
    assert.deepEqual(
      (await jobsOf(id)).map((j) => [j.status, j.error]),
      [
        ['succeeded', null],
        ['succeeded', null],
      ],
    );
    assert.equal(await stageOf(mac), 'Rejected');
    const request = await t.call('GET', `/api/workflow_apps/${app.body.id}/requests/${mac}`);
    assert.equal(request.body.record.data.note, 'Rejected by manager@acme.example.com: Too expensive');

    const models = await dataTable('laptop_models.workato_db_table.json');
    for (const [model, name] of [
      ['mbp14', 'MacBook Pro 14'],
      ['mba13', 'MacBook Air 13'],
      ['x1', 'ThinkPad X1'],
    ])
      await t.call('POST', `/api/data_tables/${models}/records`, { body: { data: { model, name } } });
    const dropdown = await importAndStartOnly('laptop_models_dropdown.recipe.json');
    const answer = await t.call('POST', `/api/workflow_apps/app_functions/${dropdown}`, {
      body: { search_query: 'MacBook', user: { email: 'ana@acme.example.com' } },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.data, {
      items: [
        { value: 'mba13', label: 'MacBook Air 13' },
        { value: 'mbp14', label: 'MacBook Pro 14' },
      ],
    });
  });

  test('a file-tools pipeline: an uploaded zip unpacked, its CSV and XML files parsed and filed, then bundled again', async () => {
    const { id, path } = await importAndStart('monthly_exports_files.recipe.json');
    const writer = await createZipWriter(new Date('2025-02-01T00:00:00Z'));
    writer.add('orders.csv', async () => Buffer.from('id,total\nA-1,10\nA-2,32\n'));
    writer.add('invoice.xml', async () => Buffer.from('<invoice><number>INV-7</number><total>42</total></invoice>'));
    writer.finish();
    const chunks: Buffer[] = [];
    for await (const chunk of writer.stream) chunks.push(chunk as Buffer);
    await post(path, { month: '2025-01', archive: Buffer.concat(chunks).toString('base64') });
    const [job] = await jobsOf(id);
    assert.deepEqual([job?.status, job?.error], ['succeeded', null]);
    const messages = await loggerMessages(job?.id as string);
    assert.deepEqual(messages.slice(0, 2), ['orders.csv: 2 lines', 'invoice.xml: invoice INV-7']);
    assert.match(messages[2] ?? '', /^2 files stored, archive of \d+ bytes$/);
    const files = await t.call('GET', '/api/files?directory=/exports/2025-01');
    assert.deepEqual(
      (files.body.data as Array<{ path: string }>).map((f) => f.path),
      ['/exports/2025-01/invoice.xml', '/exports/2025-01/orders.csv'],
    );
    const csv = await t.call('GET', '/api/files/content?path=/exports/2025-01/orders.csv');
    assert.equal(csv.text, 'id,total\nA-1,10\nA-2,32\n');
  });

  test('a legacy HTTP recipe: webhook_input, http post/get, _() pills with job metadata, catch and else after their try and if', async () => {
    const seen: string[] = [];
    const api = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        res.setHeader('content-type', 'application/json');
        if (req.url === '/orders/O-404') {
          res.statusCode = 404;
          res.end('{"error":"gone"}');
        } else
          res.end(JSON.stringify({ id: JSON.parse(body || '{}').sku === 'LOST' ? 'O-404' : 'O-1', status: 'created' }));
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const connection = await t.call('POST', '/api/connections', {
        body: { name: 'Orders API', provider: 'http', input: { base_url: base, auth_type: 'none' } },
      });
      assert.equal(connection.status, 200, connection.text);
      const { id, path } = await importAndStart('legacy_order_sync.recipe.json');
      assert.match(path, /\/legacy_orders$/);
      await post(path, { sku: 'KB-1', qty: '3' });
      await post(path, { sku: 'LOST', qty: '1' });
      assert.deepEqual(seen, [
        'POST /orders {"sku":"KB-1","qty":3}',
        'GET /orders/O-1 ',
        'POST /orders {"sku":"LOST","qty":1}',
        'GET /orders/O-404 ',
      ]);
      const jobs = await jobsOf(id);
      assert.deepEqual(
        jobs.map((j) => j.status),
        ['succeeded', 'succeeded'],
      );
      const logs = loggerMessages;
      const recipe = await t.call('GET', `/api/recipes/${id}`);
      // Jobs are listed newest first: the LOST order's job, then KB-1's.
      const [lost, ok] = await Promise.all(jobs.map((j) => logs(j.id)));
      assert.equal(ok?.length, 1);
      assert.match(
        ok?.[0] ?? '',
        new RegExp(`^Order O-1 created by job j-[A-Za-z0-9_-]+ of ${recipe.body.name} at \\d{4}-\\d{2}-\\d{2}T`),
      );
      assert.deepEqual(lost, ['Order check failed: 404 Not found: {"error":"gone"}', 'Order not created ()']);
    } finally {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });

  test('a Ruby step: an order priced in Ruby (a tax rate fetched from a service, core extensions), its output in a log and an if', async () => {
    const asked: string[] = [];
    const taxes = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      const rate = { '/rates/DE': 0.19, '/rates/FR': 0.2 }[req.url ?? ''];
      res.statusCode = rate === undefined ? 404 : 200;
      res.end(JSON.stringify(rate === undefined ? { message: 'unknown country' } : { rate }));
    });
    await new Promise<void>((resolve) => taxes.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(taxes.address() as AddressInfo).port}`;
      const property = await t.call('POST', '/api/properties', { body: { properties: { tax_api_url: base } } });
      assert.equal(property.status, 200, property.text);
      const { id, path } = await importAndStart('order_pricing_ruby.recipe.json');
      await post(path, {
        order_id: 'o-1001',
        country: 'DE',
        ordered_at: '2026-01-15T10:00:00Z',
        lines: [
          { sku: 'KB-1', quantity: '4', unit_price: '250' },
          { sku: 'MS-2', quantity: 2, unit_price: 19.5 },
          { sku: 'KB-1', quantity: 0, unit_price: 250 },
        ],
      });
      await post(path, {
        order_id: 'o-1002',
        country: 'FR',
        ordered_at: '2026-03-31',
        lines: [{ sku: 'CB-9', quantity: 3, unit_price: 99.5 }],
      });
      await post(path, { order_id: 'o-1003', country: 'XX', ordered_at: '2026-03-31', lines: [] });
      assert.deepEqual(asked, ['GET /rates/DE', 'GET /rates/FR', 'GET /rates/XX']);
      const jobs = await jobsOf(id);
      assert.deepEqual(
        jobs.map((j) => j.status),
        ['failed', 'succeeded', 'succeeded'],
      );
      const [unknown, fr, de] = jobs;
      assert.deepEqual(await loggerMessages(de?.id as string), [
        'Order O-1001 (KB-1, MS-2): gold, total 1112.77 incl. tax 177.67, due 2026-02-14',
        'Review order O-1001: gold tier outside France',
      ]);
      assert.deepEqual(await loggerMessages(fr?.id as string), [
        'Order O-1002 (CB-9): silver, total 340.3 incl. tax 56.72, due 2026-04-30',
      ]);
      // Ruby rounds 283.575 half up (283.58), as the vendor's Ruby does. The service's 404 is the
      // Ruby step's error, naming the line of the request.
      assert.match(unknown?.error ?? '', /line 5: .*404/);
      assert.deepEqual(await stepsOf(id, fr?.id as string), [
        '0:new_event',
        '1:invoke_custom_ruby_code',
        '2:log_message',
      ]);
    } finally {
      taxes.closeAllConnections();
      await new Promise((resolve) => taxes.close(resolve));
    }
  });
});
