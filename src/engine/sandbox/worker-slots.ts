// The worker threads of a code sandbox (JavaScript, Python): at most `max`, each running one step at
// a time; a step waits for a free one, and a worker whose step ran away is replaced by a new one.
import type { Worker } from 'node:worker_threads';

export interface WorkerSlot {
  worker: Worker;
  busy: boolean;
}

export interface WorkerSlots<S extends WorkerSlot> {
  /** Every worker started and not replaced. */
  readonly all: S[];
  /** Start one more worker, free. */
  spawn(): S;
  /** A free worker, marked busy: an idle one, a new one below `max`, or the next one released. */
  acquire(): Promise<S>;
  release(slot: S): void;
  /** Terminate a worker and put a new one, busy, in its place. */
  replace(slot: S): S;
}

export function createWorkerSlots<S extends WorkerSlot>(max: number, start: () => S): WorkerSlots<S> {
  const all: S[] = [];
  const waiting: Array<(slot: S) => void> = [];

  function spawn(): S {
    const slot = start();
    all.push(slot);
    return slot;
  }

  return {
    all,
    spawn,
    acquire() {
      const free = all.find((s) => !s.busy);
      if (free) {
        free.busy = true;
        return Promise.resolve(free);
      }
      if (all.length < max) {
        const slot = spawn();
        slot.busy = true;
        return Promise.resolve(slot);
      }
      return new Promise((resolve) =>
        waiting.push((slot) => {
          slot.busy = true;
          resolve(slot);
        }),
      );
    },
    release(slot) {
      slot.busy = false;
      const next = waiting.shift();
      if (next) next(slot);
    },
    replace(slot) {
      void slot.worker.terminate();
      all.splice(all.indexOf(slot), 1);
      const fresh = spawn();
      fresh.busy = true;
      return fresh;
    },
  };
}
