import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, log, pill, webhookRecipe } from '../../../test/recipes.ts';

let t: TestApp;
let recipeId: number;
let otherRecipe: number;
let readOnly: string;
let noJobs: string;
const handles: string[] = [];

before(async () => {
  t = await createTestApp();
  readOnly = await t.tokenFor('Read only');
  noJobs = await t.tokenWith('Recipes only', ['recipes:read']);
  // Events with ok=false fail at their second step (a JSON document that does not parse).
  const recipe = await webhookRecipe(t, [
    log('note', `order ${pill('workato_webhooks', 'hook', 'payload', 'n')}`),
    {
      keyword: 'if',
      input: {
        type: 'compound',
        operand: 'and',
        conditions: [{ operand: 'is_not_true', lhs: pill('workato_webhooks', 'hook', 'payload', 'ok'), rhs: '' }],
      },
      block: [action('json_parser', 'parse_json_v2', 'bad', { document: '{' })],
    },
  ]);
  recipeId = recipe.id;
  for (let n = 1; n <= 5; n++) {
    await t.app.inject({ method: 'POST', url: recipe.path, payload: { n, ok: n % 2 === 1 } });
    await t.engine.idle();
  }
  const listed = await t.call('GET', `/api/recipes/${recipeId}/jobs`);
  handles.push(...listed.body.items.map((j: { id: string }) => j.id));
  otherRecipe = (await webhookRecipe(t, [log('x', 'x')])).id;
});
after(() => t.close());

describe('GET /api/recipes/:recipe_id/jobs', () => {
  test('newest first, with the counters of the recipe', async () => {
    const res = await t.call('GET', `/api/recipes/${recipeId}/jobs`);
    assert.equal(res.status, 200);
    assert.equal(res.body.job_count, 5);
    assert.equal(res.body.job_succeeded_count, 3);
    assert.equal(res.body.job_failed_count, 2);
    assert.equal(res.body.job_scope_count, 5);
    const [latest] = res.body.items;
    assert.match(latest.id, /^j-[A-Za-z0-9]{8}-[A-Za-z0-9]{7}$/);
    assert.equal(latest.title, 'HTTP: new event: n=5, ok=true');
    assert.equal(latest.status, 'succeeded');
    assert.equal(latest.is_error, false);
    assert.equal(latest.error, null);
    assert.equal(latest.lines, undefined);
    const failed = res.body.items[1];
    assert.equal(failed.status, 'failed');
    assert.equal(failed.is_error, true);
    assert.equal(failed.error_parts.adapter, 'json_parser');
    assert.equal(failed.error_parts.error_type, 'Bad request');
    assert.equal(failed.error_parts.input, '<redacted>');
    assert.match(failed.error_parts.error_id, /^[0-9a-f-]{36}$/);
    const recipe = await t.call('GET', `/api/recipes/${recipeId}`);
    assert.equal(recipe.body.job_succeeded_count, res.body.job_succeeded_count);
    assert.equal(recipe.body.job_failed_count, res.body.job_failed_count);
    assert.equal(recipe.body.lifetime_task_count, 5);
    assert.ok(recipe.body.last_run_at);
  });

  test('status filter, job_scope_count, the deprecated failed flag', async () => {
    const failed = await t.call('GET', `/api/recipes/${recipeId}/jobs?status=failed`);
    assert.equal(failed.body.items.length, 2);
    assert.equal(failed.body.job_scope_count, 2);
    assert.equal(failed.body.job_count, 5);
    assert.ok(failed.body.items.every((j: { status: string }) => j.status === 'failed'));
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs?failed=true`)).body.items.length, 2);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs?status=pending`)).body.items.length, 0);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs?rerun_only=true`)).body.job_scope_count, 0);
  });

  test('cursor paging: older with prev=false, newer with prev=true; the cursor itself is left out', async () => {
    const page1 = await t.call('GET', `/api/recipes/${recipeId}/jobs?per_page=2`);
    assert.deepEqual(
      page1.body.items.map((j: { id: string }) => j.id),
      handles.slice(0, 2),
    );
    const page2 = await t.call('GET', `/api/recipes/${recipeId}/jobs?per_page=2&offset_job_id=${handles[1]}`);
    assert.deepEqual(
      page2.body.items.map((j: { id: string }) => j.id),
      handles.slice(2, 4),
    );
    const newer = await t.call('GET', `/api/recipes/${recipeId}/jobs?per_page=2&offset_job_id=${handles[3]}&prev=true`);
    assert.deepEqual(
      newer.body.items.map((j: { id: string }) => j.id),
      handles.slice(1, 3),
    );
    const clamped = await t.call('GET', `/api/recipes/${recipeId}/jobs?per_page=5000&offset_run_id=3`);
    assert.equal(clamped.body.items.length, 5);
  });

  test('400 for a bad status or per_page; 404 for an unknown recipe or cursor; 401; 403', async () => {
    for (const query of ['status=done', 'per_page=abc', 'per_page=0', 'prev=maybe']) {
      const res = await t.call('GET', `/api/recipes/${recipeId}/jobs?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal((await t.call('GET', '/api/recipes/999999/jobs')).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs?offset_job_id=j-nothere`)).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${otherRecipe}/jobs?offset_job_id=${handles[0]}`)).status, 404);
    assert.equal((await t.call('GET', '/api/recipes/abc/jobs')).status, 400);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs`, { token: noJobs })).status, 403);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs`, { token: readOnly })).status, 200);
    const other = await t.newWorkspace('Jobs elsewhere');
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs`, { token: other.adminToken })).status, 404);
  });
});

describe('GET /api/recipes/:recipe_id/jobs/:job_handle', () => {
  test('one job with its lines: step numbers, adapters, timing, the error on the failing line; never step data', async () => {
    const failedHandle = handles[1] as string;
    const res = await t.call('GET', `/api/recipes/${recipeId}/jobs/${failedHandle}`);
    assert.equal(res.status, 200);
    const job = res.body;
    assert.equal(job.id, failedHandle);
    assert.equal(job.handle, failedHandle);
    assert.equal(job.is_repeat, false);
    assert.equal(job.is_test, false);
    assert.equal(job.is_test_case_job, false);
    assert.equal(job.master_job_handle, null);
    assert.deepEqual(
      job.lines.map((l: { recipe_line_number: number; adapter_name: string; adapter_operation: string }) => [
        l.recipe_line_number,
        l.adapter_name,
        l.adapter_operation,
      ]),
      [
        [0, 'workato_webhooks', 'new_event'],
        [1, 'logger', 'log_message'],
        [3, 'json_parser', 'parse_json_v2'],
      ],
    );
    assert.equal(job.lines[1].error, undefined);
    assert.match(job.lines[2].error, /not valid JSON/);
    for (const line of job.lines) {
      assert.equal(typeof line.line_stat.total, 'number');
      assert.match(line.line_stat.started_at, /\+00:00$/);
      assert.equal(line.input, undefined);
      assert.equal(line.output, undefined);
    }
    assert.ok(!res.text.includes('order 4'), 'step data is not returned');
  });

  test('the numeric flow_run_id works too; 404 for a job of another recipe or an unknown handle; 401; 403', async () => {
    const list = await t.call('GET', `/api/recipes/${recipeId}/jobs?per_page=1`);
    const byRun = await t.call('GET', `/api/recipes/${recipeId}/jobs/${list.body.items[0].flow_run_id}`);
    assert.equal(byRun.body.id, list.body.items[0].id);
    assert.equal((await t.call('GET', `/api/recipes/${otherRecipe}/jobs/${handles[0]}`)).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs/j-nothere`)).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs/${'x'.repeat(101)}`)).status, 400);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs/${handles[0]}`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/jobs/${handles[0]}`, { token: noJobs })).status, 403);
  });
});
