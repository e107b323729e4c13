// Group commit: writes that arrive while the database is busy are committed together in one
// transaction (one sync to disk for many jobs instead of one each). Every caller's promise
// settles only after the commit that holds its write. If a batch fails, each write is retried
// alone, so one bad write never takes the others down.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/types.ts';

export interface GroupCommit {
  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

interface Pending {
  work: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createGroupCommit(db: Kysely<Database>, maxBatch = 256): GroupCommit {
  let queue: Pending[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    if (flushing) return;
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        try {
          const results = await db.transaction().execute(async (trx) => {
            const out: unknown[] = [];
            for (const item of batch) out.push(await item.work(trx));
            return out;
          });
          batch.forEach((item, i) => item.resolve(results[i]));
        } catch {
          for (const item of batch) {
            try {
              item.resolve(await db.transaction().execute((trx) => item.work(trx)));
            } catch (error) {
              item.reject(error);
            }
          }
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (!flushing) setImmediate(() => void flush());
      });
    },
  };
}
