// Reading an import's zip off the event loop: a worker thread (reader-worker.ts) with a heap of
// its own, bounded, inflates, parses and checks one file at a time, and hands back each file's
// checked fields (code and test cases as text) and then each table's rows a batch at a time. The
// server's heap never holds a parsed file, so what a zip declares or hides (a few kilobytes that
// inflate to files of `{},{},…`) costs the server no more than the worker's bound; a file that
// needs more ends the worker, and fails the package naming the file.
import { Worker } from 'node:worker_threads';
import type { Cells } from '../lookup_tables/lookup_tables.store.ts';
import type { Column } from '../data_tables/columns.ts';
import { PackageFailure } from './export.ts';
import type { ParsedPackage } from './entries.ts';
import type { DataRecord, ReaderReply, ReaderRequest } from './reader-worker.ts';
import type { ZipLimits } from './zip.ts';

/** The worker's heap: a file must parse within it (a 64 MiB file of ordinary rows takes a few hundred MB). */
export const READER_HEAP_MB = 512;
/**
 * Rows are converted and written this many at a time. Small enough that the insert statement is
 * short and the database layer keeps it prepared for the next batch: a statement prepared anew
 * for each batch of thousands of bound values holds native memory until the garbage collector
 * gets to it, which at 100,000 rows a table added hundreds of megabytes to the server.
 */
const ROWS_PER_BATCH = 200;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface PackageReader {
  /** Every file parsed and checked, one at a time; a PackageFailure lists every problem. */
  entries(): Promise<ParsedPackage>;
  /** A lookup table file's rows as cells of its `columns` first columns, a batch at a time. */
  lookupRows(path: string, columns: number): AsyncGenerator<Cells[]>;
  /** A data table file's records coerced to its columns (with the problems of each), a batch at a time. */
  dataRecords(path: string, columns: Column[]): AsyncGenerator<DataRecord[]>;
  close(): Promise<void>;
}

export async function openPackageReader(
  archive: Buffer,
  limits: ZipLimits,
  heapMb = READER_HEAP_MB,
): Promise<PackageReader> {
  const worker = new Worker(new URL('./reader-worker.ts', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(64, heapMb / 2) },
  });
  worker.unref();
  let nextId = 1;
  let reading = '';
  let ended: Error | null = null;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();

  const end = (error: Error) => {
    ended ??= error;
    for (const waiter of pending.values()) waiter.reject(ended);
    pending.clear();
  };
  worker.on('message', (reply: ReaderReply) => {
    if ('reading' in reply) {
      reading = reply.reading;
      return;
    }
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (!waiter) return;
    if (reply.ok) waiter.resolve(reply.value);
    else if (reply.failure) waiter.reject(new PackageFailure(reply.failure.message, reply.failure.parts));
    else waiter.reject(new Error(`the package reader failed: ${reply.message}`));
  });
  // Out of memory (ERR_WORKER_OUT_OF_MEMORY) is what a file too big to parse does; anything else
  // that ends the thread fails the package the same way, naming the file it was reading.
  worker.on('error', (error: Error & { code?: string }) =>
    end(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new PackageFailure(
            `${reading || 'the package'}: too large to read within the import's ${heapMb} MiB; nothing was imported`,
          )
        : new Error(`the package reader stopped: ${error.message}`),
    ),
  );
  worker.on('exit', () => end(new Error('the package reader stopped')));

  function ask<T>(request: DistributiveOmit<ReaderRequest, 'id'>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (ended) return Promise.reject(ended);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  async function* batches<T>(request: (from: number) => DistributiveOmit<ReaderRequest, 'id'>): AsyncGenerator<T[]> {
    for (let from = 0; ; from += ROWS_PER_BATCH) {
      const batch = await ask<T[]>(request(from));
      if (batch.length > 0) yield batch;
      if (batch.length < ROWS_PER_BATCH) return;
    }
  }

  // The worker gets its own copy of the zip (moved, not cloned, to its thread).
  const copy = new ArrayBuffer(archive.byteLength);
  new Uint8Array(copy).set(archive);
  try {
    await ask({ kind: 'open', zip: copy, limits }, [copy]);
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    entries: () => ask<ParsedPackage>({ kind: 'entries' }),
    lookupRows: (path, columns) =>
      batches<Cells>((from) => ({ kind: 'lookup_rows', path, columns, from, count: ROWS_PER_BATCH })),
    dataRecords: (path, columns) =>
      batches<DataRecord>((from) => ({ kind: 'data_records', path, columns, from, count: ROWS_PER_BATCH })),
    async close() {
      end(new Error('the package reader is closed'));
      await worker.terminate();
    },
  };
}
