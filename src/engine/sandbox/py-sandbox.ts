// Python steps run in a sandbox off the event loop: a small pool of worker threads, each with
// Pyodide in a JavaScript realm that holds nothing of the host (py-worker.ts), reused between
// steps. Loading the interpreter takes a second or more, so a worker is started ahead of need
// (`warm`, when a running recipe has a Python step) and kept. At a step's deadline the pool
// interrupts the interpreter (a KeyboardInterrupt in Python); a worker that still does not answer
// soon after, or dies, is terminated and replaced, so a stuck step never holds up the server.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PyBoot, PyReply, PyRequest, PyWorkerData } from './py-worker.ts';

export interface PyLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export type PyResult = { ok: true; output: unknown } | { ok: false; type: string; message: string };

export interface PySandbox {
  run(code: string, input: unknown, limits: PyLimits): Promise<PyResult>;
  /** Start loading an interpreter now, if none is loaded or loading. */
  warm(): void;
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  /** Settles when the interpreter is loaded: its interrupt flag, or why it did not load. */
  ready: Promise<{ interrupt: Int32Array } | { failed: string }>;
}

/** How long past its deadline an interrupted step may take to answer before its worker is replaced. */
const GRACE_MS = 2000;
const WORKER_URL = new URL('./py-worker.ts', import.meta.url);

/**
 * Where a loaded interpreter's memory snapshot is kept between runs of the server, under a name
 * that changes with Pyodide's version and the bootstrap, so a stale one is never read.
 */
export function pythonSnapshotFile(dataDir: string): string {
  const version = (createRequire(import.meta.url)('pyodide/package.json') as { version: string }).version;
  const bootstrap = readFileSync(new URL('./py-bootstrap.py', import.meta.url));
  const key = createHash('sha256').update(version).update('\0').update(bootstrap).digest('hex').slice(0, 16);
  return join(dataDir, 'cache', `python-${key}.snapshot`);
}

export function createPySandbox(options: { workers: number; snapshotFile?: string | null }): PySandbox {
  const slots: Slot[] = [];
  const waiting: Array<(slot: Slot) => void> = [];
  let nextId = 1;
  let closed = false;
  // The memory snapshot of a loaded interpreter, from the first worker: later ones start from it.
  let snapshot: SharedArrayBuffer | null = null;
  let snapshotRead = false;

  /** The snapshot kept on disk by an earlier run, read once (a missing or unreadable file: none). */
  function readSnapshot(): void {
    snapshotRead = true;
    if (!options.snapshotFile) return;
    try {
      const bytes = readFileSync(options.snapshotFile);
      snapshot = new SharedArrayBuffer(bytes.length);
      new Uint8Array(snapshot).set(bytes);
    } catch {
      snapshot = null;
    }
  }

  function keepSnapshot(bytes: Uint8Array): void {
    snapshot = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(snapshot).set(bytes);
    if (!options.snapshotFile) return;
    const file = options.snapshotFile;
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(`${file}.tmp`, bytes);
      renameSync(`${file}.tmp`, file);
    } catch {
      rmSync(`${file}.tmp`, { force: true });
    }
  }

  function spawn(): Slot {
    if (!snapshotRead) readSnapshot();
    const workerData: PyWorkerData = { snapshot };
    const worker = new Worker(WORKER_URL, { workerData, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
    worker.unref();
    const ready = new Promise<{ interrupt: Int32Array } | { failed: string }>((resolve) => {
      const onMessage = (message: PyBoot) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (message.boot === 'ready' && message.snapshot) keepSnapshot(message.snapshot);
        resolve(message.boot === 'ready' ? { interrupt: new Int32Array(message.interrupt) } : { failed: message.message });
      };
      const onError = (error: Error) => resolve({ failed: error.message });
      const onExit = () => resolve({ failed: 'the worker stopped while loading' });
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
    const slot: Slot = { worker, busy: false, ready };
    slots.push(slot);
    return slot;
  }

  function acquire(): Promise<Slot> {
    const free = slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    if (slots.length < options.workers) {
      const slot = spawn();
      slot.busy = true;
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => waiting.push((slot) => { slot.busy = true; resolve(slot); }));
  }

  function release(slot: Slot): void {
    slot.busy = false;
    const next = waiting.shift();
    if (next) next(slot);
  }

  function replace(slot: Slot): Slot {
    void slot.worker.terminate();
    slots.splice(slots.indexOf(slot), 1);
    const fresh = spawn();
    fresh.busy = true;
    return fresh;
  }

  async function runOn(slot: Slot, request: PyRequest, timeoutMs: number): Promise<PyReply & { dead?: true }> {
    const ready = await slot.ready;
    if ('failed' in ready) return { id: request.id, ok: false, type: 'Code error', message: `the Python sandbox could not start: ${ready.failed}`.slice(0, 500), dead: true };
    return new Promise((resolve) => {
      const soft = setTimeout(() => { Atomics.store(ready.interrupt, 0, 2); }, timeoutMs);
      const hard = setTimeout(() => {
        cleanup();
        resolve({ id: request.id, ok: false, type: 'Timeout', message: 'the code ran longer than its time limit', dead: true });
      }, timeoutMs + GRACE_MS);
      const onMessage = (message: PyReply) => {
        if (message.id !== request.id) return;
        cleanup();
        resolve(message);
      };
      const onError = (error: Error) => {
        cleanup();
        resolve({ id: request.id, ok: false, type: 'Code error', message: `the sandbox stopped: ${error.message}`.slice(0, 300), dead: true });
      };
      const onExit = () => {
        cleanup();
        resolve({ id: request.id, ok: false, type: 'Code error', message: 'the sandbox stopped (it ran out of memory or crashed)', dead: true });
      };
      const cleanup = () => {
        clearTimeout(soft);
        clearTimeout(hard);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
      };
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      slot.worker.postMessage(request);
    });
  }

  return {
    async run(code, input, limits) {
      if (closed) return { ok: false, type: 'Code error', message: 'the server is shutting down' };
      let slot = await acquire();
      const request: PyRequest = { id: nextId++, code, input: JSON.stringify(input ?? null), memoryBytes: limits.memoryBytes };
      try {
        const reply = await runOn(slot, request, limits.timeoutMs);
        if ('dead' in reply || (!reply.ok && reply.recycle)) slot = replace(slot);
        if (!reply.ok) return { ok: false, type: reply.type, message: reply.message };
        return { ok: true, output: JSON.parse(reply.output) as unknown };
      } finally {
        release(slot);
      }
    },
    warm() {
      if (!closed && slots.length === 0) spawn();
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
      slots.length = 0;
    },
  };
}
