// Workflow tasks: a job that stops at a task step waits (pending) until the task is completed,
// expires or is canceled, then goes on from where it stopped; the API lists, reads, completes and
// cancels tasks.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, dp, log, readJob, webhookRecipe, type StepDoc } from '../../../test/recipes.ts';

let t: TestApp;
let hits = 0;
const upstream = createServer((req, res) => {
  hits++;
  req.resume();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ hit: hits }));
});
let upstreamUrl = '';

before(async () => {
  t = await createTestApp();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/hit`;
});
after(async () => {
  await t.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

function task(as: string, input: StepDoc): StepDoc {
  return action('workato_workflow_task', 'human_review_on_existing_record', as, input);
}

async function post(path: string, payload: unknown): Promise<number> {
  const res = await t.app.inject({ method: 'POST', url: path, payload: payload as Record<string, unknown> });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const job = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return job.id;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function openTaskOf(recipeId: number): Promise<Record<string, any>> {
  const list = await t.call('GET', `/api/workflow_tasks?recipe_id=${recipeId}&status=open`);
  assert.equal(list.status, 200, list.text);
  assert.equal(list.body.items.length, 1, list.text);
  return list.body.items[0];
}

describe('workato_workflow_task/human_review_on_existing_record', () => {
  test('the job waits (pending) for an approval, then goes on from the task: earlier steps are not run again', async () => {
    const { id, path } = await webhookRecipe(t, [
      action('rest', 'make_request_v2', 'before', { request: { method: 'GET', url: upstreamUrl } }),
      task('review', {
        name: 'Approve order #{' + dp('workato_webhooks', 'hook', 'payload', 'order') + '}',
        email: 'Ana@Example.com',
        record_id: 'R-1',
      }),
      log(
        'after',
        `#{${dp('workato_workflow_task', 'review', 'status')}} by #{${dp('workato_workflow_task', 'review', 'completed_by')}} after hit #{${dp('rest', 'before', 'body', 'hit')}}`,
      ),
    ]);
    hits = 0;
    const jobId = await post(path, { order: 'A7' });
    const waiting = await readJob(t, jobId);
    assert.equal(waiting.status, 'waiting');
    assert.deepEqual(
      waiting.lines.map((l) => l.n),
      [0, 1],
    );
    assert.equal(hits, 1);
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs?status=pending`);
    assert.equal(jobs.body.items.length, 1);
    assert.equal(jobs.body.items[0].status, 'pending');
    assert.equal(jobs.body.items[0].completed_at, null);

    const startedWhileWaiting = (
      await t.ctx.db.selectFrom('jobs').select('started_at').where('id', '=', jobId).executeTakeFirstOrThrow()
    ).started_at;
    // The clock moves on before the task is completed (a condition, not a sleep).
    while (Date.now() < Date.parse(startedWhileWaiting) + 5) await new Promise((resolve) => setImmediate(resolve));

    const open = await openTaskOf(id);
    assert.equal(open.name, 'Approve order A7');
    assert.equal(open.assignee, 'ana@example.com');
    assert.equal(open.record_id, 'R-1');
    assert.equal(open.task_type, 'approval');
    assert.equal(open.job_id, jobs.body.items[0].id);
    assert.equal(open.step_number, 2);
    assert.equal(open.result, null);

    const done = await t.call('POST', `/api/workflow_tasks/${open.id}/complete`, {
      body: { status: 'approved', comments: 'fine' },
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.result.status, 'approved');
    await t.engine.idle();
    const ran = await readJob(t, jobId);
    assert.equal(ran.status, 'succeeded', ran.error ?? '');
    assert.deepEqual(
      ran.lines.map((l) => l.n),
      [0, 1, 2, 3],
    );
    assert.equal(hits, 1, 'the HTTP step before the task ran once');
    assert.deepEqual(ran.output(3), { message: 'approved by ana@example.com after hit 1' });
    assert.equal((ran.output(2) as { comments: string }).comments, 'fine');
    // The job started when its trigger fired, not when it was resumed.
    const started = (
      await t.ctx.db.selectFrom('jobs').select('started_at').where('id', '=', jobId).executeTakeFirstOrThrow()
    ).started_at;
    assert.equal(started, startedWhileWaiting);
    const shown = await t.call('GET', `/api/recipes/${id}/jobs/${jobs.body.items[0].id}`);
    assert.equal(shown.status, 200, shown.text);
    assert.ok(Date.parse(shown.body.completed_at) - Date.parse(shown.body.started_at) >= 5, shown.text);
    const again = await t.call('POST', `/api/workflow_tasks/${open.id}/complete`, { body: { status: 'rejected' } });
    assert.equal(again.status, 409);
    assert.equal(again.body.message, 'The workflow task has already ended (completed)');
  });

  test('a form task: values checked against its fields; the job gets them', async () => {
    const { id, path } = await webhookRecipe(t, [
      task('form', {
        name: 'Fill in',
        form_fields: [
          { name: 'amount', type: 'integer' },
          { name: 'note', type: 'string', optional: true },
          { name: 'ok', type: 'boolean' },
          { name: 'day', type: 'date', optional: true },
        ],
      }),
      log(
        'after',
        `#{${dp('workato_workflow_task', 'form', 'fields', 'amount')}}/#{${dp('workato_workflow_task', 'form', 'fields', 'ok')}}`,
      ),
    ]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    assert.equal(open.task_type, 'form');
    assert.deepEqual(
      open.form_fields.map((f: { name: string; type: string; optional: boolean }) => [f.name, f.type, f.optional]),
      [
        ['amount', 'integer', false],
        ['note', 'string', true],
        ['ok', 'boolean', false],
        ['day', 'date', true],
      ],
    );
    const url = `/api/workflow_tasks/${open.id}/complete`;
    const wrongType = await t.call('POST', url, { body: { fields: { amount: '12', ok: true } } });
    assert.equal(wrongType.status, 400);
    assert.deepEqual(wrongType.body.errors, { 'fields.amount': ['must be an integer'] });
    const missing = await t.call('POST', url, { body: { fields: { amount: 1 } } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.errors, { 'fields.ok': ["can't be blank"] });
    const unknown = await t.call('POST', url, { body: { fields: { amount: 1, ok: false, extra: 'x' } } });
    assert.deepEqual(unknown.body.errors, { 'fields.extra': ['is not a field of this task'] });
    const badDate = await t.call('POST', url, { body: { fields: { amount: 1, ok: false, day: 'tomorrow' } } });
    assert.deepEqual(badDate.body.errors, { 'fields.day': ['must be a date (YYYY-MM-DD)'] });
    const approve = await t.call('POST', url, { body: { status: 'approved', fields: { amount: 1, ok: false } } });
    assert.equal(approve.status, 400);
    assert.equal((await readJob(t, jobId)).status, 'waiting', 'nothing changed by refused completions');
    const done = await t.call('POST', url, { body: { fields: { amount: 12, ok: true } } });
    assert.equal(done.status, 200, done.text);
    await t.engine.idle();
    const ran = await readJob(t, jobId);
    assert.equal(ran.status, 'succeeded');
    assert.deepEqual(ran.output(2), { message: '12/true' });
  });

  test('an approval needs approved or rejected; a rejection reaches the job', async () => {
    const { id, path } = await webhookRecipe(t, [
      task('review', { name: 'Check' }),
      log('after', `#{${dp('workato_workflow_task', 'review', 'status')}}`),
    ]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    const url = `/api/workflow_tasks/${open.id}/complete`;
    assert.deepEqual((await t.call('POST', url, {})).body.errors, {
      status: ['must be approved or rejected for an approval task'],
    });
    assert.equal((await t.call('POST', url, { body: { status: 'maybe' } })).status, 400);
    assert.equal((await t.call('POST', url, { body: { status: 'rejected' } })).status, 200);
    await t.engine.idle();
    assert.deepEqual((await readJob(t, jobId)).output(2), { message: 'rejected' });
  });

  test('variables set before the task keep their values; the steps after it change them once', async () => {
    const listRef = 'l1:items';
    const { id, path } = await webhookRecipe(t, [
      action(
        'workato_variable',
        'declare_list',
        'items',
        { name: 'items', list_item_schema_json: '[{"name":"v"}]' },
        { uuid: 'l1' },
      ),
      action('workato_variable', 'insert_to_list', 'ins1', { name: listRef, location: 'end', list_item: { v: 'a' } }),
      task('review', { name: 'Go on?' }),
      action('workato_variable', 'insert_to_list', 'ins2', { name: listRef, location: 'end', list_item: { v: 'b' } }),
      log('after', `#{${dp('workato_variable', 'items', 'list_items')}}`),
    ]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    assert.equal(
      (await t.call('POST', `/api/workflow_tasks/${open.id}/complete`, { body: { status: 'approved' } })).status,
      200,
    );
    await t.engine.idle();
    const ran = await readJob(t, jobId);
    assert.equal(ran.status, 'succeeded', ran.error ?? '');
    assert.deepEqual(ran.output(5), { message: '[{"v":"a"},{"v":"b"}]' });
  });

  test('a task past its due time expires: the job goes on with status expired', async () => {
    const { id, path } = await webhookRecipe(t, [
      task('review', { name: 'Soon', due_in_days: 0.000005 }),
      log('after', `#{${dp('workato_workflow_task', 'review', 'status')}}`),
    ]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    assert.ok(open.expires_at);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // The engine's own expiry timer (every second) may have expired it first.
    const expiredNow = await t.engine.expireDueTasks();
    assert.ok(expiredNow <= 1, `expired ${expiredNow}`);
    // When the timer expired it, its resumed job may be queued only after this call returned:
    // wait for the job's end rather than for one idle moment.
    let ran = await readJob(t, jobId);
    for (let i = 0; i < 400 && ran.status !== 'succeeded' && ran.status !== 'failed'; i += 1) {
      await t.engine.idle();
      await new Promise((resolve) => setTimeout(resolve, 25));
      ran = await readJob(t, jobId);
    }
    assert.deepEqual(ran.output(2), { message: 'expired' });
    const task1 = await t.call('GET', `/api/workflow_tasks/${open.id}`);
    assert.equal(task1.body.status, 'expired');
    assert.equal((await t.call('POST', `/api/workflow_tasks/${open.id}/cancel`)).status, 409);
  });

  test('a bad task input fails the step', async () => {
    const { path } = await webhookRecipe(t, [task('review', { name: 'X', email: 'not an address' })]);
    const ran = await readJob(t, await post(path, {}));
    assert.equal(ran.status, 'failed');
    assert.equal(ran.errorType, 'Bad request');
    const { path: p2 } = await webhookRecipe(t, [
      task('review', { name: 'X', form_fields: [{ name: 'a', type: 'money' }] }),
    ]);
    assert.match((await readJob(t, await post(p2, {}))).error ?? '', /type must be one of/);
  });
});

describe('POST /api/workflow_tasks/:id/cancel', () => {
  test('cancels an open task: the job goes on with status canceled', async () => {
    const { id, path } = await webhookRecipe(t, [
      task('review', { name: 'Maybe' }),
      log('after', `#{${dp('workato_workflow_task', 'review', 'status')}}`),
    ]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    const canceled = await t.call('POST', `/api/workflow_tasks/${open.id}/cancel`);
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'canceled');
    await t.engine.idle();
    assert.deepEqual((await readJob(t, jobId)).output(2), { message: 'canceled' });
    assert.equal((await t.call('POST', '/api/workflow_tasks/999999/cancel')).status, 404);
  });
});

describe('POST /api/recipes/:recipe_id/cancel_jobs', () => {
  test('cancels a job waiting for a task, and its task', async () => {
    const { id, path } = await webhookRecipe(t, [task('review', { name: 'Stop me' }), log('after', 'never')]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    const res = await t.call('POST', `/api/recipes/${id}/cancel_jobs`, { body: { job_ids: [open.job_id] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.results, [{ job_id: open.job_id, status: 'canceled' }]);
    const job = await readJob(t, jobId);
    assert.equal(job.status, 'canceled');
    assert.equal(job.ran(2), false);
    assert.equal((await t.call('GET', `/api/workflow_tasks/${open.id}`)).body.status, 'canceled');
    assert.equal(
      (await t.call('POST', `/api/workflow_tasks/${open.id}/complete`, { body: { status: 'approved' } })).status,
      409,
    );
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    assert.equal(jobs.body.items[0].status, 'failed');
  });
});

describe('GET /api/workflow_tasks', () => {
  test('filters by recipe, status and assignee; bad filters are 400', async () => {
    const { id, path } = await webhookRecipe(t, [task('review', { name: 'For Bo', email: 'bo@example.com' })]);
    await post(path, {});
    const byAssignee = await t.call('GET', `/api/workflow_tasks?assignee=BO@example.com`);
    assert.equal(byAssignee.status, 200);
    assert.deepEqual(
      byAssignee.body.items.map((i: { recipe_id: number }) => i.recipe_id),
      [id],
    );
    const completed = await t.call('GET', `/api/workflow_tasks?recipe_id=${id}&status=completed`);
    assert.deepEqual(completed.body.items, []);
    assert.equal((await t.call('GET', '/api/workflow_tasks?status=bogus')).status, 400);
    assert.equal((await t.call('GET', '/api/workflow_tasks?recipe_id=abc')).status, 400);
    assert.equal((await t.call('GET', '/api/workflow_tasks?recipe_id=999999')).status, 404);
    assert.equal((await t.call('GET', '/api/workflow_tasks?per_page=0')).status, 400);
    const all = await t.call('GET', '/api/workflow_tasks?per_page=2');
    assert.equal(all.body.items.length, 2);
    const next = await t.call('GET', `/api/workflow_tasks?per_page=2&since_id=${all.body.items[1].id}`);
    assert.ok(next.body.items.every((i: { id: number }) => i.id > all.body.items[1].id));
  });

  test('another environment sees none of them; no token is 401', async () => {
    const prod = await t.tokenFor('Admin', 'prod');
    const list = await t.call('GET', '/api/workflow_tasks', { token: prod });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items, []);
    const any = (await t.call('GET', '/api/workflow_tasks')).body.items[0];
    assert.equal((await t.call('GET', `/api/workflow_tasks/${any.id}`, { token: prod })).status, 404);
    assert.equal(
      (await t.call('POST', `/api/workflow_tasks/${any.id}/complete`, { token: prod, body: { status: 'approved' } }))
        .status,
      404,
    );
    assert.equal((await t.call('GET', '/api/workflow_tasks', { token: null })).status, 401);
  });
});

describe('POST /api/workflow_tasks/:id/complete', () => {
  test('refuses bad input with a 4xx and changes nothing', async () => {
    const { id, path } = await webhookRecipe(t, [task('review', { name: 'Bad input' })]);
    const jobId = await post(path, {});
    const open = await openTaskOf(id);
    const url = `/api/workflow_tasks/${open.id}/complete`;
    assert.equal(
      (await t.call('POST', url, { raw: '{"status":', headers: { 'content-type': 'application/json' } })).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', url, {
          raw: 'status=approved',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.equal((await t.call('POST', url, { body: { status: 'approved', fields: 'x' } })).status, 400);
    assert.equal((await t.call('POST', url, { body: { status: 'approved', other: 1 } })).status, 400);
    assert.equal(
      (await t.call('POST', url, { body: { status: 'approved', comments: 'x'.repeat(10_001) } })).status,
      400,
    );
    assert.equal(
      (await t.call('POST', url, { body: { status: 'approved', comments: 'x'.repeat(2_000_000) } })).status,
      413,
    );
    assert.equal(
      (await t.call('POST', '/api/workflow_tasks/abc/complete', { body: { status: 'approved' } })).status,
      400,
    );
    assert.equal(
      (await t.call('POST', '/api/workflow_tasks/424242/complete', { body: { status: 'approved' } })).status,
      404,
    );
    const reader = await t.tokenWith('Task reader', ['jobs:read']);
    assert.equal((await t.call('POST', url, { token: reader, body: { status: 'approved' } })).status, 403);
    assert.equal((await t.call('GET', url.replace('/complete', ''), { token: reader })).status, 200);
    assert.equal((await readJob(t, jobId)).status, 'waiting');
    assert.equal((await t.call('GET', `/api/workflow_tasks/${open.id}`)).body.status, 'open');
  });
});
