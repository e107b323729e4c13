// A piece of background work run every `intervalMs` (the retention sweeps): one run at a time,
// the next one `intervalMs` after the last ended, a failure logged and retried at the next tick.
// stop() cancels the timer and waits for a run in progress, which checks `closing()` between
// its statements so that it ends before the database closes. With several nodes on one
// database, each timed run is a turn (src/leases.ts, `sweep:<name>`): one node sweeps per
// interval, the others skip theirs, rather than every node deleting the same rows at once.
import type { Logger } from 'pino';
import type { Db } from './db/types.ts';
import { takeTurn } from './leases.store.ts';
import { toStored } from './time.ts';

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
  /**
   * Where the turns are kept, and this node: one node of those sharing `db` sweeps per interval.
   * Without it every node runs every interval (work cheap when there is none, safe to run on
   * several nodes at once, and too frequent for a turn's write at every interval).
   */
  turns?: { db: Db; nodeId: string };
}): PeriodicSweep {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = true;
  let closing = false;
  const sweepOnce = () => options.run(() => closing);
  const { turns } = options;
  /**
   * A timed run: this node's turn, or nothing (another node sweeps this interval). Turns are
   * counted in the time the timers keep (the machine's), whatever clock the sweep itself reads.
   */
  const timedRun = async (): Promise<number> => {
    if (turns === undefined) return sweepOnce();
    const now = Date.now();
    const turn = await takeTurn(
      turns.db,
      `sweep:${options.name}`,
      turns.nodeId,
      toStored(new Date(now)),
      toStored(new Date(now + options.intervalMs)),
    );
    return turn.taken ? sweepOnce() : 0;
  };

  function next(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = timedRun();
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
