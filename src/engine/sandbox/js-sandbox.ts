// JavaScript steps run in a sandbox off the event loop: a small pool of worker threads, each with
// QuickJS in WebAssembly (js-worker.ts), reused between steps. A step that does not answer within
// its time limit (plus a margin) has its worker terminated and replaced, so a stuck or crashed
// sandbox never holds up the server or the next step.
import { Worker } from 'node:worker_threads';
import type { JsReply, JsRequest } from './js-worker.ts';
import { callWorker, createWorkerSlots, type WorkerSlot } from './worker-slots.ts';

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
  /** Worker threads running now (busy or idle). */
  workers(): number;
  close(): Promise<void>;
}

type Slot = WorkerSlot;

const WORKER_URL = new URL('./js-worker.ts', import.meta.url);

export function createJsSandbox(options: { workers: number; idleMs?: number }): JsSandbox {
  const slots = createWorkerSlots<Slot>(options.workers, start, { idleMs: options.idleMs ?? 0 });
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
        // The first step of a new worker also loads QuickJS: a second of margin.
        const reply = await callWorker<JsReply>(slot.worker, request, limits.timeoutMs + 1000);
        if ('dead' in reply) slot = slots.replace(slot);
        if (!reply.ok) return { ok: false, type: reply.type, message: reply.message };
        return { ok: true, output: JSON.parse(reply.output) as unknown };
      } finally {
        slots.release(slot);
      }
    },
    workers() {
      return slots.all.length;
    },
    async close() {
      closed = true;
      slots.clear();
      await Promise.all(slots.all.map((s) => s.worker.terminate()));
      slots.all.length = 0;
    },
  };
}
