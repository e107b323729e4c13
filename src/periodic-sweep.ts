// A piece of background work run every `intervalMs` (the retention sweeps): one run at a time,
// the next one `intervalMs` after the last ended, a failure logged and retried at the next tick.
// stop() cancels the timer and waits for a run in progress, which checks `closing()` between
// its statements so that it ends before the database closes.
import type { Logger } from 'pino';

export interface PeriodicSweep {
  start(): void;
  /** Stop the timer; a run in progress ends after its current statement. */
  stop(): Promise<void>;
  /** One run now (tests and benchmarks); returns what the run reports it deleted. */
  sweepOnce(): Promise<number>;
}

export function createPeriodicSweep(options: {
  name: string;
  intervalMs: number;
  log: Pick<Logger, 'debug' | 'error'>;
  run: (closing: () => boolean) => Promise<number>;
}): PeriodicSweep {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = true;
  let closing = false;
  const sweepOnce = () => options.run(() => closing);

  function next(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = sweepOnce();
      running
        .then((n) => {
          if (n > 0) options.log.debug({ deleted: n }, options.name);
        })
        .catch((error: unknown) => options.log.error({ err: error }, `${options.name} failed`))
        .finally(() => {
          running = null;
          next();
        });
    }, options.intervalMs);
    timer.unref();
  }

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      closing = false;
      next();
    },
    async stop(): Promise<void> {
      stopped = true;
      closing = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running.catch(() => undefined);
    },
    sweepOnce,
  };
}
