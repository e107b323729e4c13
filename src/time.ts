// Time: the clock is injected (tests control it) and every timestamp leaves in one format.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests move by hand. */
export function manualClock(
  start: Date | string = '2026-01-15T10:00:00.000Z',
): Clock & { advance(ms: number): void; set(at: Date | string): void } {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance: (ms: number) => {
      current += ms;
    },
    set: (at: Date | string) => {
      current = new Date(at).getTime();
    },
  };
}

/** Stored form: ISO 8601 UTC with milliseconds ('2025-03-10T08:01:55.120Z'); sorts as text. */
export function toStored(date: Date): string {
  return date.toISOString();
}

/** API form for most resources (contract 00 §5): milliseconds and a numeric offset, '+00:00'. */
export function toApiTimestamp(stored: string): string;
export function toApiTimestamp(stored: string | null): string | null;
export function toApiTimestamp(stored: string | null): string | null {
  if (stored === null) return null;
  return new Date(stored).toISOString().replace(/Z$/, '+00:00');
}

/** API form of the few fields the vendor sends in UTC 'Z' form (e.g. token.updated_at). */
export function toApiUtcTimestamp(stored: string): string {
  return new Date(stored).toISOString();
}
