// The main thread's side of the Ruby runtime's request thread (request-thread.ts): started with the
// first call that carries an exchange, given each Ruby worker's request port when that worker first
// needs it, and asked on `main` for what stays in this thread (a `Retry-After` wait, a log line).
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { ExchangeLogLine, TransportSettings } from '../http/transport.ts';

/** A step's exchange as data: the transport's settings, the step's limits, the values masked in the log. */
export type DirectExchange = TransportSettings & {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Epoch milliseconds by which the exchange, its waits included, must be over. */
  deadline: number;
  retryRateLimits: boolean;
  secrets: string[];
};

/** What a Ruby worker posts on its request port: the `http` host op of its call, with the call's exchange. */
export interface WorkerHttpOp {
  call: number;
  request: unknown;
  exchange: DirectExchange;
}

export interface WorkerRegistration {
  worker: number;
  port: MessagePort;
  signal: SharedArrayBuffer;
  answer: SharedArrayBuffer;
}

export interface RequestThreadData {
  main: MessagePort;
}

/** What the request thread asks of the main thread for a worker's call. */
export type RequestThreadMessage =
  | { worker: number; call: number; op: 'exchange_log'; line: ExchangeLogLine }
  | { worker: number; call: number; op: 'rate_limit_wait'; ms: number; wait: number };

export interface RequestThread {
  register(registration: WorkerRegistration): void;
  /** Takes up at once what the thread has asked and this thread has not yet taken up (a call is ending). */
  drain(): void;
  close(): Promise<void>;
}

const THREAD_URL = new URL('./request-thread.ts', import.meta.url);

/**
 * `handle` answers a message for the worker's running call: a wait's promise (its error, or null
 * when waited), nothing for a log line; a message for a call that is over is dropped by it.
 */
export function createRequestThread(
  handle: (message: RequestThreadMessage) => Promise<string | null> | undefined,
  onExit: () => void,
): RequestThread {
  const { port1: main, port2: threadSide } = new MessageChannel();
  const thread = new Worker(THREAD_URL, {
    workerData: { main: threadSide } satisfies RequestThreadData,
    transferList: [threadSide],
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
  });
  thread.unref();
  let closing = false;
  thread.on('error', () => undefined);
  thread.on('exit', () => {
    if (!closing) onExit();
  });
  const take = (message: RequestThreadMessage) => {
    const waited = handle(message);
    if (message.op === 'rate_limit_wait') {
      const wait = message.wait;
      (waited ?? Promise.resolve('the call is over')).then(
        (error) => main.postMessage({ wait, error }),
        (error: unknown) => main.postMessage({ wait, error: error instanceof Error ? error.message : String(error) }),
      );
    }
  };
  main.on('message', take);
  main.unref();
  return {
    register(registration) {
      thread.postMessage(registration, [registration.port]);
    },
    drain() {
      for (let next = receiveMessageOnPort(main); next; next = receiveMessageOnPort(main))
        take(next.message as RequestThreadMessage);
    },
    async close() {
      closing = true;
      main.close();
      await thread.terminate();
    },
  };
}
