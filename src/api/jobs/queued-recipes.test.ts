// The dispatcher's look for work (recipesWithQueuedJobs): the running recipes that have queued
// jobs, each once with its concurrency, in id order; recipes stopped, or whose jobs are all
// running or ended, are not among them. The same on both databases.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { log, webhookRecipe } from '../../../test/recipes.ts';
import { toStored } from '../../time.ts';
import { jobRow } from '../../../test/job-rows.ts';
import { insertJob, recipesWithQueuedJobs } from './queue.store.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
  // Jobs are written directly: the engine is stopped so that no dispatcher claims them.
  await t.app.ready();
  await t.engine.close();
});
after(() => t.close());

test('running recipes with queued jobs, each once with its concurrency, in id order', async () => {
  const stamp = toStored(t.ctx.clock.now());
  const recipe = async (concurrency: number) => (await webhookRecipe(t, [log('a', 'x')], { concurrency })).id;
  const ids = [await recipe(1), await recipe(3), await recipe(2), await recipe(1), await recipe(5)];
  const [many, one, none, stopped, ended] = ids as [number, number, number, number, number];
  const job = (recipeId: number, status: 'queued' | 'running' | 'succeeded') =>
    insertJob(t.ctx.db, jobRow(recipeId, { status, title: 't', created_at: stamp, started_at: stamp }));
  assert.deepEqual(await recipesWithQueuedJobs(t.ctx.db), []);
  // A backlog of one recipe counts it once; running and ended jobs are not work to claim.
  for (let i = 0; i < 30; i++) await job(many, 'queued');
  await job(many, 'running');
  await job(one, 'queued');
  await job(none, 'running');
  await job(stopped, 'queued');
  await job(ended, 'succeeded');
  // Started through the API; one is marked stopped (as a stop leaves its queued jobs).
  await t.ctx.db.updateTable('recipes').set({ running: 0 }).where('id', '=', stopped).execute();
  assert.deepEqual(
    (await recipesWithQueuedJobs(t.ctx.db)).map((r) => ({ ...r })),
    [
      { recipe_id: many, concurrency: 1 },
      { recipe_id: one, concurrency: 3 },
    ],
  );
  // Once the stopped recipe runs, its queued job is found between the others.
  await t.ctx.db.updateTable('recipes').set({ running: 1 }).where('id', '=', stopped).execute();
  assert.deepEqual(
    (await recipesWithQueuedJobs(t.ctx.db)).map((r) => r.recipe_id),
    [many, one, stopped].sort((a, b) => a - b),
  );
  // A recipe that stops keeps its queued jobs but is no longer work for the dispatcher.
  await t.ctx.db.updateTable('recipes').set({ running: 0 }).where('id', '=', many).execute();
  assert.deepEqual(
    (await recipesWithQueuedJobs(t.ctx.db)).map((r) => r.recipe_id),
    [one, stopped].sort((a, b) => a - b),
  );
});
