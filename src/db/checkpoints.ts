// Background WAL checkpoints. SQLite's automatic checkpoint runs inside the commit that crosses
// its threshold, on the connection that committed; with node:sqlite that connection lives on the
// server's event loop, which stops while pages are copied into the database file and synced (a
// stall of 5-15 ms every few megabytes written, seen as the tail of every write's latency). So a
// worker thread with a connection of its own copies the log into the database file every
// CHECKPOINT_INTERVAL_MS. The server's connection keeps a smaller automatic checkpoint of its own
// (SERVER_CHECKPOINT_PAGES): by then the worker has copied nearly everything, so it is short, and
// it is what lets the log start again from the beginning while writes never pause (the worker's
// checkpoint rarely catches up with a writer that commits every millisecond, and a log that never
// restarts grows and slows every read; measured: the jobs benchmark lost about a fifth of its
// throughput with the server's checkpoint at 64 MB instead of 8 MB). Durability does not change:
// a commit is durable in the log; a checkpoint only moves pages into the database file.
import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';

const CHECKPOINT_INTERVAL_MS = 100;
/** Pages in the log (4 KiB each) before the server's own connection checkpoints (what is left). */
const SERVER_CHECKPOINT_PAGES = 2000;
/** After a checkpoint, the log file is cut back to this size instead of keeping its largest. */
const LOG_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** SQLite's default threshold, restored if the worker fails. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface BackgroundCheckpoints {
  stop(): void;
}

export function startBackgroundCheckpoints(database: DatabaseSync, file: string): BackgroundCheckpoints {
  database.exec(
    `PRAGMA wal_autocheckpoint = ${SERVER_CHECKPOINT_PAGES}; PRAGMA journal_size_limit = ${LOG_SIZE_LIMIT_BYTES};`,
  );
  const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
    workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  // Never keeps the process alive: a command-line run or a shutdown does not wait for it.
  worker.unref();
  let stopped = false;
  worker.on('error', () => {
    // The worker died: checkpoint on the server's connection again, as SQLite does by default.
    if (!stopped && database.isOpen) database.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  });
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      worker.postMessage('stop');
    },
  };
}
