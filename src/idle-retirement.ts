// Worker pools (code steps' sandboxes, custom connectors' Ruby) release workers left idle.
/**
 * Workers of a pool left without work for `idleMs` are retired (`retire` terminates and forgets
 * one), so a server that ran a code step an hour ago does not keep its interpreters' memory. A
 * pool calls `idle(slot)` when a worker becomes free and `busy(slot)` when it takes work; 0 keeps
 * workers for the life of the process. A retired worker's pool starts a new one at the next step.
 */
export interface IdleRetirement<S> {
  idle(slot: S): void;
  busy(slot: S): void;
  /** Cancel every pending retirement (the pool closes). */
  clear(): void;
}

export function idleRetirement<S>(idleMs: number, retire: (slot: S) => void): IdleRetirement<S> {
  const timers = new Map<S, NodeJS.Timeout>();
  const busy = (slot: S) => {
    clearTimeout(timers.get(slot));
    timers.delete(slot);
  };
  return {
    idle(slot) {
      busy(slot);
      if (idleMs <= 0) return;
      const timer = setTimeout(() => {
        timers.delete(slot);
        retire(slot);
      }, idleMs);
      timer.unref();
      timers.set(slot, timer);
    },
    busy,
    clear() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
