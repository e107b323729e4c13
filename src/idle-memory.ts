// Gives memory back when the server is at rest. V8 keeps the heap it grew to: after start-up the
// young generation alone holds 64 MB of reserved pages (most of it touched by start-up's garbage)
// and the old generation the space it had at its peak; V8 returns them only under memory pressure.
// Once the server has been at rest for 30 s (the event loop busy under 5% of that time, and of the
// last second) and its heap has grown since the last collection, one memory-reducing full
// collection (V8's "last resort" collection: it shrinks the young generation and releases empty
// pages) gives them back (docs/performance.md: what idle memory is). At most once a minute, never
// under load (a collection of a 40 MB heap stops the loop for tens of ms). The 30 s keep it out of
// start-up and of the pauses of bursty traffic, because the server runs slower after such a
// collection: it clears maps that optimized code holds weakly, and V8 deoptimizes that code and
// optimizes it again under the next load (20–30% more CPU a request in the first seconds). With
// one right after start, the token benchmark (10 s of load and 10 s of rest in turns) reaches 0.43
// of the bare route's rate, 0.50–0.56 with none. It is paid only by a server that is really idle.
// The mean, not 30 quiet seconds in a row: with 10,000 polling recipes a burst of polls makes a
// second busy now and then, and such a server would never give memory back. The server starts
// with V8's own memory reducer off (`--no-memory-reducer` in bin/switchboard, which `npm start`
// runs): 8 s after any full collection it runs two more of its own at rest, which after this one
// find nothing to give back and cost a full marking of the heap each (with 10,000
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
  /** The samples of the last REST_BEFORE_MS (and the one just before them). */
  recent?: Array<{ now: number; utilization: number }>;
}

/** Below this the event loop is at rest (polls of running recipes and timers fit under it). */
export const REST_UTILIZATION = 0.05;
/** Heap growth since the last collection that is worth a collection. */
export const GROWTH_BYTES = 16 * 1024 * 1024;
/** At most one collection in this long. */
export const MIN_INTERVAL_MS = 60_000;
/** The rest a collection waits for: start-up and the pauses of bursty traffic are shorter. */
export const REST_BEFORE_MS = 30_000;

/**
 * Whether to collect now: the server is at rest and was over the last REST_BEFORE_MS (the event
 * loop's mean utilization under REST_UTILIZATION: a second busy with a burst of polls does not
 * count against it, a busy period does), and this is the first collection, or the heap grew and a
 * minute passed since the last one. Keeps the recent samples in `state`.
 */
export function shouldCollect(state: IdleState, sample: IdleSample, restBeforeMs = REST_BEFORE_MS): boolean {
  const recent = (state.recent ??= []);
  recent.push({ now: sample.now, utilization: sample.utilization });
  while (recent.length > 1 && recent[1]!.now <= sample.now - restBeforeMs) recent.shift();
  if (sample.utilization >= REST_UTILIZATION) return false;
  if (sample.now - recent[0]!.now < restBeforeMs) return false;
  const mean = recent.reduce((sum, s) => sum + s.utilization, 0) / recent.length;
  if (mean >= REST_UTILIZATION) return false;
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
export function idleMemory(options: { intervalMs?: number; restBeforeMs?: number } = {}): IdleMemory {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      timer ??= sample(options.intervalMs ?? 1000, options.restBeforeMs ?? REST_BEFORE_MS);
    },
    stop() {
      clearInterval(timer);
    },
  };
}

function sample(intervalMs: number, restBeforeMs: number): NodeJS.Timeout {
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
    if (shouldCollect(state, sample, restBeforeMs)) {
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
