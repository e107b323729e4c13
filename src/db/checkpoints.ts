// Background WAL checkpoints. SQLite's automatic checkpoint runs inside the commit that crosses
// its threshold, on the connection that committed; with node:sqlite that connection lives on the
// server's event loop, which stops while pages are copied into the database file and synced (a
// stall of 5-15 ms every few megabytes written, seen as the tail of every write's latency). So a
// worker thread with a connection of its own copies the log into the database file every
// CHECKPOINT_INTERVAL_MS while the server writes. The server's connection keeps a smaller
// automatic checkpoint of its own (SERVER_CHECKPOINT_PAGES): by then the worker has copied nearly
// everything, so it is short, and it is what lets the log start again from the beginning while
// writes never pause (the worker's checkpoint rarely catches up with a writer that commits every
// millisecond, and a log that never restarts grows and slows every read; measured: the jobs
// benchmark lost about a fifth of its throughput with the server's checkpoint at 64 MB instead of
// 8 MB). Durability does not change: a commit is durable in the log; a checkpoint only moves pages
// into the database file.
//
// The worker is an isolate of its own (about 25 MB resident), so it runs only while writes need
// it: it starts at a commit that finds the log past START_LOG_BYTES, and stops once no commit
// came for a whole IDLE_MS (after a last checkpoint that also cuts the log file back to empty).
// An idle server has no checkpointer thread and no checkpoint timer; the log of the few writes
// made while it is stopped stays under START_LOG_BYTES (durable in the log, read from it).
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { DatabaseSync } from 'node:sqlite';

const CHECKPOINT_INTERVAL_MS = 100;
/** Pages in the log (4 KiB each) before the server's own connection checkpoints (what is left). */
const SERVER_CHECKPOINT_PAGES = 2000;
/** After a checkpoint, the log file is cut back to this size instead of keeping its largest. */
const LOG_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** SQLite's default threshold, restored if the worker fails. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** A commit that finds the log file at least this large starts the worker (256 pages). */
const START_LOG_BYTES = 1024 * 1024;
/** The worker stops when no commit came for this long. */
const IDLE_MS = 15_000;

export interface BackgroundCheckpoints {
  /** Told after every commit that wrote (cheap: a counter while the worker runs). */
  committed(): void;
  /** Whether the worker thread is running now. */
  readonly running: boolean;
  stop(): void;
  /**
   * Settles once every worker started has exited (its last checkpoint done and its connection
   * closed): after stop(), nothing of this database's files is open any more.
   */
  exited(): Promise<void>;
}

export interface CheckpointOptions {
  /** Log size that starts the worker; START_LOG_BYTES unless given (tests). */
  startLogBytes?: number;
  /** Quiet time that stops it; IDLE_MS unless given (tests). */
  idleMs?: number;
}

export function startBackgroundCheckpoints(
  database: DatabaseSync,
  file: string,
  options: CheckpointOptions = {},
): BackgroundCheckpoints {
  const startLogBytes = options.startLogBytes ?? START_LOG_BYTES;
  const idleMs = options.idleMs ?? IDLE_MS;
  const logFile = `${file}-wal`;
  database.exec(
    `PRAGMA wal_autocheckpoint = ${SERVER_CHECKPOINT_PAGES}; PRAGMA journal_size_limit = ${LOG_SIZE_LIMIT_BYTES};`,
  );
  let worker: Worker | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let commits = 0;
  let commitsAtLastLook = 0;
  let stopped = false;
  let failed = false;
  // The workers started that have not exited yet (a stopped one still checkpoints and closes).
  const alive = new Set<Promise<void>>();

  const logBytes = (): number => {
    try {
      return fs.statSync(logFile).size;
    } catch {
      return 0;
    }
  };

  const release = () => {
    if (idleTimer) clearInterval(idleTimer);
    idleTimer = undefined;
    const current = worker;
    worker = undefined;
    // The worker checkpoints once more, cuts the log back and closes; a commit after this starts a
    // new one (two connections at once are fine: each checkpoint is PASSIVE or gives way).
    current?.postMessage('stop');
  };

  const start = () => {
    const current = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
      workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS },
    });
    // Never keeps the process alive: a command-line run or a shutdown does not wait for it.
    current.unref();
    const exit = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    alive.add(exit);
    void exit.then(() => alive.delete(exit));
    current.on('error', () => {
      // The worker died: checkpoint on the server's connection again, as SQLite does by default.
      failed = true;
      if (worker === current) release();
      if (!stopped && database.isOpen) database.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    });
    worker = current;
    commitsAtLastLook = commits;
    // Decided here, on the thread that commits: a commit before the 'stop' is in the log before
    // the worker reads the message, so its last checkpoint covers it.
    idleTimer = setInterval(() => {
      if (commits === commitsAtLastLook) release();
      else commitsAtLastLook = commits;
    }, idleMs);
    idleTimer.unref();
  };

  return {
    committed() {
      commits++;
      if (worker || stopped || failed) return;
      if (logBytes() >= startLogBytes) start();
    },
    get running() {
      return worker !== undefined;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      release();
    },
    async exited() {
      await Promise.all([...alive]);
    },
  };
}
