// Callers waiting for a job that ends elsewhere (job-waiters.ts), on both databases: the job's
// end is written to its row as another node writes it (finishJob, with its reply), and the waiter
// is answered from the row, on the job.ended notice or at its next re-read when no notice comes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { jobRow } from '../../test/job-rows.ts';
import { webhookRecipe } from '../../test/recipes.ts';
import { finishJob, insertJob, newJobHandle } from '../api/jobs/queue.store.ts';
import { createInProcessNotifier } from '../notifier.ts';
import { fromPlain, hashGet, isHash } from '../recipe/formula/values.ts';
import { replyText, type JobOutcome } from '../recipe/job-outcome.ts';
import { toStored } from '../time.ts';
import { JobWaiters } from './job-waiters.ts';

describe('callers waiting for a job another node ends', () => {
  let t: TestApp;
  let recipeId: number;
  before(async () => {
    t = await createTestApp();
    recipeId = (await webhookRecipe(t, [])).id;
  });
  after(() => t.close());

  /** A running awaited job, as another node would hold it: its id and handle. */
  async function runningJob(): Promise<{ id: number; handle: string }> {
    const row = jobRow(recipeId, { status: 'running', title: 'elsewhere', awaited: 1 });
    const id = await insertJob(t.ctx.db, { ...row, claimed_by: 'other-node/1/0', lease_expires_at: row.created_at });
    return { id, handle: row.handle };
  }

  const response = fromPlain({ http_status_code: 201, response: { id: 'A-1', lines: [1, 2] } });

  test('a job.ended notice: the waiter reads the job and gets its status and reply', async () => {
    const notifier = createInProcessNotifier();
    // Re-reads far off: only the notice can answer within the test.
    const waiters = new JobWaiters({ db: t.ctx.db, notifier, log: t.ctx.log, recheckMs: 3_600_000 });
    waiters.listen();
    try {
      const { id, handle } = await runningJob();
      const answered = new Promise<JobOutcome>((resolve) => waiters.add(handle, resolve));
      // A notice for another job, or one read before the end is written, answers nothing.
      notifier.publish('job.ended', { handle: newJobHandle() });
      notifier.publish('job.ended', { handle });
      await finishJob(t.ctx.db, id, {
        status: 'succeeded',
        error: null,
        error_parts: null,
        completed_at: toStored(new Date()),
        task_count: 3,
        reply: replyText({ kind: 'response', value: response }),
      });
      notifier.publish('job.ended', { handle });
      const outcome = await answered;
      assert.equal(outcome.status, 'succeeded');
      assert.equal(outcome.taskCount, 3);
      assert.equal(outcome.end?.kind, 'response');
      const value = outcome.end?.value ?? null;
      assert.ok(isHash(value));
      assert.equal(hashGet(value, 'http_status_code'), 201);
      assert.deepEqual(JSON.parse(replyText(outcome.end) ?? 'null'), {
        kind: 'response',
        value: { http_status_code: 201, response: { id: 'A-1', lines: [1, 2] } },
      });
    } finally {
      waiters.stop();
    }
  });

  test('no notice: the waiter gets a failed job with its error at its next re-read', async () => {
    const waiters = new JobWaiters({
      db: t.ctx.db,
      notifier: createInProcessNotifier(),
      log: t.ctx.log,
      recheckMs: 20,
    });
    waiters.listen();
    const keepAlive = setInterval(() => undefined, 1000);
    try {
      const { id, handle } = await runningJob();
      const answered = new Promise<JobOutcome>((resolve) => waiters.add(handle, resolve));
      await finishJob(t.ctx.db, id, {
        status: 'failed',
        error: 'Interrupted: the node running the job stopped',
        error_parts: JSON.stringify({
          adapter: 'workato',
          error_type: 'Interrupted',
          message: 'the node running the job stopped',
          error_id: 'e-1',
          error_at: toStored(new Date()),
          input: '<redacted>',
          inner_message: null,
        }),
        completed_at: toStored(new Date()),
        task_count: 0,
      });
      const outcome = await answered;
      assert.equal(outcome.status, 'failed');
      assert.equal(outcome.error, 'Interrupted: the node running the job stopped');
      assert.equal(outcome.errorParts?.error_type, 'Interrupted');
      assert.equal(outcome.end, null);
    } finally {
      clearInterval(keepAlive);
      waiters.stop();
    }
  });

  test('a job ended on this node: its waiter here is answered from memory; an awaited one elsewhere is announced', () => {
    const notifier = createInProcessNotifier();
    const heard: string[] = [];
    notifier.subscribe('job.ended', ({ handle }) => heard.push(handle));
    const waiters = new JobWaiters({ db: t.ctx.db, notifier, log: t.ctx.log, recheckMs: 3_600_000 });
    const outcome: JobOutcome = {
      status: 'succeeded',
      error: null,
      errorParts: null,
      lines: [],
      linesDropped: 0,
      taskCount: 1,
      end: { kind: 'result', value: 42 },
      firstSeq: 0,
    };
    let got: JobOutcome | undefined;
    waiters.add('j-here', (o) => (got = o));
    waiters.ended('j-here', outcome, true);
    assert.equal(got, outcome, 'the same outcome, at once');
    waiters.ended('j-not-awaited', outcome, false);
    waiters.ended('j-elsewhere', outcome, true);
    assert.deepEqual(heard, ['j-elsewhere'], 'only an awaited job with no waiter here is announced');
    waiters.stop();
  });
});
