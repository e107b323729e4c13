// The workato_db_table connector through real jobs: a recipe is created and started through the
// API, an event is posted to its webhook, and the job's lines and the table's records (read back
// through the API) are checked. Real-time triggers: records written through the API and by a
// step start one job per record in the recipes watching the table.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import {
  action,
  createRecipe,
  dp,
  fire,
  numbered,
  pill,
  readJob,
  startRecipe,
  webhookRecipe,
} from '../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

const RECORD_ID = '11fbe9a6_a16d_4d7e_86ea_afe42ec03005';
const u = (id: string) => id.replaceAll('-', '_');
let counter = 0;

interface Table {
  id: number;
  name: string;
  col: Record<string, string>;
  dashed: Record<string, string>;
}

async function newTable(rows: Array<Record<string, unknown>> = []): Promise<Table> {
  const name = `Orders ${++counter}`;
  const res = await t.call('POST', '/api/data_tables', {
    body: {
      name,
      schema: [
        { name: 'code', type: 'string' },
        { name: 'qty', type: 'integer' },
        { name: 'price', type: 'decimal' },
        { name: 'paid', type: 'boolean' },
      ],
    },
  });
  assert.equal(res.status, 200, res.text);
  const col: Record<string, string> = {};
  const dashed: Record<string, string> = {};
  for (const c of res.body.data.schema as Array<{ name: string; field_id: string }>) {
    col[c.name] = u(c.field_id);
    dashed[c.name] = c.field_id;
  }
  if (rows.length > 0) {
    const batch = await t.call('POST', `/api/data_tables/${res.body.data.id}/records/batch`, {
      body: { records: rows },
    });
    assert.equal(batch.status, 200, batch.text);
  }
  return { id: res.body.data.id, name, col, dashed };
}

async function recordsOf(table: Table): Promise<Array<{ record_id: string; data: Record<string, unknown> }>> {
  const res = await t.call('GET', `/api/data_tables/${table.id}/records?per_page=1000`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

const db = (name: string, as: string, input: Record<string, unknown>) => action('workato_db_table', name, as, input);
const payload = (...path: string[]) => pill('workato_webhooks', 'hook', 'payload', ...path);
const out = (as: string, ...path: string[]) => pill('workato_db_table', as, ...path);
const ROWS = [
  { code: 'A-1', qty: 1, price: 9.5, paid: true },
  { code: 'A-2', qty: 5, price: 20, paid: false },
  { code: 'B-1', qty: 3, price: 1.25, paid: true },
];

describe('workato_db_table actions', () => {
  test('add_record: parameters by column UUID, the record under `record` with its Record ID and times', async () => {
    const table = await newTable();
    const { path } = await webhookRecipe(t, [
      db('add_record', 'add', {
        table_id: String(table.id),
        parameters: { [table.col.code!]: payload('code'), [table.col.qty!]: payload('qty'), [table.col.paid!]: 'true' },
      }),
    ]);
    const job = await fire(t, path, { code: 'Z-9', qty: '7' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const record = (job.output(1) as { record: Record<string, unknown> }).record;
    const stored = await recordsOf(table);
    assert.equal(stored.length, 1);
    assert.equal(record[RECORD_ID], stored[0]!.record_id);
    assert.equal(record[table.col.code!], 'Z-9');
    assert.equal(record[table.col.qty!], 7);
    assert.equal(record[table.col.paid!], true);
    assert.equal(record[table.col.price!], null);
    assert.match(String(record.a5612739_5401_4ae7_bd07_782c1a6fb2d1), /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(stored[0]!.data, { code: 'Z-9', qty: 7, price: null, paid: true });
  });

  test("a value of the wrong type is the step's error naming the column; nothing is stored", async () => {
    const table = await newTable();
    const { path } = await webhookRecipe(t, [
      db('add_record', 'add', { table_id: table.name, parameters: { [table.col.qty!]: payload('qty') } }),
    ]);
    const job = await fire(t, path, { qty: 'many' });
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /qty \([0-9a-f_]{36}\) must be an integer \(got "many"\)/);
    assert.equal(job.errorType, 'Bad request');
    assert.equal((await recordsOf(table)).length, 0);
  });

  test('update_record, upsert_record (created, then updated), remove_values_from_record, delete_record', async () => {
    const table = await newTable([ROWS[0]!]);
    const [first] = await recordsOf(table);
    const { path } = await webhookRecipe(t, [
      db('update_record', 'upd', {
        table_id: { zip_name: 'x.workato_db_table.json', name: table.name, folder: '' },
        record_id: payload('id'),
        parameters: { [table.col.qty!]: 2 },
      }),
      db('upsert_record', 'ups1', {
        table_id: String(table.id),
        primary_field_id: table.dashed.code,
        parameters: { [table.col.code!]: 'N-1', [table.col.qty!]: '10' },
      }),
      db('upsert_record', 'ups2', {
        table_id: String(table.id),
        primary_field_id: table.dashed.code,
        parameters: { [table.col.code!]: 'N-1', [table.col.qty!]: '11' },
      }),
      db('remove_values_from_record', 'rm', {
        table_id: String(table.id),
        record_id: payload('id'),
        values_to_be_removed: table.dashed.price,
      }),
      db('delete_record', 'del', { table_id: String(table.id), record_id: out('ups2', 'record', RECORD_ID) }),
    ]);
    const job = await fire(t, path, { id: first!.record_id });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal((job.output(1) as { record: Record<string, unknown> }).record[table.col.qty!], 2);
    const ups1 = job.output(2) as { record: Record<string, unknown>; created: boolean };
    const ups2 = job.output(3) as { record: Record<string, unknown>; created: boolean };
    assert.equal(ups1.created, true);
    assert.equal(ups2.created, false);
    assert.equal(ups2.record[RECORD_ID], ups1.record[RECORD_ID]);
    assert.equal(ups2.record[table.col.qty!], 11);
    assert.equal((job.output(4) as { record: Record<string, unknown> }).record[table.col.price!], null);
    assert.deepEqual(job.output(5), { success: true });
    const left = await recordsOf(table);
    assert.deepEqual(
      left.map((r) => r.data),
      [{ code: 'A-1', qty: 2, price: null, paid: true }],
    );
  });

  test("update or delete of an unknown record is the step's error", async () => {
    const table = await newTable();
    const { path } = await webhookRecipe(t, [
      db('delete_record', 'del', { table_id: String(table.id), record_id: payload('id') }),
    ]);
    const job = await fire(t, path, { id: 'no-such-record' });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Not found');
    assert.match(job.error ?? '', /Record no-such-record not found/);
  });

  test('get_records: filters (op_default and flat columns), order, limit and continuation_token, output by name', async () => {
    const table = await newTable(ROWS);
    const { path } = await webhookRecipe(t, [
      db('get_records', 'all', { table_id: String(table.id) }),
      db('get_records', 'eq', {
        table_id: String(table.id),
        filters: [{ field_id: table.dashed.code, op_default: 'eq', value_default: payload('code') }],
      }),
      db('get_records', 'gt', {
        table_id: String(table.id),
        filters: [{ field_id: table.dashed.qty, op_default: 'gt', value_default: '2' }],
        order_by_field_id: table.dashed.qty,
        order_direction: 'desc',
      }),
      db('get_records', 'sw', {
        table_id: String(table.id),
        filters: [
          { field_id: table.dashed.code, op_default: 'starts_with', value_default: 'A-' },
          { field_id: table.dashed.paid, op_boolean: 'istrue' },
        ],
      }),
      db('get_records', 'flat', {
        table_id: String(table.id),
        [table.col.code!]: 'B-1',
        output_format: 'field_name_to_value',
      }),
      db('get_records', 'page1', { table_id: String(table.id), limit: '2' }),
      db('get_records', 'page2', {
        table_id: String(table.id),
        limit: '2',
        continuation_token: out('page1', 'continuation_token'),
      }),
    ]);
    const job = await fire(t, path, { code: 'A-2' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const codes = (n: number) =>
      (job.output(n) as { records: Array<Record<string, unknown>> }).records.map((r) => r[table.col.code!] ?? r.code);
    assert.deepEqual(codes(1), ['A-1', 'A-2', 'B-1']);
    assert.deepEqual(codes(2), ['A-2']);
    assert.deepEqual(codes(3), ['A-2', 'B-1']);
    assert.deepEqual(codes(4), ['A-1']);
    const flat = job.output(5) as { records: Array<Record<string, unknown>> };
    assert.equal(flat.records.length, 1);
    assert.deepEqual(Object.keys(flat.records[0]!), [
      'Record ID',
      'Created at',
      'Updated at',
      'code',
      'qty',
      'price',
      'paid',
    ]);
    assert.equal((job.output(6) as { continuation_token: string }).continuation_token, '2');
    assert.deepEqual(codes(7), ['B-1']);
    assert.equal((job.output(7) as { continuation_token: null }).continuation_token, null);
  });

  test("get_records with a bad filter is the step's error", async () => {
    const table = await newTable(ROWS);
    const { path } = await webhookRecipe(t, [
      db('get_records', 'bad', {
        table_id: String(table.id),
        filters: [{ field_id: table.dashed.qty, op_default: 'contains', value_default: '1' }],
      }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /operator "contains" is not one of/);
  });

  test('batch actions: create_records_batch (all or none), update_records_batch, delete_records_batch, truncate_table', async () => {
    const table = await newTable();
    const { path } = await webhookRecipe(t, [
      db('create_records_batch', 'add', {
        table_id: String(table.id),
        records: [
          { [table.col.code!]: 'X', [table.col.qty!]: 1 },
          { parameters: { [table.col.code!]: 'Y' } },
          { [table.col.code!]: 'Z' },
        ],
      }),
      db('update_records_batch', 'upd', {
        table_id: String(table.id),
        records: [
          {
            record_id: `=${dp('workato_db_table', 'add', 'records')}[0]['${RECORD_ID}']`,
            parameters: { [table.col.qty!]: 5 },
          },
        ],
      }),
      db('delete_records_batch', 'del', {
        table_id: String(table.id),
        record_ids: [`=${dp('workato_db_table', 'add', 'records')}[1]['${RECORD_ID}']`, 'unknown-id'],
      }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal((job.output(1) as { count: number }).count, 3);
    assert.deepEqual(job.output(3), { deleted_count: 1 });
    assert.deepEqual(
      (await recordsOf(table)).map((r) => [r.data.code, r.data.qty]),
      [
        ['X', 5],
        ['Z', null],
      ],
    );

    const refused = await webhookRecipe(t, [
      db('create_records_batch', 'add', {
        table_id: String(table.id),
        records: [{ [table.col.code!]: 'ok' }, { [table.col.qty!]: 'bad' }],
      }),
    ]);
    const failed = await fire(t, refused.path, {});
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /records\[1\]: qty .* must be an integer/);
    assert.equal((await recordsOf(table)).length, 2, 'nothing of the refused batch is stored');

    const trunc = await webhookRecipe(t, [db('truncate_table', 'tr', { table_id: String(table.id) })]);
    const done = await fire(t, trunc.path, {});
    assert.deepEqual(done.output(1), { deleted_count: 2 });
    assert.equal((await recordsOf(table)).length, 0);
  });

  test("an unknown table is the step's error; a recipe whose trigger names an unknown table does not start", async () => {
    const { path } = await webhookRecipe(t, [db('add_record', 'add', { table_id: 'No such table', parameters: {} })]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Not found');
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_db_table',
        name: 'new_records_realtime',
        as: 'trg',
        input: { table_id: 'No such table' },
        block: [],
      }),
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.body.success, false, res.text);
    assert.match(JSON.stringify(res.body.code_errors), /does not name a data table/);
  });
});

describe('data_table_lookup()', () => {
  test('the first record matching, by column name; nil on a miss; an unknown table fails the step', async () => {
    const table = await newTable(ROWS);
    const { path } = await webhookRecipe(t, [
      action('logger', 'log_message', 'hit', {
        message: `=data_table_lookup('Sales', '${table.name}', 'code': ${dp('workato_webhooks', 'hook', 'payload', 'code')})['qty']`,
      }),
      action('logger', 'log_message', 'paid', {
        message: `=data_table_lookup('Sales', '${table.name}', paid: true, 'qty': 3)['code']`,
      }),
      action('logger', 'log_message', 'miss', {
        message: `=data_table_lookup('Sales', '${table.name}', 'code': 'none').present? ? 'found' : 'none'`,
      }),
    ]);
    const job = await fire(t, path, { code: 'A-2' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(
      [job.output(1), job.output(2), job.output(3)],
      [{ message: '5' }, { message: 'B-1' }, { message: 'none' }],
    );
    const unknown = await webhookRecipe(t, [
      action('logger', 'log_message', 'x', { message: "=data_table_lookup('Sales', 'Nope', 'code': 'A')['qty']" }),
    ]);
    const failed = await fire(t, unknown.path, {});
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /no data table "Nope"/);
  });
});

describe('workato_db_table real-time triggers', () => {
  async function jobsOf(recipeId: number) {
    await t.engine.idle();
    const rows = await t.ctx.db
      .selectFrom('jobs')
      .select('id')
      .where('recipe_id', '=', recipeId)
      .orderBy('id')
      .execute();
    return Promise.all(rows.map((r) => readJob(t, r.id)));
  }

  test('new_records_realtime: one job per record added (API or step); updates start none', async () => {
    const table = await newTable();
    const watcher = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_db_table',
        name: 'new_records_realtime',
        as: 'trg',
        input: { table_id: String(table.id) },
        block: [
          action('logger', 'log_message', 'log', {
            message: `new ${pill('workato_db_table', 'trg', 'record', table.col.code!)}`,
          }),
        ],
      }),
    );
    await startRecipe(t, watcher);
    const added = await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data: { code: 'API-1' } } });
    await t.call('PUT', `/api/data_tables/${table.id}/records/${added.body.data.record_id}`, {
      body: { data: { qty: 4 } },
    });
    const { path } = await webhookRecipe(t, [
      db('add_record', 'add', { table_id: String(table.id), parameters: { [table.col.code!]: 'STEP-1' } }),
    ]);
    await fire(t, path, {});
    const jobs = await jobsOf(watcher);
    assert.equal(jobs.length, 2);
    assert.deepEqual(
      jobs.map((j) => j.status),
      ['succeeded', 'succeeded'],
    );
    assert.deepEqual(
      jobs.map((j) => (j.output(1) as { message: string }).message),
      ['new API-1', 'new STEP-1'],
    );
    assert.equal(
      (jobs[0]!.output(0) as { record: Record<string, unknown> }).record[RECORD_ID],
      added.body.data.record_id,
    );
  });

  test('updated_records_realtime: record and old_record; a stopped recipe starts no job', async () => {
    const table = await newTable();
    const watcher = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_db_table',
        name: 'updated_records_realtime',
        as: 'trg',
        input: { table_id: table.name },
        block: [],
      }),
    );
    await startRecipe(t, watcher);
    const added = await t.call('POST', `/api/data_tables/${table.id}/records`, {
      body: { data: { code: 'C', qty: 1 } },
    });
    await t.call('PUT', `/api/data_tables/${table.id}/records/${added.body.data.record_id}`, {
      body: { data: { qty: 2 } },
    });
    const jobs = await jobsOf(watcher);
    assert.equal(jobs.length, 2);
    const created = jobs[0]!.output(0) as { record: Record<string, unknown>; old_record: Record<string, unknown> };
    const updated = jobs[1]!.output(0) as { record: Record<string, unknown>; old_record: Record<string, unknown> };
    assert.deepEqual(created.old_record, {});
    assert.equal(updated.old_record[table.col.qty!], 1);
    assert.equal(updated.record[table.col.qty!], 2);
    assert.equal(updated.record[RECORD_ID], added.body.data.record_id);

    assert.equal((await t.call('PUT', `/api/recipes/${watcher}/stop`)).status, 200);
    await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data: { code: 'D' } } });
    assert.equal((await jobsOf(watcher)).length, 2);
  });
});
