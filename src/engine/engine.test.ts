// The job queue: events stored before they are acknowledged, per-recipe concurrency, stopped
// recipes' queued jobs, recovery after a crash, lifecycle events; webhooks on a real socket.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { jobRow } from '../../test/job-rows.ts';
import { action, createRecipe, log, pill, readJob, webhookRecipe, webhookTrigger } from '../../test/recipes.ts';
import { findRecipeById } from '../api/recipes/recipes.store.ts';
import { insertJob, newJobHandle } from '../api/jobs/queue.store.ts';
import { toStored } from '../time.ts';
import { sharesCommits } from '../db/dialect.ts';
import { createEngine } from './engine.ts';
import type { EngineEventName } from './events.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { BODY_LIMIT_BYTES: '4096' } });
});
after(() => t.close());

const wait = (seconds: string) => action('clock', 'wait_for_interval', 'pause', { interval: seconds });

/** The order a recipe's jobs started in and the most that ran at once, until `stop`. */
function watchJobs(recipeId: number) {
  let runningNow = 0;
  let peak = 0;
  const order: string[] = [];
  const offStart = t.engine.events.on('job.started', (e) => {
    if (e.recipeId !== recipeId) return;
    order.push(e.jobId);
    peak = Math.max(peak, ++runningNow);
  });
  const offDone = t.engine.events.on('job.succeeded', (e) => {
    if (e.recipeId === recipeId) runningNow--;
  });
  return {
    stop() {
      offStart();
      offDone();
      return { order, peak };
    },
  };
}

describe('job queue', () => {
  test('a webhook is acknowledged only once its job is stored', async () => {
    const { id, path } = await webhookRecipe(t, [wait('0.05')]);
    const res = await t.app.inject({ method: 'POST', url: path, payload: { n: 1 } });
    assert.equal(res.statusCode, 200);
    const stored = await t.ctx.db.selectFrom('jobs').selectAll().where('recipe_id', '=', id).execute();
    assert.equal(stored.length, 1);
    assert.deepEqual(JSON.parse(stored[0]?.trigger_output ?? '{}').payload, { n: 1 });
    await t.engine.idle();
  });

  for (const concurrency of [1, 2]) {
    test(`concurrency ${concurrency}: at most ${concurrency} job(s) of the recipe run at once, in arrival order`, async () => {
      const { id, path } = await webhookRecipe(t, [wait('0.03')], { concurrency });
      const watch = watchJobs(id);
      for (let n = 0; n < 5; n++)
        assert.equal((await t.app.inject({ method: 'POST', url: path, payload: { n } })).statusCode, 200);
      await t.engine.idle();
      const { order, peak } = watch.stop();
      assert.equal(peak, concurrency);
      const jobs = await t.ctx.db
        .selectFrom('jobs')
        .select('handle')
        .where('recipe_id', '=', id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        order,
        jobs.map((j) => j.handle),
      );
      assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.job_succeeded_count, 5);
    });
  }

  test('a burst of short jobs: each ending job hands its slot to the next queued one; concurrency, order, lines and counters hold', async () => {
    const { id, path } = await webhookRecipe(t, [log('a', 'first'), log('b', 'second')], { concurrency: 4 });
    const watch = watchJobs(id);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, n) => t.app.inject({ method: 'POST', url: path, payload: { n } })),
    );
    assert.deepEqual(
      replies.map((r) => r.statusCode),
      Array.from({ length: 40 }, () => 200),
    );
    await t.engine.idle();
    const { order, peak } = watch.stop();
    assert.ok(peak <= 4, `at most 4 jobs at once, saw ${peak}`);
    const jobs = await t.ctx.db
      .selectFrom('jobs')
      .select(['id', 'handle', 'status', 'task_count'])
      .where('recipe_id', '=', id)
      .orderBy('id')
      .execute();
    assert.equal(jobs.length, 40);
    // Oldest first: jobs claimed in one transaction (an ending job's successor and the
    // dispatcher's claim) may start in either order, so a job starts at most 3 places (the
    // concurrency less one) before its arrival order, never further. Arrival is the order of the
    // ids where commits follow it (SQLite: one writer). On PostgreSQL two inserts of webhooks'
    // jobs may be in flight at once and the later ids may commit first: a job can then start
    // before older ones that were not stored yet (their webhooks not acknowledged), so the ids do
    // not give the order the queue saw there (record-ends.test.ts checks the claims' order).
    const arrival = new Map(jobs.map((j, i) => [j.handle, i]));
    assert.equal(order.length, 40);
    if (sharesCommits(t.ctx.db))
      order.forEach((handle, i) =>
        assert.ok(
          (arrival.get(handle) as number) < i + 4,
          `job ${arrival.get(handle)} of the arrival order started ${i}th`,
        ),
      );
    else assert.deepEqual([...order].sort(), [...arrival.keys()].sort(), 'every job started once');
    assert.ok(jobs.every((j) => j.status === 'succeeded'));
    const lines = await t.ctx.db
      .selectFrom('job_line_rows')
      .select((eb) => ['job_id', eb.fn.countAll<number>().as('n')])
      .where(
        'job_id',
        'in',
        jobs.map((j) => j.id),
      )
      .groupBy('job_id')
      .execute();
    assert.equal(lines.length, 40);
    assert.ok(
      lines.every((l) => Number(l.n) === Number(lines[0]!.n) && Number(l.n) >= 3),
      'every job has its trigger line and its two steps',
    );
    const recipe = (await t.call('GET', `/api/recipes/${id}`)).body;
    assert.equal(recipe.job_succeeded_count, 40);
    assert.equal(recipe.job_failed_count, 0);
    assert.equal(
      recipe.lifetime_task_count,
      jobs.reduce((n, j) => n + j.task_count, 0),
    );
  });

  test('jobs queued for a stopped recipe wait, and run when it starts again', async () => {
    const id = await createRecipe(t, webhookTrigger([log('n', 'ran')]));
    const row = await findRecipeById(t.ctx.db, id);
    assert.ok(row);
    const handle = await t.engine.enqueue(row, { payload: {} } as never);
    assert.ok(handle);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const queued = await t.ctx.db
      .selectFrom('jobs')
      .select('status')
      .where('handle', '=', handle)
      .executeTakeFirstOrThrow();
    assert.equal(queued.status, 'queued');
    const pending = await t.call('GET', `/api/recipes/${id}/jobs?status=pending`);
    assert.equal(pending.body.items[0].status, 'pending');
    assert.equal(pending.body.items[0].completed_at, null);
    await t.call('PUT', `/api/recipes/${id}/start`);
    await t.engine.idle();
    const done = await t.ctx.db
      .selectFrom('jobs')
      .select('status')
      .where('handle', '=', handle)
      .executeTakeFirstOrThrow();
    assert.equal(done.status, 'succeeded');
  });

  test('after a crash: a job left running is failed as interrupted (never silently dropped); queued jobs run', async () => {
    const { id } = await webhookRecipe(t, [log('n', 'ran')]);
    const stamp = toStored(t.ctx.clock.now());
    const base = jobRow(id, { trigger_output: '{"payload":{}}', created_at: stamp, started_at: stamp });
    // What a process killed mid-job leaves behind, written while this engine is closed.
    await t.engine.close(1000);
    const crashed = await insertJob(t.ctx.db, { ...base, handle: newJobHandle(), status: 'running' });
    const waiting = await insertJob(t.ctx.db, { ...base, handle: newJobHandle(), status: 'queued' });
    const restarted = createEngine(t.ctx, { pollMs: 50 });
    const seen: Array<[EngineEventName, boolean]> = [];
    restarted.events.on('job.failed', (e) => seen.push(['job.failed', e.interrupted]));
    await restarted.start();
    await restarted.idle();
    const interrupted = await readJob(t, crashed);
    assert.equal(interrupted.status, 'failed');
    assert.equal(interrupted.errorType, 'Interrupted');
    assert.equal((await readJob(t, waiting)).status, 'succeeded');
    assert.deepEqual(seen, [['job.failed', true]]);
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    assert.equal(recipe.body.job_failed_count, 1);
    assert.equal(recipe.body.job_succeeded_count, 1);
    await restarted.close(1000);
    // A fresh app (with a running engine) for the tests below.
    const old = t;
    t = await createTestApp({ env: { BODY_LIMIT_BYTES: '4096' } });
    await old.close();
  });

  test('lifecycle events: recipe.started, job.queued, job.started, job.succeeded / job.failed, recipe.stopped', async () => {
    const events: string[] = [];
    const names: EngineEventName[] = [
      'recipe.started',
      'recipe.stopped',
      'job.queued',
      'job.started',
      'job.succeeded',
      'job.failed',
    ];
    const offs = names.map((name) => t.engine.events.on(name, () => events.push(name)));
    const { id, path } = await webhookRecipe(t, [
      {
        keyword: 'if',
        input: {
          type: 'compound',
          operand: 'and',
          conditions: [{ operand: 'is_true', lhs: pill('workato_webhooks', 'hook', 'payload', 'fail'), rhs: '' }],
        },
        block: [{ keyword: 'stop', input: { stop_with_error: 'true', stop_reason: 'asked to' } }],
      },
    ]);
    await t.app.inject({ method: 'POST', url: path, payload: { fail: false } });
    await t.engine.idle();
    await t.app.inject({ method: 'POST', url: path, payload: { fail: true } });
    await t.engine.idle();
    await t.call('PUT', `/api/recipes/${id}/stop`);
    offs.forEach((off) => off());
    assert.deepEqual(events, [
      'recipe.started',
      'job.queued',
      'job.started',
      'job.succeeded',
      'job.queued',
      'job.started',
      'job.failed',
      'recipe.stopped',
    ]);
  });
});

describe('webhooks on a real socket', () => {
  test('JSON, form and GET calls each become one job; unknown, stopped, oversized and malformed calls do not', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const { id, path } = await webhookRecipe(t, [
      log(
        'got',
        `#{${'_dp(\'{"pill_type":"output","provider":"workato_webhooks","line":"hook","path":["payload"]}\')'}.to_json}`,
      ),
    ]);
    const post = (body: string, type: string) =>
      fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    const json = await post('{"order": "A-1"}', 'application/json');
    assert.equal(json.status, 200);
    assert.deepEqual(await json.json(), { status: 'ok' });
    assert.equal((await post('order=A-2&qty=3', 'application/x-www-form-urlencoded')).status, 200);
    assert.equal((await fetch(`${origin}${path}?order=A-3`)).status, 200);
    await t.engine.idle();
    const jobs = await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', id).orderBy('id').execute();
    const outputs = await Promise.all(jobs.map(async (j) => (await readJob(t, j.id)).output(1)));
    assert.deepEqual(outputs, [
      { message: '{"order":"A-1"}' },
      { message: '{"order":"A-2","qty":"3"}' },
      { message: '{"order":"A-3"}' },
    ]);

    const malformed = await post('{"order": ', 'application/json');
    assert.equal(malformed.status, 400);
    assert.deepEqual(await malformed.json(), { error: 'Malformed JSON in request body' });
    const deep = await post('{"a":'.repeat(500) + '1' + '}'.repeat(500), 'application/json');
    assert.equal(deep.status, 400);
    assert.deepEqual(await deep.json(), { error: 'Payload is nested more than 100 levels deep' });
    const big = await post(JSON.stringify({ pad: 'x'.repeat(10_000) }), 'application/json');
    assert.equal(big.status, 413);
    assert.equal(
      (await fetch(`${origin}/webhooks/rest/00000000000000000000dead/event`, { method: 'POST' })).status,
      404,
    );
    assert.equal((await fetch(`${origin}/webhooks/rest/${'%'}zz/event`, { method: 'POST' })).status, 400);
    await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.equal((await post('{}', 'application/json')).status, 404);
    await t.engine.idle();
    assert.equal((await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', id).execute()).length, 3);
    assert.equal((await fetch(`${origin}/health`)).status, 200);
  });
});
