// Where the answer to a worker's request is (written by the pool, ruby-sandbox.ts, or by the
// request thread, request-thread.ts; read by ruby-worker.ts), and the worker's wait clock.
import type { MessagePort } from 'node:worker_threads';

/** The answer is in the worker's shared answer buffer; its length in bytes is the signal's second value. */
export const ANSWER_SHARED = 2;
/** The answer is a message on the port the request went by (too large for the shared buffer). */
export const ANSWER_POSTED = 1;

/**
 * The worker's signal, four Int32: [0] the answer flag, [1] the answer's length, [2] when the
 * worker started waiting (milliseconds since its call began, plus one; 0 while it runs Ruby),
 * [3] the milliseconds it waited during the call. The pool reads the last two to charge a call's
 * CPU time without being told of each wait.
 */
export const SIGNAL_BYTES = 16;
export const WAITING_SINCE = 2;
export const WAITED_MS = 3;

const encoder = new TextEncoder();

/** Gives a blocked worker its answer: in shared memory when it fits, else posted on `port`; then wakes it. */
export function writeAnswer(signal: Int32Array, answer: Uint8Array, port: MessagePort, text: string): void {
  const { read, written } = encoder.encodeInto(text, answer);
  if (read === text.length) {
    Atomics.store(signal, 1, written);
    Atomics.store(signal, 0, ANSWER_SHARED);
  } else {
    port.postMessage(text);
    Atomics.store(signal, 0, ANSWER_POSTED);
  }
  Atomics.notify(signal, 0);
}

/** Milliseconds of a call spent running (not waiting for an answer), `startedAt` its start. */
export function runningMs(signal: Int32Array, startedAt: number, now: number): number {
  const elapsed = now - startedAt;
  const since = Atomics.load(signal, WAITING_SINCE);
  const waited = Atomics.load(signal, WAITED_MS) + (since > 0 ? Math.max(0, elapsed - (since - 1)) : 0);
  return elapsed - waited;
}
