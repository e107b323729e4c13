// Group commit: small writes that arrive together share one transaction, so one commit (one sync
// of the write-ahead log under SQLITE_SYNCHRONOUS=FULL) serves many of them. A commit, not the
// write itself, is what limits SQLite to a few thousand transactions a second; writes queued while
// a batch runs go together in the next batch. A write that fails is undone alone and the others
// commit: a batch first runs its writes one after the other as they are (most writes succeed, and
// a savepoint around each costs three statements); if one of them fails, the whole transaction is
// rolled back and the batch runs again with each write in its own savepoint. A write's promise
// settles only after its batch committed.
import type { ControlledTransaction, Kysely, Transaction } from 'kysely';
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
}

interface Queued {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Upper bound of writes in one transaction, so that one batch never holds the connection for long. */
const DEFAULT_MAX_BATCH = 200;

export function createGroupCommit(db: Kysely<Database>, options: { maxBatch?: number } = {}): GroupCommit {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  let queue: Queued[] = [];
  let scheduled = false;

  const schedule = () => {
    if (scheduled || queue.length === 0) return;
    scheduled = true;
    // Wait one turn of the event loop so that writes of requests parsed together join the batch.
    setImmediate(() => {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      void commitBatch(db, batch).finally(() => {
        scheduled = false;
        schedule();
      });
    });
  };

  return {
    run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
  };
}

async function commitBatch(db: Kysely<Database>, batch: readonly Queued[]): Promise<void> {
  let outcomes: Outcome[] = [];
  try {
    if (!(await runBatch(db, batch, false, outcomes))) {
      outcomes = [];
      await runBatch(db, batch, true, outcomes);
    }
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

/**
 * One transaction for the batch, committed; each write's outcome is pushed to `outcomes`. Not
 * isolated: the writes run as they are, and the first that fails rolls everything back (false:
 * run the batch again, isolated). Isolated: each write in its own savepoint, so a failing one is
 * undone alone and keeps its own error. Throws when the transaction itself fails.
 */
async function runBatch(db: Kysely<Database>, batch: readonly Queued[], isolated: boolean, outcomes: Outcome[]): Promise<boolean> {
  const trx = await db.startTransaction().execute();
  try {
    for (const item of batch) {
      if (isolated) {
        outcomes.push(await runIsolated(trx, item));
        continue;
      }
      try {
        outcomes.push({ ok: true, value: await item.work(trx) });
      } catch {
        await trx.rollback().execute();
        return false;
      }
    }
    await trx.commit().execute();
    return true;
  } catch (error) {
    await trx.rollback().execute().catch(() => undefined);
    throw error;
  }
}

async function runIsolated(trx: ControlledTransaction<Database>, item: Queued): Promise<Outcome> {
  const inSavepoint = await trx.savepoint('group_commit_write').execute();
  try {
    const value = await item.work(inSavepoint);
    await inSavepoint.releaseSavepoint('group_commit_write').execute();
    return { ok: true, value };
  } catch (error) {
    // Undo this write only; a failure here fails the whole batch (the outer catch).
    await inSavepoint.rollbackToSavepoint('group_commit_write').execute();
    await inSavepoint.releaseSavepoint('group_commit_write').execute();
    return { ok: false, error };
  }
}
