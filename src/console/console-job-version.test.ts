// A job's page reads its control steps (IF, ELSE IF, repeat) from the recipe version the job ran:
// the job records that version (migration 0076), so a recipe edited afterwards does not change what
// an older job's page says; a job stored before versions were recorded reads the current one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, waitFor, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { condition, dp, log, numbered, webhookRecipe, webhookTrigger } from '../../test/recipes.ts';
import { jobRow } from '../../test/job-rows.ts';
import { insertJob } from '../api/jobs/queue.store.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let recipe: { id: number; path: string };

/** IF <coupon>.upcase = <rhs>: a payload without a coupon fails at the IF (nil has no upcase), so the IF has a line. */
const code = (rhs: string) =>
  webhookTrigger([
    {
      keyword: 'if',
      input: condition('equals_to', `=${dp('workato_webhooks', 'hook', 'payload', 'coupon')}.upcase`, rhs),
      block: [log('yes', 'a coupon')],
    },
  ]);

async function fireJob(): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: recipe.path, payload: { total: 1200 } });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const job = await t.ctx.db
    .selectFrom('jobs')
    .select('handle')
    .where('recipe_id', '=', recipe.id)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return job.handle;
}

const versionOf = async (handle: string) =>
  (await t.ctx.db.selectFrom('jobs').select('recipe_version_no').where('handle', '=', handle).executeTakeFirstOrThrow())
    .recipe_version_no;
const ifLine = (body: string) => /<h3><span class="step-no">1<\/span> ([^<]*)<\/h3>/.exec(body)?.[1];

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  recipe = await webhookRecipe(t, code('SPRING').block as never, { name: 'Coupons' });
});
after(async () => t.close());

describe('GET /console/recipes/:id/jobs/:handle: control steps from the version the job ran', () => {
  test('an IF reads with its condition; after the recipe is edited, the older job keeps its own', async () => {
    const first = await fireJob();
    assert.equal(await versionOf(first), 1);
    const page = await admin.get(`/console/recipes/${recipe.id}/jobs/${first}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(ifLine(page.body), 'IF coupon.upcase = SPRING');
    assert.match(page.body, /<dt>Recipe version<\/dt><dd>1<\/dd>/);

    // Version 2 changes the condition.
    assert.equal((await t.call('PUT', `/api/recipes/${recipe.id}/stop`)).status, 200);
    const put = await t.call('PUT', `/api/recipes/${recipe.id}`, {
      body: { recipe: { code: JSON.stringify(numbered(code('FALL'))) } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal((await t.call('PUT', `/api/recipes/${recipe.id}/start`)).status, 200);
    const second = await fireJob();
    assert.equal(await versionOf(second), 2);
    assert.equal(
      ifLine((await admin.get(`/console/recipes/${recipe.id}/jobs/${second}`)).body),
      'IF coupon.upcase = FALL',
    );
    const older = await admin.get(`/console/recipes/${recipe.id}/jobs/${first}`);
    assert.equal(ifLine(older.body), 'IF coupon.upcase = SPRING', "the older job's own version");
    assert.match(older.body, /<dt>Recipe version<\/dt><dd>1<\/dd>/);

    // A job stored before versions were recorded reads the current version, and says so.
    await t.ctx.db.updateTable('jobs').set({ recipe_version_no: null }).where('handle', '=', first).execute();
    const legacy = await admin.get(`/console/recipes/${recipe.id}/jobs/${first}`);
    assert.equal(ifLine(legacy.body), 'IF coupon.upcase = FALL');
    assert.match(
      legacy.body,
      /<dt>Recipe version<\/dt><dd>2 <span class="muted small">\(the current one: this job did not record its own\)<\/span><\/dd>/,
    );
  });

  test('a job queued under one version and run under the next records the one it ran', async () => {
    assert.equal((await t.call('PUT', `/api/recipes/${recipe.id}/stop`)).status, 200);
    const current = (await t.call('GET', `/api/recipes/${recipe.id}`)).body.version_no as number;
    // Queued while the recipe stood at an older version (its queued jobs wait while it is stopped).
    const id = await insertJob(
      t.ctx.db,
      jobRow(recipe.id, { trigger_output: '{"payload":{"total":1}}', recipe_version_no: current - 1 }),
    );
    assert.equal((await t.call('PUT', `/api/recipes/${recipe.id}/start`)).status, 200);
    const ran = await waitFor(
      () =>
        t.ctx.db
          .selectFrom('jobs')
          .select(['status', 'recipe_version_no'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow(),
      (row) => row.status !== 'queued' && row.status !== 'running',
      'the queued job to run',
    );
    assert.equal(ran.recipe_version_no, current);
  });

  test('the public job API shows no recipe version (the contract has no such field)', async () => {
    const jobs = await t.call('GET', `/api/recipes/${recipe.id}/jobs`);
    assert.equal(jobs.status, 200);
    assert.ok(jobs.body.items.length > 0);
    for (const job of jobs.body.items)
      assert.equal(
        Object.keys(job).some((k) => /version/.test(k)),
        false,
      );
  });
});
