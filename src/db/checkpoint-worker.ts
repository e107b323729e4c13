// The worker thread of background checkpoints (see checkpoints.ts): its own connection to the
// database file, a PASSIVE checkpoint every interval, nothing else. PASSIVE never waits for the
// server's writer or readers: it copies what it can into the database file and syncs it. Told to
// stop (the server stopped writing, or closes), it checkpoints once more and tries to cut the log
// file back to empty (TRUNCATE; with no wait it gives way at once if a reader or writer is busy).
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const database = new DatabaseSync(file);
database.exec('PRAGMA busy_timeout = 0');
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const run = (statement: { get(): unknown }) => {
  try {
    statement.get();
  } catch {
    // Busy (another checkpoint in progress) or a transient I/O error: try again next time.
  }
};

const timer = setInterval(() => run(checkpoint), intervalMs);

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  run(checkpoint);
  try {
    run(database.prepare('PRAGMA wal_checkpoint(TRUNCATE)'));
  } finally {
    database.close();
    parentPort?.close();
  }
});
