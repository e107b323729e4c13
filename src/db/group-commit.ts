// Group commit: small writes that arrive together share one transaction, so one commit (one sync
// of the write-ahead log under SQLITE_SYNCHRONOUS=FULL) serves many of them. A commit, not the
// write itself, is what limits SQLite to a few thousand transactions a second. A batch starts on
// the next turn of the event loop with the writes queued by then; once they ran, it gives the
// event loop one more turn and takes in the writes queued meanwhile (requests that arrived while
// it ran), again and again, until a turn brings none, the batch holds maxBatch writes, or it has
// been open for maxHoldMs; then it commits. Writes queued after that go in the next batch.
// A write that fails is undone alone and the others commit: a batch first runs its writes one
// after the other as they are (most writes succeed, and a savepoint around each costs three
// statements); if one of them fails, the whole transaction is rolled back and the batch runs
// again with each write in its own savepoint. A write's promise settles only after its batch
// committed. Row locks are taken in one order in every batch, of every node: the writes as they
// came (a lookup table's or a data table's row, a topic's), then the merged writes (the ends of
// jobs: the jobs, then their recipes' rows in the order of the ids), so that two nodes' batches
// do not wait for each other in a cycle. A batch that the database cancels all the same (a
// deadlock or a serialization failure with writes of another kind: isRetryableConflict) runs
// again as a whole, after a short pause (conflict-retry.ts), as does a write run alone. A write or a commit that fails because of the storage (storageFailureOf: a full disk,
// a read-only file, an I/O error) fails the whole batch: nothing of it was committed, and every
// caller gets that error (an HTTP 503), none an acknowledgement.
// `runAlone` is for a write that updates no row other writes update (a job's insert; queued jobs'
// inserts on PostgreSQL go through insert-batcher.ts instead, many in one statement): on SQLite it
// joins the batch like any other; on PostgreSQL (sharesCommits in dialect.ts) it runs in its own
// transaction on a connection of the pool, in parallel with the batch and with each other, and
// settles when that transaction committed. PostgreSQL takes many connections' writes at once and
// groups concurrent commits into one flush of its log itself, where the shared transaction would
// serialise them one round trip at a time. Writes that update a row many others update too (a
// recipe's counters, a lookup table's row count) stay in the batch on PostgreSQL: each in its own
// transaction, they would wait for each other's commits (the row lock is held through the flush).
// `runMerged` is for writes of one kind that can be made together (the ends of jobs): every such
// write in a batch goes to one call of its kind's `write`, where the database can take them in a
// few statements, whatever their number (on PostgreSQL each statement is a round trip, and the
// batch's statements run one after the other). On PostgreSQL a batch of nothing but such writes,
// of a kind that can be made in one statement committed by itself (`writeAlone`), is that
// statement alone: no BEGIN and COMMIT round trips. It takes in the writes that arrive while it
// forms (turns of the event loop, as long as each brings new ones, up to maxHoldMs), none once
// sent; two such statements may be at the database at once (MAX_ALONE_IN_FLIGHT), the second
// waiting there for rows the first holds rather than for a round trip. Bigger batches are fewer
// calls: on a busy node, what the database and the node spend per call is what bounds them.
import type { ControlledTransaction, Kysely, Transaction } from 'kysely';
import { retryingConflicts } from './conflict-retry.ts';
import { isRetryableConflict, sharesCommits, storageFailureOf } from './dialect.ts';
import type { Database } from './types.ts';

export interface GroupCommit {
  /**
   * Run `work` inside a shared transaction. Use only `trx` inside (the database handle would wait
   * for the very transaction it runs in), and keep it short: the batch holds the connection.
   * `work` may run twice (when a write of its batch fails, the batch is undone and run again with
   * each write isolated), so it must do nothing outside `trx`. A refusal it can tell without
   * writing (e.g. a conditional update that changed nothing) is cheaper returned than thrown.
   */
  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * The same promises for a write that updates no row another write updates (it inserts its own
   * rows): on PostgreSQL it runs in a transaction of its own, in parallel with the others.
   */
  runAlone<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * As `run`, for a write of a kind whose writes a batch makes together: every write of `kind`
   * in the batch goes to one call of `kind.write`, in fewer statements (fewer round trips to the
   * database) than one by one. When the batch runs again with each write isolated, `kind.write`
   * gets each write alone.
   */
  runMerged<I, T>(kind: MergedWrite<I, T>, item: I): Promise<T>;
}

/** Writes that a batch makes together: `write` returns each item's result, in the items' order. */
export interface MergedWrite<I, T> {
  write(trx: Transaction<Database>, items: I[]): Promise<T[]>;
  /**
   * The same writes in one statement that is its own transaction, for a batch of nothing else
   * (no BEGIN and COMMIT round trips around it); undefined when this database or these items
   * cannot (the batch then runs in a transaction, through `write`). All or nothing, as a batch.
   */
  writeAlone?(db: Kysely<Database>, items: I[]): Promise<T[]> | undefined;
}

interface Queued {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  /** A write of a kind made together with the others of the batch. */
  merged?: { kind: MergedWrite<unknown, unknown>; item: unknown };
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Upper bound of writes in one transaction, so that one batch never holds the connection for long. */
const DEFAULT_MAX_BATCH = 200;
/**
 * A batch stops taking in newly arrived writes this long after it began (the connection waits
 * for its commit meanwhile, reads included). Long enough for a burst of concurrent requests to
 * join one commit (their HTTP handling takes about 0.1 ms each), short against a disk sync.
 */
const DEFAULT_MAX_HOLD_MS = 2;
/**
 * Batches written alone whose statements may be at the database at once. Two: while one waits for
 * its commit (rows it updates stay locked until then), the next is sent and waits at the database
 * for those rows, not for a round trip; more would only wait longer there.
 */
const MAX_ALONE_IN_FLIGHT = 2;

export function createGroupCommit(
  db: Kysely<Database>,
  options: { maxBatch?: number; maxHoldMs?: number } = {},
): GroupCommit {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
  let queue: Queued[] = [];
  let scheduled = false;

  // Batches written alone (one statement each, no transaction of the batch's) whose statements
  // are at the database now; only where writes do not share commits (PostgreSQL).
  let aloneInFlight = 0;
  const mayGoAlone = sharesCommits(db) ? () => false : allOfOneKindThatGoesAlone;

  const schedule = () => {
    if (scheduled || queue.length === 0) return;
    // Writes that would go alone wait for a statement in flight to come back (which schedules
    // them) rather than go in a transaction.
    if (aloneInFlight >= MAX_ALONE_IN_FLIGHT && mayGoAlone(queue.slice(0, maxBatch))) return;
    scheduled = true;
    const began = performance.now();
    // Wait one turn of the event loop so that writes of requests parsed together join the batch.
    // A batch that will go alone cannot take in writes once sent, so it takes them in before:
    // it waits further turns while each brings new writes, up to maxHoldMs (as a transaction's
    // batch keeps taking them in while it runs).
    const form = (seen: number) =>
      setImmediate(() => {
        if (
          queue.length > seen &&
          queue.length < maxBatch &&
          performance.now() - began < maxHoldMs &&
          mayGoAlone(queue)
        ) {
          form(queue.length);
          return;
        }
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(maxBatch);
        const statement = mayGoAlone(batch) ? writtenAlone(db, batch) : undefined;
        if (statement !== undefined) {
          // The next batch may form and go while this one's statement is at the database.
          aloneInFlight += 1;
          scheduled = false;
          void settleAlone(db, batch, statement).finally(() => {
            aloneInFlight -= 1;
            schedule();
          });
          return;
        }
        const joining = (): Queued[] => {
          const taken = queue.slice(0, maxBatch - batch.length);
          queue = queue.slice(taken.length);
          return taken;
        };
        void commitBatch(db, batch, { joining, maxHoldMs }).finally(() => {
          scheduled = false;
          schedule();
        });
      });
    form(queue.length);
  };

  const run = <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });
  const runMerged = <I, T>(kind: MergedWrite<I, T>, item: I): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const work = async (trx: Transaction<Database>) => (await kind.write(trx, [item]))[0];
      queue.push({
        work,
        merged: { kind: kind as MergedWrite<unknown, unknown>, item },
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      schedule();
    });
  const alone = !sharesCommits(db);
  return {
    run,
    runAlone: alone ? (work) => retryingConflicts(() => db.transaction().execute(work)) : run,
    runMerged,
  };
}

/** Writes that arrived while a batch runs, and how long the batch may keep taking them in. */
interface Joining {
  joining: () => Queued[];
  maxHoldMs: number;
}

/**
 * `batch` grows while the batch runs (writes that join it); every write in it is settled. Without
 * `join`, each write runs in its own savepoint from the start.
 */
async function commitBatch(db: Kysely<Database>, batch: Queued[], join?: Joining): Promise<void> {
  let outcomes: Outcome[] = [];
  try {
    // The first run takes writes in and runs them as they are; then (a write failed, or the
    // database cancelled the transaction for a conflict with another one) each in its savepoint.
    let first = join;
    await retryingConflicts(async () => {
      outcomes = [];
      const joining = first;
      first = undefined;
      if (joining !== undefined && (await runBatch(db, batch, outcomes, joining))) return;
      outcomes = [];
      await runBatch(db, batch, outcomes);
    });
  } catch (error) {
    // The transaction itself failed: nothing of the batch was written. A write that had failed
    // in its savepoint keeps its own error.
    batch.forEach((item, i) => {
      const own = outcomes[i];
      item.reject(own && !own.ok ? own.error : error);
    });
    return;
  }
  batch.forEach((item, i) => {
    const outcome = outcomes[i] as Outcome;
    if (outcome.ok) item.resolve(outcome.value);
    else item.reject(outcome.error);
  });
}

/** Whether every write of `batch` is of one merged kind that has a statement of its own (writeAlone). */
function allOfOneKindThatGoesAlone(batch: Queued[]): boolean {
  const kind = batch[0]?.merged?.kind;
  return kind?.writeAlone !== undefined && batch.every((item) => item.merged?.kind === kind);
}

/** The one statement of a batch that mayGoAlone, sent; undefined when its kind cannot take these writes so. */
function writtenAlone(db: Kysely<Database>, batch: Queued[]): Promise<unknown[]> | undefined {
  const kind = batch[0]!.merged!.kind;
  return kind.writeAlone!(
    db,
    batch.map((item) => item.merged!.item),
  );
}

/**
 * Settle the writes of a batch written alone. A storage failure fails them all (nothing was
 * written); any other failure of the statement (which wrote nothing either) runs them again each
 * in its own savepoint of a transaction, so that only a failing write fails.
 */
async function settleAlone(db: Kysely<Database>, batch: Queued[], statement: Promise<unknown[]>): Promise<void> {
  try {
    const values = await statement;
    batch.forEach((item, i) => item.resolve(values[i]));
    return;
  } catch (error) {
    if (storageFailureOf(error) !== undefined) {
      for (const item of batch) item.reject(error);
      return;
    }
  }
  await commitBatch(db, batch);
}

/**
 * One transaction for the batch, committed; each write's outcome is pushed to `outcomes`. With
 * `join` (the first run): the writes run as they are, writes that arrive meanwhile join, and the
 * first write that fails rolls everything back (false: run the batch again, isolated). Without
 * (isolated): the same writes, each in its own savepoint, so a failing one is undone alone and
 * keeps its own error. Throws when the transaction itself fails.
 */
async function runBatch(db: Kysely<Database>, batch: Queued[], outcomes: Outcome[], join?: Joining): Promise<boolean> {
  const trx = await db.startTransaction().execute();
  const began = performance.now();
  try {
    // The other writes first, in the order they came, while writes join; the merged writes last.
    for (let next = 0; ;) {
      for (; next < batch.length; next++) {
        const item = batch[next] as Queued;
        if (item.merged) continue;
        if (!join) outcomes[next] = await runIsolated(trx, item);
        else if (!(await runJoined(trx, outcomes, next, () => item.work(trx)))) return false;
      }
      if (!join || performance.now() - began >= join.maxHoldMs) break;
      // One turn of the event loop: requests that arrived meanwhile queue their writes.
      await new Promise((resolve) => setImmediate(resolve));
      const joined = join.joining();
      if (joined.length === 0) break;
      batch.push(...joined);
    }
    for (let next = 0; next < batch.length; next++) {
      const item = batch[next] as Queued;
      if (!item.merged || outcomes[next] !== undefined) continue;
      if (!join) {
        outcomes[next] = await runIsolated(trx, item);
        continue;
      }
      // Every write of this kind in the batch, at once.
      const { kind } = item.merged;
      const group: number[] = [];
      for (let i = next; i < batch.length; i++) if (batch[i]!.merged?.kind === kind) group.push(i);
      const made = await runJoined(trx, outcomes, next, async () => {
        const values = await kind.write(
          trx,
          group.map((i) => batch[i]!.merged!.item),
        );
        group.forEach((i, k) => {
          outcomes[i] = { ok: true, value: values[k] };
        });
        return values[0];
      });
      if (!made) return false;
    }
    await trx.commit().execute();
    return true;
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch(() => undefined);
    throw error;
  }
}

/**
 * A write (or a merged group) of a batch's first run, its outcome at `index`: true when it was
 * made; false when it failed, after rolling the transaction back (the batch runs again, isolated).
 */
async function runJoined(
  trx: ControlledTransaction<Database>,
  outcomes: Outcome[],
  index: number,
  write: () => Promise<unknown>,
): Promise<boolean> {
  try {
    outcomes[index] = { ok: true, value: await write() };
    return true;
  } catch (error) {
    // The storage failing (a full disk, a read-only file) is not this write's fault: SQLite may
    // have rolled the whole transaction back already, and every write of the batch fails with it.
    if (storageFailureOf(error) !== undefined) throw error;
    await trx.rollback().execute();
    return false;
  }
}

async function runIsolated(trx: ControlledTransaction<Database>, item: Queued): Promise<Outcome> {
  const inSavepoint = await trx.savepoint('group_commit_write').execute();
  try {
    const value = await item.work(inSavepoint);
    await inSavepoint.releaseSavepoint('group_commit_write').execute();
    return { ok: true, value };
  } catch (error) {
    // A conflict with another transaction is not this write's fault either: the locks the batch
    // holds from its earlier writes are part of it, so the whole transaction runs again.
    if (storageFailureOf(error) !== undefined || isRetryableConflict(error)) throw error;
    // Undo this write only; a failure here fails the whole batch (the outer catch).
    await inSavepoint.rollbackToSavepoint('group_commit_write').execute();
    await inSavepoint.releaseSavepoint('group_commit_write').execute();
    return { ok: false, error };
  }
}
