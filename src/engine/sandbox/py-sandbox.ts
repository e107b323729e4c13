// Python steps run in a sandbox off the event loop: a small pool of worker threads, each with
// Pyodide in a JavaScript realm that holds nothing of the host (py-worker.ts), reused between
// steps. Loading the interpreter takes a second or more, so a worker is started ahead of need
// (`warm`, when a running recipe has a Python step) and kept. At a step's deadline the pool
// interrupts the interpreter (a KeyboardInterrupt in Python); a worker that still does not answer
// soon after, or dies, is terminated and replaced, so a stuck step never holds up the server.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PyBoot, PyReply, PyRequest, PyWorkerData } from './py-worker.ts';
import { callWorker, createWorkerSlots, type DeadReply, type WorkerSlot } from './worker-slots.ts';

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

interface Slot extends WorkerSlot {
  /** Settles when the interpreter is loaded: its interrupt flag, or why it did not load. */
  ready: Promise<{ interrupt: Int32Array } | { failed: string }>;
}

/** How long past its deadline an interrupted step may take to answer before its worker is replaced. */
const GRACE_MS = 2000;
const WORKER_URL = new URL('./py-worker.ts', import.meta.url);

/**
 * The name of a loaded interpreter's memory snapshot: it changes with Pyodide's version and with
 * the code that loads the interpreter (the bootstrap, the worker, the realm), so a stale snapshot
 * is never read.
 */
function snapshotName(): string {
  const version = (createRequire(import.meta.url)('pyodide/package.json') as { version: string }).version;
  const hash = createHash('sha256').update(version);
  for (const file of ['./py-bootstrap.py', './py-worker.ts', './py-realm.ts'])
    hash.update('\0').update(readFileSync(new URL(file, import.meta.url)));
  return `python-${hash.digest('hex').slice(0, 16)}.snapshot`;
}

/** Where a data directory keeps the snapshot between runs of the server. */
export function pythonSnapshotFile(dataDir: string): string {
  return join(dataDir, 'cache', snapshotName());
}

/**
 * Where the installation keeps the snapshot that `npm install` prepares (`switchboard
 * prepare-python`), beside Pyodide in node_modules: every data directory of this installation
 * starts from it, so the first Python step of a fresh server does not wait for Pyodide to load.
 */
export function installedPythonSnapshotFile(): string {
  const modules = dirname(dirname(createRequire(import.meta.url).resolve('pyodide/package.json')));
  return join(modules, '.cache', 'switchboard', snapshotName());
}

/**
 * `snapshotFiles`: where a loaded interpreter's snapshot may be, in order of preference (the data
 * directory's, then the installation's); the first that can be read is used, and when it does not
 * load the interpreter loads in full. A snapshot made by a full load is written to each of them.
 */
export function createPySandbox(options: { workers: number; snapshotFiles?: readonly string[] }): PySandbox {
  const slots = createWorkerSlots<Slot>(options.workers, start);
  let nextId = 1;
  let closed = false;
  // The memory snapshot of a loaded interpreter, from the first worker: later ones start from it.
  let snapshot: SharedArrayBuffer | null = null;
  let snapshotRead = false;

  /** The snapshot kept on disk by an earlier run, read once (missing or unreadable files: none). */
  function readSnapshot(): void {
    snapshotRead = true;
    for (const file of options.snapshotFiles ?? []) {
      try {
        const bytes = readFileSync(file);
        snapshot = new SharedArrayBuffer(bytes.length);
        new Uint8Array(snapshot).set(bytes);
        return;
      } catch {
        snapshot = null;
      }
    }
  }

  function keepSnapshot(bytes: Uint8Array): void {
    snapshot = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(snapshot).set(bytes);
    for (const file of options.snapshotFiles ?? []) {
      // Written under a name of this process, then renamed: a reader never sees half a file.
      const partial = `${file}.${process.pid}.tmp`;
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(partial, bytes);
        renameSync(partial, file);
      } catch {
        rmSync(partial, { force: true });
      }
    }
  }

  function start(): Slot {
    if (!snapshotRead) readSnapshot();
    const workerData: PyWorkerData = { snapshot };
    const worker = new Worker(WORKER_URL, {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
    });
    worker.unref();
    const ready = new Promise<{ interrupt: Int32Array } | { failed: string }>((resolve) => {
      const onMessage = (message: PyBoot) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (message.boot === 'ready' && message.snapshot) keepSnapshot(message.snapshot);
        resolve(
          message.boot === 'ready' ? { interrupt: new Int32Array(message.interrupt) } : { failed: message.message },
        );
      };
      const onError = (error: Error) => resolve({ failed: error.message });
      const onExit = () => resolve({ failed: 'the worker stopped while loading' });
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
    const slot: Slot = { worker, busy: false, ready };
    return slot;
  }

  async function runOn(slot: Slot, request: PyRequest, timeoutMs: number): Promise<PyReply | DeadReply> {
    const ready = await slot.ready;
    if ('failed' in ready)
      return {
        id: request.id,
        ok: false,
        type: 'Code error',
        message: `the Python sandbox could not start: ${ready.failed}`.slice(0, 500),
        dead: true,
      };
    return callWorker<PyReply>(slot.worker, request, timeoutMs + GRACE_MS, {
      afterMs: timeoutMs,
      signal: () => Atomics.store(ready.interrupt, 0, 2),
    });
  }

  return {
    async run(code, input, limits) {
      if (closed) return { ok: false, type: 'Code error', message: 'the server is shutting down' };
      let slot = await slots.acquire();
      const request: PyRequest = {
        id: nextId++,
        code,
        input: JSON.stringify(input ?? null),
        memoryBytes: limits.memoryBytes,
      };
      try {
        const reply = await runOn(slot, request, limits.timeoutMs);
        if ('dead' in reply || (!reply.ok && reply.recycle)) slot = slots.replace(slot);
        if (!reply.ok) return { ok: false, type: reply.type, message: reply.message };
        return { ok: true, output: JSON.parse(reply.output) as unknown };
      } finally {
        slots.release(slot);
      }
    },
    warm() {
      if (!closed && slots.all.length === 0) slots.spawn();
    },
    async close() {
      closed = true;
      await Promise.all(slots.all.map((s) => s.worker.terminate()));
      slots.all.length = 0;
    },
  };
}

/**
 * Loads an interpreter and runs one step, so that `file` holds a snapshot that loads: kept when
 * it does, made by a full load when it is missing or damaged. `npm install` runs it (through
 * `switchboard prepare-python`) for the installation's snapshot.
 */
export async function preparePythonSnapshot(file: string): Promise<void> {
  const sandbox = createPySandbox({ workers: 1, snapshotFiles: [file] });
  try {
    const result = await sandbox.run(
      "def main(input):\n    return {'ready': True}",
      {},
      { timeoutMs: 600_000, memoryBytes: 32 * 1024 * 1024 },
    );
    if (!result.ok) throw new Error(`the Python sandbox did not run a step: ${result.type}: ${result.message}`);
    if (!existsSync(file)) throw new Error(`the snapshot could not be written to ${file}`);
    // Snapshots of an earlier Pyodide or bootstrap beside it are never read again.
    for (const name of readdirSync(dirname(file))) {
      if (/^python-[0-9a-f]{16}\.snapshot$/.test(name) && join(dirname(file), name) !== file)
        rmSync(join(dirname(file), name), { force: true });
    }
  } finally {
    await sandbox.close();
  }
}
