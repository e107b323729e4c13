// A job's lines are stored as one row per recording (job_line_sets, migration 0083) and read back
// as lines (the view job_line_rows), together with lines stored one row each before 0083
// (job_lines): the same on both databases, every field as it was written.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { jobRow } from '../../../test/job-rows.ts';
import { log, webhookRecipe } from '../../../test/recipes.ts';
import { runsStoredFunctions } from '../../db/dialect.ts';
import type { JobLineRow } from '../../db/types.ts';
import { toStored } from '../../time.ts';
import { recordJobEnds } from './job-ends.store.ts';
import { listLines } from './jobs.store.ts';
import { insertJob, insertLines, LINE_SET_MAX_CHARS, lineSets } from './queue.store.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
  await t.app.ready();
  await t.engine.close();
});
after(() => t.close());

function line(jobId: number, seq: number, values: Partial<JobLineRow> = {}): JobLineRow {
  return {
    job_id: jobId,
    seq,
    recipe_line_number: seq + 1,
    adapter_name: 'logger',
    adapter_operation: 'log_message',
    pass: null,
    input: `{"message":"line ${seq}"}`,
    output: '{}',
    error: null,
    mask_data: 0,
    started_at: '2026-03-01T08:00:00.000Z',
    completed_at: '2026-03-01T08:00:00.250Z',
    ...values,
  };
}

/** A job's end with these lines, recorded as the engine records it (on PostgreSQL, the stored function). */
async function endJob(
  recipeId: number,
  jobId: number,
  lines: JobLineRow[],
  status: 'succeeded' | 'failed',
): Promise<void> {
  await endJobs(recipeId, [{ jobId, lines }], status);
}

/** The ends of these jobs, recorded together (on PostgreSQL, one call of the stored function). */
async function endJobs(
  recipeId: number,
  jobs: Array<{ jobId: number; lines: JobLineRow[] }>,
  status: 'succeeded' | 'failed',
): Promise<void> {
  const stamp = toStored(t.ctx.clock.now());
  const failed = status === 'failed';
  await t.ctx.db.transaction().execute((trx) =>
    recordJobEnds(
      trx,
      jobs.map(({ jobId, lines }) => ({
        end: {
          id: jobId,
          lines,
          result: {
            status,
            error: failed ? 'Timed out' : null,
            error_parts: null,
            completed_at: stamp,
            task_count: lines.length,
          },
          counters: { recipeId, succeeded: !failed, taskCount: lines.length, lastRunAt: stamp },
        },
        successor: null,
      })),
    ),
  );
}

/** The seq of each row of job_line_sets of a job, in order. */
async function setSeqs(jobId: number): Promise<number[]> {
  const rows = await t.ctx.db
    .selectFrom('job_line_sets')
    .select('seq')
    .where('job_id', '=', jobId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => row.seq);
}

test('lineSets: each run of one job’s lines is one row at its first seq, the fields in a fixed order', () => {
  const sets = lineSets([line(7, 0), line(7, 1), line(8, 4, { pass: 2, mask_data: 1, error: 'x' })]);
  assert.deepEqual(
    sets.map((set) => [set.job_id, set.seq]),
    [
      [7, 0],
      [8, 4],
    ],
  );
  assert.deepEqual(JSON.parse(sets[1]!.lines), [
    [
      4,
      5,
      'logger',
      'log_message',
      2,
      '{"message":"line 4"}',
      '{}',
      'x',
      1,
      '2026-03-01T08:00:00.000Z',
      '2026-03-01T08:00:00.250Z',
    ],
  ]);
  assert.deepEqual(lineSets([]), []);
});

test('a job’s lines stored before migration 0083, at a workflow task’s stop and at its end read back in order, every field as written; GET of the job lists them', async () => {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')]);
  const stamp = toStored(t.ctx.clock.now());
  const jobId = await insertJob(
    t.ctx.db,
    jobRow(recipeId, { status: 'running', created_at: stamp, started_at: stamp }),
  );
  const tricky = `{"q":"it's \\"quoted\\", {x} [y] \\\\ ü 日本 \\u0001","n":null}`;
  const written = [
    // Stored one row each, as before migration 0083 (or by a node of the older version).
    line(jobId, 0, { recipe_line_number: 0, adapter_name: 'workato_webhooks', adapter_operation: 'new_event' }),
    line(jobId, 1, { pass: 0, input: tricky, output: null }),
    // At a workflow task's stop (insertLines).
    line(jobId, 2, { pass: 1, mask_data: 1, input: null, output: tricky }),
    line(jobId, 3, { error: 'Timed out,\n"twice"', output: null }),
    // At the job's end (recordJobEnds: on PostgreSQL, its stored function).
    line(jobId, 4, { recipe_line_number: 12, input: '', output: 'x'.repeat(20_000) }),
    line(jobId, 5),
  ];
  for (const row of written.slice(0, 2)) await t.ctx.db.insertInto('job_lines').values(row).execute();
  await t.ctx.db.transaction().execute((trx) => insertLines(trx, written.slice(2, 4)));
  await endJob(recipeId, jobId, written.slice(4), 'failed');
  assert.deepEqual(await setSeqs(jobId), [2, 4], 'one row for each recording');
  assert.deepEqual(
    (await listLines(t.ctx.db, jobId)).map((row) => ({ ...row, job_id: Number(row.job_id) })),
    written,
  );

  const job = await t.call('GET', `/api/recipes/${recipeId}/jobs/${jobId}`);
  assert.equal(job.status, 200);
  assert.deepEqual(
    job.body.lines.map((l: { recipe_line_number: number; mask_data: boolean; error?: string }) => [
      l.recipe_line_number,
      l.mask_data,
      l.error ?? null,
    ]),
    written.map((l) => [l.recipe_line_number, l.mask_data === 1, l.error]),
  );
});

test('a deleted job’s lines go with it, and lines of a job that no longer exists are not stored', async () => {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')]);
  const jobId = await insertJob(t.ctx.db, jobRow(recipeId, { status: 'running' }));
  await t.ctx.db.insertInto('job_lines').values(line(jobId, 0)).execute();
  await t.ctx.db.transaction().execute((trx) => insertLines(trx, [line(jobId, 1), line(jobId, 2)]));
  assert.equal((await listLines(t.ctx.db, jobId)).length, 3);
  await t.ctx.db.deleteFrom('jobs').where('id', '=', jobId).execute();
  await t.ctx.db
    .transaction()
    .execute((trx) => insertLines(trx, [line(jobId, 0)]))
    .catch(() => undefined);
  assert.deepEqual(await listLines(t.ctx.db, jobId), []);
  const left = await t.ctx.db.selectFrom('job_line_sets').select('seq').where('job_id', '=', jobId).execute();
  assert.deepEqual(left, []);
});

test('a job whose lines are larger than one row takes keeps them in several rows, read back whole and in order', async () => {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')]);
  const stamp = toStored(t.ctx.clock.now());
  const jobId = await insertJob(
    t.ctx.db,
    jobRow(recipeId, { status: 'running', created_at: stamp, started_at: stamp }),
  );
  // Seven lines of 0.4 times a row's size each (a line's input and output are kept up to 100,000
  // characters each; a job keeps up to 5,000 lines): two lines a row.
  const big = (seq: number) => line(jobId, seq, { output: `"${String(seq).repeat(LINE_SET_MAX_CHARS * 0.4)}"` });
  const written = Array.from({ length: 7 }, (_, seq) => big(seq));
  assert.deepEqual(
    lineSets(written).map((set) => set.seq),
    [0, 2, 4, 6],
  );
  assert.ok(lineSets(written).every((set) => set.lines.length <= LINE_SET_MAX_CHARS));
  // A single line larger than a row is a row of its own.
  const huge = line(jobId, 0, { output: 'y'.repeat(LINE_SET_MAX_CHARS + 10) });
  assert.deepEqual(
    lineSets([huge, line(jobId, 1)]).map((set) => set.seq),
    [0, 1],
  );
  await endJob(recipeId, jobId, written, 'succeeded');
  assert.deepEqual(await setSeqs(jobId), [0, 2, 4, 6]);
  assert.deepEqual(
    (await listLines(t.ctx.db, jobId)).map((row) => ({ ...row, job_id: Number(row.job_id) })),
    written,
  );
});

test('lines holding control characters (the unit separator that joins a batch’s line sets among them) read back as written, a NUL as U+FFFD, for every job of a batch', async () => {
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')]);
  const stamp = toStored(t.ctx.clock.now());
  const running = () =>
    insertJob(t.ctx.db, jobRow(recipeId, { status: 'running', created_at: stamp, started_at: stamp }));
  const [a, b, none, stopped] = [await running(), await running(), await running(), await running()];
  const controls = (nul: string) => `unit\u001fseparator \u001e record \u0007 bell \t tab \u001f\u001f end ${nul}`;
  const linesOf = (jobId: number, nul = '\u0000') => [
    line(jobId, 0, { input: controls(nul), output: `{"v":"${controls(nul)}"}` }),
    line(jobId, 1, { error: `\u001f${nul}`, output: null }),
    line(jobId, 2, { input: '\u001f' }),
  ];
  // A task's stop (insertLines), and three ends in one batch, one of them with no line at all.
  await t.ctx.db.transaction().execute((trx) => insertLines(trx, linesOf(stopped)));
  await endJobs(
    recipeId,
    [
      { jobId: a, lines: linesOf(a) },
      { jobId: none, lines: [] },
      { jobId: b, lines: linesOf(b) },
    ],
    'succeeded',
  );
  for (const jobId of [a, b, stopped]) {
    assert.deepEqual(
      (await listLines(t.ctx.db, jobId)).map((row) => ({ ...row, job_id: Number(row.job_id) })),
      linesOf(jobId, '\uFFFD'),
    );
  }
  assert.deepEqual(await listLines(t.ctx.db, none), []);
  const ended = await t.ctx.db.selectFrom('jobs').select('status').where('id', 'in', [a, b, none]).execute();
  assert.deepEqual(
    ended.map((row) => row.status),
    ['succeeded', 'succeeded', 'succeeded'],
  );
});

test('PostgreSQL: a job’s lines are compressed with lz4 where the server has it', async (c) => {
  if (!runsStoredFunctions(t.ctx.db)) return c.skip('PostgreSQL only: SQLite compresses no value');
  const { rows: has } = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings
      where name = 'default_toast_compression'`.execute(t.ctx.db);
  if (has[0]?.lz4 !== true) return c.skip('this PostgreSQL was built without lz4: its default compression is kept');
  const { id: recipeId } = await webhookRecipe(t, [log('a', 'x')]);
  const jobId = await insertJob(t.ctx.db, jobRow(recipeId, { status: 'running' }));
  // Past the size at which PostgreSQL compresses a value (about 2 KB), as a job's lines of a few steps are.
  const lines = Array.from({ length: 14 }, (_, seq) => line(jobId, seq, { output: `{"rows":"${'ab'.repeat(200)}"}` }));
  await endJob(recipeId, jobId, lines, 'succeeded');
  const { rows } = await sql<{ method: string | null }>`select pg_column_compression(lines) as method
      from job_line_sets where job_id = ${jobId}`.execute(t.ctx.db);
  assert.deepEqual(rows, [{ method: 'lz4' }]);
  assert.equal((await listLines(t.ctx.db, jobId)).length, 14);
});
