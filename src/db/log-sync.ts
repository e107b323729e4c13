// Durable commits without stopping the event loop (docs/adr/0007). Under SQLITE_SYNCHRONOUS=FULL
// SQLite syncs the write-ahead log inside every COMMIT, and node:sqlite runs that COMMIT on the
// event loop: the server stood still for each disk sync (about 40% of its time under batch
// publishes). So the connection runs with `synchronous = NORMAL` (a commit writes its frames to
// the log and returns) and this module syncs the log file on libuv's thread pool instead, one
// fdatasync for every commit made before it began. Nothing is acknowledged before that: the app
// holds every reply until the commits made so far are on disk (src/app.ts, onSend), so a reply,
// whether it reports a write or shows data another request wrote, never reveals a commit that a
// power loss could undo. The result is FULL's guarantee for everything a client is told; what
// differs is only that writes go on while the disk syncs (the next group commit runs meanwhile).
import fs from 'node:fs';

export interface LogSync {
  /** A transaction committed on the connection: it is not durable until the next sync ends. */
  committed(): void;
  /** Whether a commit is not yet known to be on disk. */
  pending(): boolean;
  /** Resolves once every commit made before the call is on disk; rejects if the sync failed. */
  flushed(): Promise<void>;
  /** Sync what is pending, blocking, and let go of the file (the database is closing). */
  close(): void;
}

export type SyncFile = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;

interface Waiter {
  target: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Syncs of the log file at `logPath`. `syncFile` is fdatasync on the thread pool; tests pass
 * their own to hold a sync back and see that nothing is answered meanwhile.
 */
export function createLogSync(
  logPath: string,
  options: { syncFile?: SyncFile; onError?: (error: unknown) => void } = {},
): LogSync {
  const syncFile = options.syncFile ?? fs.fdatasync;
  let commits = 0;
  let synced = 0;
  let inFlight = false;
  let fd: number | undefined;
  let closed = false;
  let waiters: Waiter[] = [];

  const settle = (error: unknown) => {
    if (error !== undefined) options.onError?.(error);
    const still: Waiter[] = [];
    for (const waiter of waiters) {
      if (error !== undefined) waiter.reject(error);
      else if (waiter.target <= synced) waiter.resolve();
      else still.push(waiter);
    }
    waiters = still;
  };

  const start = () => {
    if (inFlight || synced >= commits) return;
    const target = commits;
    try {
      // The log exists once the first commit wrote to it, and keeps its inode while the
      // connection is open (a checkpoint restarts it in place; journal_size_limit truncates it).
      fd ??= fs.openSync(logPath, 'r');
    } catch (error) {
      settle(error);
      return;
    }
    inFlight = true;
    syncFile(fd, (error) => {
      inFlight = false;
      if (closed) {
        if (fd !== undefined) fs.closeSync(fd);
        fd = undefined;
        return;
      }
      if (error) {
        // The commits stay unconfirmed: every waiter is refused; the next commit tries again.
        settle(error);
        return;
      }
      synced = Math.max(synced, target);
      settle(undefined);
      start();
    });
  };

  return {
    committed() {
      commits += 1;
    },
    pending() {
      return synced < commits;
    },
    flushed() {
      if (synced >= commits) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ target: commits, resolve, reject });
        start();
      });
    },
    close() {
      if (closed) return;
      closed = true;
      if (synced < commits) {
        fd ??= fs.openSync(logPath, 'r');
        fs.fdatasyncSync(fd);
        synced = commits;
      }
      settle(undefined);
      // A sync still running on the thread pool closes the file when it ends.
      if (fd !== undefined && !inFlight) {
        fs.closeSync(fd);
        fd = undefined;
      }
    },
  };
}
