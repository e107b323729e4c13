// Gives memory back when the server is at rest. V8 keeps the heap it grew to: after start-up the
// young generation alone holds 64 MB of reserved pages (most of it touched by start-up's garbage)
// and the old generation the space it had at its peak; V8 returns them only under memory pressure.
// Once the server is at rest (the event loop busy under 5% of a second) and its heap has grown
// since the last time, one memory-reducing full collection (V8's "last resort" collection: it
// shrinks the young generation and releases empty pages) gives them back: 200 → 165 MB for an
// empty server. It runs at the first quiet second after start and again after a busy period, at
// most once a minute, never under load (a collection of a 40 MB heap stops the loop for tens of ms).
// The server starts with V8's own memory reducer off (`--no-memory-reducer` in `npm start` and
// bin/switchboard): 8 s after any full collection it runs two more of its own at rest, which after
// this one find nothing to give back and cost a full marking of the heap each (with 10,000
// running recipes, about 1% of a core over the first 20 s at rest).
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';

/** A sample of one second: how busy the event loop was and how much heap V8 holds. */
export interface IdleSample {
  /** Event loop utilization over the last second, 0 to 1. */
  utilization: number;
  /** V8's total heap size, bytes. */
  heapBytes: number;
  /** Milliseconds on a monotonic clock. */
  now: number;
}

export interface IdleState {
  /** Heap size after the last collection; undefined before the first. */
  heapAfterLast: number | undefined;
  /** When the last collection ran (monotonic ms); -Infinity before the first. */
  lastAt: number;
}

/** Below this the event loop is at rest (polls of running recipes and timers fit under it). */
export const REST_UTILIZATION = 0.05;
/** Heap growth since the last collection that is worth a collection. */
export const GROWTH_BYTES = 16 * 1024 * 1024;
/** At most one collection in this long. */
export const MIN_INTERVAL_MS = 60_000;

/** Whether to collect now: at rest, and first after start or the heap grew and a minute passed. */
export function shouldCollect(state: IdleState, sample: IdleSample): boolean {
  if (sample.utilization >= REST_UTILIZATION) return false;
  if (state.heapAfterLast === undefined) return true;
  return sample.heapBytes - state.heapAfterLast >= GROWTH_BYTES && sample.now - state.lastAt >= MIN_INTERVAL_MS;
}

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * V8's collector, reached without exposing `gc` to any other context: the flag is on only while
 * one empty context is made (user code in vm contexts, such as the Python realm's, never sees it).
 */
function memoryReducingCollector(): Collect {
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as Collect;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

export interface IdleMemory {
  /** Starts sampling (once the server listens: start-up itself is not rest). */
  start(): void;
  stop(): void;
}

/** Samples the event loop every second once started and collects when `shouldCollect` says so. */
export function idleMemory(options: { intervalMs?: number } = {}): IdleMemory {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      timer ??= sample(options.intervalMs ?? 1000);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

function sample(intervalMs: number): NodeJS.Timeout {
  const collect = memoryReducingCollector();
  const state: IdleState = { heapAfterLast: undefined, lastAt: -Infinity };
  let previous = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const current = performance.eventLoopUtilization();
    const sample: IdleSample = {
      utilization: performance.eventLoopUtilization(current, previous).utilization,
      heapBytes: v8.getHeapStatistics().total_heap_size,
      now: performance.now(),
    };
    if (shouldCollect(state, sample)) {
      collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      state.heapAfterLast = v8.getHeapStatistics().total_heap_size;
      state.lastAt = performance.now();
    }
    // The collection's own time does not count as work at the next sample.
    previous = performance.eventLoopUtilization();
  }, intervalMs);
  // Never keeps the process alive.
  timer.unref();
  return timer;
}
