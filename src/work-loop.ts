// Background work whose queue is in the database (packages, test run requests): `kick` when new
// work is stored; one pass at a time takes every pending item; a kick during a pass makes another
// pass follow it. `stop` ends the loop after the item in hand (a pass checks `stopped()` between
// items), so the work left is taken up again by the next start.
import type { Logger } from 'pino';

export interface WorkLoop {
  kick(): void;
  start(): void;
  /** Stop taking work and wait for the item in hand. */
  stop(): Promise<void>;
  /** Resolves when no pass is running (tests). */
  idle(): Promise<void>;
  stopped(): boolean;
}

export function createWorkLoop(options: {
  name: string;
  log: Pick<Logger, 'error'>;
  pass: (stopped: () => boolean) => Promise<void>;
  /** Also pass every so often (several nodes: work another node left when it died). */
  repassEveryMs?: number | undefined;
}): WorkLoop {
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let again = false;
  let stopped = true;
  const isStopped = () => stopped;

  async function drain(): Promise<void> {
    do {
      again = false;
      await options.pass(isStopped);
    } while (again && !stopped);
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((error: unknown) => {
        if (!stopped) options.log.error({ err: error }, `${options.name} stopped on an error`);
      })
      .finally(() => {
        running = null;
        if (again && !stopped) kick();
      });
  }

  return {
    kick,
    start() {
      stopped = false;
      if (options.repassEveryMs !== undefined && !timer) {
        timer = setInterval(kick, options.repassEveryMs);
        timer.unref();
      }
      kick();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
    async idle() {
      while (running) await running;
    },
    stopped: isStopped,
  };
}
