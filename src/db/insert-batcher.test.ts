// The insert batcher: rows arriving together are written by one statement, each caller settles
// with its own result once that statement committed; a storage failure fails the whole batch, any
// other failure only the rows that fail alone. First with a `write` that records its calls, then
// with the jobs table on the database the tests run on (insertJobs).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { jobRow } from '../../test/job-rows.ts';
import { createRecipe, webhookTrigger } from '../../test/recipes.ts';
import { insertJobs, newJobHandle, type NewJob } from '../api/jobs/queue.store.ts';
import { DatabaseUnreachableError, isUniqueViolation, storageFailureOf } from './dialect.ts';
import { createInsertBatcher } from './insert-batcher.ts';
import type { Database } from './types.ts';

/** A `write` that doubles each row, fails rows below zero, and records every call. */
function recordingWrite(options: { storageFailure?: boolean } = {}) {
  const calls: number[][] = [];
  let inFlight = 0;
  let peak = 0;
  const write = async (_db: Kysely<Database>, rows: readonly number[]): Promise<number[]> => {
    calls.push([...rows]);
    inFlight++;
    peak = Math.max(peak, inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (rows.some((row) => row < 0)) {
        if (options.storageFailure)
          throw new DatabaseUnreachableError(Object.assign(new Error('connection terminated'), { code: 'ECONNRESET' }));
        throw Object.assign(new Error(`row ${rows.find((row) => row < 0)} refused`), { code: '23514' });
      }
      return rows.map((row) => row * 2);
    } finally {
      inFlight--;
    }
  };
  return { write, calls, peak: () => peak };
}

const noDb = undefined as unknown as Kysely<Database>;

describe('createInsertBatcher', () => {
  test('rows inserted in one turn of the event loop are written by one statement; each caller gets its own result', async () => {
    const { write, calls } = recordingWrite();
    const batcher = createInsertBatcher(noDb, write);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => batcher.insert(i)));
    assert.deepEqual(
      results,
      Array.from({ length: 50 }, (_, i) => i * 2),
    );
    assert.deepEqual(calls, [Array.from({ length: 50 }, (_, i) => i)]);
  });

  test('at most maxRows a statement and maxInFlight statements out at once; rows arriving meanwhile wait for the next', async () => {
    const { write, calls, peak } = recordingWrite();
    const batcher = createInsertBatcher(noDb, write, { maxRows: 10, maxInFlight: 2 });
    const results = await Promise.all(Array.from({ length: 45 }, (_, i) => batcher.insert(i)));
    assert.deepEqual(
      results,
      Array.from({ length: 45 }, (_, i) => i * 2),
    );
    assert.deepEqual(
      calls.map((rows) => rows.length),
      [10, 10, 10, 10, 5],
    );
    assert.deepEqual(
      calls.flat(),
      Array.from({ length: 45 }, (_, i) => i),
    );
    assert.equal(peak(), 2);
  });

  test('rows of large values are split so that a statement holds at most maxBytes of them; a larger row goes alone', async () => {
    const { write, calls } = recordingWrite();
    const batcher = createInsertBatcher(noDb, write, { sizeOf: (row) => row, maxBytes: 100 });
    const rows = [40, 40, 40, 150, 10, 90, 5];
    assert.deepEqual(
      await Promise.all(rows.map((row) => batcher.insert(row))),
      rows.map((row) => row * 2),
    );
    assert.deepEqual(calls, [[40, 40], [40], [150], [10, 90], [5]]);
  });

  test('a statement that fails for a row of its own is written again row by row: only that row fails, with its own error', async () => {
    const { write, calls } = recordingWrite();
    const batcher = createInsertBatcher(noDb, write);
    const outcomes = await Promise.allSettled([1, 2, -3, 4].map((row) => batcher.insert(row)));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined)),
      [2, 4, undefined, 8],
    );
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /row -3 refused/);
    assert.deepEqual(calls, [[1, 2, -3, 4], [1], [2], [-3], [4]]);
  });

  test('a storage failure fails every caller of the batch with it, and nothing is written again', async () => {
    const { write, calls } = recordingWrite({ storageFailure: true });
    const batcher = createInsertBatcher(noDb, write);
    const outcomes = await Promise.allSettled([1, -2, 3].map((row) => batcher.insert(row)));
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.equal(storageFailureOf(outcome.reason), 'unreachable');
    }
    assert.deepEqual(calls, [[1, -2, 3]]);
    // The next rows are written as ever.
    assert.deepEqual(await Promise.all([5, 6].map((row) => batcher.insert(row))), [10, 12]);
  });
});

// insertJobs through the batcher, on the database the tests run on: PostgreSQL's one statement
// (unnest of one array per column, ids matched by handle), SQLite's inserts in one transaction.
describe('createInsertBatcher with insertJobs', () => {
  let t: TestApp;
  let recipeId: number;
  before(async () => {
    t = await createTestApp();
    recipeId = await createRecipe(t, webhookTrigger([]));
  });
  after(() => t.close());

  const job = (handle: string, values: Partial<NewJob> = {}): NewJob =>
    jobRow(recipeId, {
      handle,
      title: `job ${handle}`,
      trigger_output: JSON.stringify({ handle, text: 'quotes " \' \\ {braces}, commas, NULL' }),
      created_at: '2026-01-01T00:00:00.000Z',
      started_at: '2026-01-01T00:00:00.000Z',
      ...values,
    });
  const stored = (handles: readonly string[]) =>
    t.ctx.db
      .selectFrom('jobs')
      .select(['id', 'handle', 'trigger_output', 'master_job_handle'])
      .where('handle', 'in', handles)
      .execute();

  test('each caller gets the id of its own row, and every row is stored as given', async () => {
    const batcher = createInsertBatcher(t.ctx.db, insertJobs);
    const handles = Array.from({ length: 120 }, () => newJobHandle());
    const ids = await Promise.all(
      handles.map((handle, i) => batcher.insert(job(handle, i % 3 === 0 ? { master_job_handle: `m-${i}` } : {}))),
    );
    const rows = await stored(handles);
    assert.equal(rows.length, 120);
    const byHandle = new Map(rows.map((row) => [row.handle, row]));
    handles.forEach((handle, i) => {
      const row = byHandle.get(handle);
      assert.ok(row, `${handle} stored`);
      assert.equal(row.id, ids[i], `the id of ${handle}`);
      assert.deepEqual(JSON.parse(row.trigger_output), { handle, text: 'quotes " \' \\ {braces}, commas, NULL' });
      assert.equal(row.master_job_handle, i % 3 === 0 ? `m-${i}` : null);
    });
  });

  test('a row the database refuses (a handle already stored) fails only its caller; the rest of its batch is stored', async () => {
    const batcher = createInsertBatcher(t.ctx.db, insertJobs);
    const taken = newJobHandle();
    await batcher.insert(job(taken));
    const handles = [newJobHandle(), newJobHandle(), taken, newJobHandle()];
    const outcomes = await Promise.allSettled(handles.map((handle) => batcher.insert(job(handle))));
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.ok(
      isUniqueViolation((outcomes[2] as PromiseRejectedResult).reason),
      String((outcomes[2] as PromiseRejectedResult).reason),
    );
    const rows = await stored(handles);
    assert.equal(rows.length, 4);
    assert.equal(rows.filter((row) => row.handle === taken).length, 1);
  });
});
