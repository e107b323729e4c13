// Polling triggers over Switchboard's own stores, through recipe runs: data tables'
// new_records_polling and updated_records_polling (batches), the file store's new_file,
// new_csv_file and new_lines_in_csv_file; the cursor never repeats nor skips; bad input is a poll
// error; and the directory actions ensure_dir_exists, delete_directory and get_csv_file_contents.
// On PostgreSQL, rows younger than the settle window wait for a later poll: the tests poll until
// the jobs are there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import {
  action,
  createRecipe,
  fire,
  log,
  numbered,
  readJob,
  startRecipe,
  webhookRecipe,
  type StepDoc,
} from '../../test/recipes.ts';
import { onPostgres } from '../../test/test-database.ts';

let t: TestApp;
let tableId = 0;
const SKU = '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e51';

before(async () => {
  // Polls happen when a recipe starts and on poll_now only: the interval is an hour. On PostgreSQL
  // rows settle a quarter of a second (STORE_POLL_SETTLE_MS) before a poll takes them, not 2 s:
  // this file's writes are made one after the other, so none commits behind a higher id.
  t = await createTestApp({ engine: { triggerPollMs: 3_600_000 }, env: { STORE_POLL_SETTLE_MS: '250' } });
  const table = await t.call('POST', '/api/data_tables', {
    body: { name: 'Stock moves', schema: [{ name: 'sku', field_id: SKU, type: 'string' }] },
  });
  tableId = table.body.data.id;
});
after(() => t.close());

async function addRecord(sku: string): Promise<string> {
  const res = await t.call('POST', `/api/data_tables/${tableId}/records`, { body: { data: { sku } } });
  assert.equal(res.status, 200, res.text);
  return res.body.data.record_id as string;
}

async function jobsOf(recipeId: number) {
  await t.engine.idle();
  const rows = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', recipeId).orderBy('id').execute();
  return Promise.all(rows.map((r) => readJob(t, r.id)));
}

/** poll_now until the recipe has `count` jobs (rows settle for a moment on PostgreSQL). */
async function pollUntil(recipeId: number, count: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await t.call('POST', `/api/recipes/${recipeId}/poll_now`);
    assert.equal(res.status, 200, res.text);
    const jobs = await jobsOf(recipeId);
    if (jobs.length >= count || Date.now() > deadline) return jobs;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function triggerOf(provider: string, name: string, input: Record<string, unknown>, block: StepDoc[] = []): StepDoc {
  return numbered({ keyword: 'trigger', provider, name, as: 'poll', input, block });
}

describe('workato_db_table polling triggers', () => {
  test('new_records_polling from the beginning: records in batches, each once, new ones at the next poll', async () => {
    await addRecord('A');
    await addRecord('B');
    await addRecord('C');
    // On PostgreSQL a poll takes rows once they are STORE_POLL_SETTLE_MS old: all three settled, the first
    // poll sees them together (else a slow machine may see A alone, then B and C).
    if (onPostgres) await new Promise((resolve) => setTimeout(resolve, t.ctx.config.storePollSettleMs));
    const id = await createRecipe(
      t,
      triggerOf('workato_db_table', 'new_records_polling', {
        table_id: 'Stock moves',
        batch_size: '2',
        since: 'beginning',
      }),
    );
    await startRecipe(t, id);
    const first = await pollUntil(id, 2);
    const skus = (j: (typeof first)[number]) =>
      ((j.output(0) as { records: Array<Record<string, string>> }).records ?? []).map(
        (r) => r[SKU.replaceAll('-', '_')],
      );
    assert.deepEqual(first.map(skus), [['A', 'B'], ['C']]);
    assert.equal((first[0]?.output(0) as { count: number }).count, 2);
    await addRecord('D');
    const second = await pollUntil(id, 3);
    assert.deepEqual(second.map(skus), [['A', 'B'], ['C'], ['D']]);
    // A poll with nothing new stores nothing.
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    assert.equal((await jobsOf(id)).length, 3);
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('updated_records_polling from the first start: only what changes after it', async () => {
    const old = await addRecord('E');
    const id = await createRecipe(
      t,
      triggerOf('workato_db_table', 'updated_records_polling', { table_id: String(tableId) }),
    );
    await startRecipe(t, id);
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    assert.equal((await jobsOf(id)).length, 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await t.call('PUT', `/api/data_tables/${tableId}/records/${old}`, { body: { data: { sku: 'E2' } } });
    assert.equal(res.status, 200, res.text);
    const jobs = await pollUntil(id, 1);
    assert.equal(jobs.length, 1);
    const records = (jobs[0]?.output(0) as { records: Array<Record<string, string>> }).records;
    assert.deepEqual(
      records.map((r) => r[SKU.replaceAll('-', '_')]),
      ['E2'],
    );
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('an unknown table or a bad batch size is a code error at start', async () => {
    const unknown = await createRecipe(t, triggerOf('workato_db_table', 'new_records_polling', { table_id: 'Nope' }));
    const start = await t.call('PUT', `/api/recipes/${unknown}/start`);
    assert.match(JSON.stringify(start.body.code_errors), /does not name a data table of this environment/);
    const size = await createRecipe(
      t,
      triggerOf('workato_db_table', 'new_records_polling', { table_id: 'Stock moves', batch_size: '5000' }),
    );
    const bad = await t.call('PUT', `/api/recipes/${size}/start`);
    assert.match(JSON.stringify(bad.body.code_errors), /Batch size.*must be a whole number from 1 to 1000/);
  });
});

async function storeFile(path: string, content: string): Promise<void> {
  const { path: hook } = await webhookRecipe(t, [
    action('workato_files', 'store_file', 'put', { file_path: path, content, overwrite: 'true' }),
  ]);
  const job = await fire(t, hook, {});
  assert.equal(job.status, 'succeeded', job.error ?? '');
}

describe('workato_files triggers and directories', () => {
  test('new_file: each file added to the directory once, with its content', async () => {
    await storeFile('/inbox/old.txt', 'before');
    const id = await createRecipe(
      t,
      triggerOf('workato_files', 'new_file', { file_path: '/inbox' }, [
        log('seen', `#{_dp('{"pill_type":"output","provider":"workato_files","line":"poll","path":["name"]}')}`),
      ]),
    );
    await startRecipe(t, id);
    await storeFile('/inbox/a.txt', 'alpha');
    await storeFile('/elsewhere/b.txt', 'beta');
    const jobs = await pollUntil(id, 1);
    assert.equal(jobs.length, 1);
    const file = jobs[0]?.output(0) as { path: string; content: string };
    assert.equal(file.path, '/inbox/a.txt');
    assert.equal(file.content, 'alpha');
    assert.deepEqual(jobs[0]?.output(1), { message: 'a.txt' });
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    assert.equal((await jobsOf(id)).length, 1);
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('new_csv_file gives each new CSV file its lines; new_lines_in_csv_file the lines appended', async () => {
    const csv = await createRecipe(
      t,
      triggerOf('workato_files', 'new_csv_file', { file_path: '/csv', since: 'beginning' }),
    );
    await storeFile('/csv/orders.csv', 'id,qty\n1,2\n2,5\n');
    await storeFile('/csv/notes.txt', 'not csv');
    await startRecipe(t, csv);
    const jobs = await pollUntil(csv, 1);
    assert.equal(jobs.length, 1);
    const out = jobs[0]?.output(0) as { lines: unknown; line_count: number; file: { name: string } };
    assert.deepEqual(out.lines, [
      { id: '1', qty: '2' },
      { id: '2', qty: '5' },
    ]);
    assert.equal(out.file.name, 'orders.csv');
    await t.call('PUT', `/api/recipes/${csv}/stop`);

    await storeFile('/feeds/rates.csv', 'ccy,rate\nEUR,1.1\n');
    const lines = await createRecipe(
      t,
      triggerOf('workato_files', 'new_lines_in_csv_file', { file_path: '/feeds/rates.csv', batch_size: '1' }),
    );
    await startRecipe(t, lines);
    await t.call('POST', `/api/recipes/${lines}/poll_now`);
    assert.equal((await jobsOf(lines)).length, 0);
    await storeFile('/feeds/rates.csv', 'ccy,rate\nEUR,1.1\nGBP,0.9\nJPY,160\n');
    const fresh = await pollUntil(lines, 2);
    assert.deepEqual(
      fresh.map((j) => (j.output(0) as { lines: unknown; first_line_number: number }).lines),
      [[{ ccy: 'GBP', rate: '0.9' }], [{ ccy: 'JPY', rate: '160' }]],
    );
    assert.equal((fresh[1]?.output(0) as { first_line_number: number }).first_line_number, 3);
    await t.call('PUT', `/api/recipes/${lines}/stop`);
  });

  test('a poll of a file that is gone is a poll error; the cursor stays', async () => {
    const id = await createRecipe(
      t,
      triggerOf('workato_files', 'new_lines_in_csv_file', { file_path: '/feeds/missing.csv' }),
    );
    await startRecipe(t, id);
    const jobs = await jobsOf(id);
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0]?.status, 'failed');
    assert.equal(jobs[0]?.errorType, 'Not found');
    const row = await t.ctx.db
      .selectFrom('jobs')
      .select('is_poll_error')
      .where('recipe_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(row.is_poll_error, 1);
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('ensure_dir_exists, get_csv_file_contents, delete_directory (with its files); bad paths are the step error', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_files', 'ensure_dir_exists', 'dir', { directory_path: '/reports', directory_name: '2025/q1' }),
      action('workato_files', 'store_file', 'put', {
        file_path: '/reports/2025/q1/sales.csv',
        content: 'id;total\n1;10\n',
      }),
      action('workato_files', 'get_csv_file_contents', 'lines', {
        file_path: '/reports/2025/q1/sales.csv',
        col_sep: 'semicolon',
      }),
      action('workato_files', 'delete_directory', 'del', { directory_path: '/reports/2025' }),
      action('workato_files', 'get_file_contents', 'gone', { file_path: '/reports/2025/q1/sales.csv' }),
    ]);
    const job = await fire(t, path, {});
    assert.deepEqual(job.output(1), { directory_path: '/reports/2025/q1' });
    const lines = job.output(3) as { lines: unknown; file: { path: string } };
    assert.deepEqual(lines.lines, [{ id: '1', total: '10' }]);
    assert.equal(lines.file.path, '/reports/2025/q1/sales.csv');
    assert.deepEqual(job.output(4), { directory_path: '/reports/2025', deleted_files: 1 });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Not found');

    const { path: p2 } = await webhookRecipe(t, [
      action('workato_files', 'ensure_dir_exists', 'empty', { directory_path: '/empty/one' }),
      action('workato_files', 'delete_directory', 'd1', { directory_path: '/empty' }),
      action('workato_files', 'delete_directory', 'd2', { directory_path: '/empty' }),
    ]);
    const twice = await fire(t, p2, {});
    assert.deepEqual(twice.output(2), { directory_path: '/empty', deleted_files: 0 });
    assert.equal(twice.error, 'Not found: Directory /empty not found');
    const { path: p3 } = await webhookRecipe(t, [
      action('workato_files', 'delete_directory', 'root', { directory_path: '/' }),
    ]);
    assert.equal((await fire(t, p3, {})).error, 'Bad request: the root directory cannot be deleted');
    const { path: p4 } = await webhookRecipe(t, [
      action('workato_files', 'ensure_dir_exists', 'bad', { directory_path: '/a/../b' }),
    ]);
    assert.equal((await fire(t, p4, {})).errorType, 'Bad request');
  });
});
