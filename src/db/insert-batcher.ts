// Inserts that arrive together written by one statement. Where a statement may insert many rows
// and commit them by itself (insertsInOneStatement in dialect.ts: PostgreSQL, in autocommit), the
// rows queued during a turn of the event loop go to the database as one multi-row insert on the
// next turn: one round trip for them all, where a transaction each costs three and a pooled
// connection through them. While `maxInFlight` statements are out, new rows queue for the next,
// which grows with the load (up to `maxRows` rows and `maxBytes` of values), so the pool keeps
// connections for the reads.
// A row's promise settles only after the statement that wrote it committed: its caller
// acknowledges nothing uncommitted. The statement fails whole (nothing of it is written): when the
// storage failed (storageFailureOf: a full disk, a read-only database, a lost connection), every
// caller of the batch gets that error (an HTTP 503); any other failure (one row breaking a
// constraint) is the rows' own, so each row is written again alone, and only a row that fails
// alone fails its caller.
import type { Kysely } from 'kysely';
import { storageFailureOf } from './dialect.ts';

export interface InsertBatcher<R, T> {
  /** Insert `row` with the rows arriving with it; resolves with what `write` returned for it, once committed. */
  insert(row: R): Promise<T>;
}

export interface InsertBatcherOptions<R> {
  /** Upper bound of rows in one statement. */
  maxRows?: number;
  /** Upper bound of statements out at once (each holds a connection of the pool). */
  maxInFlight?: number;
  /** The size of a row's values (its large ones), counted against `maxBytes`. */
  sizeOf?: (row: R) => number;
  /** Upper bound of the rows' sizes in one statement; a larger row is written alone. */
  maxBytes?: number;
}

/**
 * Keeps a statement short. Its bound values do not grow with the rows where each column is bound
 * as one array (insertFromColumnArrays: one text and a handful of values whatever the count, far
 * below PostgreSQL's 65,535).
 */
const DEFAULT_MAX_ROWS = 200;
/** Two statements out: one is written while the other's answer comes back, and the rest of the pool serves reads. */
const DEFAULT_MAX_IN_FLIGHT = 2;
/** Rows of large values (webhook bodies of a megabyte) make statements of a few of them, never of gigabytes. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

interface Pending<R, T> {
  row: R;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * `write` inserts its rows in one statement that commits by itself (`db`, not a transaction) and
 * returns one result per row, in the order of the rows, or fails whole.
 */
export function createInsertBatcher<DB, R, T>(
  db: Kysely<DB>,
  write: (db: Kysely<DB>, rows: readonly R[]) => Promise<T[]>,
  options: InsertBatcherOptions<R> = {},
): InsertBatcher<R, T> {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const sizeOf = options.sizeOf ?? (() => 0);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let queue: Array<Pending<R, T>> = [];
  let inFlight = 0;
  let scheduled = false;

  const writeBatch = async (batch: ReadonlyArray<Pending<R, T>>): Promise<void> => {
    let results: T[];
    try {
      results = await write(
        db,
        batch.map((pending) => pending.row),
      );
      if (results.length !== batch.length)
        throw new Error(`a batch of ${batch.length} rows returned ${results.length} results`);
    } catch (error) {
      if (batch.length === 1 || storageFailureOf(error) !== undefined) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      // One after the other, on one connection at a time: a failing batch takes no more of the pool.
      for (const pending of batch) {
        try {
          const [result] = await write(db, [pending.row]);
          pending.resolve(result as T);
        } catch (own) {
          pending.reject(own);
        }
      }
      return;
    }
    batch.forEach((pending, i) => pending.resolve(results[i] as T));
  };

  /** The next statement's rows, taken from the queue: at least one, within maxRows and maxBytes. */
  const takeBatch = (): Array<Pending<R, T>> => {
    let count = 0;
    let bytes = 0;
    for (; count < queue.length && count < maxRows; count++) {
      bytes += sizeOf((queue[count] as Pending<R, T>).row);
      if (count > 0 && bytes > maxBytes) break;
    }
    const batch = count === queue.length ? queue : queue.slice(0, count);
    queue = count === queue.length ? [] : queue.slice(count);
    return batch;
  };

  const schedule = (): void => {
    if (scheduled || queue.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    // One turn of the event loop: the rows of requests handled together join the statement.
    setImmediate(() => {
      scheduled = false;
      while (queue.length > 0 && inFlight < maxInFlight) {
        const batch = takeBatch();
        inFlight++;
        void writeBatch(batch).finally(() => {
          inFlight--;
          schedule();
        });
      }
    });
  };

  return {
    insert: (row) =>
      new Promise<T>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        schedule();
      }),
  };
}
