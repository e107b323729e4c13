// Failed client authentications at the token endpoint, counted per client id and per source
// address in fixed windows; past the limit the endpoint answers 429 until the window ends.
// Kept in memory: it guards against guessing, and a restart only forgives a little early.
import type { Clock } from '../time.ts';

export interface FailureLimiter {
  /** Seconds to wait when any of the keys is over its limit, else 0. */
  retryAfter(keys: readonly string[]): number;
  recordFailure(keys: readonly string[]): void;
}

/** Keys are `<kind>:<value>`; each kind has its own limit per window. */
export function createFailureLimiter(
  clock: Clock,
  options: { limits: Record<string, number>; windowSeconds: number; maxKeys?: number },
): FailureLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const windowMs = options.windowSeconds * 1000;
  const maxKeys = options.maxKeys ?? 100_000;
  const current = (key: string, now: number) => {
    const entry = windows.get(key);
    return entry && now - entry.start < windowMs ? entry : undefined;
  };
  return {
    retryAfter(keys) {
      // Nothing has failed lately (the usual case): no clock read, no lookups.
      if (windows.size === 0) return 0;
      const now = clock.now().getTime();
      let wait = 0;
      for (const key of keys) {
        const entry = current(key, now);
        const limit = options.limits[key.slice(0, key.indexOf(':'))] ?? Number.POSITIVE_INFINITY;
        if (entry && entry.count >= limit) wait = Math.max(wait, Math.ceil((entry.start + windowMs - now) / 1000));
      }
      return wait;
    },
    recordFailure(keys) {
      const now = clock.now().getTime();
      if (windows.size > maxKeys) {
        for (const [key, entry] of windows) if (now - entry.start >= windowMs) windows.delete(key);
        // Still full of live entries: drop the oldest rather than grow without bound.
        while (windows.size > maxKeys) windows.delete(windows.keys().next().value as string);
      }
      for (const key of keys) {
        const entry = current(key, now);
        if (entry) entry.count += 1;
        else windows.set(key, { start: now, count: 1 });
      }
    },
  };
}
