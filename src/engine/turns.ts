// Jobs share the event loop with every request. Most steps await nothing that reaches the loop (a
// logger, a formula, an if, a pass of a repeat), so a job of many such steps would hold it until it
// ended. A job takes turns instead: after `sliceMs` of running it waits in line, and each turn of
// the event loop resumes one waiting job (setImmediate runs in the next turn, after timers and
// I/O), so between two slices of any jobs the server answers requests, fires timers and reads
// sockets, and the jobs waiting are resumed in the order they paused.

export interface Turns {
  /** How long a job may run before it waits for its next turn (ms). */
  readonly sliceMs: number;
  /** Wait in line for a turn of the event loop. */
  pause(): Promise<void>;
}

export function createTurns(sliceMs: number): Turns {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const next = (): void => {
    scheduled = false;
    waiting.shift()?.();
    if (waiting.length > 0) {
      scheduled = true;
      setImmediate(next);
    }
  };
  return {
    sliceMs,
    pause() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!scheduled) {
          scheduled = true;
          setImmediate(next);
        }
      });
    },
  };
}
