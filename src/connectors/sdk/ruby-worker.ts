// The Ruby sandbox's worker thread: one interpreter (ruby-vm.ts), one call at a time. A call runs
// `Switchboard::Runtime.serve` (ruby/runtime.rb), which asks for the call over the host channel,
// runs it and hands back its result the same way. What the call needs from the server (an HTTP
// request, a wait, a connection's new values) goes to the pool in the main thread: the worker
// posts it on its port and blocks on a shared flag until the answer is there, so Ruby stays the
// synchronous language connectors are written in and the event loop is never held.
//
// State: the interpreter is put back to the pristine snapshot before a call whose isolation key
// differs from the previous call's, and after any call that did not end normally.
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRubyVm, BridgeRefused, type RubyVm } from './ruby-vm.ts';
import { ProcessExit } from './wasi.ts';
import { cryptoOperation } from './crypto-ops.ts';
import { ANSWER_SHARED, WAITED_MS, WAITING_SINCE } from './ruby-answer.ts';
import type { DirectExchange, WorkerHttpOp } from './request-thread-client.ts';

export interface RubyWorkerData {
  module: WebAssembly.Module;
  /** The interpreter with the SDK loaded, at rest; null: this worker loads it and sends it back. */
  snapshot: SharedArrayBuffer | null;
  /** Where the worker sends what a call needs from the server; the answers come back on it. */
  port: MessagePort;
  /** Where the worker sends a call's HTTP requests when the call carries an exchange: the request thread. */
  requests: MessagePort;
  /**
   * Four Int32 (ruby-answer.ts): a flag set (and notified) when an answer is there (ANSWER_SHARED:
   * in `answer`, its length in bytes second; ANSWER_POSTED: on the port asked, too large for
   * `answer`); when the worker began waiting and how long it waited during the call.
   */
  signal: SharedArrayBuffer;
  /** The answer's bytes (UTF-8 JSON) when it fits. */
  answer: SharedArrayBuffer;
  env: Record<string, string>;
  /** The SDK's Ruby files, loaded in order when there is no snapshot. */
  bootFiles: string[];
}

export interface RubyCallRequest {
  type: 'call';
  id: number;
  /** Calls with another key never see what this call leaves. */
  key: string;
  /** The call as JSON (ruby/runtime.rb reads it). */
  call: string;
  /**
   * The connector's source, given to Ruby when it has not evaluated this version yet; null when this
   * worker's previous call had the same key (the worker kept the source it was sent then).
   */
  source: string | null;
  maxLogBytes: number;
  /** Epoch milliseconds the pool started the call's clock at (the worker's waits are counted from it). */
  startedAt: number;
  /** The call's HTTP requests go to the request thread with this exchange; null: to the pool. */
  direct: DirectExchange | null;
}

export interface RubyCallReply {
  type: 'done';
  id: number;
  result: string | null;
  failure: string | null;
  logs: string;
  /** The interpreter's memory after the call. */
  wasmBytes: number;
}

/** Memory a call may leave grown before its interpreter is replaced by a fresh one from the snapshot. */
const KEEP_GROWN_BYTES = 32 * 1024 * 1024;

export type RubyBoot = { type: 'ready'; snapshot?: Uint8Array; bootMs: number } | { type: 'failed'; message: string };

/** A request from the worker to the pool, and its answer. */
export interface HostOp {
  op: string;
  [key: string]: unknown;
}

const data = workerData as RubyWorkerData;
const signal = new Int32Array(data.signal);
const answerBytes = new Uint8Array(data.answer);
const decoder = new TextDecoder();
const encoder = new TextEncoder();

interface Current {
  request: RubyCallRequest;
  result: string | null;
  logs: string[];
  logBytes: number;
}
let current: Current | null = null;
/** The source of the last call that was sent one (the pool omits it while the key stays the same). */
let keptSource = '';

/** Posts a request on `port` and blocks until it is answered; the wait is not the call's CPU time. */
function ask(port: MessagePort, message: unknown): Uint8Array {
  const startedAt = current?.request.startedAt ?? Date.now();
  const since = Date.now();
  Atomics.store(signal, WAITING_SINCE, since - startedAt + 1);
  Atomics.store(signal, 0, 0);
  port.postMessage(message);
  Atomics.wait(signal, 0, 0);
  Atomics.store(signal, WAITED_MS, Atomics.load(signal, WAITED_MS) + (Date.now() - since));
  Atomics.store(signal, WAITING_SINCE, 0);
  // A copy: Ruby reads it after the next answer may have been written.
  if (Atomics.load(signal, 0) === ANSWER_SHARED) return answerBytes.slice(0, Atomics.load(signal, 1));
  return encoder.encode(postedAnswer(port));
}

function askPool(op: HostOp): Uint8Array {
  return ask(data.port, op);
}

/** An HTTP request of a call with an exchange (TLS options of its own included): made by the request thread. */
function askRequests(op: HostOp, exchange: DirectExchange): Uint8Array {
  const message: WorkerHttpOp = { call: current!.request.id, request: op.request, exchange };
  return ask(data.requests, message);
}

function postedAnswer(port: MessagePort): string {
  const message = receiveMessageOnPort(port);
  if (!message) return JSON.stringify({ error: 'the server did not answer' });
  return message.message as string;
}

/** The byte that starts the call's result (ruby/00-host.rb): the rest is its JSON, kept as text. */
const RESULT_MARK = 0x3d;

function hostRequest(bytes: Uint8Array): Uint8Array | null {
  if (bytes[0] === RESULT_MARK) {
    if (current) current.result = decoder.decode(bytes.subarray(1));
    return null;
  }
  const text = decoder.decode(bytes);
  let op: HostOp;
  try {
    op = JSON.parse(text) as HostOp;
  } catch {
    return encoder.encode(JSON.stringify({ error: 'a host request that is not JSON' }));
  }
  if (!current) return encoder.encode(JSON.stringify({ error: 'no call is running' }));
  switch (op.op) {
    case 'source':
      return encoder.encode(JSON.stringify({ source: current.request.source ?? keptSource }));
    case 'crypto':
      return encoder.encode(JSON.stringify(cryptoOperation(op)));
    case 'tz':
      return encoder.encode(JSON.stringify(zoneOffset(op)));
    case 'http':
      return current.request.direct ? askRequests(op, current.request.direct) : askPool(op);
    default:
      return askPool(op);
  }
}

/** A named time zone's offset from UTC at an instant, from the worker's ICU data. */
function zoneOffset(op: HostOp): { offset_seconds: number } | { error: string } {
  try {
    const at = new Date(Number(op.epoch_ms) || 0);
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: String(op.zone),
      timeZoneName: 'longOffset',
    }).formatToParts(at);
    const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
    const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
    if (!match) return { offset_seconds: 0 };
    const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60;
    return { offset_seconds: match[1] === '-' ? -seconds : seconds };
  } catch {
    return { error: `unknown time zone ${String(op.zone)}` };
  }
}

function output(_fd: 1 | 2, bytes: Uint8Array): void {
  if (!current) return;
  const room = current.request.maxLogBytes - current.logBytes;
  if (room <= 0) return;
  const text = decoder.decode(bytes.subarray(0, room));
  current.logs.push(text);
  current.logBytes += Math.min(bytes.length, room);
}

function sleep(ms: number): void {
  askPool({ op: 'sleep', ms });
}

function boot(): { vm: RubyVm; snapshot: Uint8Array; made: boolean } {
  const hooks = { output, request: hostRequest, sleep };
  if (data.snapshot) {
    const snapshot = new Uint8Array(data.snapshot);
    return { vm: createRubyVm({ module: data.module, env: data.env, hooks, snapshot }), snapshot, made: false };
  }
  const vm = createRubyVm({ module: data.module, env: data.env, hooks });
  for (const file of data.bootFiles) {
    const state = vm.eval(readFileSync(file, 'utf8'));
    if (state !== 0) throw new Error(`the SDK's Ruby file ${file} did not load (state ${state})`);
  }
  const state = vm.eval('Switchboard::Runtime.ready!');
  if (state !== 0) throw new Error('the SDK did not start');
  return { vm, snapshot: vm.snapshot(), made: true };
}

const started = Date.now();
let vm: RubyVm;
let snapshot: Uint8Array;
let lastKey: string | null = null;
let dirty = false;
try {
  const booted = boot();
  vm = booted.vm;
  snapshot = booted.snapshot;
  const reply: RubyBoot = { type: 'ready', bootMs: Date.now() - started };
  if (booted.made) {
    const copy = snapshot.slice();
    reply.snapshot = copy;
    parentPort?.postMessage(reply, [copy.buffer]);
  } else parentPort?.postMessage(reply);
} catch (error) {
  parentPort?.postMessage({ type: 'failed', message: (error as Error).message } satisfies RubyBoot);
}

function failureOf(error: unknown): string {
  if (error instanceof BridgeRefused) return error.message;
  if (error instanceof ProcessExit) return 'the connector code called exit!';
  if (error instanceof RangeError) return 'stack level too deep (the code recursed without end)';
  if (error instanceof WebAssembly.RuntimeError)
    return `the Ruby interpreter stopped (${(error as Error).message}): the code nested too deeply, or the interpreter failed`;
  return `the Ruby interpreter stopped: ${error instanceof Error ? error.message : String(error)}`;
}

function run(request: RubyCallRequest): RubyCallReply {
  if (dirty || request.key !== lastKey) {
    vm.restore(snapshot);
    dirty = false;
  }
  lastKey = request.key;
  if (request.source !== null) keptSource = request.source;
  current = { request, result: null, logs: [], logBytes: 0 };
  vm.preload(encoder.encode(request.call));
  let failure: string | null = null;
  try {
    const state = vm.eval('Switchboard::Runtime.serve');
    if (state !== 0 || current.result === null) {
      failure = 'the Ruby interpreter stopped without an answer';
      dirty = true;
    }
  } catch (error) {
    failure = failureOf(error);
    dirty = true;
  }
  const reply: RubyCallReply = {
    type: 'done',
    id: request.id,
    result: failure ? null : current.result,
    failure,
    logs: current.logs.join(''),
    wasmBytes: vm.memoryBytes(),
  };
  current = null;
  if (reply.wasmBytes > snapshot.length + KEEP_GROWN_BYTES) dirty = true;
  if (dirty) vm.resetChannel();
  return reply;
}

parentPort?.on('message', (request: RubyCallRequest) => {
  parentPort?.postMessage(run(request));
});
