// Ruby off the event loop: a small pool of worker threads, each with one interpreter (ruby-worker.ts)
// started from a memory snapshot of the interpreter with the SDK loaded. The first worker of an
// installation that has no snapshot yet loads Ruby in full and writes one (docs/adr/0020).
//
// Limits of a call: its CPU time (the time its worker runs Ruby, not the time it waits for the
// server: HTTP, sleep) and its wall time, past which the worker is terminated and replaced; its
// memory, which the interpreter's module cannot grow past (Ruby raises NoMemoryError).
// Isolation: every call names a key (workspace, connector version, recipe); a worker whose next call
// has another key goes back to the pristine snapshot first, so nothing a call leaves is seen by a
// call of another key. A free worker that last served the same key is preferred.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { compileRubyModule, rubyPackageDir, rubyVersionOfModule } from './ruby-vm.ts';
import { runningMs, SIGNAL_BYTES, WAITED_MS, WAITING_SINCE, writeAnswer } from './ruby-answer.ts';
import { createRequestThread, type DirectExchange, type RequestThread } from './request-thread-client.ts';
import type { HostOp, RubyBoot, RubyCallReply, RubyCallRequest, RubyWorkerData } from './ruby-worker.ts';
import { readSnapshotFile, snapshotFileSize, writeSnapshotFile } from './snapshot-file.ts';
import { idleRetirement } from '../../idle-retirement.ts';

export interface RubySandboxOptions {
  /** Worker threads at most (each holds one interpreter). */
  workers: number;
  /** What a call may allocate beyond the interpreter's memory at rest. */
  memoryBytes: number;
  /** Where the snapshot may be, in order of preference; one made by a full load is written to each. */
  snapshotFiles?: readonly string[];
  /** Standard output a call may leave (`puts`), beyond which it is cut. */
  maxLogBytes?: number;
  /** Workers without work this long are retired (0: never). */
  idleMs?: number;
}

export interface RubyRunRequest {
  key: string;
  call: unknown;
  source: string;
  /** The call's HTTP requests are made by the request thread with this exchange (null: by `onHostOp`). */
  direct?: DirectExchange | null;
  /** CPU time: the time the worker runs Ruby, waits for the server excluded. */
  timeoutMs: number;
  /** Wall time of the whole call, waits included. */
  wallTimeoutMs: number;
}

export type RubyRun =
  | { ok: true; result: unknown; logs: string }
  | { ok: false; reason: 'timeout' | 'wall_timeout' | 'crashed' | 'unavailable'; message: string; logs: string };

/** Answers what a running call asks of the server (everything but `sleep`, which the pool does). */
export type HostOpHandler = (op: HostOp) => Promise<unknown>;

export interface RubySandbox {
  run(request: RubyRunRequest, onHostOp: HostOpHandler): Promise<RubyRun>;
  /** Start loading an interpreter now, if none is loaded or loading. */
  warm(): void;
  /** Memory of each worker: the interpreter's linear memory and the thread's JavaScript heap. */
  workerMemory(): Promise<Array<{ wasmBytes: number; heapBytes: number }>>;
  close(): Promise<void>;
}

const WORKER_URL = new URL('./ruby-worker.ts', import.meta.url);
const RUBY_DIR = fileURLToPath(new URL('./ruby/', import.meta.url));
/** How long a worker may take to load before the call that waits for it fails. */
const BOOT_TIMEOUT_MS = 120_000;
/** A full load's module: generous, the loading worker is replaced by a capped one right after. */
const BOOT_MEMORY_BYTES = 1024 * 1024 * 1024;
/** Variables of Ruby's environment: the time zone, and nothing of the server's. */
const RUBY_ENV: Readonly<Record<string, string>> = Object.freeze({ TZ: 'UTC', LANG: 'C.UTF-8' });
/** An answer to a worker up to this size (most HTTP answers) is written to memory it shares; a larger one is posted. */
const ANSWER_BYTES = 256 * 1024;

/** The SDK's Ruby files, in the order they load (their names start with a number). */
export function rubyBootFiles(): string[] {
  return readdirSync(RUBY_DIR)
    .filter((name) => name.endsWith('.rb'))
    .sort()
    .map((name) => join(RUBY_DIR, name));
}

/** The snapshot's name changes with Ruby's build and with everything that decides what it holds. */
export function rubySnapshotName(): string {
  const hash = createHash('sha256').update(rubyVersionOfModule()).update(JSON.stringify(RUBY_ENV));
  for (const file of ['./ruby-vm.ts', './wasi.ts', './ruby-worker.ts'])
    hash.update('\0').update(readFileSync(new URL(file, import.meta.url)));
  for (const file of rubyBootFiles()) hash.update('\0').update(readFileSync(file));
  return `ruby-${hash.digest('hex').slice(0, 16)}.snapshot`;
}

export function rubySnapshotFile(dataDir: string): string {
  return join(dataDir, 'cache', rubySnapshotName());
}

/** The installation's snapshot, beside the Ruby module in node_modules (prepared by `npm install`). */
export function installedRubySnapshotFile(): string {
  // node_modules/@ruby/3.4-wasm-wasi → node_modules/.cache/switchboard
  return join(dirname(dirname(rubyPackageDir())), '.cache', 'switchboard', rubySnapshotName());
}

interface Slot {
  id: number;
  worker: Worker;
  port: MessagePort;
  /** The pool's end of the worker's request port, until it is given to the request thread. */
  requests: MessagePort | null;
  /** The worker's request port went to a request thread that stopped: replaced when released. */
  stranded: boolean;
  signalBuffer: SharedArrayBuffer;
  answerBuffer: SharedArrayBuffer;
  signal: Int32Array;
  /** The running call: what the request thread asks for it goes to its host. */
  current: { id: number; onHostOp: HostOpHandler } | null;
  /** Where an answer that fits is written for the worker (no message through the port). */
  answer: Uint8Array;
  ready: Promise<RubyBoot>;
  busy: boolean;
  lastKey: string | null;
  wasmBytes: number;
}

interface Loaded {
  module: WebAssembly.Module;
  snapshot: SharedArrayBuffer;
}

export function createRubySandbox(options: RubySandboxOptions): RubySandbox {
  const maxLogBytes = options.maxLogBytes ?? 64 * 1024;
  const slots: Slot[] = [];
  const waiting: Array<(slot: Slot) => void> = [];
  let loaded: Promise<Loaded> | null = null;
  let closed = false;
  let nextId = 1;
  let nextSlot = 1;
  let pendingSpawns = 0;
  let requestThread: RequestThread | null = null;

  function requestsFor(slot: Slot): void {
    if (!slot.requests) return;
    requestThread ??= createRequestThread(
      (message) => {
        const current = slots.find((s) => s.id === message.worker)?.current;
        if (!current || current.id !== message.call) return undefined;
        const answered = current.onHostOp(message);
        if (message.op !== 'rate_limit_wait') return undefined;
        return answered.then((answer) => (answer as { error?: string | null }).error ?? null);
      },
      () => {
        requestThread = null;
        for (const s of slots) if (!s.requests) s.stranded = true;
      },
    );
    requestThread.register({
      worker: slot.id,
      port: slot.requests,
      signal: slot.signalBuffer,
      answer: slot.answerBuffer,
    });
    slot.requests = null;
  }

  function startWorker(module: WebAssembly.Module, snapshot: SharedArrayBuffer | null): Slot {
    const { port1, port2 } = new MessageChannel();
    const requests = new MessageChannel();
    const signal = new SharedArrayBuffer(SIGNAL_BYTES);
    const answerBuffer = new SharedArrayBuffer(ANSWER_BYTES);
    const workerData: RubyWorkerData = {
      module,
      snapshot,
      port: port2,
      requests: requests.port2,
      signal,
      answer: answerBuffer,
      env: { ...RUBY_ENV },
      bootFiles: rubyBootFiles(),
    };
    const worker = new Worker(WORKER_URL, {
      workerData,
      transferList: [port2, requests.port2],
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 64 },
    });
    worker.unref();
    port1.unref();
    const ready = new Promise<RubyBoot>((resolve) => {
      const timer = setTimeout(
        () => resolve({ type: 'failed', message: 'the interpreter took too long to load' }),
        BOOT_TIMEOUT_MS,
      );
      timer.unref();
      const done = (boot: RubyBoot) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        resolve(boot);
      };
      const onMessage = (message: RubyBoot) => done(message);
      const onError = (error: Error) => done({ type: 'failed', message: error.message });
      const onExit = () => done({ type: 'failed', message: 'the worker stopped while loading' });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    return {
      id: nextSlot++,
      worker,
      port: port1,
      requests: requests.port1,
      stranded: false,
      signalBuffer: signal,
      answerBuffer,
      current: null,
      signal: new Int32Array(signal),
      answer: new Uint8Array(answerBuffer),
      ready,
      busy: false,
      lastKey: null,
      wasmBytes: 0,
    };
  }

  /** The module capped for calls and the snapshot every worker starts from (made once if need be). */
  function load(): Promise<Loaded> {
    loaded ??= (async () => {
      for (const file of options.snapshotFiles ?? []) {
        // The module compiles on V8's threads while this one reads the snapshot.
        const size = snapshotFileSize(file);
        if (size === null) continue;
        const compiling = compileRubyModule(size + options.memoryBytes);
        const snapshot = readSnapshotFile(file);
        if (snapshot && snapshot.byteLength === size) return { module: await compiling, snapshot };
        await compiling.catch(() => undefined);
      }
      const bootModule = await compileRubyModule(BOOT_MEMORY_BYTES);
      const booting = startWorker(bootModule, null);
      const boot = await booting.ready;
      void booting.worker.terminate();
      if (boot.type !== 'ready' || !boot.snapshot)
        throw new Error(boot.type === 'failed' ? boot.message : 'no snapshot');
      const made = boot.snapshot;
      for (const file of options.snapshotFiles ?? []) if (writeSnapshotFile(file, made)) removeStaleSnapshots(file);
      const snapshot = new SharedArrayBuffer(made.byteLength);
      new Uint8Array(snapshot).set(made);
      return { module: await compileRubyModule(snapshot.byteLength + options.memoryBytes), snapshot };
    })();
    loaded.catch(() => {
      // A failed load is tried again by the next call (a damaged file, a full disk...).
      loaded = null;
    });
    return loaded;
  }

  const retirement = idleRetirement<Slot>(options.idleMs ?? 0, (slot) => {
    if (slot.busy || !slots.includes(slot)) return;
    replace(slot);
    // The request thread goes with the last worker; the next call that needs it starts another.
    if (slots.length === 0 && requestThread) {
      void requestThread.close();
      requestThread = null;
    }
    // With no worker left, the module and the interpreter's image go too when a file holds the
    // image: the next worker reads it again instead of the process keeping them.
    if (
      slots.length === 0 &&
      pendingSpawns === 0 &&
      (options.snapshotFiles ?? []).some((f) => snapshotFileSize(f) !== null)
    )
      loaded = null;
  });

  async function spawn(): Promise<Slot> {
    const { module, snapshot } = await load();
    const slot = startWorker(module, snapshot);
    slots.push(slot);
    retirement.idle(slot);
    return slot;
  }

  function replace(slot: Slot): void {
    retirement.busy(slot);
    void slot.worker.terminate();
    slot.port.close();
    slot.requests?.close();
    slots.splice(slots.indexOf(slot), 1);
  }

  async function acquire(key: string): Promise<Slot> {
    const free = slots.filter((s) => !s.busy);
    const same = free.find((s) => s.lastKey === key);
    const chosen = same ?? free[0];
    if (chosen) {
      chosen.busy = true;
      retirement.busy(chosen);
      return chosen;
    }
    if (slots.length + pendingSpawns < options.workers) {
      pendingSpawns++;
      try {
        const slot = await spawn();
        slot.busy = true;
        retirement.busy(slot);
        return slot;
      } finally {
        pendingSpawns--;
      }
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function release(slot: Slot): void {
    slot.busy = false;
    if (slot.stranded && slots.includes(slot)) replace(slot);
    if (!slots.includes(slot)) {
      // The slot was replaced: a waiting call gets a new worker instead.
      const next = waiting.shift();
      if (next)
        void spawn().then(
          (fresh) => {
            fresh.busy = true;
            next(fresh);
          },
          () => waiting.unshift(next),
        );
      return;
    }
    const next = waiting.shift();
    if (next) {
      slot.busy = true;
      next(slot);
    } else retirement.idle(slot);
  }

  function runOn(slot: Slot, request: RubyRunRequest, onHostOp: HostOpHandler): Promise<RubyRun> {
    const id = nextId++;
    const callRequest: RubyCallRequest = {
      type: 'call',
      id,
      key: request.key,
      call: JSON.stringify(request.call),
      // The same key is the same source (a key names the source's version): not copied again.
      source: slot.lastKey === request.key ? null : request.source,
      maxLogBytes,
      startedAt: Date.now(),
      direct: request.direct ?? null,
    };
    if (callRequest.direct) requestsFor(slot);
    return new Promise<RubyRun>((resolve) => {
      let cpuTimer: NodeJS.Timeout | null = null;
      let settled = false;
      const finish = (run: RubyRun, kill: boolean) => {
        if (settled) return;
        settled = true;
        // What the request thread asked for this call before it ended is taken up first (its log lines).
        if (callRequest.direct) requestThread?.drain();
        slot.current = null;
        if (cpuTimer) clearTimeout(cpuTimer);
        clearTimeout(wallTimer);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
        slot.port.off('message', onHostMessage);
        if (kill) replace(slot);
        resolve(run);
      };
      // CPU time: the call's time less the worker's waits, which it counts itself in the signal.
      const checkCpu = () => {
        const used = runningMs(slot.signal, callRequest.startedAt, Date.now());
        if (used < request.timeoutMs) {
          cpuTimer = setTimeout(checkCpu, request.timeoutMs - used);
          return;
        }
        finish(
          {
            ok: false,
            reason: 'timeout',
            message: `the code ran longer than its time limit (${request.timeoutMs} ms)`,
            logs: '',
          },
          true,
        );
      };
      const wallTimer = setTimeout(
        () =>
          finish(
            {
              ok: false,
              reason: 'wall_timeout',
              message: `the call took longer than ${request.wallTimeoutMs} ms (waits for the server included)`,
              logs: '',
            },
            true,
          ),
        request.wallTimeoutMs,
      );
      const answer = (value: unknown) => {
        if (settled) return;
        writeAnswer(slot.signal, slot.answer, slot.port, JSON.stringify(value ?? null));
      };
      const onHostMessage = (op: HostOp) => {
        if (op.op === 'sleep') {
          const ms = Math.max(0, Math.min(Number(op.ms) || 0, request.wallTimeoutMs));
          setTimeout(() => answer({}), ms);
          return;
        }
        onHostOp(op).then(answer, (error: unknown) =>
          answer({ error: error instanceof Error ? error.message : String(error) }),
        );
      };
      const onMessage = (reply: RubyCallReply) => {
        if (reply.type !== 'done' || reply.id !== id) return;
        slot.wasmBytes = reply.wasmBytes;
        if (reply.failure !== null || reply.result === null) {
          finish({ ok: false, reason: 'crashed', message: reply.failure ?? 'no answer', logs: reply.logs }, false);
          return;
        }
        let result: unknown;
        try {
          result = JSON.parse(reply.result);
        } catch {
          finish(
            {
              ok: false,
              reason: 'crashed',
              message: 'the runtime answered something that is not JSON',
              logs: reply.logs,
            },
            false,
          );
          return;
        }
        finish({ ok: true, result, logs: reply.logs }, false);
      };
      const onError = (error: Error) =>
        finish({ ok: false, reason: 'crashed', message: `the Ruby worker stopped: ${error.message}`, logs: '' }, true);
      const onExit = () =>
        finish(
          { ok: false, reason: 'crashed', message: 'the Ruby worker stopped (out of memory or crashed)', logs: '' },
          true,
        );
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      slot.port.on('message', onHostMessage);
      slot.lastKey = request.key;
      slot.current = { id, onHostOp };
      Atomics.store(slot.signal, WAITING_SINCE, 0);
      Atomics.store(slot.signal, WAITED_MS, 0);
      cpuTimer = setTimeout(checkCpu, request.timeoutMs);
      slot.worker.postMessage(callRequest);
    });
  }

  return {
    async run(request, onHostOp) {
      if (closed) return { ok: false, reason: 'unavailable', message: 'the server is shutting down', logs: '' };
      let slot: Slot;
      try {
        slot = await acquire(request.key);
      } catch (error) {
        return {
          ok: false,
          reason: 'unavailable',
          message: `the Ruby interpreter could not start: ${(error as Error).message}`,
          logs: '',
        };
      }
      try {
        const boot = await slot.ready;
        if (boot.type === 'failed') {
          replace(slot);
          return {
            ok: false,
            reason: 'unavailable',
            message: `the Ruby interpreter could not start: ${boot.message}`,
            logs: '',
          };
        }
        return await runOn(slot, request, onHostOp);
      } finally {
        release(slot);
      }
    },
    warm() {
      if (closed || slots.length > 0 || pendingSpawns > 0) return;
      pendingSpawns++;
      void spawn()
        .catch(() => undefined)
        .finally(() => pendingSpawns--);
    },
    async workerMemory() {
      return Promise.all(
        slots.map(async (slot) => {
          const heap = await slot.worker.getHeapStatistics().catch(() => null);
          return { wasmBytes: slot.wasmBytes, heapBytes: heap?.total_heap_size ?? 0 };
        }),
      );
    },
    async close() {
      closed = true;
      retirement.clear();
      await Promise.all(slots.map((s) => s.worker.terminate()));
      for (const s of slots) {
        s.port.close();
        s.requests?.close();
      }
      await requestThread?.close();
      requestThread = null;
      slots.length = 0;
    },
  };
}

/** Snapshots of an earlier Ruby build or SDK beside this one are never read again. */
function removeStaleSnapshots(file: string): void {
  try {
    for (const name of readdirSync(dirname(file)))
      if (/^ruby-[0-9a-f]{16}\.snapshot$/.test(name) && join(dirname(file), name) !== file)
        rmSync(join(dirname(file), name), { force: true });
  } catch {
    // A directory that cannot be listed keeps its files.
  }
}

/**
 * Loads the interpreter in full and runs one call, so that `file` holds a snapshot that loads.
 * `npm install` runs it (through `switchboard prepare-ruby`) for the installation's snapshot.
 */
export async function prepareRubySnapshot(file: string): Promise<void> {
  const sandbox = createRubySandbox({ workers: 1, memoryBytes: 64 * 1024 * 1024, snapshotFiles: [file] });
  try {
    const run = await sandbox.run(
      {
        key: 'prepare',
        call: { source_key: 'prepare', path: 'describe', params: {}, seed: 1 },
        source: "{ title: 'ready' }",
        timeoutMs: 600_000,
        wallTimeoutMs: 600_000,
      },
      () => Promise.resolve({ error: 'no host' }),
    );
    if (!run.ok) throw new Error(`the Ruby sandbox did not run a call: ${run.message}`);
    if (!existsSync(file)) throw new Error(`the snapshot could not be written to ${file}`);
    removeStaleSnapshots(file);
  } finally {
    await sandbox.close();
  }
}
