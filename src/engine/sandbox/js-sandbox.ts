// JavaScript steps run in a sandbox off the event loop: a small pool of worker threads, each with
// QuickJS in WebAssembly (js-worker.ts), reused between steps. A step that does not answer within
// its time limit (plus a margin) has its worker terminated and replaced, so a stuck or crashed
// sandbox never holds up the server or the next step.
import { Worker } from 'node:worker_threads';
import type { JsReply, JsRequest } from './js-worker.ts';
import { createWorkerSlots, type WorkerSlot } from './worker-slots.ts';

export interface JsLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export interface JsSandbox {
  run(
    code: string,
    input: unknown,
    limits: JsLimits,
  ): Promise<{ ok: true; output: unknown } | { ok: false; type: string; message: string }>;
  close(): Promise<void>;
}

type Slot = WorkerSlot;

const WORKER_URL = new URL('./js-worker.ts', import.meta.url);

export function createJsSandbox(options: { workers: number }): JsSandbox {
  const slots = createWorkerSlots<Slot>(options.workers, start);
  let nextId = 1;
  let closed = false;

  function start(): Slot {
    // The worker's own heap is bounded too; the WebAssembly memory is bounded by QuickJS's limit.
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 32 },
    });
    worker.unref();
    const slot = { worker, busy: false };
    return slot;
  }

  return {
    async run(code, input, limits) {
      if (closed) return { ok: false, type: 'Code error', message: 'the server is shutting down' };
      let slot = await slots.acquire();
      const id = nextId++;
      const request: JsRequest = {
        id,
        code,
        input: JSON.stringify(input ?? null),
        timeoutMs: limits.timeoutMs,
        memoryBytes: limits.memoryBytes,
      };
      try {
        const reply = await new Promise<JsReply | { id: number; ok: false; type: string; message: string; dead: true }>(
          (resolve) => {
            // The first step of a new worker also loads QuickJS: a second of margin.
            const timer = setTimeout(
              () =>
                resolve({
                  id,
                  ok: false,
                  type: 'Timeout',
                  message: 'the code ran longer than its time limit',
                  dead: true,
                }),
              limits.timeoutMs + 1000,
            );
            const onMessage = (message: JsReply) => {
              if (message.id !== id) return;
              cleanup();
              resolve(message);
            };
            const onError = (error: Error) => {
              cleanup();
              resolve({
                id,
                ok: false,
                type: 'Code error',
                message: `the sandbox stopped: ${error.message}`.slice(0, 300),
                dead: true,
              });
            };
            const onExit = () => {
              cleanup();
              resolve({
                id,
                ok: false,
                type: 'Code error',
                message: 'the sandbox stopped (it ran out of memory or crashed)',
                dead: true,
              });
            };
            const cleanup = () => {
              clearTimeout(timer);
              slot.worker.off('message', onMessage);
              slot.worker.off('error', onError);
              slot.worker.off('exit', onExit);
            };
            slot.worker.on('message', onMessage);
            slot.worker.on('error', onError);
            slot.worker.on('exit', onExit);
            slot.worker.postMessage(request);
          },
        );
        if ('dead' in reply) slot = slots.replace(slot);
        if (!reply.ok) return { ok: false, type: reply.type, message: reply.message };
        return { ok: true, output: JSON.parse(reply.output) as unknown };
      } finally {
        slots.release(slot);
      }
    },
    async close() {
      closed = true;
      await Promise.all(slots.all.map((s) => s.worker.terminate()));
      slots.all.length = 0;
    },
  };
}
