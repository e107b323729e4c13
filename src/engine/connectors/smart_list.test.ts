// workato_smart_list through recipe runs: lists created from records, rows added, SQL queries that
// can only read, durable across jobs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, dp, fire, readJob, webhookRecipe } from '../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

const source = `=${dp('workato_webhooks', 'hook', 'payload', 'items')}`;

describe('workato_smart_list', () => {
  test('create_list, insert_rows and query_list with SQL over the lists', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list', 'releases', {
        list_name: 'Liferay Releases',
        list_source: source,
        primary_index: 'key',
      }),
      action('workato_smart_list', 'query_list', 'latest', {
        sql: `SELECT #{${dp('workato_smart_list', 'releases', 'columns', 'group')}} AS g, MAX(#{${dp('workato_smart_list', 'releases', 'columns', 'key')}}) AS k, COUNT(*) AS n FROM #{${dp('workato_smart_list', 'releases', 'list_name')}} WHERE ok = 1 GROUP BY g ORDER BY g`,
      }),
    ]);
    const job = await fire(t, path, {
      items: [
        { group: '2024', key: 3, ok: true },
        { group: '2024', key: 7, ok: true },
        { group: '2025', key: 1, ok: false },
        { group: '2025', key: 2, ok: true, extra: { a: 1 } },
      ],
    });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      list_name: 'Liferay_Releases',
      columns: { group: '"group"', key: '"key"', ok: '"ok"', extra: '"extra"' },
      column_types: { group: 'string', key: 'integer', ok: 'boolean', extra: 'json' },
      row_count: 4,
    });
    assert.deepEqual(job.output(2), {
      rows: [
        { g: '2024', k: 7, n: 2 },
        { g: '2025', k: 2, n: 1 },
      ],
      row_count: 2,
      truncated: false,
    });

    // The list is durable: another recipe's job adds rows and reads them.
    const { path: p2 } = await webhookRecipe(t, [
      action('workato_smart_list', 'insert_rows', 'more', { list_name: 'Liferay Releases', list_source: source }),
      action('workato_smart_list', 'query_list', 'all', {
        sql: "SELECT key, json_extract(extra, '$.a') AS a FROM Liferay_Releases ORDER BY key",
      }),
    ]);
    const second = await fire(t, p2, { items: [{ group: '2026', key: 9.5, ok: true }] });
    assert.equal(second.status, 'succeeded', second.error ?? '');
    assert.deepEqual(second.output(1), {
      list_name: 'Liferay_Releases',
      columns: { group: '"group"', key: '"key"', ok: '"ok"', extra: '"extra"' },
      column_types: { group: 'string', key: 'number', ok: 'boolean', extra: 'json' },
      row_count: 5,
    });
    assert.deepEqual((second.output(2) as { rows: unknown[] }).rows, [
      { key: 1, a: null },
      { key: 2, a: 1 },
      { key: 3, a: null },
      { key: 7, a: null },
      { key: 9.5, a: null },
    ]);
  });

  test('insert_rows into a missing list needs create_table_if_not_exist', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'insert_rows', 'ins', { list_name: 'nowhere', list_source: source }),
    ]);
    const missing = await fire(t, path, { items: [{ a: 1 }] });
    assert.equal(missing.errorType, 'Not found');
    const { path: p2 } = await webhookRecipe(t, [
      action('workato_smart_list', 'insert_rows', 'ins', {
        list_name: 'created',
        list_source: source,
        create_table_if_not_exist: 'true',
      }),
    ]);
    assert.equal((await fire(t, p2, { items: [{ a: 1 }] })).status, 'succeeded');
  });

  test('queries may only read: writes, ATTACH, PRAGMA and unknown functions fail the step; a runaway query times out', async () => {
    for (const [sql, pattern] of [
      ['DELETE FROM created', /may only read/],
      ["ATTACH DATABASE '/tmp/x.db' AS x", /may only read|too many attached/],
      ['PRAGMA table_info(created)', /may only read/],
      ['SELECT randomblob(100)', /may only read/],
      ["SELECT load_extension('x')", /may only read/],
      ['SELEC 1', /syntax error/],
      ['WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', /may only read/],
    ] as const) {
      const { path } = await webhookRecipe(t, [action('workato_smart_list', 'query_list', 'q', { sql })]);
      const job = await fire(t, path, {});
      assert.equal(job.status, 'failed', sql);
      assert.match(job.error ?? '', pattern, sql);
    }
    const { path: big } = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list', 'c', { list_name: 'big', list_source: source }),
    ]);
    assert.equal((await fire(t, big, { items: Array.from({ length: 3000 }, (_, i) => ({ i })) })).status, 'succeeded');
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'query_list', 'q', { sql: 'SELECT count(*) FROM big a, big b, big c, big d' }),
    ]);
    const res = await t.app.inject({ method: 'POST', url: path, payload: {} });
    assert.equal(res.statusCode, 200);
    await t.engine.idle(20_000);
    const last = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const slow = await readJob(t, last.id);
    assert.equal(slow.errorType, 'Timeout');
  });

  test('bad input fails the step', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list', 'c', { list_name: '!!!', list_source: source }),
    ]);
    assert.match((await fire(t, path, { items: [] })).error ?? '', /list_name must have letters/);
    const { path: p2 } = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list', 'c', { list_name: 'x', list_source: source }),
    ]);
    assert.match((await fire(t, p2, { items: [1, 2] })).error ?? '', /record 1 of list_source is not an object/);
    assert.match((await fire(t, p2, { items: 'nope' })).error ?? '', /must be a list of records/);
  });
  test('a query whose rows would hold more than 10 MiB of data fails the step with the reason', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list', 'wide', { list_name: 'Wide rows', list_source: source }),
      action('workato_smart_list', 'query_list', 'crossed', {
        sql: 'SELECT a.t || b.t AS both_texts FROM Wide_rows a, Wide_rows b',
      }),
    ]);
    const job = await fire(t, path, {
      items: Array.from({ length: 10 }, (_, i) => ({ k: i, t: 'x'.repeat(90_000) })),
    });
    assert.equal(job.status, 'failed');
    assert.equal(
      job.error,
      'SQL error: the result holds more than 10485760 characters of data: select fewer rows or columns',
    );
  });

  test('create_list_from_csv, insert_rows_from_csv, and query_list with output_format csv', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list_from_csv', 'made', {
        list_name: 'Stock',
        csv_content: `#{${dp('workato_webhooks', 'hook', 'payload', 'csv')}}`,
      }),
      action('workato_smart_list', 'insert_rows_from_csv', 'more', {
        list_name: 'Stock',
        csv_content: 'B-2;5\nC-3;0\n',
        col_sep: 'semicolon',
        header_row: 'false',
        column_names: 'sku,qty',
      }),
      action('workato_smart_list', 'query_list', 'q', {
        sql: 'SELECT sku, CAST(qty AS INTEGER) AS qty FROM Stock WHERE CAST(qty AS INTEGER) > 0 ORDER BY sku',
        output_format: 'csv',
      }),
    ]);
    const job = await fire(t, path, { csv: 'sku,qty\nA-1,3\n' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      list_name: 'Stock',
      columns: { sku: '"sku"', qty: '"qty"' },
      column_types: { sku: 'string', qty: 'string' },
      row_count: 1,
    });
    assert.equal((job.output(2) as { row_count: number }).row_count, 3);
    assert.deepEqual(job.output(3), {
      rows: [
        { sku: 'A-1', qty: 3 },
        { sku: 'B-2', qty: 5 },
      ],
      row_count: 2,
      truncated: false,
      csv_content: 'sku,qty\nA-1,3\nB-2,5\n',
    });
  });

  test('CSV actions: broken CSV, no content, a missing list, a wrong output_format are the step error', async () => {
    const { path } = await webhookRecipe(t, [
      action('workato_smart_list', 'insert_rows_from_csv', 'none', { list_name: 'Nowhere', csv_content: 'a\n1\n' }),
    ]);
    const missing = await fire(t, path, {});
    assert.equal(missing.errorType, 'Not found');
    const broken = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list_from_csv', 'b', { list_name: 'B', csv_content: 'a,b\n"1,2\n' }),
    ]);
    assert.equal((await fire(t, broken.path, {})).errorType, 'CSV error');
    const empty = await webhookRecipe(t, [
      action('workato_smart_list', 'create_list_from_csv', 'e', { list_name: 'E' }),
    ]);
    assert.equal((await fire(t, empty.path, {})).error, 'Bad request: csv_content is required');
    const format = await webhookRecipe(t, [
      action('workato_smart_list', 'query_list', 'f', { sql: 'SELECT 1 AS one', output_format: 'xml' }),
    ]);
    assert.equal((await fire(t, format.path, {})).error, 'Bad request: output_format must be rows or csv');
  });
});
