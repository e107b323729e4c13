// Group commit between nodes on PostgreSQL: two nodes' batches lock rows in one order, and a batch
// the database cancels for a deadlock runs again as a whole until it commits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openPostgresUrl } from '../src/db/index.ts';
import { createGroupCommit } from '../src/db/group-commit.ts';
import type { Database } from '../src/db/types.ts';
import { freshPostgresDatabase, postgresOnly, TEST_POOL_SETTINGS } from './test-database.ts';

describe('group commit on several nodes', { skip: postgresOnly('row locks between nodes') }, () => {
  let pgDb: Kysely<Database>;
  before(async () => {
    pgDb = openPostgresUrl(await freshPostgresDatabase(), TEST_POOL_SETTINGS).db;
  });
  after(() => pgDb?.destroy());

  /** Rows two nodes' batches both lock: 1 stands for a lookup table's row, 2 for a recipe's. */
  const lockedRows = async () => {
    await sql`create table if not exists locked_rows (id int primary key, n int not null)`.execute(pgDb);
    await sql`delete from locked_rows`.execute(pgDb);
    await sql`insert into locked_rows (id, n) values (1, 0), (2, 0)`.execute(pgDb);
  };
  const bump = (trx: Kysely<Database>, id: number) =>
    sql`update locked_rows set n = n + 1 where id = ${id}`.execute(trx);
  const counts = async () =>
    (await sql<{ n: number }>`select n from locked_rows order by id`.execute(pgDb)).rows.map((r) => Number(r.n));
  /** Whether a transaction of this database waits for a lock (a row another one holds). */
  const someoneWaitsForALock = async () =>
    Number(
      (
        await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(pgDb)
      ).rows[0]!.n,
    ) > 0;
  /**
   * Whether a transaction has waited for a lock for `ms` at least: a transaction that asks for
   * its row only then waits later by that much, so the database's deadlock check (run by the one
   * that has waited deadlock_timeout first) cancels the one that waited first.
   */
  const someoneWaitedForALock = async (ms: number) =>
    Number(
      (
        await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'
            and now() - query_start >= ${`${ms} milliseconds`}::interval`.execute(pgDb)
      ).rows[0]!.n,
    ) > 0;
  const until = async (condition: () => boolean | Promise<boolean>) => {
    while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  test("two nodes' batches, each a row write and a merged write arriving in opposite orders, lock the rows in one order: no deadlock, each write made once", async () => {
    await lockedRows();
    const nodes = [createGroupCommit(pgDb), createGroupCommit(pgDb)];
    const runs = { row: 0, merged: 0 };
    // Once it holds its first row, a batch waits for the other node's batch to hold its own or to
    // wait for a row: both are then in flight at once.
    const took: boolean[] = [false, false];
    const firstRowTaken = async (node: number) => {
      took[node] = true;
      await until(async () => took[1 - node]! || (await someoneWaitsForALock()));
    };
    const first: boolean[] = [true, true];
    const lookupRow = (node: number) => async (trx: Kysely<Database>) => {
      runs.row++;
      await bump(trx, 1);
      if (first[node]) await firstRowTaken(node);
      first[node] = false;
      return 'row';
    };
    const jobEnds = (node: number) => ({
      async write(trx: Kysely<Database>, items: string[]) {
        runs.merged++;
        await bump(trx, 2);
        if (first[node]) await firstRowTaken(node);
        first[node] = false;
        return items;
      },
    });
    const ends = [jobEnds(0), jobEnds(1)];
    const results = await Promise.all([
      nodes[0]!.runMerged(ends[0]!, 'end on node 0'),
      nodes[0]!.run(lookupRow(0)),
      nodes[1]!.run(lookupRow(1)),
      nodes[1]!.runMerged(ends[1]!, 'end on node 1'),
    ]);
    assert.deepEqual(results, ['end on node 0', 'row', 'row', 'end on node 1']);
    assert.deepEqual(runs, { row: 2, merged: 2 }, 'each write made once: no batch was cancelled and run again');
    assert.deepEqual(await counts(), [2, 2]);
  });

  test(
    'a batch the database cancels for a deadlock, in its first run and in its run write by write, runs again as a whole until it commits',
    { timeout: 60_000 },
    async () => {
      await lockedRows();
      const group = createGroupCommit(pgDb);
      // The write takes row 1 then row 2. Another node's transaction, in its first two attempts,
      // holds row 2 and, once the write holds row 1 and waits for row 2, asks for row 1: a cycle,
      // and the write (waiting first) is the one the database cancels.
      let attempts = 0;
      const signals = new Map<number, () => void>();
      const heldOne = new Map<number, Promise<void>>();
      const otherHoldsTwo = new Map<number, Promise<void>>();
      const readies = new Map<number, () => void>();
      for (const k of [1, 2]) {
        heldOne.set(k, new Promise((resolve) => signals.set(k, resolve)));
        otherHoldsTwo.set(k, new Promise((resolve) => readies.set(k, resolve)));
      }
      const other = (async () => {
        for (const k of [1, 2])
          await pgDb.transaction().execute(async (trx) => {
            await bump(trx, 2);
            readies.get(k)!();
            await heldOne.get(k);
            await until(() => someoneWaitedForALock(300));
            await bump(trx, 1);
          });
      })();
      const write = group.run(async (trx) => {
        const attempt = ++attempts;
        await bump(trx, 1);
        signals.get(attempt)?.();
        await otherHoldsTwo.get(attempt);
        await bump(trx, 2);
        return attempt;
      });
      const [made] = await Promise.all([write, other]);
      assert.equal(made, 3, 'cancelled twice, committed at the third attempt');
      assert.deepEqual(await counts(), [3, 3], "the other node's two transactions and the write, once");
    },
  );
});
