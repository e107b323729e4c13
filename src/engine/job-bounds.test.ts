// The bounds of a job as a whole (src/engine/README.md, "Bounds of a job"): a recipe that loops for
// ever lets the server answer while it runs, can be canceled while it runs, and fails at its step
// bound; the outcomes kept to resume after a workflow task are bounded, and kept only by recipes
// that have a task step.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, condition, dp, fire, log, readJob, webhookRecipe, type StepDoc } from '../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ engine: { jobLimits: { maxSteps: 20_000, maxReplayBytes: 64 * 1024 } } });
});
after(() => t.close());

/** A repeat inside a try inside a repeat, both for ever, with a logger in the inner loop. */
function forever(): StepDoc[] {
  const always = { keyword: 'while_condition', input: condition('present', 'x') };
  return [
    {
      keyword: 'repeat',
      as: 'outer',
      block: [
        {
          keyword: 'try',
          block: [
            {
              keyword: 'repeat',
              as: 'inner',
              block: [log('tick', `pass #{${dp('repeat', 'inner', 'index')}}`), always],
            },
            { keyword: 'catch', as: 'oops', input: {}, block: [] },
          ],
        },
        always,
      ],
    },
  ];
}

async function jobOf(recipeId: number): Promise<{ id: number; handle: string; status: string }> {
  const row = await t.ctx.db
    .selectFrom('jobs')
    .select(['id', 'handle', 'status'])
    .where('recipe_id', '=', recipeId)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return row;
}

describe('a recipe that loops for ever', () => {
  test('fails at JOB_MAX_STEPS with a clear error, which a try around the loop does not catch', async () => {
    const { path } = await webhookRecipe(t, forever());
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Step limit');
    assert.equal(
      job.error,
      'Step limit: the job ran 20000 steps, the most a job may run (JOB_MAX_STEPS); a loop that never ends?',
    );
    assert.ok(job.lines.length <= 5000, `${job.lines.length} lines`);
    assert.deepEqual(job.output(4, 0), { message: 'pass 0' });
  });

  test('lets the server answer while it runs, and ends at once when canceled', { timeout: 120_000 }, async () => {
    const loose = await createTestApp({ engine: { jobLimits: { maxSteps: 400_000 } } });
    try {
      const { id, path } = await webhookRecipe(loose, forever());
      const hook = await loose.app.inject({ method: 'POST', url: path, payload: {} });
      assert.equal(hook.statusCode, 200);
      // Requests are answered while the job loops: each finds it still running.
      let seen = 0;
      let handle = '';
      for (let i = 0; i < 400 && seen < 5; i += 1) {
        // Requests reach a server through its sockets, a turn of the event loop each.
        await new Promise((resolve) => setImmediate(resolve));
        const list = await loose.call('GET', `/api/recipes/${id}/jobs`);
        assert.equal(list.status, 200);
        const health = await loose.app.inject({ method: 'GET', url: '/health' });
        assert.equal(health.statusCode, 200);
        const row = await loose.ctx.db
          .selectFrom('jobs')
          .select(['handle', 'status'])
          .where('recipe_id', '=', id)
          .executeTakeFirst();
        if (row?.status === 'running' && list.body.items[0]?.status === 'pending') {
          seen += 1;
          handle = row.handle;
        }
      }
      assert.equal(seen, 5, 'the running job was seen by five rounds of requests');
      const cancel = await loose.call('POST', `/api/recipes/${id}/cancel_jobs`, { body: { job_ids: [handle] } });
      assert.equal(cancel.status, 200, cancel.text);
      assert.equal(cancel.body.results[0].status, 'canceling', cancel.text);
      await loose.engine.idle();
      const row = await loose.ctx.db
        .selectFrom('jobs')
        .select(['id'])
        .where('handle', '=', handle)
        .executeTakeFirstOrThrow();
      const job = await readJob(loose, row.id);
      assert.equal(job.status, 'failed');
      assert.equal(job.errorType, 'Canceled');
    } finally {
      await loose.close();
    }
  });
});

describe('outcomes kept to resume after a workflow task', () => {
  const passes = (n: string): StepDoc[] => [
    {
      keyword: 'repeat',
      as: 'loop',
      block: [
        log('chatty', `${'x'.repeat(200)} #{${dp('repeat', 'loop', 'index')}}`),
        { keyword: 'while_condition', input: condition('less_than', `#{${dp('repeat', 'loop', 'index')}}`, n) },
      ],
    },
  ];

  test('a recipe without a task step keeps none: 2,000 passes of a chatty step succeed under a 64 KB bound', async () => {
    const { path } = await webhookRecipe(t, passes('2000'));
    const job = await fire(t, path, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
  });

  test('a recipe with a task step fails at JOB_MAX_REPLAY_BYTES with a clear error, before it reaches the task', async () => {
    const task = action('workato_workflow_task', 'human_review_on_existing_record', 'review', {
      name: 'Check',
      email: 'ana@example.com',
    });
    const { id, path } = await webhookRecipe(t, [...passes('2000'), task]);
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Memory limit');
    assert.equal(
      job.error,
      'Memory limit: the outcomes of its steps, kept to resume it after a workflow task, passed 65536 bytes (JOB_MAX_REPLAY_BYTES)',
    );
    const tasks = await t.call('GET', `/api/workflow_tasks?recipe_id=${id}`);
    assert.deepEqual(tasks.body.items, []);
    // A short loop before the task stays within the bound: the job waits at its task.
    const fine = await webhookRecipe(t, [...passes('20'), task]);
    const waiting = await fire(t, fine.path, {});
    assert.equal(waiting.status, 'waiting', waiting.error ?? '');
    assert.equal((await jobOf(fine.id)).status, 'waiting');
  });
});
