// The ends of several jobs recorded together (recordJobEnds): lines, states, each recipe's counters
// summed, and the successors' claims handed out in order; the same on both databases.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { log, webhookRecipe } from '../../../test/recipes.ts';
import { toStored } from '../../time.ts';
import { insertJob, newJobHandle, recordJobEnds, type JobEndAndClaim } from './jobs.store.ts';
import type { JobLineRow } from '../../db/types.ts';

let t: TestApp;
before(async () => { t = await createTestApp(); });
after(() => t.close());

test('several ends in one call: every line and state is written, counters add up, and each asking end gets the next queued job in order', async () => {
  // The recipe is stopped once created, so the engine claims nothing itself.
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')], { concurrency: 10 });
  assert.equal((await t.call('PUT', `/api/recipes/${recipeId}/stop`)).status, 200);
  const stamp = toStored(t.ctx.clock.now());
  const job = (status: 'running' | 'queued') => insertJob(t.ctx.db, {
    recipe_id: recipeId, handle: newJobHandle(), status, title: 't', trigger_output: '{}', error: null, error_parts: null, is_poll_error: 0, is_repeat: 0, is_test: 0,
    master_job_handle: null, calling_recipe_id: null, calling_job_handle: null, root_recipe_id: null, root_job_handle: null, task_count: 0,
    created_at: stamp, started_at: stamp, completed_at: null,
  });
  const running = [await job('running'), await job('running'), await job('running')];
  const queued = [await job('queued'), await job('queued')];
  // Claims are made only for a running recipe.
  await t.ctx.db.updateTable('recipes').set({ running: 1 }).where('id', '=', recipeId).execute();
  const line = (jobId: number, seq: number): JobLineRow => ({
    job_id: jobId, seq, recipe_line_number: seq, adapter_name: 'logger', adapter_operation: 'log_message', pass: null, input: `{"q":"it's \\"quoted\\" {x}"}`, output: null,
    error: null, mask_data: 0, started_at: stamp, completed_at: stamp,
  });
  const claim = { recipeId, now: stamp, node: t.ctx.nodeId, leaseUntil: toStored(new Date(t.ctx.clock.now().getTime() + 60_000)) };
  const items: JobEndAndClaim[] = running.map((id, i) => ({
    end: {
      id, lines: [line(id, 0), line(id, 1)],
      result: { status: i === 1 ? 'failed' : 'succeeded', error: i === 1 ? 'boom' : null, error_parts: null, completed_at: stamp, task_count: 2 },
      counters: { recipeId, succeeded: i !== 1, taskCount: 2, lastRunAt: `2026-01-0${i + 1}T00:00:00.000Z` },
    },
    successor: claim,
  }));
  const results = await t.ctx.db.transaction().execute((trx) => recordJobEnds(trx, items));
  assert.deepEqual(results.map((r) => r.jobs.map((j) => j.id)), [[queued[0]], [queued[1]], []]);
  assert.ok(results.every((r) => !r.contended));
  const rows = await t.ctx.db.selectFrom('jobs').select(['id', 'status', 'error']).where('recipe_id', '=', recipeId).orderBy('id').execute();
  assert.deepEqual(rows.map((r) => r.status), ['succeeded', 'failed', 'succeeded', 'running', 'running']);
  assert.equal(rows[1]!.error, 'boom');
  const lines = await t.ctx.db.selectFrom('job_lines').select(['job_id', 'input']).where('job_id', 'in', running).orderBy('job_id').orderBy('seq').execute();
  assert.equal(lines.length, 6);
  assert.ok(lines.every((l) => l.input === `{"q":"it's \\"quoted\\" {x}"}`), 'text arrives as it was');
  const recipe = await t.ctx.db.selectFrom('recipes').select(['job_succeeded_count', 'job_failed_count', 'lifetime_task_count', 'last_run_at']).where('id', '=', recipeId).executeTakeFirstOrThrow();
  assert.deepEqual({ ...recipe }, { job_succeeded_count: 2, job_failed_count: 1, lifetime_task_count: 6, last_run_at: '2026-01-03T00:00:00.000Z' });
});
