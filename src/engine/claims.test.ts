// Which queued job an ending job hands its place to. The oldest on SQLite; on PostgreSQL the claim
// starts from the ending job's id and looks at the whole queue once a second for a busy recipe, so
// a job queued below the running ones (queued again after its workflow task) still runs soon.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, waitFor, type TestApp } from '../../test/helpers.ts';
import { createRecipe, log, startRecipe, webhookTrigger } from '../../test/recipes.ts';
import { jobRow } from '../../test/job-rows.ts';
import { insertJob, insertJobs } from '../api/jobs/queue.store.ts';
import { requeueWaitingJob } from '../api/workflow_tasks/workflow_tasks.store.ts';
import type { JobRow } from '../db/types.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test("a job queued again below a busy recipe's running jobs runs while its backlog of younger jobs is still queued", async () => {
  const recipeId = await createRecipe(t, webhookTrigger([log('a', 'x')]), { concurrency: 1 });
  // The oldest job of the recipe waits (for its workflow task, say); 4,000 younger ones are queued.
  const waiting = await insertJob(t.ctx.db, jobRow(recipeId, { status: 'waiting', claimed_by: t.ctx.nodeId }));
  await insertJobs(
    t.ctx.db,
    Array.from({ length: 4000 }, () => jobRow(recipeId)),
  );
  const count = async (status: JobRow['status']) =>
    Number(
      (
        await t.ctx.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('recipe_id', '=', recipeId)
          .where('status', '=', status)
          .executeTakeFirstOrThrow()
      ).n,
    );
  await startRecipe(t, recipeId);
  // Each ending job now hands its place on; then the waiting job is queued again, below them all.
  await waitFor(
    () => count('succeeded'),
    (n) => n >= 20,
    'the first jobs',
  );
  assert.equal(await requeueWaitingJob(t.ctx.db, waiting), true);
  const statusOf = async () =>
    (await t.ctx.db.selectFrom('jobs').select('status').where('id', '=', waiting).executeTakeFirstOrThrow()).status;
  await waitFor(statusOf, (status) => !['waiting', 'queued', 'running'].includes(status), 'the job queued again');
  const left = await count('queued');
  assert.ok(left > 0, 'the job queued again ran only once the younger jobs were done');
  assert.equal((await t.call('PUT', `/api/recipes/${recipeId}/stop`)).status, 200);
});
