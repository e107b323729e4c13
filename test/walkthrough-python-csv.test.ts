// The guide "A Python step over a CSV file into a data table" (docs/guides/python-csv.md), request by
// request: the same files (docs/examples/), the same calls through HTTP, and what the guide shows as
// their answers (each shown answer must appear in the guide as written).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';

const example = (name: string) => readFileSync(new URL(`../docs/examples/${name}`, import.meta.url), 'utf8');
const walkthrough = readFileSync(new URL('../docs/guides/python-csv.md', import.meta.url), 'utf8');

/** What `jq -c` prints for a value. */
const compact = (value: unknown) => JSON.stringify(value);

function shows(text: string): void {
  assert.ok(walkthrough.includes(text), `the guide shows ${text}`);
}

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

describe('guide: a Python step over a CSV file into a data table', () => {
  test('the table, the recipe, the CSV posted to its webhook, the records read back', async () => {
    shows('curl -s "${H[@]}" $SB/api/data_tables -d @docs/examples/orders.table.json');
    const table = await t.call('POST', '/api/data_tables', {
      raw: example('orders.table.json'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(table.status, 200, table.text);
    shows('curl -s "${H[@]}" $SB/api/data_tables/$TABLE | jq -c \'.data | {id, name, columns: [.schema[].name]}\'');
    const read = await t.call('GET', `/api/data_tables/${table.body.data.id}`);
    assert.equal(read.status, 200, read.text);
    shows(
      `# ${compact({ id: read.body.data.id, name: read.body.data.name, columns: read.body.data.schema.map((c: { name: string }) => c.name) })}`,
    );

    shows('curl -s "${H[@]}" $SB/api/recipes -d @docs/examples/orders-csv.recipe.json');
    const recipe = await t.call('POST', '/api/recipes', {
      raw: example('orders-csv.recipe.json'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(recipe.status, 200, recipe.text);
    shows('curl -s -X PUT "${H[@]}" $SB/api/recipes/$RECIPE/start');
    const started = await t.call('PUT', `/api/recipes/${recipe.body.id}/start`);
    assert.equal(started.status, 200, started.text);
    shows(`# ${compact(started.body)}`);

    shows("curl -s $HOOK -H 'Content-Type: text/csv' --data-binary @docs/examples/orders.csv");
    const hook = new URL((await t.call('GET', `/api/recipes/${recipe.body.id}`)).body.webhook_url as string);
    const posted = await t.app.inject({
      method: 'POST',
      url: hook.pathname,
      headers: { 'content-type': 'text/csv' },
      payload: example('orders.csv'),
    });
    assert.equal(posted.statusCode, 200, posted.body);
    shows(`# ${posted.body}`);
    await t.engine.idle();

    shows('curl -s "${H[@]}" $SB/api/recipes/$RECIPE/jobs | jq -c \'.items[] | {status, error}\'');
    const jobs = await t.call('GET', `/api/recipes/${recipe.body.id}/jobs`);
    assert.equal(jobs.status, 200, jobs.text);
    assert.equal(jobs.body.items.length, 1);
    shows(`# ${compact({ status: jobs.body.items[0].status, error: jobs.body.items[0].error })}`);
    const job = await t.call('GET', `/api/recipes/${recipe.body.id}/jobs/${jobs.body.items[0].id}`);
    assert.deepEqual(
      job.body.lines.map(
        (l: { adapter_name: string; adapter_operation: string }) => `${l.adapter_name}/${l.adapter_operation}`,
      ),
      [
        'workato_webhooks/new_event',
        'csv_parser/parse_csv',
        'py_eval/invoke_custom_py_code',
        'workato_db_table/create_records_batch',
        'logger/log_message',
      ],
    );

    shows('curl -s "${H[@]}" $SB/api/data_tables/$TABLE/records | jq -c \'.data[].data\'');
    const records = await t.call('GET', `/api/data_tables/${table.body.data.id}/records`);
    assert.equal(records.status, 200, records.text);
    const lines = records.body.data.map((r: { data: unknown }) => compact(r.data));
    // The line without an order id is left out; names are tidied, countries upper-cased, large orders flagged.
    assert.deepEqual(
      records.body.data.map((r: { data: { order_id: string } }) => r.data.order_id),
      ['A-1001', 'A-1002', 'A-1003'],
    );
    shows(`# ${lines.join('\n# ')}`);
  });

  test('a CSV with broken quoting: the job fails at the parse step with the reason, and no record is stored', async () => {
    const recipes = await t.call('GET', '/api/recipes');
    const recipe = (recipes.body.items as Array<{ id: number; name: string; webhook_url: string }>).find(
      (r) => r.name === 'Orders CSV into a data table',
    )!;
    const tables = await t.call('GET', '/api/data_tables');
    const table = (tables.body.data as Array<{ id: number; name: string; record_count: number }>).find(
      (d) => d.name === 'Orders',
    )!;
    const posted = await t.app.inject({
      method: 'POST',
      url: new URL(recipe.webhook_url).pathname,
      headers: { 'content-type': 'text/csv' },
      payload: 'order_id,customer,country,amount\nA-2001,"unclosed,gb,5\n',
    });
    assert.equal(posted.statusCode, 200, posted.body);
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${recipe.id}/jobs`);
    const failed = jobs.body.items.find((j: { status: string }) => j.status === 'failed');
    assert.ok(failed, JSON.stringify(jobs.body.items));
    assert.match(JSON.stringify(failed.error), /CSV error|Quote/i);
    const records = await t.call('GET', `/api/data_tables/${table.id}/records`);
    assert.deepEqual(
      records.body.data.map((r: { data: { order_id: string } }) => r.data.order_id),
      ['A-1001', 'A-1002', 'A-1003'],
    );
  });
});
