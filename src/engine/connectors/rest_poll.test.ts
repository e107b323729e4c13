// rest/new_poll_event through recipe runs: new records since the cursor become jobs, oldest
// first; the cursor is kept in the recipe (trigger_closure), moved by poll_now and cleared by
// reset_trigger; a failed poll is a failed job with is_poll_error.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, dp, log, numbered, startRecipe, type StepDoc } from '../../../test/recipes.ts';

let t: TestApp;
let records: unknown[] = [];
let status = 200;
const queries: string[] = [];
const upstream = createServer((req, res) => {
  queries.push(req.url ?? '');
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(req.url?.startsWith('/wrapped') ? { data: { items: records } } : records));
});
let base = '';

before(async () => {
  // Polls happen when a recipe starts and on poll_now only: the interval is an hour.
  t = await createTestApp({ engine: { triggerPollMs: 3_600_000 } });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(async () => {
  await t.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

function pollRecipe(input: StepDoc): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'rest',
    name: 'new_poll_event',
    as: 'poll',
    input,
    block: [log('seen', `#{${dp('rest', 'poll', 'id')}}:#{${dp('rest', 'poll', 'name')}}`)],
  });
}

async function messages(recipeId: number): Promise<string[]> {
  await t.engine.idle();
  const jobs = await t.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('recipe_id', '=', recipeId)
    .where('is_poll_error', '=', 0)
    .orderBy('id')
    .execute();
  const out: string[] = [];
  for (const job of jobs) {
    const line = await t.ctx.db
      .selectFrom('job_line_rows')
      .select('output')
      .where('job_id', '=', job.id)
      .where('recipe_line_number', '=', 1)
      .executeTakeFirst();
    out.push((JSON.parse(line?.output ?? 'null') as { message: string }).message);
  }
  return out;
}

describe('rest/new_poll_event', () => {
  test('new records since the cursor become jobs, oldest first; poll_now and reset_trigger work with the cursor', async () => {
    records = [
      { id: 3, name: 'c' },
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ];
    queries.length = 0;
    const id = await createRecipe(
      t,
      pollRecipe({ request: { method: 'GET', url: `${base}/items` }, cursor_field: 'id', since_param: 'after' }),
    );
    await startRecipe(t, id);
    assert.deepEqual(await messages(id), ['1:a', '2:b', '3:c']);
    assert.deepEqual((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, { cursor: 3 });
    assert.deepEqual(queries, ['/items'], 'no cursor yet: no since parameter');

    records = [{ id: 2, name: 'b' }, { id: 3, name: 'c' }, { id: 4, name: 'd' }, { id: 5 }, { name: 'no id' }];
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 200);
    assert.deepEqual(await messages(id), ['1:a', '2:b', '3:c', '4:d', '5:']);
    assert.equal(queries[1], '/items?after=3');
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 200);
    assert.equal((await messages(id)).length, 5, 'nothing new: no job');

    assert.equal(
      (await t.call('POST', `/api/recipes/${id}/reset_trigger`)).status,
      400,
      'reset needs a stopped recipe',
    );
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 400);
    assert.equal((await t.call('POST', `/api/recipes/${id}/reset_trigger`)).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, null);
    await startRecipe(t, id);
    assert.deepEqual((await messages(id)).slice(5), ['2:b', '3:c', '4:d', '5:']);
  });

  test('records_path names the list; text cursors (timestamps) and since as the starting point', async () => {
    records = [
      { id: 'x', name: 'old', updated_at: '2025-01-01T00:00:00Z' },
      { id: 'y', name: 'new', updated_at: '2025-03-01T00:00:00Z' },
      { id: 'z', name: 'newer', updated_at: '2025-04-01T00:00:00Z' },
    ];
    const id = await createRecipe(
      t,
      pollRecipe({
        request: { url: `${base}/wrapped` },
        records_path: 'data.items',
        cursor_field: 'updated_at',
        since: '2025-02-01T00:00:00Z',
      }),
    );
    await startRecipe(t, id);
    assert.deepEqual(await messages(id), ['y:new', 'z:newer']);
    assert.deepEqual((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, {
      cursor: '2025-04-01T00:00:00Z',
    });
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('a failed poll is a failed job with is_poll_error; the cursor stays', async () => {
    records = [{ id: 1, name: 'a' }];
    const id = await createRecipe(t, pollRecipe({ request: { url: `${base}/items` }, cursor_field: 'id' }));
    await startRecipe(t, id);
    assert.deepEqual(await messages(id), ['1:a']);
    status = 500;
    records = [{ id: 2, name: 'b' }];
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    status = 200;
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    const failed = jobs.body.items[0];
    assert.equal(failed.status, 'failed');
    assert.equal(failed.is_poll_error, true);
    assert.match(failed.error, /^Trigger error: 500 Server error/);
    assert.deepEqual((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, { cursor: 1 });
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    assert.deepEqual(await messages(id), ['1:a', '2:b']);
    records = { not: 'a list' } as unknown as unknown[];
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    const last = (await t.call('GET', `/api/recipes/${id}/jobs`)).body.items[0];
    assert.match(last.error, /the answer is not a list/);
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('more than 100 new records: 100 per poll, the rest at the next', async () => {
    records = Array.from({ length: 150 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` }));
    const id = await createRecipe(t, pollRecipe({ request: { url: `${base}/items` }, cursor_field: 'id' }));
    await startRecipe(t, id);
    assert.equal((await messages(id)).length, 100);
    await t.call('POST', `/api/recipes/${id}/poll_now`);
    const all = await messages(id);
    assert.equal(all.length, 150);
    assert.equal(all[149], '150:n150');
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('a trigger without cursor_field or URL is refused at start', async () => {
    const id = await createRecipe(t, pollRecipe({ request: { url: `${base}/items` } }));
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.body.success, false, res.text);
    assert.deepEqual(res.body.code_errors, [[0, [['Cursor field', null, "can't be blank", 'cursor_field']]]]);
    const bad = await createRecipe(t, pollRecipe({ request: { url: `${base}/items` }, cursor_field: 'a b' }));
    assert.deepEqual((await t.call('PUT', `/api/recipes/${bad}/start`)).body.code_errors, [
      [0, [['Cursor field', 'a b', 'must be a field name (letters, digits, _ . -)', 'cursor_field']]],
    ]);
  });
});
