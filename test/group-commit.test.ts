// Group commit: concurrent small writes share a transaction; a failing one is undone alone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { isUniqueViolation, storageFailureOf } from '../src/db/dialect.ts';
import { openPostgresUrl } from '../src/db/index.ts';
import { createGroupCommit } from '../src/db/group-commit.ts';
import { adaptNodeSqlite } from '../src/db/sqlite-adapter.ts';
import type { Database } from '../src/db/types.ts';
import { freshPostgresDatabase, postgresOnly, TEST_POOL_SETTINGS } from './test-database.ts';

let db: Kysely<Database>;
/** Every statement the database was asked to prepare, to count transactions. */
const statements: string[] = [];

before(async () => {
  const adapted = adaptNodeSqlite(new DatabaseSync(':memory:'));
  db = new Kysely<Database>({
    dialect: new SqliteDialect({
      database: {
        close: () => adapted.close(),
        prepare: (text: string) => {
          statements.push(text.toLowerCase());
          return adapted.prepare(text);
        },
      },
    }),
  });
  await sql`create table notes (id integer primary key, body text not null unique)`.execute(db);
});
after(() => db.destroy());

const commits = () => statements.filter((s) => s === 'commit').length;
const notes = async () =>
  (await sql<{ body: string }>`select body from notes order by id`.execute(db)).rows.map((r) => r.body);
const insertNote = (body: string) => (trx: Kysely<Database>) =>
  sql`insert into notes (body) values (${body})`.execute(trx).then(() => body);

/** A merged write that inserts notes and answers each with `result`; `calls` lists each call's notes. */
function noteWriter(result: (body: string) => string) {
  const calls: string[][] = [];
  const kind = {
    async write(trx: Kysely<Database>, bodies: string[]) {
      calls.push(bodies);
      for (const body of bodies) await sql`insert into notes (body) values (${body})`.execute(trx);
      return bodies.map(result);
    },
  };
  return { calls, kind };
}

/**
 * A merged write that can also be made alone: one multi-row insert outside any transaction (all
 * or nothing, as one statement is); `gate` holds each such statement until opened.
 */
function aloneNoteWriter(options: { gate?: () => Promise<void>; declineOver?: number } = {}) {
  const { calls, kind: merged } = noteWriter((body) => body.toUpperCase());
  const alone: string[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const kind = {
    write: merged.write,
    writeAlone(database: Kysely<Database>, bodies: string[]) {
      if (options.declineOver !== undefined && bodies.length > options.declineOver) return undefined;
      assert.equal(database.isTransaction, false, 'a statement of its own, in no transaction');
      alone.push(bodies);
      return (async () => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        try {
          await options.gate?.();
          await sql`insert into notes (body) values ${sql.join(bodies.map((body) => sql`(${body})`))}`.execute(
            database,
          );
          return bodies.map((body) => body.toUpperCase());
        } finally {
          inFlight -= 1;
        }
      })();
    },
  };
  return { calls, alone, kind, mostInFlight: () => mostInFlight };
}

describe('createGroupCommit', () => {
  test('a write that fills the database fails its whole batch: every caller gets SQLITE_FULL, nothing is committed, and writes go on once there is room', async () => {
    const group = createGroupCommit(db);
    const { page_count: pages } = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(db)).rows[0]!;
    const { freelist_count: free } = (await sql<{ freelist_count: number }>`PRAGMA freelist_count`.execute(db))
      .rows[0]!;
    await sql.raw(`PRAGMA max_page_count = ${pages}`).execute(db);
    try {
      const outcomes = await Promise.allSettled([
        group.run(insertNote('full-1')),
        group.run(insertNote(`full-big-${'x'.repeat((free + 4) * 4096)}`)),
        group.run(insertNote('full-2')),
      ]);
      for (const outcome of outcomes) {
        assert.equal(outcome.status, 'rejected');
        assert.equal(storageFailureOf(outcome.reason), 'full', String(outcome.reason));
      }
      assert.deepEqual(
        (await notes()).filter((b) => b.startsWith('full')),
        [],
      );
    } finally {
      await sql.raw('PRAGMA max_page_count = 1073741823').execute(db);
    }
    assert.equal(await group.run(insertNote('full-after')), 'full-after');
  });

  test('writes that arrive together share one transaction and each resolves with its own result', async () => {
    const group = createGroupCommit(db);
    const before = commits();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => group.run(insertNote(`a${i}`))));
    assert.deepEqual(
      results,
      Array.from({ length: 50 }, (_, i) => `a${i}`),
    );
    assert.equal(commits() - before, 1);
    assert.equal((await notes()).filter((b) => b.startsWith('a')).length, 50);
  });

  test('on SQLite, runAlone joins the batch like any other write (one commit for all)', async () => {
    const group = createGroupCommit(db);
    const before = commits();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? group.run : group.runAlone)(insertNote(`ra${i}`))),
    );
    assert.deepEqual(
      results,
      Array.from({ length: 10 }, (_, i) => `ra${i}`),
    );
    assert.equal(commits() - before, 1);
  });

  test('a failing write is undone alone and rejected with its own error; the others commit', async () => {
    const group = createGroupCommit(db);
    const outcomes = await Promise.allSettled([
      group.run(insertNote('b1')),
      group.run(async (trx) => {
        await insertNote('b2-partial')(trx);
        throw new Error('refused after a partial write');
      }),
      group.run(insertNote('a0')), // unique violation: fails in the database
      group.run(insertNote('b3')),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /refused after a partial write/);
    const stored = await notes();
    assert.ok(stored.includes('b1') && stored.includes('b3'));
    assert.ok(!stored.includes('b2-partial'));
    assert.equal(stored.filter((b) => b === 'a0').length, 1);
  });

  test('when every write succeeds, the batch runs them as they are: no savepoint, each write once', async () => {
    const group = createGroupCommit(db);
    const before = statements.length;
    let runs = 0;
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        group.run(async (trx) => {
          runs += 1;
          return insertNote(`g${i}`)(trx);
        }),
      ),
    );
    assert.deepEqual(results, ['g0', 'g1', 'g2', 'g3', 'g4']);
    assert.equal(runs, 5);
    assert.deepEqual(
      statements.slice(before).filter((s) => /savepoint|release|rollback/.test(s)),
      [],
    );
  });

  test('when a write fails, the batch is undone and run again with each write in its own savepoint; the others commit once', async () => {
    const group = createGroupCommit(db);
    const before = commits();
    const runs = new Map<string, number>();
    const counted = (body: string, work: (trx: Kysely<Database>) => Promise<string>) =>
      group.run(async (trx) => {
        runs.set(body, (runs.get(body) ?? 0) + 1);
        return work(trx);
      });
    const outcomes = await Promise.allSettled([
      counted('h1', insertNote('h1')),
      counted('h2', async (trx) => {
        await insertNote('h2-partial')(trx);
        throw new Error('refused');
      }),
      counted('h3', insertNote('h3')),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    // The writes up to the failing one ran twice (as they were, then isolated); the one after it once.
    assert.deepEqual(Object.fromEntries(runs), { h1: 2, h2: 2, h3: 1 });
    assert.equal(commits() - before, 1);
    const stored = await notes();
    assert.deepEqual(
      stored.filter((b) => b.startsWith('h')),
      ['h1', 'h3'],
    );
  });

  test('a write resolves only after its batch committed', async () => {
    const group = createGroupCommit(db);
    const before = commits();
    const committedWhenResolved = await group.run(insertNote('c1')).then(() => commits() - before);
    assert.equal(committedWhenResolved, 1);
  });

  test('batches are bounded: at most maxBatch writes, the others in the next batches', async () => {
    const group = createGroupCommit(db, { maxBatch: 4 });
    const before = commits();
    await Promise.all(Array.from({ length: 10 }, (_, i) => group.run(insertNote(`d${i}`))));
    assert.equal(commits() - before, 3);
  });

  test('merged writes of one kind in a batch are made by one call, each caller getting its own result; the other writes commit with them', async () => {
    const group = createGroupCommit(db);
    const { calls, kind } = noteWriter((body) => body.toUpperCase());
    const before = commits();
    const results = await Promise.all([
      group.runMerged(kind, 'm1'),
      group.run(insertNote('m-plain')),
      group.runMerged(kind, 'm2'),
      group.runMerged(kind, 'm3'),
    ]);
    assert.deepEqual(results, ['M1', 'm-plain', 'M2', 'M3']);
    assert.deepEqual(calls, [['m1', 'm2', 'm3']]);
    assert.equal(commits() - before, 1);
    // The merged writes are made together, after the other writes of the batch (every batch
    // takes its row locks in that order).
    assert.deepEqual(
      (await notes()).filter((n) => n.startsWith('m')),
      ['m-plain', 'm1', 'm2', 'm3'],
    );
  });

  test('when a merged write fails, the batch runs again with each merged write alone: only the failing one is rejected', async () => {
    const group = createGroupCommit(db);
    const { calls, kind } = noteWriter((body) => body);
    // The note 'n-dup' exists already: its write fails on the unique body.
    await group.run(insertNote('n-dup'));
    const outcomes = await Promise.allSettled([
      group.runMerged(kind, 'n1'),
      group.runMerged(kind, 'n-dup'),
      group.runMerged(kind, 'n2'),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.ok(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason));
    assert.deepEqual(calls, [['n1', 'n-dup', 'n2'], ['n1'], ['n-dup'], ['n2']]);
    assert.deepEqual(
      (await notes()).filter((n) => n.startsWith('n')),
      ['n-dup', 'n1', 'n2'],
    );
  });

  test("on SQLite, merged writes never go alone: they share the batch's transaction", async () => {
    const group = createGroupCommit(db);
    const { calls, alone, kind } = aloneNoteWriter();
    const before = commits();
    assert.deepEqual(await Promise.all([group.runMerged(kind, 'lite-1'), group.runMerged(kind, 'lite-2')]), [
      'LITE-1',
      'LITE-2',
    ]);
    assert.deepEqual([alone, calls], [[], [['lite-1', 'lite-2']]]);
    assert.equal(commits() - before, 1);
  });

  /** A batch whose first write waits for the gate; `later` is queued while the batch runs. */
  async function whileABatchRuns(
    group: ReturnType<typeof createGroupCommit>,
    first: string,
    later: string,
  ): Promise<number> {
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const before = commits();
    const running = group.run(async (trx) => {
      await gate;
      return insertNote(first)(trx);
    });
    await new Promise((resolve) => setImmediate(resolve)); // the batch has started
    const queued = group.run(insertNote(later));
    open();
    assert.deepEqual(await Promise.all([running, queued]), [first, later]);
    return commits() - before;
  }

  test('a write that arrives while a batch runs joins it (one commit for both)', async () => {
    assert.equal(await whileABatchRuns(createGroupCommit(db, { maxHoldMs: 1000 }), 'e1', 'e2'), 1);
  });

  test('a write that arrives after the batch stopped taking writes in (maxHoldMs) goes in the next batch', async () => {
    assert.equal(await whileABatchRuns(createGroupCommit(db, { maxHoldMs: 0 }), 'e3', 'e4'), 2);
  });

  test('a write that joined a batch and fails is undone alone, like any other', async () => {
    const group = createGroupCommit(db, { maxHoldMs: 1000 });
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const running = group.run(async (trx) => {
      await gate;
      return insertNote('e5')(trx);
    });
    await new Promise((resolve) => setImmediate(resolve));
    const failing = group.run(insertNote('a0')); // unique violation
    const after = group.run(insertNote('e6'));
    open();
    const outcomes = await Promise.allSettled([running, failing, after]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const stored = await notes();
    assert.ok(stored.includes('e5') && stored.includes('e6'));
  });

  test('when the transaction itself fails, every write of the batch is rejected and nothing is written', async () => {
    const adapted = adaptNodeSqlite(new DatabaseSync(':memory:'));
    const broken = new Kysely<Database>({ dialect: new SqliteDialect({ database: adapted }) });
    await sql`create table notes (id integer primary key, body text not null)`.execute(broken);
    // A deferred foreign key fails at COMMIT, after every write succeeded.
    await sql`create table refs (id integer primary key, note_id integer references notes(id) deferrable initially deferred)`.execute(
      broken,
    );
    await sql`pragma foreign_keys = on`.execute(broken);
    const group = createGroupCommit(broken);
    const outcomes = await Promise.allSettled([
      group.run(insertNote('f1')),
      group.run((trx) => sql`insert into refs (note_id) values (999)`.execute(trx)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual((await sql`select * from notes`.execute(broken)).rows, []);
    await broken.destroy();
  });
});

// The same promises on PostgreSQL, where a statement that fails aborts the whole transaction (the
// batch must be undone and run again isolated, in savepoints, as on SQLite) and where transactions
// hold a connection of a pool. A transaction is seen by its id (txid_current()).
describe('createGroupCommit on PostgreSQL', { skip: postgresOnly('runs on a PostgreSQL database of its own') }, () => {
  let pgDb: Kysely<Database>;
  before(async () => {
    pgDb = openPostgresUrl(await freshPostgresDatabase(), TEST_POOL_SETTINGS).db;
    await sql`create table notes (id bigint generated by default as identity primary key, body text not null unique)`.execute(
      pgDb,
    );
  });
  after(() => pgDb?.destroy());

  const insertIn = (body: string) => async (trx: Kysely<Database>) => {
    await sql`insert into notes (body) values (${body})`.execute(trx);
    return (await sql<{ txid: string }>`select txid_current()::text as txid`.execute(trx)).rows[0]!.txid;
  };
  const stored = async () =>
    (await sql<{ body: string }>`select body from notes order by id`.execute(pgDb)).rows.map((r) => r.body);

  test('writes that arrive together share one transaction, and each resolves after the commit', async () => {
    const group = createGroupCommit(pgDb);
    const txids = await Promise.all(Array.from({ length: 30 }, (_, i) => group.run(insertIn(`p${i}`))));
    assert.equal(new Set(txids).size, 1, 'one transaction');
    assert.equal((await stored()).filter((b) => b.startsWith('p')).length, 30, 'committed when they resolved');
  });

  test('a write that fails in the database (a unique violation aborts the transaction) is undone alone; the others commit', async () => {
    const group = createGroupCommit(pgDb);
    const outcomes = await Promise.allSettled([
      group.run(insertIn('q1')),
      group.run(insertIn('p0')),
      group.run(async (trx) => {
        await insertIn('q2-partial')(trx);
        throw new Error('refused after a partial write');
      }),
      group.run(insertIn('q3')),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.ok(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason), 'its own error: the unique violation');
    const rows = await stored();
    assert.ok(rows.includes('q1') && rows.includes('q3'));
    assert.ok(!rows.includes('q2-partial'));
    assert.equal(rows.filter((b) => b === 'p0').length, 1);
  });

  test('runAlone: independent writes run in transactions of their own, and each resolves after its commit', async () => {
    const group = createGroupCommit(pgDb);
    const txids = await Promise.all(Array.from({ length: 30 }, (_, i) => group.runAlone(insertIn(`s${i}`))));
    assert.equal(new Set(txids).size, 30, 'one transaction each');
    assert.equal((await stored()).filter((b) => b.startsWith('s')).length, 30, 'committed when they resolved');
  });

  test('runAlone: a write does not wait for another one still open, nor for the batch', async () => {
    const group = createGroupCommit(pgDb);
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = group.run(async (trx) => {
      await sql`insert into notes (body) values ('r-slow')`.execute(trx);
      await gate;
      return 'slow';
    });
    // Committed and seen from outside while the batch's transaction is still open.
    await group.runAlone(insertIn('r-fast'));
    const seen = await stored();
    assert.ok(seen.includes('r-fast') && !seen.includes('r-slow'));
    open();
    assert.equal(await slow, 'slow');
    assert.ok((await stored()).includes('r-slow'));
  });

  test('runAlone: a write that fails is undone alone and keeps its own error', async () => {
    const group = createGroupCommit(pgDb);
    const outcomes = await Promise.allSettled([
      group.runAlone(insertIn('t1')),
      group.runAlone(async (trx) => {
        await insertIn('t2-partial')(trx);
        return insertIn('p0')(trx);
      }),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected'],
    );
    assert.ok(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason));
    const rows = await stored();
    assert.ok(rows.includes('t1') && !rows.includes('t2-partial'));
  });

  test('a batch of nothing but merged writes that can go alone is one statement of its own: no transaction, each caller its result', async () => {
    const group = createGroupCommit(pgDb);
    const { calls, alone, kind } = aloneNoteWriter();
    assert.deepEqual(
      await Promise.all([
        group.runMerged(kind, 'alone-1'),
        group.runMerged(kind, 'alone-2'),
        group.runMerged(kind, 'alone-3'),
      ]),
      ['ALONE-1', 'ALONE-2', 'ALONE-3'],
    );
    assert.deepEqual(alone, [['alone-1', 'alone-2', 'alone-3']]);
    assert.deepEqual(calls, [], 'no write in a transaction');
    assert.deepEqual(
      (await stored()).filter((n) => n.startsWith('alone-')),
      ['alone-1', 'alone-2', 'alone-3'],
    );
  });

  test('a statement that will go alone takes in the writes of the turns that bring more, then goes', async () => {
    // The hold's bound in time is not what this test is about: a loaded machine may take longer
    // than the default between two turns, so the bound here is far away.
    const group = createGroupCommit(pgDb, { maxHoldMs: 60_000 });
    const { alone, kind } = aloneNoteWriter();
    const results: Array<Promise<string>> = [];
    // One more write on each of the next two turns of the event loop, the first queued before the batch forms.
    setImmediate(() => {
      results.push(group.runMerged(kind, 'gather-2'));
      setImmediate(() => results.push(group.runMerged(kind, 'gather-3')));
    });
    results.push(group.runMerged(kind, 'gather-1'));
    while (results.length < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await Promise.all(results), ['GATHER-1', 'GATHER-2', 'GATHER-3']);
    assert.deepEqual(alone, [['gather-1', 'gather-2', 'gather-3']]);
  });

  test('merged writes beside other writes, or that their kind declines to make alone, go in a transaction as before', async () => {
    const group = createGroupCommit(pgDb);
    const mixed = aloneNoteWriter();
    assert.deepEqual(
      await Promise.all([
        group.runMerged(mixed.kind, 'mixed-1'),
        group.run(async (trx) => {
          await insertIn('mixed-plain')(trx);
          return 'mixed-plain';
        }),
        group.runMerged(mixed.kind, 'mixed-2'),
      ]),
      ['MIXED-1', 'mixed-plain', 'MIXED-2'],
    );
    assert.deepEqual([mixed.alone, mixed.calls], [[], [['mixed-1', 'mixed-2']]]);
    const declined = aloneNoteWriter({ declineOver: 1 });
    assert.deepEqual(
      await Promise.all([group.runMerged(declined.kind, 'declined-1'), group.runMerged(declined.kind, 'declined-2')]),
      ['DECLINED-1', 'DECLINED-2'],
    );
    assert.deepEqual([declined.alone, declined.calls], [[], [['declined-1', 'declined-2']]]);
  });

  test('a statement written alone that fails writes nothing: its writes run again each in its own savepoint, and only the failing one is rejected', async () => {
    const group = createGroupCommit(pgDb);
    const { calls, alone, kind } = aloneNoteWriter();
    await group.run(insertIn('failing-dup'));
    const outcomes = await Promise.allSettled([
      group.runMerged(kind, 'failing-1'),
      group.runMerged(kind, 'failing-dup'),
      group.runMerged(kind, 'failing-2'),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.ok(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason));
    assert.deepEqual(alone, [['failing-1', 'failing-dup', 'failing-2']]);
    assert.deepEqual(calls, [['failing-1'], ['failing-dup'], ['failing-2']]);
    assert.deepEqual(
      (await stored()).filter((n) => n.startsWith('failing-')),
      ['failing-dup', 'failing-1', 'failing-2'],
    );
  });

  test('two statements written alone may be at the database at once; writes arriving meanwhile wait for one of them, not in a transaction', async () => {
    const group = createGroupCommit(pgDb);
    const gates: Array<() => void> = [];
    let held = true;
    const { calls, alone, kind, mostInFlight } = aloneNoteWriter({
      gate: () =>
        held
          ? new Promise<void>((resolve) => {
              gates.push(resolve);
            })
          : Promise.resolve(),
    });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const results: Array<Promise<string>> = [];
    for (let i = 0; i < 4; i++) {
      results.push(group.runMerged(kind, `flight-${i}`));
      await turn();
      await turn();
    }
    assert.deepEqual(alone, [['flight-0'], ['flight-1']], 'the third and fourth wait while two are at the database');
    held = false;
    for (const open of gates.splice(0)) open();
    assert.deepEqual(await Promise.all(results), ['FLIGHT-0', 'FLIGHT-1', 'FLIGHT-2', 'FLIGHT-3']);
    assert.deepEqual(alone, [['flight-0'], ['flight-1'], ['flight-2', 'flight-3']]);
    assert.deepEqual(calls, []);
    assert.equal(mostInFlight(), 2);
  });
});
