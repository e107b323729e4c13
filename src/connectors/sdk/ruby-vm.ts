// One CRuby interpreter compiled to WebAssembly (the `@ruby/3.4-wasm-wasi` build, its standard
// library packed inside the module), driven through the few functions its module exports:
// initialise the interpreter, evaluate a string. What crosses between the interpreter and the
// host goes through the WASI host channel (wasi.ts); an evaluation's value is never read back.
//
// The module's JavaScript bridge (Ruby's `require 'js'`) is given functions that refuse: the
// interpreter reaches no JavaScript object of the worker. A state of the interpreter is its linear
// memory at rest: `snapshot()` copies it, `restore()` puts it back, and a new instance can start
// from a snapshot instead of initialising Ruby (what a memory snapshot buys: see docs/adr/0020).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createWasi, type Wasi, type WasiHooks } from './wasi.ts';

const PAGE = 65536;

/** The interpreter's WebAssembly module on disk. */
export function rubyModulePath(): string {
  return createRequire(import.meta.url).resolve('@ruby/3.4-wasm-wasi/dist/ruby+stdlib.wasm');
}

/** The package's directory (its package.json is not among its exports). */
export function rubyPackageDir(): string {
  return dirname(dirname(rubyModulePath()));
}

export function rubyVersionOfModule(): string {
  return (JSON.parse(readFileSync(join(rubyPackageDir(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The module with its memory capped at `maxBytes`: past it Ruby's allocator gets no memory and
 * Ruby raises `NoMemoryError` (a module's memory is grown by its own instructions, which no host
 * function sees, so the cap is written into the module: the memory section's maximum).
 */
export function compileRubyModule(maxBytes: number): Promise<WebAssembly.Module> {
  return WebAssembly.compile(withMemoryMaximum(readFileSync(rubyModulePath()), Math.ceil(maxBytes / PAGE)));
}

function readLeb(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

/** A copy of a WebAssembly binary whose one memory has this maximum number of pages. */
export function withMemoryMaximum(binary: Uint8Array, maxPages: number): Uint8Array {
  let at = 8;
  while (at < binary.length) {
    const id = binary[at]!;
    const [size, body] = readLeb(binary, at + 1);
    if (id === 5) {
      const [count, limits] = readLeb(binary, body);
      if (count !== 1) throw new Error('the Ruby module does not have one memory');
      const flags = binary[limits]!;
      if (flags > 1) throw new Error('the Ruby module has a shared or 64-bit memory');
      const [min] = readLeb(binary, limits + 1);
      const section = [1, 1, ...leb(min), ...leb(Math.max(min, maxPages))];
      const out = new Uint8Array(binary.length - (body + size - at) + 1 + leb(section.length).length + section.length);
      out.set(binary.subarray(0, at), 0);
      out.set([5, ...leb(section.length), ...section], at);
      out.set(binary.subarray(body + size), at + 1 + leb(section.length).length + section.length);
      return out;
    }
    at = body + size;
  }
  throw new Error('the Ruby module has no memory section');
}

/** Raised by any use of Ruby's JavaScript bridge (`require 'js'`): connector code has no JavaScript. */
export class BridgeRefused extends Error {
  override name = 'BridgeRefused';
  constructor() {
    super('JavaScript is not available to connector code');
  }
}

interface GuestExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  cabi_realloc(oldPtr: number, oldLen: number, align: number, newLen: number): number;
  'canonical_abi_drop_rb-abi-value'(raw: number): void;
  'ruby-init: func(args: list<string>) -> ()'(ptr: number, len: number): void;
  'rb-eval-string-protect: func(str: string) -> tuple<handle<rb-abi-value>, s32>'(ptr: number, len: number): number;
}

export interface RubyVm {
  /** Evaluate Ruby source; its value is dropped. Returns Ruby's protect state (0: no exception escaped). */
  eval(source: string): number;
  memoryBytes(): number;
  /** The interpreter's state at rest, to start others from or to come back to. */
  snapshot(): Uint8Array;
  /** Come back to a snapshot: in place, or in a new instance when the memory has grown past it. */
  restore(snapshot: Uint8Array): void;
  /** Forget a request half written to the host channel (after a call that did not end normally). */
  resetChannel(): void;
  /** Empties the host channel and puts in it a message Ruby reads without asking (the call). */
  preload(bytes: Uint8Array): void;
}

export interface RubyVmOptions {
  module: WebAssembly.Module;
  hooks: WasiHooks;
  env: Readonly<Record<string, string>>;
  /** Start from this state instead of initialising Ruby. */
  snapshot?: Uint8Array;
}

export function createRubyVm(options: RubyVmOptions): RubyVm {
  const wasi: Wasi = createWasi(options.env, options.hooks);
  const handles = createHandles();
  let guest: GuestExports = instantiate(options.module, wasi, handles);
  if (options.snapshot) load(options.snapshot);
  else {
    guest._initialize();
    const args = ['ruby', '-EUTF-8', '--disable-did_you_mean', '--disable-error_highlight', '-e_=0'];
    const list = guest.cabi_realloc(0, 0, 4, args.length * 8);
    args.forEach((arg, i) => {
      const [ptr, len] = putString(guest, `${arg}\0`);
      const dv = new DataView(guest.memory.buffer);
      dv.setInt32(list + i * 8, ptr, true);
      dv.setInt32(list + i * 8 + 4, len, true);
    });
    guest['ruby-init: func(args: list<string>) -> ()'](list, args.length);
  }

  function load(snapshot: Uint8Array): void {
    const memory = guest.memory;
    const missing = snapshot.length - memory.buffer.byteLength;
    if (missing > 0) memory.grow(Math.ceil(missing / PAGE));
    new Uint8Array(memory.buffer).set(snapshot);
    const rest = memory.buffer.byteLength - snapshot.length;
    if (rest > 0) new Uint8Array(memory.buffer, snapshot.length, rest).fill(0);
  }

  return {
    eval(source) {
      const [ptr, len] = putString(guest, source);
      const ret = guest['rb-eval-string-protect: func(str: string) -> tuple<handle<rb-abi-value>, s32>'](ptr, len);
      const dv = new DataView(guest.memory.buffer);
      const handle = dv.getInt32(ret, true);
      const state = dv.getInt32(ret + 4, true);
      const raw = handles.take(handle);
      if (raw !== undefined) guest['canonical_abi_drop_rb-abi-value'](raw);
      return state;
    },
    memoryBytes: () => guest.memory.buffer.byteLength,
    snapshot: () => new Uint8Array(guest.memory.buffer).slice(),
    restore(snapshot) {
      wasi.resetChannel();
      if (guest.memory.buffer.byteLength > snapshot.length) guest = instantiate(options.module, wasi, handles);
      load(snapshot);
    },
    resetChannel: () => wasi.resetChannel(),
    preload: (bytes) => wasi.preload(bytes),
  };
}

/** Ruby values the interpreter handed out, by the handle the host gave them (the guest's ABI). */
type Handles = ReturnType<typeof createHandles>;

function createHandles() {
  const raw = new Map<number, number>();
  let next = 1;
  return {
    put(value: number): number {
      raw.set(next, value);
      return next++;
    },
    get: (handle: number) => raw.get(handle) ?? 0,
    take(handle: number): number | undefined {
      const value = raw.get(handle);
      raw.delete(handle);
      return value;
    },
  };
}

function instantiate(module: WebAssembly.Module, wasi: Wasi, handles: Handles): GuestExports {
  const refuse = () => {
    throw new BridgeRefused();
  };
  const bridge: Record<string, () => never> = {};
  for (const entry of WebAssembly.Module.imports(module))
    if (entry.module === 'rb-js-abi-host') bridge[entry.name] = refuse;
  const instance = new WebAssembly.Instance(module, {
    wasi_snapshot_preview1: wasi.imports,
    'rb-js-abi-host': bridge,
    canonical_abi: {
      'resource_drop_js-abi-value': refuse,
      'resource_new_rb-abi-value': (value: number) => handles.put(value),
      'resource_get_rb-abi-value': (handle: number) => handles.get(handle),
      'resource_drop_rb-abi-value': (handle: number) => {
        const value = handles.take(handle);
        if (value !== undefined) exports['canonical_abi_drop_rb-abi-value'](value);
      },
    },
  } as unknown as WebAssembly.Imports);
  const exports = instance.exports as unknown as GuestExports;
  wasi.setMemory(exports.memory);
  return exports;
}

function putString(guest: GuestExports, text: string): [ptr: number, len: number] {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === 0) return [1, 0];
  const ptr = guest.cabi_realloc(0, 0, 1, bytes.length);
  new Uint8Array(guest.memory.buffer).set(bytes, ptr);
  return [ptr, bytes.length];
}
