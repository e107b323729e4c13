// The ends of several jobs recorded together (recordJobEnds): lines, states, each recipe's counters
// summed, and the successors' claims handed out in order; the same on both databases.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { log, webhookRecipe } from '../../../test/recipes.ts';
import { toStored } from '../../time.ts';
import { jobRow } from '../../../test/job-rows.ts';
import { insertJob, insertJobs } from './queue.store.ts';
import { recentFailedJobsQuery } from './jobs.store.ts';
import { recordJobEnds, recordJobEndsAlone, type JobEndAndClaim } from './job-ends.store.ts';
import type { JobLineRow } from '../../db/types.ts';
import { ADVISORY_LOCKS, runsStoredFunctions, tryTransactionLock } from '../../db/dialect.ts';
import { findRecipeJobCounts, foldJobCounts } from '../recipes/job-counts.store.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
  // The tests write jobs' rows and mark recipes running directly, and claim with the stores: the
  // engine is stopped once the app is ready, so no dispatcher of its own (it looks for queued jobs
  // of running recipes every few milliseconds) claims those jobs or holds a recipe's claim lock.
  await t.app.ready();
  await t.engine.close();
});
after(() => t.close());

test('several ends in one call: every line and state is written, counters add up, and each asking end gets the next queued job in order', async () => {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')], { concurrency: 10 });
  assert.equal((await t.call('PUT', `/api/recipes/${recipeId}/stop`)).status, 200);
  const stamp = toStored(t.ctx.clock.now());
  const job = (status: 'running' | 'queued', resumed?: { claimed_by: string; started_at: string }) =>
    insertJob(t.ctx.db, jobRow(recipeId, { status, title: 't', created_at: stamp, started_at: stamp, ...resumed }));
  const running = [await job('running'), await job('running'), await job('running')];
  // The second queued job ran before and waited for a workflow task: it keeps the time it started.
  const firstStart = '2025-12-31T23:00:00.000Z';
  const queued = [await job('queued'), await job('queued', { claimed_by: t.ctx.nodeId, started_at: firstStart })];
  // Claims are made only for a running recipe.
  await t.ctx.db.updateTable('recipes').set({ running: 1 }).where('id', '=', recipeId).execute();
  const line = (jobId: number, seq: number): JobLineRow => ({
    job_id: jobId,
    seq,
    recipe_line_number: seq,
    adapter_name: 'logger',
    adapter_operation: 'log_message',
    pass: null,
    input: `{"q":"it's \\"quoted\\" {x}"}`,
    output: null,
    error: null,
    mask_data: 0,
    started_at: stamp,
    completed_at: stamp,
  });
  const claim = {
    recipeId,
    now: stamp,
    node: t.ctx.nodeId,
    leaseUntil: toStored(new Date(t.ctx.clock.now().getTime() + 60_000)),
  };
  const items: JobEndAndClaim[] = running.map((id, i) => ({
    end: {
      id,
      lines: [line(id, 0), line(id, 1)],
      result: {
        status: i === 1 ? 'failed' : 'succeeded',
        error: i === 1 ? 'boom' : null,
        error_parts: null,
        completed_at: stamp,
        task_count: 2,
      },
      counters: { recipeId, succeeded: i !== 1, taskCount: 2, lastRunAt: `2026-01-0${i + 1}T00:00:00.000Z` },
    },
    successor: claim,
  }));
  const results = await t.ctx.db.transaction().execute((trx) => recordJobEnds(trx, items));
  assert.deepEqual(
    results.map((r) => r.jobs.map((j) => j.id)),
    [[queued[0]], [queued[1]], []],
  );
  assert.ok(results.every((r) => !r.contended));
  assert.deepEqual(
    results.map((r) => r.jobs.map((j) => j.started_at)),
    [[stamp], [firstStart], []],
    'a first claim starts the job; a job claimed again keeps its start',
  );
  const rows = await t.ctx.db
    .selectFrom('jobs')
    .select(['id', 'status', 'error'])
    .where('recipe_id', '=', recipeId)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    rows.map((r) => r.status),
    ['succeeded', 'failed', 'succeeded', 'running', 'running'],
  );
  assert.equal(rows[1]!.error, 'boom');
  const lines = await t.ctx.db
    .selectFrom('job_line_rows')
    .select(['job_id', 'input'])
    .where('job_id', 'in', running)
    .orderBy('job_id')
    .orderBy('seq')
    .execute();
  assert.equal(lines.length, 6);
  assert.ok(
    lines.every((l) => l.input === `{"q":"it's \\"quoted\\" {x}"}`),
    'text arrives as it was',
  );
  const counted = {
    job_succeeded_count: 2,
    job_failed_count: 1,
    lifetime_task_count: 6,
    last_run_at: '2026-01-03T00:00:00.000Z',
  };
  assert.deepEqual(await findRecipeJobCounts(t.ctx.db, recipeId), counted);
  // Folded into the recipe's row, the counts stay what they were, and no appended row is left.
  assert.ok((await foldJobCounts(t.ctx.db, 1_000)) >= 1);
  assert.deepEqual(await findRecipeJobCounts(t.ctx.db, recipeId), counted);
  const row = await t.ctx.db
    .selectFrom('recipes')
    .select(['job_succeeded_count', 'job_failed_count', 'lifetime_task_count', 'last_run_at'])
    .where('id', '=', recipeId)
    .executeTakeFirstOrThrow();
  assert.deepEqual({ ...row }, counted);
  const left = await t.ctx.db.selectFrom('recipe_job_counts').select('id').where('recipe_id', '=', recipeId).execute();
  assert.deepEqual(left, []);
});

/** A stopped recipe of `concurrency` with jobs in the states given, marked running for claims; the jobs' ids. */
async function recipeWithJobs(
  concurrency: number,
  states: Array<'running' | 'queued'>,
): Promise<{ recipeId: number; ids: number[]; stamp: string }> {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')], { concurrency });
  assert.equal((await t.call('PUT', `/api/recipes/${recipeId}/stop`)).status, 200);
  const stamp = toStored(t.ctx.clock.now());
  const ids: number[] = [];
  for (const status of states) {
    ids.push(await insertJob(t.ctx.db, jobRow(recipeId, { status, title: 't', created_at: stamp, started_at: stamp })));
  }
  await t.ctx.db.updateTable('recipes').set({ running: 1 }).where('id', '=', recipeId).execute();
  return { recipeId, ids, stamp };
}

function endOf(id: number, recipeId: number, stamp: string, successor: JobEndAndClaim['successor']): JobEndAndClaim {
  const line = (seq: number): JobLineRow => ({
    job_id: id,
    seq,
    recipe_line_number: seq,
    adapter_name: 'logger',
    adapter_operation: 'log_message',
    pass: null,
    input: '{}',
    output: null,
    error: null,
    mask_data: 0,
    started_at: stamp,
    completed_at: stamp,
  });
  return {
    end: {
      id,
      lines: [line(0), line(1), line(2)],
      result: { status: 'succeeded', error: null, error_parts: null, completed_at: stamp, task_count: 1 },
      counters: { recipeId, succeeded: true, taskCount: 1, lastRunAt: stamp },
    },
    successor,
  };
}

test('ends recorded in statements of their own, several at once, never run more of a recipe than its concurrency nor claim a job twice', async () => {
  // Three running (the concurrency), six queued: four ends in two calls at once, each asking for
  // two successors; every end frees one place, so four successors at most, never five.
  const { recipeId, ids, stamp } = await recipeWithJobs(3, [
    'running',
    'running',
    'running',
    'queued',
    'queued',
    'queued',
    'queued',
    'queued',
    'queued',
  ]);
  const claim = {
    recipeId,
    now: stamp,
    node: t.ctx.nodeId,
    leaseUntil: toStored(new Date(t.ctx.clock.now().getTime() + 60_000)),
  };
  const first = [endOf(ids[0]!, recipeId, stamp, claim), endOf(ids[1]!, recipeId, stamp, claim)];
  const second = [endOf(ids[2]!, recipeId, stamp, claim), endOf(ids[3]!, recipeId, stamp, claim)];
  // ids[3] is queued: mark it running as if claimed before, so the four ends are four running jobs.
  await t.ctx.db.updateTable('jobs').set({ status: 'running' }).where('id', '=', ids[3]!).execute();
  await t.ctx.db.updateTable('recipes').set({ concurrency: 4 }).where('id', '=', recipeId).execute();
  const alone = (items: JobEndAndClaim[]) =>
    recordJobEndsAlone(t.ctx.db, items) ?? t.ctx.db.transaction().execute((trx) => recordJobEnds(trx, items));
  const results = (await Promise.all([alone(first), alone(second)])).flat();
  const claimed = results.flatMap((r) => r.jobs.map((j) => j.id)).sort((a, b) => a - b);
  // A call that met the other one's claim lock hands on nothing and says so (its places go back
  // to the dispatcher); whatever was claimed is the oldest queued jobs, each once.
  assert.ok(claimed.length >= 2, 'one call at least claimed');
  assert.deepEqual(claimed, ids.slice(4, 4 + claimed.length), 'the oldest queued jobs, each once');
  assert.ok(
    results.every((r) => r.jobs.length === 1 || r.contended),
    'an end without a successor met a contended claim',
  );
  const states = await t.ctx.db
    .selectFrom('jobs')
    .select(['status'])
    .where('recipe_id', '=', recipeId)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    states.slice(0, 4).map((r) => r.status),
    ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
  );
  assert.deepEqual(
    states.slice(4).map((r) => r.status),
    ids.slice(4).map((id) => (claimed.includes(id) ? 'running' : 'queued')),
  );
  assert.equal((await findRecipeJobCounts(t.ctx.db, recipeId))?.job_succeeded_count, 4);
  const lines = await t.ctx.db
    .selectFrom('job_line_rows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('job_id', 'in', ids.slice(0, 4))
    .executeTakeFirstOrThrow();
  assert.equal(Number(lines.n), 12);
});

test('ends whose recipe another transaction is claiming for hand on the places they free, and no more', async (c) => {
  // The claim lock is PostgreSQL's (one claim at a time per recipe across nodes); SQLite's one
  // writer runs one transaction at a time, so its ends always claim as the dispatcher does.
  if (!runsStoredFunctions(t.ctx.db)) return c.skip('PostgreSQL only: SQLite claims one transaction at a time');
  const { recipeId, ids, stamp } = await recipeWithJobs(3, [
    'running',
    'running',
    'running',
    'queued',
    'queued',
    'queued',
    'queued',
  ]);
  const claim = {
    recipeId,
    now: stamp,
    node: t.ctx.nodeId,
    leaseUntil: toStored(new Date(t.ctx.clock.now().getTime() + 60_000)),
  };
  const record = (items: JobEndAndClaim[]) => recordJobEndsAlone(t.ctx.db, items)!;
  const statuses = async () =>
    (await t.ctx.db.selectFrom('jobs').select('status').where('recipe_id', '=', recipeId).orderBy('id').execute()).map(
      (r) => r.status,
    );
  await t.ctx.db.transaction().execute(async (other) => {
    assert.equal(await tryTransactionLock(other, ADVISORY_LOCKS.recipeClaims, recipeId), true);
    // Two running jobs end: each hands its place to the oldest queued job.
    const handed = await record([endOf(ids[0]!, recipeId, stamp, claim), endOf(ids[1]!, recipeId, stamp, claim)]);
    assert.deepEqual(
      handed.map((r) => r.jobs.map((j) => j.id)),
      [[ids[3]], [ids[4]]],
    );
    assert.deepEqual(
      handed.map((r) => r.contended),
      [false, false],
    );
    assert.deepEqual(await statuses(), ['succeeded', 'succeeded', 'running', 'running', 'running', 'queued', 'queued']);
    // The concurrency lowered to 1 with three running: an end frees its place and hands on none.
    await t.ctx.db.updateTable('recipes').set({ concurrency: 1 }).where('id', '=', recipeId).execute();
    const lowered = await record([endOf(ids[2]!, recipeId, stamp, claim)]);
    assert.deepEqual(lowered, [{ jobs: [], contended: true }]);
    // The end of a job that was not running (queued again, its place freed already) hands on none.
    await t.ctx.db.updateTable('recipes').set({ concurrency: 10 }).where('id', '=', recipeId).execute();
    const notRunning = await record([endOf(ids[5]!, recipeId, stamp, claim)]);
    assert.deepEqual(notRunning, [{ jobs: [], contended: true }]);
    assert.deepEqual(await statuses(), [
      'succeeded',
      'succeeded',
      'succeeded',
      'running',
      'running',
      'succeeded',
      'queued',
    ]);
  });
  assert.equal((await findRecipeJobCounts(t.ctx.db, recipeId))?.job_succeeded_count, 4);
});

test("a claim from an ending job's id takes the queued jobs from it first, and those below it only to fill its places (PostgreSQL; SQLite takes the oldest)", async () => {
  // ids[0] is queued below the running jobs (queued again after its workflow task, say).
  const { recipeId, ids, stamp } = await recipeWithJobs(10, [
    'queued',
    'running',
    'running',
    'running',
    'queued',
    'queued',
  ]);
  const from = (id: number) => ({
    recipeId,
    now: stamp,
    node: t.ctx.nodeId,
    leaseUntil: toStored(new Date(t.ctx.clock.now().getTime() + 60_000)),
    from: id,
  });
  const record = (items: JobEndAndClaim[]) => t.ctx.db.transaction().execute((trx) => recordJobEnds(trx, items));
  const fromIds = runsStoredFunctions(t.ctx.db);
  const first = await record([
    endOf(ids[1]!, recipeId, stamp, from(ids[1]!)),
    endOf(ids[2]!, recipeId, stamp, from(ids[2]!)),
  ]);
  assert.deepEqual(
    first.map((r) => r.jobs.map((j) => j.id)),
    fromIds ? [[ids[4]], [ids[5]]] : [[ids[0]], [ids[4]]],
  );
  // Nothing is queued from ids[3] up any more: the job below it fills the place.
  const second = await record([endOf(ids[3]!, recipeId, stamp, from(ids[3]!))]);
  assert.deepEqual(
    second.map((r) => r.jobs.map((j) => j.id)),
    fromIds ? [[ids[0]]] : [[ids[5]]],
  );
  const statuses = await t.ctx.db
    .selectFrom('jobs')
    .select('status')
    .where('recipe_id', '=', recipeId)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    statuses.map((r) => r.status),
    ['running', 'succeeded', 'succeeded', 'succeeded', 'running', 'running'],
  );
});

test('lines go with their job: deleting jobs, or their recipe, deletes their lines; a job deleted already keeps none', async () => {
  const { recipeId, ids, stamp } = await recipeWithJobs(5, ['running', 'running', 'running']);
  const countLines = async (jobIds: number[]) =>
    Number(
      (
        await t.ctx.db
          .selectFrom('job_line_rows')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('job_id', 'in', jobIds)
          .executeTakeFirstOrThrow()
      ).n,
    );
  await t.ctx.db.transaction().execute((trx) =>
    recordJobEnds(
      trx,
      ids.map((id) => endOf(id, recipeId, stamp, null)),
    ),
  );
  assert.equal(await countLines(ids), 9);
  await t.ctx.db.deleteFrom('jobs').where('id', '=', ids[0]!).execute();
  assert.equal(await countLines([ids[0]!]), 0, 'a deleted job leaves no line');
  assert.equal(await countLines(ids.slice(1)), 6, 'the other jobs keep theirs');
  // The end of a job deleted meanwhile (its recipe deleted while it ran) writes no line.
  const gone = await recipeWithJobs(5, ['running']);
  await t.ctx.db.deleteFrom('jobs').where('id', '=', gone.ids[0]!).execute();
  await t.ctx.db
    .transaction()
    .execute((trx) => recordJobEnds(trx, [endOf(gone.ids[0]!, gone.recipeId, stamp, null)]))
    .catch(() => undefined);
  assert.equal(await countLines(gone.ids), 0);
  // Deleting the (stopped) recipe deletes its jobs, and their lines with them.
  await t.ctx.db.updateTable('recipes').set({ running: 0 }).where('id', '=', recipeId).execute();
  const deleted = await t.call('DELETE', `/api/recipes/${recipeId}`);
  assert.deepEqual([deleted.status, deleted.body], [200, { success: true }]);
  assert.equal(await countLines(ids), 0);
});

test('the recipe version a job ran: stored with it (one insert, or many in one statement), written again by its end when given', async () => {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')]);
  assert.equal((await t.call('PUT', `/api/recipes/${recipeId}/stop`)).status, 200);
  const stamp = toStored(t.ctx.clock.now());
  const row = (version: number | null) =>
    jobRow(recipeId, {
      status: 'running',
      title: 't',
      created_at: stamp,
      started_at: stamp,
      recipe_version_no: version,
    });
  const [a, b, c] = await insertJobs(t.ctx.db, [row(1), row(1), row(null)]);
  const single = await insertJob(t.ctx.db, row(2));
  const versions = async () =>
    Object.fromEntries(
      (
        await t.ctx.db
          .selectFrom('jobs')
          .select(['id', 'recipe_version_no'])
          .where('id', 'in', [a!, b!, c!, single])
          .execute()
      ).map((r) => [r.id, r.recipe_version_no]),
    );
  assert.deepEqual(await versions(), { [a!]: 1, [b!]: 1, [c!]: null, [single]: 2 });
  const end = (id: number, version?: number): JobEndAndClaim => ({
    end: {
      id,
      lines: [],
      result: {
        status: 'succeeded',
        error: null,
        error_parts: null,
        completed_at: stamp,
        task_count: 1,
        ...(version === undefined ? {} : { recipe_version_no: version }),
      },
      counters: null,
    },
    successor: null,
  });
  // Batched (PostgreSQL: one call of the stored function) and alone (recordJobEnd).
  await t.ctx.db.transaction().execute((trx) => recordJobEnds(trx, [end(a!, 3), end(b!), end(c!, 4)]));
  await t.ctx.db.transaction().execute((trx) => recordJobEnds(trx, [end(single, 5)]));
  assert.deepEqual(await versions(), { [a!]: 3, [b!]: 1, [c!]: 4, [single]: 5 });
});

test('PostgreSQL: the ends function runs its statements on generic plans, planned once per connection rather than at every call', async (c) => {
  if (!runsStoredFunctions(t.ctx.db)) return c.skip('PostgreSQL only: SQLite runs no stored function');
  const { rows } = await sql<{ proconfig: string[] }>`select proconfig from pg_proc
      where proname = 'switchboard_job_ends_9'`.execute(t.ctx.db);
  assert.equal(rows.length, 1);
  assert.ok(rows[0]!.proconfig.includes('plan_cache_mode=force_generic_plan'), String(rows[0]!.proconfig));
  assert.ok(rows[0]!.proconfig.includes('enable_seqscan=off'), 'its other setting is kept');
});

test('PostgreSQL: jobs_failed_completed holds failed jobs only, so a job writes it no entry until it fails', async (c) => {
  if (!runsStoredFunctions(t.ctx.db)) return c.skip('PostgreSQL only: SQLite keeps the full index');
  const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes
      where tablename = 'jobs' and indexname = 'jobs_failed_completed'`.execute(t.ctx.db);
  assert.equal(rows.length, 1);
  assert.match(rows[0]!.indexdef, /\(completed_at\) WHERE \(\(status\)::text = 'failed'::text\)$/);
  // The console's latest failed jobs read it from the newest, also on the plan PostgreSQL makes once
  // for any parameters (a statement run often): their status is a literal.
  const query = recentFailedJobsQuery(t.ctx.db, 1, null, 10).compile();
  const plan = await t.ctx.db.connection().execute(async (c) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(c);
    await sql`set enable_seqscan = off`.execute(c);
    try {
      await sql.raw(`prepare failed_jobs as ${query.sql}`).execute(c);
      const args = query.parameters.map((value) => sql.lit(value as number));
      const explained = await sql<Record<string, string>>`explain execute failed_jobs(${sql.join(args)})`.execute(c);
      await sql`deallocate failed_jobs`.execute(c);
      return explained.rows.map((row) => Object.values(row)[0]).join('\n');
    } finally {
      await sql`reset plan_cache_mode`.execute(c);
      await sql`reset enable_seqscan`.execute(c);
    }
  });
  assert.match(plan, /Index Scan Backward using jobs_failed_completed on jobs/, plan);
  assert.doesNotMatch(plan, /Sort/, plan);
});
