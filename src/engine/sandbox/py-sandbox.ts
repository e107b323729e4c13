// Python steps run in a sandbox off the event loop: a small pool of worker threads, each with
// Pyodide in a JavaScript realm that holds nothing of the host (py-worker.ts). Loading the
// interpreter takes a second or more, so a worker is started ahead of need (`warm`, when a running
// recipe has a Python step) and kept. At a step's deadline the pool interrupts the interpreter (a
// KeyboardInterrupt in Python); a worker that still does not answer soon after, or dies, is
// terminated and replaced, so a stuck step never holds up the server.
//
// A worker serves one tenant (a recipe of a workspace) for its whole life. The bootstrap puts the
// interpreter's modules, builtins and paths back after each step, but a step can change far more
// that outlives it: a module's functions (json.loads replaced by a spy), classes, audit hooks, the
// in-memory file system, even the realm's JavaScript through Pyodide's bridge. So a worker that ran
// a step of one recipe never runs a step of another: a step goes to an idle worker of its recipe,
// else to a fresh one (a spare is kept loaded from the snapshot once there is one), else the worker
// idle the longest is terminated and a fresh one takes its place.
//
// Steps running at once are bounded by `workers` (and the spare); loaded interpreters by
// `interpreters` (PYTHON_INTERPRETERS), a hard cap on the pool's memory (100 MB or more each) that
// bounds the steps at once too when it is the smaller; within it each of several active recipes
// keeps a loaded worker of its own rather than each step restoring an interpreter (0.7 s or more). A worker left idle for `extraIdleMs` beyond
// the first `workers` + 1 is ended, giving its memory back once its recipe goes quiet.
// `idleMs` (SANDBOX_IDLE_MS) retires any worker idle that long, the last one taking the image too.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PyBoot, PyReply, PyRequest, PyWorkerData } from './py-worker.ts';
import { callWorker, type DeadReply, type WorkerSlot } from './worker-slots.ts';
import { idleRetirement } from '../../idle-retirement.ts';
import { outputProblem } from './output-bounds.ts';

export interface PyLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export type PyResult = { ok: true; output: unknown } | { ok: false; type: string; message: string };

export interface PySandbox {
  /** Run a step of `tenant` (a recipe of a workspace): only workers that ran nothing else's steps take it. */
  run(code: string, input: unknown, limits: PyLimits, tenant: string): Promise<PyResult>;
  /** Start loading an interpreter now, if none is loaded or loading. */
  warm(): void;
  /** Interpreters loaded or loading, idle or busy. */
  interpreters(): number;
  close(): Promise<void>;
}

interface Slot extends WorkerSlot {
  /** Settles when the interpreter is loaded: its interrupt flag, or why it did not load. */
  ready: Promise<{ interrupt: Int32Array } | { failed: string }>;
  /** The tenant whose steps this worker ran; null while it ran none. */
  tenant: string | null;
  /** When it was last taken (the worker idle the longest is the one replaced). */
  takenAt: number;
}

/** Interpreters kept loaded by default: two steps at once and a loaded spare, for a small container. */
export const DEFAULT_INTERPRETERS = 3;
/** How long an interpreter beyond the workers and the spare stays loaded without a step. */
export const DEFAULT_IDLE_MS = 10 * 60_000;

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

/** Send a step to a worker; its reply, or why there is none (`dead`: the worker must be replaced). */
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

/**
 * The memory snapshot of a loaded interpreter that new workers start from: the one kept on disk by
 * an earlier run (`files` in order of preference, read once; missing or unreadable: none), then
 * the one the first full load makes, written to each of `files`.
 */
function snapshotStore(files: readonly string[]) {
  let snapshot: SharedArrayBuffer | null = null;
  let read = false;
  const shared = (bytes: Uint8Array) => {
    const buffer = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(buffer).set(bytes);
    return buffer;
  };
  return {
    current(): SharedArrayBuffer | null {
      if (read) return snapshot;
      read = true;
      for (const file of files) {
        try {
          snapshot = shared(readFileSync(file));
          break;
        } catch {
          snapshot = null;
        }
      }
      return snapshot;
    },
    /** Lets the image go; the next `current()` reads the files again. */
    forget(): void {
      read = false;
      snapshot = null;
    },
    keep(bytes: Uint8Array): void {
      read = true;
      snapshot = shared(bytes);
      for (const file of files) {
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
    },
  };
}

/**
 * `snapshotFiles`: where a loaded interpreter's snapshot may be, in order of preference (the data
 * directory's, then the installation's); the first that can be read is used, and when it does not
 * load the interpreter loads in full. A snapshot made by a full load is written to each of them.
 */
export function createPySandbox(options: {
  workers: number;
  snapshotFiles?: readonly string[];
  /** Interpreters kept loaded, idle or busy (each holds tens of MB): DEFAULT_INTERPRETERS by default. */
  interpreters?: number;
  /** How long an interpreter past the first `workers` + 1 may stay idle before it is ended. */
  extraIdleMs?: number;
  /** Any worker without work this long is retired, the last one taking the interpreter's memory image with it (0: never). */
  idleMs?: number;
}): PySandbox {
  // Every worker started and not replaced, loaded or loading.
  const slots: Slot[] = [];
  // Interpreters loaded at most, busy or idle; steps running at once: the workers and the spare, within it.
  const most = Math.max(1, options.interpreters ?? DEFAULT_INTERPRETERS);
  const running = Math.min(options.workers + 1, most);
  const idleMs = options.extraIdleMs ?? DEFAULT_IDLE_MS;
  const sweep = setInterval(endIdle, Math.min(idleMs, 60_000));
  sweep.unref();
  const waiting: Array<{ tenant: string; resolve: (slot: Slot | null) => void }> = [];
  let nextId = 1;
  let closed = false;
  const snapshots = snapshotStore(options.snapshotFiles ?? []);
  const retirement = idleRetirement<Slot>(options.idleMs ?? 0, (slot) => {
    if (slot.busy || !slots.includes(slot)) return;
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
    // With no worker left, the interpreter's memory image goes too when a file holds it: the next
    // worker reads it again (a fraction of a second) instead of the process keeping tens of MB.
    if (slots.length === 0 && (options.snapshotFiles ?? []).some((file) => existsSync(file))) snapshots.forget();
  });

  function start(): Slot {
    const workerData: PyWorkerData = { snapshot: snapshots.current() };
    const worker = new Worker(WORKER_URL, {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
    });
    worker.unref();
    const ready = new Promise<{ interrupt: Int32Array } | { failed: string }>((resolve) => {
      const onMessage = (message: PyBoot) => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (message.boot === 'ready' && message.snapshot) snapshots.keep(message.snapshot);
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
    const slot: Slot = { worker, busy: false, ready, tenant: null, takenAt: 0 };
    slots.push(slot);
    retirement.idle(slot);
    return slot;
  }

  function replace(slot: Slot): Slot {
    retirement.busy(slot);
    void slot.worker.terminate();
    slots.splice(slots.indexOf(slot), 1);
    return start();
  }

  /** A worker for a step of `tenant`, marked busy; undefined while every worker is busy. */
  function take(tenant: string): Slot | undefined {
    if (slots.filter((s) => s.busy).length >= running) return undefined;
    const idle = slots.filter((s) => !s.busy);
    let slot = idle.find((s) => s.tenant === tenant) ?? idle.find((s) => s.tenant === null);
    if (!slot && slots.length < most) slot = start();
    if (!slot) {
      const longest = idle.sort((a, b) => a.takenAt - b.takenAt)[0];
      if (longest) slot = replace(longest);
    }
    if (!slot) return undefined;
    slot.busy = true;
    retirement.busy(slot);
    slot.tenant = tenant;
    slot.takenAt = Date.now();
    keepSpare();
    return slot;
  }

  /** Ends the interpreters idle longer than `extraIdleMs`, the longest idle first, down to `running`. */
  function endIdle(): void {
    const now = Date.now();
    const stale = slots
      .filter((s) => !s.busy && s.tenant !== null && now - s.takenAt > idleMs)
      .sort((a, b) => a.takenAt - b.takenAt);
    for (const slot of stale) {
      if (slots.length <= running) return;
      void slot.worker.terminate();
      slots.splice(slots.indexOf(slot), 1);
    }
  }

  /** Once a snapshot makes loading quick, keep a fresh worker loaded for the next tenant. */
  function keepSpare(): void {
    if (closed || snapshots.current() === null || slots.length >= most) return;
    if (slots.some((s) => s.tenant === null && !s.busy)) return;
    start();
  }

  function acquire(tenant: string): Promise<Slot | null> {
    const slot = waiting.length === 0 ? take(tenant) : undefined;
    if (slot) return Promise.resolve(slot);
    return new Promise((resolve) => waiting.push({ tenant, resolve }));
  }

  function release(slot: Slot): void {
    slot.busy = false;
    if (slots.includes(slot)) retirement.idle(slot);
    while (waiting.length > 0) {
      const next = waiting[0]!;
      const taken = take(next.tenant);
      if (!taken) return;
      waiting.shift();
      next.resolve(taken);
    }
    keepSpare();
  }

  return {
    async run(code, input, limits, tenant) {
      if (closed) return { ok: false, type: 'Code error', message: 'the server is shutting down' };
      const acquired = await acquire(tenant);
      if (!acquired) return { ok: false, type: 'Code error', message: 'the server is shutting down' };
      let slot = acquired;
      const request: PyRequest = {
        id: nextId++,
        code,
        input: JSON.stringify(input ?? null),
        memoryBytes: limits.memoryBytes,
      };
      try {
        const reply = await runOn(slot, request, limits.timeoutMs);
        if ('dead' in reply || (!reply.ok && reply.recycle)) {
          slot = replace(slot);
          slot.busy = true;
        }
        if (!reply.ok) return { ok: false, type: reply.type, message: reply.message };
        // Checked here rather than in the worker, whose source is part of the interpreter snapshot's name.
        const problem = outputProblem(reply.output);
        if (problem) return { ok: false, type: 'Code error', message: problem };
        return { ok: true, output: JSON.parse(reply.output) as unknown };
      } finally {
        release(slot);
      }
    },
    interpreters() {
      return slots.length;
    },
    warm() {
      if (closed) return;
      if (slots.length === 0) start();
      else keepSpare();
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      retirement.clear();
      for (const waiter of waiting.splice(0)) waiter.resolve(null);
      await Promise.all(slots.map((s) => s.worker.terminate()));
      slots.length = 0;
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
      'prepare-python',
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
