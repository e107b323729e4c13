// The worker threads of a code sandbox (JavaScript, Python): at most `max`, each running one step at
// a time; a step waits for a free one, and a worker whose step ran away is replaced by a new one.
// `callWorker` is one step's round trip to a worker, with its deadline.
import type { Worker } from 'node:worker_threads';
import { idleRetirement } from '../../idle-retirement.ts';

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
  /** Cancel pending idle retirements (the pool closes). */
  clear(): void;
}

export function createWorkerSlots<S extends WorkerSlot>(
  max: number,
  start: () => S,
  options: { idleMs?: number } = {},
): WorkerSlots<S> {
  const all: S[] = [];
  const waiting: Array<(slot: S) => void> = [];
  const retirement = idleRetirement<S>(options.idleMs ?? 0, (slot) => {
    if (slot.busy || !all.includes(slot)) return;
    all.splice(all.indexOf(slot), 1);
    void slot.worker.terminate();
  });

  function spawn(): S {
    const slot = start();
    all.push(slot);
    retirement.idle(slot);
    return slot;
  }

  return {
    all,
    spawn,
    acquire() {
      const free = all.find((s) => !s.busy);
      if (free) {
        free.busy = true;
        retirement.busy(free);
        return Promise.resolve(free);
      }
      if (all.length < max) {
        const slot = spawn();
        slot.busy = true;
        retirement.busy(slot);
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
      else if (all.includes(slot)) retirement.idle(slot);
    },
    replace(slot) {
      retirement.busy(slot);
      void slot.worker.terminate();
      all.splice(all.indexOf(slot), 1);
      const fresh = spawn();
      fresh.busy = true;
      retirement.busy(fresh);
      return fresh;
    },
    clear() {
      retirement.clear();
    },
  };
}

/** The answer given for a worker that did not answer: timed out, crashed or exited. It is then replaced. */
export interface DeadReply {
  id: number;
  ok: false;
  type: string;
  message: string;
  dead: true;
}

/**
 * Post one request (with its `id`) to a worker and wait for the reply of that id. With no reply by
 * `deadlineMs`, or when the worker fails or exits first, a DeadReply. `interrupt`, when given, is
 * called at `interrupt.afterMs` for a worker that can stop its step itself.
 */
export function callWorker<R extends { id: number }>(
  worker: Worker,
  request: { id: number },
  deadlineMs: number,
  interrupt?: { afterMs: number; signal(): void },
): Promise<R | DeadReply> {
  const { id } = request;
  return new Promise((resolve) => {
    const soft = interrupt ? setTimeout(interrupt.signal, interrupt.afterMs) : undefined;
    const hard = setTimeout(
      () => finish({ id, ok: false, type: 'Timeout', message: 'the code ran longer than its time limit', dead: true }),
      deadlineMs,
    );
    const onMessage = (message: R) => {
      if (message.id === id) finish(message);
    };
    const onError = (error: Error) =>
      finish({
        id,
        ok: false,
        type: 'Code error',
        message: `the sandbox stopped: ${error.message}`.slice(0, 300),
        dead: true,
      });
    const onExit = () =>
      finish({
        id,
        ok: false,
        type: 'Code error',
        message: 'the sandbox stopped (it ran out of memory or crashed)',
        dead: true,
      });
    function finish(reply: R | DeadReply): void {
      clearTimeout(soft);
      clearTimeout(hard);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(reply);
    }
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(request);
  });
}
