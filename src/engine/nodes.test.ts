// Two engines (two nodes) taking jobs from one PostgreSQL database: a recipe's concurrency holds
// across them, every job runs once, and a running job whose node stopped renewing its claim is
// failed Interrupted by the other node once the claim has expired. PostgreSQL only: on SQLite one
// process owns the database and counts its recipes' running jobs itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, webhookRecipe } from '../../test/recipes.ts';
import { postgresOnly } from '../../test/test-database.ts';
import { findRecipeById } from '../api/recipes/recipes.store.ts';
import { insertJob, newJobHandle } from '../api/jobs/queue.store.ts';
import { createServiceContext } from '../context.ts';
import { toStored } from '../time.ts';
import { createEngine, type RecipeEngine } from './engine.ts';

describe('jobs on two nodes sharing the database', { skip: postgresOnly('row locks and leases between nodes') }, () => {
  let t: TestApp;
  let other: RecipeEngine;
  before(async () => {
    // One worker each: a concurrency of 2 is reached only with both nodes running a job.
    t = await createTestApp({ engine: { leaseMs: 1500, workers: 1 } });
    // Another node: its own context (its own node id) over the same database and notifier.
    const ctx = createServiceContext({
      db: t.ctx.db,
      config: t.ctx.config,
      secretBox: t.ctx.secretBox,
      log: t.ctx.log,
      notifier: t.ctx.notifier,
    });
    other = createEngine(ctx, { pollMs: 50, leaseMs: 1500, workers: 1 });
    await other.start();
  });
  after(async () => {
    await other.close(1000);
    await t.close();
  });

  for (const concurrency of [1, 2]) {
    test(`concurrency ${concurrency} holds across both nodes, and every job runs once`, async () => {
      const { id, path } = await webhookRecipe(
        t,
        [action('clock', 'wait_for_interval', 'pause', { interval: '0.03' })],
        { concurrency },
      );
      let runningNow = 0;
      let peak = 0;
      const started: string[] = [];
      const byNode = new Map<RecipeEngine, number>();
      for (const engine of [t.engine, other]) {
        engine.events.on('job.started', (e) => {
          if (e.recipeId !== id) return;
          started.push(e.jobId);
          byNode.set(engine, (byNode.get(engine) ?? 0) + 1);
          peak = Math.max(peak, ++runningNow);
        });
        engine.events.on('job.succeeded', (e) => {
          if (e.recipeId === id) runningNow--;
        });
      }
      for (let n = 0; n < 12; n++)
        assert.equal((await t.app.inject({ method: 'POST', url: path, payload: { n } })).statusCode, 200);
      other.kick();
      await t.engine.idle(20_000);
      await other.idle(20_000);
      if (concurrency === 2) assert.equal(byNode.size, 2, 'both nodes ran jobs of the recipe');
      assert.equal(peak, concurrency, 'never more running at once than the concurrency');
      assert.equal(started.length, 12);
      assert.equal(new Set(started).size, 12, 'no job started twice');
      assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.job_succeeded_count, 12);
    });
  }

  test('a running job whose node stopped renewing its claim is failed Interrupted by the other node', async () => {
    const { id } = await webhookRecipe(t, [action('clock', 'wait_for_interval', 'pause', { interval: '0.01' })]);
    const row = await findRecipeById(t.ctx.db, id);
    assert.ok(row);
    const stamp = toStored(new Date());
    const base = {
      recipe_id: id,
      title: 'left running',
      trigger_output: '{}',
      error: null,
      error_parts: null,
      is_poll_error: 0 as const,
      is_repeat: 0 as const,
      is_test: 0 as const,
      master_job_handle: null,
      calling_recipe_id: null,
      calling_job_handle: null,
      root_recipe_id: null,
      root_job_handle: null,
      task_count: 0,
      created_at: stamp,
      started_at: stamp,
      completed_at: null,
    };
    // A dead node's job, its claim running out in 300 ms; and a live node's, renewed far ahead.
    const deadHandle = newJobHandle();
    await insertJob(t.ctx.db, {
      ...base,
      handle: deadHandle,
      status: 'running',
      claimed_by: 'dead-node/1/0',
      lease_expires_at: toStored(new Date(Date.now() + 300)),
    });
    const liveHandle = newJobHandle();
    await insertJob(t.ctx.db, {
      ...base,
      handle: liveHandle,
      status: 'running',
      claimed_by: 'live-node/2/0',
      lease_expires_at: toStored(new Date(Date.now() + 3_600_000)),
    });
    const statusOf = async (handle: string) =>
      await t.ctx.db
        .selectFrom('jobs')
        .select(['status', 'error_parts'])
        .where('handle', '=', handle)
        .executeTakeFirstOrThrow();
    // Within the claim and a heartbeat (1.5 s lease: a heartbeat every 0.5 s).
    const deadline = Date.now() + 3000;
    while ((await statusOf(deadHandle)).status === 'running') {
      assert.ok(Date.now() < deadline, "the dead node's job was failed within a lease and a heartbeat");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const dead = await statusOf(deadHandle);
    assert.equal(dead.status, 'failed');
    assert.equal(JSON.parse(dead.error_parts ?? '{}').error_type, 'Interrupted');
    assert.equal((await statusOf(liveHandle)).status, 'running', 'a job whose claim holds is left alone');
    assert.equal(
      (await t.call('GET', `/api/recipes/${id}`)).body.job_failed_count,
      1,
      'counted once, though both nodes looked',
    );
    await t.ctx.db.deleteFrom('jobs').where('handle', '=', liveHandle).execute();
  });
});
