// A transaction that the database cancelled because of others (a deadlock between nodes' writes,
// a serialization failure: isRetryableConflict in dialect.ts) is run again, after a short pause
// that grows and varies, so that the transactions that met do not meet again in step. Each
// attempt must run the whole transaction (its locks were released with it) and do nothing
// outside it.
import { isRetryableConflict } from './dialect.ts';

/** Attempts in all; the pauses before them add up to about a second at most. */
const ATTEMPTS = 6;
const FIRST_PAUSE_MS = 10;

/** Run `attempt` (one whole transaction) again while it fails on a conflict with other transactions. */
export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= ATTEMPTS || !isRetryableConflict(error)) throw error;
      const pause = FIRST_PAUSE_MS * 2 ** (n - 1) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
