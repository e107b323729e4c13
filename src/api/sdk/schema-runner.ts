// Runs schema generation in a worker thread, one sample at a time, with a time limit and a short
// queue. Inference is linear and bounded (schema-inference.ts), yet a 10 MB sample still takes
// a few hundred milliseconds of CPU: on the server's thread that would stall every other request.
import { Worker } from 'node:worker_threads';
import { AppError, type FieldErrors, type PlainErrorCode } from '../../errors.ts';
import type { SchemaField } from './schema-inference.ts';

export type SchemaRequest =
  | { kind: 'json'; input: { sample?: unknown } }
  | { kind: 'csv'; input: { sample?: string | null; col_sep?: string | null; custom_col_sep?: string | null } };

export type SchemaReply =
  | { ready: true }
  | { ok: true; fields: SchemaField[] }
  | { ok: false; code: PlainErrorCode; errors: FieldErrors | undefined };

export interface SchemaRunnerOptions {
  /** A sample still being analysed after this long is refused (400 `sample_too_complex`). */
  timeLimitMs?: number;
  /** Samples waiting behind the one being analysed; more are refused with 429. */
  maxQueued?: number;
  /** Heap of the worker; a sample that needs more is refused like one that takes too long. */
  maxHeapMb?: number;
}

export interface SchemaRunner {
  generate(request: SchemaRequest): Promise<SchemaField[]>;
  close(): Promise<void>;
}

interface Job {
  request: SchemaRequest;
  resolve: (fields: SchemaField[]) => void;
  reject: (error: unknown) => void;
}

export function createSchemaRunner(options: SchemaRunnerOptions = {}): SchemaRunner {
  const timeLimitMs = options.timeLimitMs ?? 10_000;
  const maxQueued = options.maxQueued ?? 8;
  const maxHeapMb = options.maxHeapMb ?? 512;
  const queue: Job[] = [];
  let worker: Worker | null = null;
  /** The worker has loaded its code: the time limit counts from the moment a sample is posted. */
  let ready = false;
  let current: Job | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  function startWorker(): Worker {
    const started = new Worker(new URL('./schema-worker.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    });
    started.unref();
    started.on('message', (reply: SchemaReply) => {
      if ('ready' in reply) {
        ready = true;
        pump();
        return;
      }
      const job = finish();
      if (!job) return;
      if (reply.ok) job.resolve(reply.fields);
      else job.reject(new AppError(reply.code, reply.errors ? { errors: reply.errors } : {}));
    });
    // A worker that dies (out of memory, say) fails the sample it was given; the next starts anew.
    started.on('error', () => abandon(started));
    started.on('exit', () => abandon(started));
    return started;
  }

  function abandon(dead: Worker): void {
    if (worker !== dead) return;
    worker = null;
    ready = false;
    finish()?.reject(tooComplex());
    pump();
  }

  function finish(): Job | null {
    if (timer) clearTimeout(timer);
    timer = null;
    const job = current;
    current = null;
    queueMicrotask(pump);
    return job;
  }

  function pump(): void {
    if (closed || current || queue.length === 0) return;
    if (!worker) {
      worker = startWorker();
      return;
    }
    if (!ready) return;
    const job = queue.shift() as Job;
    try {
      worker.postMessage(job.request);
    } catch {
      // A document nested beyond what can be copied to the worker.
      job.reject(new AppError('sample_too_deep', { errors: { sample: ['is nested too deeply to be analysed'] } }));
      pump();
      return;
    }
    current = job;
    const running = worker;
    timer = setTimeout(() => {
      worker = null;
      ready = false;
      void running.terminate();
      finish()?.reject(tooComplex());
    }, timeLimitMs);
  }

  return {
    generate(request) {
      if (closed) return Promise.reject(new AppError('samples_shutting_down'));
      if (queue.length + (current ? 1 : 0) > maxQueued)
        return Promise.reject(new AppError('samples_queue_full', { retryAfterSeconds: 1 }));
      return new Promise<SchemaField[]>((resolve, reject) => {
        queue.push({ request, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const job of queue.splice(0)) job.reject(new AppError('samples_shutting_down'));
      current?.reject(new AppError('samples_shutting_down'));
      current = null;
      const running = worker;
      worker = null;
      if (running) await running.terminate();
    },
  };
}

function tooComplex(): AppError {
  return new AppError('sample_too_complex', { errors: { sample: ['took too long or too much memory to analyse'] } });
}
