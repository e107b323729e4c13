// Job retention: finished jobs older than JOB_RETENTION_HOURS disappear with their lines, in the
// background; pending jobs and newer ones stay, and the recipe's counters keep their lifetime counts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { jobRow } from '../../../test/job-rows.ts';
import { spawnServe } from '../../../test/process-helpers.ts';
import { createRecipe, log, pill, webhookRecipe, webhookTrigger } from '../../../test/recipes.ts';
import type { JobLineRow } from '../../db/types.ts';
import { manualClock, toStored } from '../../time.ts';
import { insertJob, insertLines, type NewJob } from './queue.store.ts';

const HOUR = 3600_000;
const clock = manualClock('2026-03-01T08:00:00.000Z');
let t: TestApp;

before(async () => {
  t = await createTestApp({ clock, env: { JOB_RETENTION_HOURS: '24', JOBS_SWEEP_INTERVAL_MS: '10' } });
});
after(() => t.close());

async function jobRows(recipeId: number): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('recipe_id', '=', recipeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function lineRows(jobIds: number[]): Promise<number> {
  if (jobIds.length === 0) return 0;
  const row = await t.ctx.db
    .selectFrom('job_line_rows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('job_id', 'in', jobIds)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Wait (up to 10 s) until the recipe has `n` job rows: the sweep runs every 10 ms. */
async function jobRowsBecome(recipeId: number, n: number): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await jobRows(recipeId)) === n) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

function finishedJob(recipeId: number, endedAt: Date): NewJob {
  const at = toStored(endedAt);
  return jobRow(recipeId, { status: 'succeeded', task_count: 1, created_at: at, started_at: at, completed_at: at });
}

function linesOf(jobId: number, count: number, at: Date): JobLineRow[] {
  const stamp = toStored(at);
  return Array.from({ length: count }, (_, seq) => ({
    job_id: jobId,
    seq,
    recipe_line_number: 1,
    adapter_name: 'logger',
    adapter_operation: 'log_message',
    pass: null,
    input: '{"message":"x"}',
    output: '{}',
    error: null,
    mask_data: 0,
    started_at: stamp,
    completed_at: stamp,
  }));
}

describe('job retention (JOB_RETENTION_HOURS)', () => {
  test('GET /api/recipes/:id/jobs: jobs that ended longer ago than the retention are gone with their lines; newer and pending jobs stay; the counters stay', async () => {
    const recipe = await webhookRecipe(t, [log('note', `order ${pill('workato_webhooks', 'hook', 'payload', 'n')}`)]);
    const post = async (n: number) => {
      assert.equal((await t.app.inject({ method: 'POST', url: recipe.path, payload: { n } })).statusCode, 200);
      await t.engine.idle();
    };
    for (const n of [1, 2, 3]) await post(n);
    clock.advance(12 * HOUR);
    for (const n of [4, 5]) await post(n);
    const before = await t.call('GET', `/api/recipes/${recipe.id}/jobs`);
    assert.equal(before.body.items.length, 5);
    const oldHandles: string[] = before.body.items.slice(2).map((j: { id: string }) => j.id);
    const oldIds: number[] = before.body.items.slice(2).map((j: { flow_run_id: number }) => j.flow_run_id);
    const newIds: number[] = before.body.items.slice(0, 2).map((j: { flow_run_id: number }) => j.flow_run_id);
    assert.ok((await lineRows(oldIds)) > 0, 'the old jobs have lines');

    // A pending job that has waited for days: queued for a recipe that is stopped (it never runs).
    const stopped = await createRecipe(t, webhookTrigger([log('x', 'x')]));
    const waiting = await insertJob(t.ctx.db, {
      ...finishedJob(stopped, clock.now()),
      status: 'queued',
      completed_at: null,
    });
    const ended = await insertJob(t.ctx.db, finishedJob(stopped, new Date(clock.now().getTime() - 12 * HOUR)));

    // 25 hours after the first three ended, 13 hours after the last two.
    clock.advance(13 * HOUR);
    assert.ok(await jobRowsBecome(recipe.id, 2), 'the sweep deleted the three old jobs');
    assert.ok(await jobRowsBecome(stopped, 1), 'and the old finished job of the stopped recipe');

    const list = await t.call('GET', `/api/recipes/${recipe.id}/jobs`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((j: { flow_run_id: number }) => j.flow_run_id),
      newIds,
    );
    assert.equal(list.body.job_succeeded_count, 5, 'lifetime counters');
    assert.equal(list.body.job_failed_count, 0);
    assert.equal(list.body.job_count, 5, 'job_count >= job_succeeded_count + job_failed_count');
    assert.equal(list.body.job_scope_count, 5);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}`)).body.job_succeeded_count, 5);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/jobs/${oldHandles[0]}`)).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/jobs?offset_job_id=${oldHandles[0]}`)).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/jobs/${newIds[0]}`)).body.lines.length, 2);
    assert.equal(await lineRows(oldIds), 0, 'their lines are gone');
    assert.ok((await lineRows(newIds)) > 0, 'the newer jobs keep theirs');

    const pending = await t.call('GET', `/api/recipes/${stopped}/jobs`);
    assert.deepEqual(
      pending.body.items.map((j: { flow_run_id: number; status: string }) => [j.flow_run_id, j.status]),
      [[waiting, 'pending']],
    );
    assert.equal(pending.body.job_count, 1, 'the pending job');
    assert.equal((await t.call('GET', `/api/recipes/${stopped}/jobs?status=pending`)).body.job_scope_count, 1);
    assert.equal((await t.call('GET', `/api/recipes/${stopped}/jobs/${ended}`)).status, 404);

    // Much later, the pending job is still there; the two newer jobs are gone.
    clock.advance(30 * 24 * HOUR);
    assert.ok(await jobRowsBecome(recipe.id, 0));
    assert.equal(await lineRows(newIds), 0);
    assert.equal(await jobRows(stopped), 1);
    const empty = await t.call('GET', `/api/recipes/${recipe.id}/jobs`);
    assert.deepEqual(empty.body.items, []);
    assert.equal(empty.body.job_succeeded_count, 5);
    assert.equal(empty.body.job_count, 5);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/jobs?status=succeeded`)).body.job_scope_count, 5);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/jobs?rerun_only=true`)).body.job_scope_count, 0);
  });

  test("more jobs and lines than one batch are all deleted, those recorded before migration 0083 and a job's thousands of them included", async () => {
    const recipe = await createRecipe(t, webhookTrigger([log('x', 'x')]));
    const endedAt = clock.now();
    const ids: number[] = [];
    await t.ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 450; i++) {
        const id = await insertJob(trx, finishedJob(recipe, endedAt));
        // The first job: 1,200 lines as the table job_lines kept them before migration 0083, one row
        // each (three statements' worth), then three more as one row of job_line_sets.
        if (i === 0) {
          for (const line of linesOf(id, 1200, endedAt)) await trx.insertInto('job_lines').values(line).execute();
          await insertLines(
            trx,
            linesOf(id, 3, endedAt).map((line) => ({ ...line, seq: line.seq + 1200 })),
          );
        } else await insertLines(trx, linesOf(id, 3, endedAt));
        ids.push(id);
      }
    });
    assert.equal(await lineRows(ids), 1200 + 450 * 3);
    const first = await t.call('GET', `/api/recipes/${recipe}/jobs/${ids[0]}`);
    assert.equal(first.status, 200);
    assert.equal(first.body.lines.length, 1203, 'the job lists the lines of both tables');
    clock.advance(24 * HOUR + 1);
    assert.ok(await jobRowsBecome(recipe, 0), 'every job (three batches of 200 jobs)');
    assert.equal(await lineRows(ids), 0, 'every line');
    for (const table of ['job_lines', 'job_line_sets'] as const) {
      const row = await t.ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('job_id', 'in', ids)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 0, `no row left in ${table}`);
    }
  });
});

describe('job retention on close', () => {
  test('the sweep stops when the app closes: nothing is deleted afterwards, and the close does not fail', async () => {
    const own = manualClock('2026-03-01T08:00:00.000Z');
    const app = await createTestApp({ clock: own, env: { JOB_RETENTION_HOURS: '1', JOBS_SWEEP_INTERVAL_MS: '10' } });
    const recipe = await createRecipe(app, webhookTrigger([log('x', 'x')]));
    await app.ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 2000; i++) await insertJob(trx, finishedJob(recipe, own.now()));
    });
    const count = async () =>
      Number(
        (
          await app.ctx.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('recipe_id', '=', recipe)
            .executeTakeFirstOrThrow()
        ).n,
      );
    own.advance(2 * HOUR);
    // Close while the sweep may be running: it ends after its current statement.
    await new Promise((resolve) => setTimeout(resolve, 15));
    await app.app.close();
    const left = await count();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await count(), left, 'no sweep after close');
    await app.ctx.db.destroy();
  });
});

describe('job retention settings', () => {
  test('a bad JOB_RETENTION_HOURS stops the start with a message naming it (exit 2)', async () => {
    for (const [name, value] of [
      ['JOB_RETENTION_HOURS', 'forever'],
      ['JOB_RETENTION_HOURS', '0'],
      ['JOBS_SWEEP_INTERVAL_MS', '5'],
    ] as const) {
      const child = spawnServe({
        DATA_DIR: '/nonexistent-test-data-dir',
        PORT: '0',
        LOG_LEVEL: 'silent',
        [name]: value,
      });
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 2, `${name}=${value}: ${stderr}`);
      assert.match(stderr, new RegExp(`${name} must be`));
    }
  });
});
