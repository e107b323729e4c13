// Whether the database takes writes. A statement or a sync of the log that fails because of the
// storage (a full disk, a read-only file or directory, an I/O error: storageFailureOf) marks it
// failing; GET /ready then answers 503 and says why. Requests never wait on this state: every write
// is tried, so the server writes again the moment the disk takes writes, without a restart. What
// clears the state is a write of its own: while it is set, each GET /ready first tries one (a row
// of 64 KiB, more than most requests write, committed and synced, then deleted), and the first that
// commits marks the storage healthy again.
import { storageFailureOf, type StorageFailure } from './dialect.ts';

export interface StorageProblem {
  failure: StorageFailure;
  /** When the first failure of this spell was seen. */
  since: Date;
}

export interface StorageHealth {
  /** Any error of a statement or of a sync: recorded when it is a storage failure. */
  observe(error: unknown): void;
  /** The storage failure seen last and not cleared by a successful check since. */
  problem(): StorageProblem | undefined;
  /** With a problem: try a write now (one at a time), and clear the problem if it commits. The state after. */
  recheck(): Promise<StorageProblem | undefined>;
  /** Told when the storage starts failing and when it recovers. */
  onChange(listener: (problem: StorageProblem | undefined) => void): void;
}

/** What people read: "Storage unavailable: the disk is full". */
export const STORAGE_FAILURE_TEXT: Readonly<Record<StorageFailure, string>> = {
  full: 'the disk is full',
  read_only: 'the data directory is read-only',
  io_error: 'the disk failed a read or a write',
  cannot_open: 'the database file cannot be opened',
  unreachable: 'the database server cannot be reached or refused the connection',
};

/** `probe` writes and commits something that needs new space, and resolves once that is on disk. */
export function createStorageHealth(probe: () => Promise<void>, clock: () => Date = () => new Date()): StorageHealth {
  let current: StorageProblem | undefined;
  let checking: Promise<StorageProblem | undefined> | undefined;
  const listeners: Array<(problem: StorageProblem | undefined) => void> = [];
  const set = (next: StorageProblem | undefined) => {
    const changed =
      (current === undefined) !== (next === undefined) || (current && next && current.failure !== next.failure);
    current = next;
    if (changed) for (const listener of listeners) listener(next);
  };
  const health: StorageHealth = {
    observe(error) {
      const failure = storageFailureOf(error);
      if (failure === undefined || current?.failure === failure) return;
      set({ failure, since: current?.since ?? clock() });
    },
    problem: () => current,
    recheck() {
      if (current === undefined) return Promise.resolve(undefined);
      checking ??= probe()
        .then(
          () => set(undefined),
          (error: unknown) => health.observe(error),
        )
        .then(() => {
          checking = undefined;
          return current;
        });
      return checking;
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
  return health;
}
