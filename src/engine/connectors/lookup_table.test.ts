// The lookup_table connector and the lookup() formula, each through a real job: a recipe is
// created and started through the API, an event is posted to its webhook, and the job's lines
// (stored input, output, error) and the table's rows (read back through the API) are checked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import {
  action,
  condition,
  createRecipe,
  dp,
  fire,
  log,
  pill,
  startRecipe,
  webhookRecipe,
  webhookTrigger,
} from '../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

let counter = 0;
async function newTable(
  labels: string[],
  rows: Array<Record<string, unknown>> = [],
  token?: string,
): Promise<{ id: number; name: string; rowIds: number[] }> {
  const name = `Table ${++counter}`;
  const res = await t.call('POST', '/api/lookup_tables', {
    body: { name, schema: labels.map((label) => ({ label })) },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  const rowIds: number[] = [];
  for (const data of rows) {
    const row = await t.call('POST', `/api/lookup_tables/${res.body.id}/rows`, {
      body: { data },
      ...(token ? { token } : {}),
    });
    assert.equal(row.status, 200, row.text);
    rowIds.push(row.body.id as number);
  }
  return { id: res.body.id as number, name, rowIds };
}

async function rowsOf(tableId: number): Promise<Array<{ id: number; data: Record<string, string | null> }>> {
  const res = await t.call('GET', `/api/lookup_tables/${tableId}/rows`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const COUNTRIES = [
  { code: 'CZ', country: 'Czechia', currency: 'CZK' },
  { code: 'FR', country: 'France', currency: 'EUR' },
  { code: 'DE', country: 'Germany', currency: 'EUR' },
];
const lt = (name: string, as: string, input: Record<string, unknown>) => action('lookup_table', name, as, input);
const payload = (...path: string[]) => pill('workato_webhooks', 'hook', 'payload', ...path);

describe('lookup_table get_entry', () => {
  test('the first matching row, columns by position; several criteria; a miss is an empty entry', async () => {
    const table = await newTable(['code', 'country', 'currency'], COUNTRIES);
    const { path } = await webhookRecipe(t, [
      lt('get_entry', 'one', { lookup_table_id: String(table.id), parameters: { col1: payload('code') } }),
      lt('get_entry', 'two', { lookup_table_id: String(table.id), parameters: { col3: 'EUR', country: 'Germany' } }),
      lt('get_entry', 'first', { lookup_table_id: table.id, parameters: { col3: 'EUR' } }),
      lt('get_entry', 'miss', { lookup_table_id: String(table.id), parameters: { col1: 'XX' } }),
      lt('get_entry', 'case', { lookup_table_id: String(table.id), parameters: { col1: 'fr' } }),
    ]);
    const job = await fire(t, path, { code: 'FR' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { id: table.rowIds[1], entry: { col1: 'FR', col2: 'France', col3: 'EUR' } });
    assert.deepEqual(job.output(2), { id: table.rowIds[2], entry: { col1: 'DE', col2: 'Germany', col3: 'EUR' } });
    assert.equal((job.output(3) as { id: number }).id, table.rowIds[1], 'lowest id first');
    assert.deepEqual(job.output(4), { id: null, entry: null });
    assert.deepEqual(job.output(5), { id: null, entry: null }, 'matching is case-sensitive');
  });

  test('a table given by an export reference (its name)', async () => {
    const table = await newTable(
      ['code', 'country'],
      COUNTRIES.map(({ code, country }) => ({ code, country })),
    );
    const { path } = await webhookRecipe(t, [
      lt('get_entry', 'one', {
        lookup_table_id: { name: table.name, folder: '', zip_name: 'x.lookup_table.json' },
        parameters: { col1: 'CZ' },
      }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { id: table.rowIds[0], entry: { col1: 'CZ', col2: 'Czechia' } });
  });

  test('an unknown table, an unknown column and no criteria fail the step with what is wrong', async () => {
    const table = await newTable(['code', 'country'], [{ code: 'CZ', country: 'Czechia' }]);
    const unknownTable = await fire(
      t,
      (await webhookRecipe(t, [lt('get_entry', 'x', { lookup_table_id: '999999', parameters: { col1: 'CZ' } })])).path,
      {},
    );
    assert.equal(unknownTable.status, 'failed');
    assert.equal(unknownTable.errorType, 'Not found');
    assert.match(
      unknownTable.lines.find((l) => l.n === 1)?.error ?? '',
      /Lookup table "999999" not found in this environment/,
    );

    const unknownColumn = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('get_entry', 'x', { lookup_table_id: String(table.id), parameters: { colour: 'red' } }),
        ])
      ).path,
      {},
    );
    assert.equal(unknownColumn.status, 'failed');
    assert.equal(unknownColumn.errorType, 'Bad request');
    assert.match(
      unknownColumn.lines.find((l) => l.n === 1)?.error ?? '',
      /Unknown column.*colour is not a column of this table \(columns: code, country\)/,
    );

    const beyond = await fire(
      t,
      (await webhookRecipe(t, [lt('get_entry', 'x', { lookup_table_id: String(table.id), parameters: { col3: 'x' } })]))
        .path,
      {},
    );
    assert.match(beyond.error ?? '', /col3 is not a column/);

    const none = await fire(
      t,
      (await webhookRecipe(t, [lt('get_entry', 'x', { lookup_table_id: String(table.id), parameters: {} })])).path,
      {},
    );
    assert.equal(none.status, 'failed');
    assert.match(none.error ?? '', /at least one/);
  });

  test('a table of another environment is not reachable, by id or by name', async () => {
    const prodToken = await t.tokenFor('Admin', 'prod');
    const other = await newTable(['code'], [{ code: 'CZ' }], prodToken);
    const byId = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('get_entry', 'x', { lookup_table_id: String(other.id), parameters: { col1: 'CZ' } }),
        ])
      ).path,
      {},
    );
    assert.equal(byId.status, 'failed');
    assert.equal(byId.errorType, 'Not found');
    const byName = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('get_entry', 'x', { lookup_table_id: { name: other.name }, parameters: { col1: 'CZ' } }),
        ])
      ).path,
      {},
    );
    assert.equal(byName.errorType, 'Not found');
    const add = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('add_entry', 'x', { lookup_table_id: String(other.id), parameters: { col1: 'XX' } }),
        ])
      ).path,
      {},
    );
    assert.equal(add.errorType, 'Not found');
    const formula = await fire(
      t,
      (await webhookRecipe(t, [log('l', `=lookup('${other.name}', 'code' => 'CZ')`)])).path,
      {},
    );
    assert.equal(formula.status, 'failed');
    assert.match(formula.error ?? '', /no lookup table/);
    const rows = await t.call('GET', `/api/lookup_tables/${other.id}/rows`, { token: prodToken });
    assert.deepEqual(
      rows.body.map((r: { data: unknown }) => r.data),
      [{ code: 'CZ' }],
      "the other environment's table is unchanged",
    );
  });
});

describe('lookup_table search_entries and get_entries', () => {
  test('every matching row in id order; get_entries gives all rows', async () => {
    const table = await newTable(['code', 'country', 'currency'], COUNTRIES);
    const { path } = await webhookRecipe(t, [
      lt('search_entries', 'eur', { lookup_table_id: String(table.id), parameters: { currency: payload('currency') } }),
      lt('search_entries', 'none', { lookup_table_id: String(table.id), parameters: { col3: 'USD' } }),
      lt('get_entries', 'all', { lookup_table_id: String(table.id) }),
    ]);
    const job = await fire(t, path, { currency: 'EUR' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      entries: [
        { id: table.rowIds[1], entry: { col1: 'FR', col2: 'France', col3: 'EUR' } },
        { id: table.rowIds[2], entry: { col1: 'DE', col2: 'Germany', col3: 'EUR' } },
      ],
      count: 2,
    });
    assert.deepEqual(job.output(2), { entries: [], count: 0 });
    const all = job.output(3) as { entries: Array<{ id: number }>; count: number };
    assert.deepEqual(
      all.entries.map((e) => e.id),
      table.rowIds,
    );
    assert.equal(all.count, 3);
  });

  test('an unknown column fails search_entries; an unknown table fails get_entries', async () => {
    const table = await newTable(['code']);
    const search = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('search_entries', 'x', { lookup_table_id: String(table.id), parameters: { nope: 'a' } }),
        ])
      ).path,
      {},
    );
    assert.equal(search.status, 'failed');
    assert.match(search.lines.find((l) => l.n === 1)?.error ?? '', /nope is not a column/);
    const all = await fire(
      t,
      (await webhookRecipe(t, [lt('get_entries', 'x', { lookup_table_id: 'No such table' })])).path,
      {},
    );
    assert.equal(all.errorType, 'Not found');
  });
});

describe('lookup_table add_entry, update_entry, delete_entry, truncate', () => {
  test('add then update then delete a row; the table shows each change', async () => {
    const table = await newTable(
      ['code', 'country', 'currency'],
      [{ code: 'CZ', country: 'Czechia', currency: 'CZK' }],
    );
    const { path } = await webhookRecipe(t, [
      lt('add_entry', 'added', {
        lookup_table_id: String(table.id),
        parameters: { col1: payload('code'), country: 'Poland', col3: 985 },
      }),
      lt('update_entry', 'updated', {
        lookup_table_id: String(table.id),
        id: pill('lookup_table', 'added', 'id'),
        parameters: { col3: 'PLN' },
      }),
    ]);
    const job = await fire(t, path, { code: 'PL' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const added = job.output(1) as { id: number; entry: unknown };
    assert.deepEqual(added.entry, { col1: 'PL', col2: 'Poland', col3: '985' });
    assert.deepEqual(job.output(2), { id: added.id, entry: { col1: 'PL', col2: 'Poland', col3: 'PLN' } });
    assert.deepEqual(
      (await rowsOf(table.id)).map((r) => r.data),
      [
        { code: 'CZ', country: 'Czechia', currency: 'CZK' },
        { code: 'PL', country: 'Poland', currency: 'PLN' },
      ],
    );

    const del = await fire(
      t,
      (await webhookRecipe(t, [lt('delete_entry', 'd', { lookup_table_id: String(table.id), id: String(added.id) })]))
        .path,
      {},
    );
    assert.equal(del.status, 'succeeded', del.error ?? '');
    assert.deepEqual(del.output(1), { id: added.id });
    assert.deepEqual(
      (await rowsOf(table.id)).map((r) => r.id),
      [table.rowIds[0]],
    );
  });

  test('update and delete of a missing entry fail unless ignore_not_found; bad values and unknown columns fail and change nothing', async () => {
    const table = await newTable(['code', 'country'], [{ code: 'CZ', country: 'Czechia' }]);
    const before = await rowsOf(table.id);
    const update = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('update_entry', 'u', {
            lookup_table_id: String(table.id),
            id: '99999999',
            parameters: { col2: 'x' },
            ignore_not_found: 'false',
          }),
        ])
      ).path,
      {},
    );
    assert.equal(update.status, 'failed');
    assert.equal(update.errorType, 'Not found');
    assert.match(update.lines.find((l) => l.n === 1)?.error ?? '', /Entry 99999999 not found/);
    const ignored = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('update_entry', 'u', {
            lookup_table_id: String(table.id),
            id: '99999999',
            parameters: { col2: 'x' },
            ignore_not_found: 'true',
          }),
        ])
      ).path,
      {},
    );
    assert.equal(ignored.status, 'succeeded', ignored.error ?? '');
    assert.deepEqual(ignored.output(1), { id: null, entry: null });
    const del = await fire(
      t,
      (await webhookRecipe(t, [lt('delete_entry', 'd', { lookup_table_id: String(table.id), id: '99999999' })])).path,
      {},
    );
    assert.equal(del.errorType, 'Not found');
    assert.match(del.error ?? '', /Entry 99999999 not found in lookup table/);
    const delIgnored = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('delete_entry', 'd', { lookup_table_id: String(table.id), id: '99999999', ignore_not_found: true }),
        ])
      ).path,
      {},
    );
    assert.equal(delIgnored.status, 'succeeded', delIgnored.error ?? '');
    assert.deepEqual(delIgnored.output(1), { id: null });
    const badId = await fire(
      t,
      (await webhookRecipe(t, [lt('delete_entry', 'd', { lookup_table_id: String(table.id), id: 'abc' })])).path,
      {},
    );
    assert.match(badId.error ?? '', /id must be the id of an entry/);
    const unknownColumn = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('add_entry', 'a', { lookup_table_id: String(table.id), parameters: { col1: 'SK', colour: 'blue' } }),
        ])
      ).path,
      {},
    );
    assert.equal(unknownColumn.status, 'failed');
    assert.match(unknownColumn.lines.find((l) => l.n === 1)?.error ?? '', /colour is not a column/);
    const tooLong = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('add_entry', 'a', { lookup_table_id: String(table.id), parameters: { col1: 'x'.repeat(11 * 1024) } }),
        ])
      ).path,
      {},
    );
    assert.match(tooLong.error ?? '', /too long/);
    const list = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('add_entry', 'a', { lookup_table_id: String(table.id), parameters: { col1: ['a'] } }),
        ])
      ).path,
      {},
    );
    assert.match(list.error ?? '', /must be a string/);
    const emptyUpdate = await fire(
      t,
      (
        await webhookRecipe(t, [
          lt('update_entry', 'u', { lookup_table_id: String(table.id), id: String(table.rowIds[0]) }),
        ])
      ).path,
      {},
    );
    assert.match(emptyUpdate.error ?? '', /at least one column/);
    assert.deepEqual(await rowsOf(table.id), before);
  });

  test('truncate deletes every row; new rows can be added after', async () => {
    const table = await newTable(['code'], [{ code: 'A' }, { code: 'B' }, { code: 'C' }]);
    const { path } = await webhookRecipe(t, [
      lt('truncate', 'tr', { lookup_table_id: String(table.id) }),
      lt('add_entry', 'add', { lookup_table_id: String(table.id), parameters: { col1: 'D' } }),
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(
      (await rowsOf(table.id)).map((r) => r.data),
      [{ code: 'D' }],
    );
  });

  test('a missing lookup_table_id is refused when the recipe starts', async () => {
    const res = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: `No table ${++counter}`,
          code: JSON.stringify({
            keyword: 'trigger',
            provider: 'workato_webhooks',
            name: 'new_event',
            as: 'hook',
            number: 0,
            uuid: 'u0',
            input: { webhook_suffix: 'e' },
            block: [
              {
                keyword: 'action',
                provider: 'lookup_table',
                name: 'get_entry',
                as: 'g',
                number: 1,
                uuid: 'u1',
                input: { parameters: { col1: 'x' } },
              },
            ],
          }),
        },
      },
    });
    assert.equal(res.status, 200, res.text);
    const start = await t.call('PUT', `/api/recipes/${res.body.id}/start`);
    assert.notDeepEqual(start.body, { success: true });
    assert.match(JSON.stringify(start.body), /lookup_table_id|Lookup table/);
  });
});

describe('lookup() formula', () => {
  test('reads the first matching row by table name; a column by label; nil on a miss; several lookups in one step', async () => {
    const table = await newTable(['code', 'country', 'currency'], COUNTRIES);
    const code = dp('workato_webhooks', 'hook', 'payload', 'code');
    const { path } = await webhookRecipe(t, [
      log('name', `=lookup('${table.name}', 'code' => ${code})['country']`),
      log(
        'two',
        `=lookup('${table.name}', 'currency' => 'EUR', 'country' => 'Germany')['code'] + '/' + lookup('${table.name}', col1: 'CZ')['currency']`,
      ),
      log('miss', `=lookup('${table.name}', 'code' => 'XX').present? ? 'found' : 'none'`),
      log('byid', `=lookup('${table.id}', 'code' => 'CZ')['country']`),
      log('text', `Currency: #{lookup('${table.name}', 'code' => ${code})['currency']}`),
    ]);
    const job = await fire(t, path, { code: 'FR' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { message: 'France' });
    assert.deepEqual(job.output(2), { message: 'DE/CZK' });
    assert.deepEqual(job.output(3), { message: 'none' });
    assert.deepEqual(job.output(4), { message: 'Czechia' });
    assert.deepEqual(job.output(5), { message: 'Currency: EUR' });
  });

  test('in an if condition, and it sees a row added earlier in the same job', async () => {
    const table = await newTable(['code', 'country']);
    const { path } = await webhookRecipe(t, [
      lt('add_entry', 'added', { lookup_table_id: String(table.id), parameters: { col1: 'IT', col2: 'Italy' } }),
      {
        keyword: 'if',
        input: {
          type: 'compound',
          operand: 'and',
          conditions: [
            {
              operand: 'equals_to',
              lhs: `#{lookup('${table.name}', 'code' => 'IT')['country']}`,
              rhs: 'Italy',
              uuid: 'c1',
            },
          ],
        },
        block: [log('yes', 'matched')],
      },
    ]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.ok(job.ran(3), 'the branch ran');
    assert.deepEqual(job.output(3), { message: 'matched' });
  });

  test('an unknown table or column is a formula error recorded on the failed step', async () => {
    const table = await newTable(['code', 'country'], [{ code: 'CZ', country: 'Czechia' }]);
    const unknownTable = await fire(
      t,
      (await webhookRecipe(t, [log('l', "=lookup('No such table', 'code' => 'CZ')['country']")])).path,
      {},
    );
    assert.equal(unknownTable.status, 'failed');
    assert.equal(unknownTable.errorType, 'Formula error');
    assert.match(
      unknownTable.lines.find((l) => l.n === 1)?.error ?? '',
      /no lookup table "No such table" in this environment/,
    );
    const unknownColumn = await fire(
      t,
      (await webhookRecipe(t, [log('l', `=lookup('${table.name}', 'colour' => 'red')`)])).path,
      {},
    );
    assert.equal(unknownColumn.errorType, 'Formula error');
    assert.match(unknownColumn.lines.find((l) => l.n === 1)?.error ?? '', /colour is not a column of this table/);
    const listValue = await fire(
      t,
      (await webhookRecipe(t, [log('l', `=lookup('${table.name}', 'code' => ['CZ'])`)])).path,
      {},
    );
    assert.match(listValue.error ?? '', /must be a single value/);
  });

  test('in a trigger filter it is a trigger error (no job runs the steps)', async () => {
    const table = await newTable(['code'], [{ code: 'CZ' }]);
    const id = await createRecipe(
      t,
      webhookTrigger([log('x', 'x')], { filter: condition('present', `#{lookup('${table.name}', 'code' => 'CZ')}`) }),
    );
    await startRecipe(t, id);
    const path = new URL((await t.call('GET', `/api/recipes/${id}`)).body.webhook_url).pathname;
    await t.app.inject({ method: 'POST', url: path, payload: {} });
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    assert.equal(jobs.body.job_count, 1);
    assert.equal(jobs.body.items[0].is_poll_error, true);
    const job = await t.ctx.db.selectFrom('jobs').select('error').where('recipe_id', '=', id).executeTakeFirstOrThrow();
    assert.match(job.error ?? '', /lookup\(\) cannot be used in a trigger filter/);
  });
});

describe('lookup_table actions at start', () => {
  test('add_batch_of_entries without its entries is refused when the recipe starts; an action that does not exist too', async () => {
    const table = await newTable(['code']);
    const id = await createRecipe(
      t,
      webhookTrigger([lt('add_batch_of_entries', 'b', { lookup_table_id: String(table.id) })]),
    );
    const start = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.deepEqual(start.body.code_errors, [[1, [['Entries', null, "can't be blank", 'entries']]]]);
    const other = await createRecipe(
      t,
      webhookTrigger([lt('merge_tables', 'm', { lookup_table_id: String(table.id) })]),
    );
    assert.match(
      JSON.stringify((await t.call('PUT', `/api/recipes/${other}/start`)).body),
      /lookup_table has no action named merge_tables/,
    );
  });
});

describe('lookup_table batch actions', () => {
  test('add_batch_of_entries adds every row of a list; delete_entries deletes by ids or by criteria', async () => {
    const table = await newTable(['code', 'country', 'currency']);
    const { path } = await webhookRecipe(t, [
      lt('add_batch_of_entries', 'added', {
        lookup_table_id: String(table.id),
        entries: `=${dp('workato_webhooks', 'hook', 'payload', 'rows')}`,
      }),
      lt('delete_entries', 'gone', { lookup_table_id: String(table.id), parameters: { col3: 'EUR' } }),
    ]);
    const job = await fire(t, path, {
      rows: COUNTRIES.map((c) => ({ col1: c.code, col2: c.country, col3: c.currency })),
    });
    assert.equal(job.status, 'succeeded', JSON.stringify(job.lines));
    assert.equal((job.output(1) as { count: number }).count, 3);
    assert.deepEqual(job.output(2), { deleted_count: 2 });
    assert.deepEqual(
      (await rowsOf(table.id)).map((r) => r.data),
      [{ code: 'CZ', country: 'Czechia', currency: 'CZK' }],
    );

    const [left] = await rowsOf(table.id);
    const byIds = await webhookRecipe(t, [
      lt('delete_entries', 'gone', { lookup_table_id: String(table.id), ids: [left!.id, 999999] }),
    ]);
    const deleted = await fire(t, byIds.path, {});
    assert.deepEqual(deleted.output(1), { deleted_count: 1 });
    assert.deepEqual(await rowsOf(table.id), []);

    const bad = await webhookRecipe(t, [
      lt('add_batch_of_entries', 'x', { lookup_table_id: String(table.id), entries: '=[{"col1" => "A"}, 5]' }),
    ]);
    const failed = await fire(t, bad.path, {});
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /entries\[1\] must be an object of column values/);
    const none = await webhookRecipe(t, [lt('delete_entries', 'x', { lookup_table_id: String(table.id) })]);
    assert.match((await fire(t, none.path, {})).error ?? '', /give ids, or parameters/);
  });
});
