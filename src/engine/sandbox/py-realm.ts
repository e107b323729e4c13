// The Python sandbox's JavaScript realm: a `node:vm` context created with DONT_CONTEXTIFY, so its
// global object is an ordinary one of its own realm, holding only the language (no `process`,
// `require`, `fetch`, timers, `Buffer`, file system or network). Pyodide runs inside it, so even
// Python code that reaches Pyodide's JavaScript bridge finds only this realm. `realmSetup` is
// evaluated *inside* the realm from its source text (it must not close over anything of this
// module): it defines the few web APIs Pyodide needs, written in the realm's own JavaScript, and
// hands back the handles the worker uses. Nothing of the host realm is ever put in it: the worker
// passes only strings and numbers, and copies bytes into arrays the realm created.

import vm from 'node:vm';

/** A new realm for the Python sandbox, set up by `realmSetup`; `run` evaluates a script in it. */
export function createRealm(): { realm: RealmHandles; run<T>(code: string, filename: string): T } {
  // No code from strings in the realm (eval, Function): Python code that reaches the realm through
  // Pyodide's bridge can call what is there, and make no new JavaScript.
  const context = vm.createContext(vm.constants.DONT_CONTEXTIFY, { codeGeneration: { strings: false, wasm: true } });
  const run = <T>(code: string, filename: string): T => vm.runInContext(code, context, { filename }) as T;
  const realm = run<RealmHandles>(`(${realmSetup.toString()})()`, 'py-realm.js');
  return { realm, run };
}

export interface RealmHandles {
  /** A Uint8Array of the realm, registered as a file that Pyodide's loader can read. */
  file(name: string, size: number): Uint8Array;
  /** Forget the files once Pyodide has read them. */
  dropFiles(): void;
  /** The random pool (the worker refills it with the host's random bytes before each step). */
  pool(): Uint8Array;
  /** The bound on the WebAssembly memory, in bytes (growing past it fails: Python's MemoryError). */
  setMemoryCap(bytes: number): void;
  /** What Pyodide and its loader printed (the last lines). */
  log: string[];
}

export function realmSetup(): RealmHandles {
  const files = new Map<string, Uint8Array>();
  const log: string[] = [];
  const define = (name: string, value: unknown) =>
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });

  const fromCodes = (codes: number[]) => String.fromCharCode(...codes);
  const utf8Decode = (bytes: Uint8Array, fatal: boolean): string => {
    let out = '';
    const chunk: number[] = [];
    const bad = () => {
      if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8');
      chunk.push(0xfffd);
    };
    for (let i = 0; i < bytes.length;) {
      if (chunk.length > 8192) {
        out += fromCodes(chunk);
        chunk.length = 0;
      }
      const b = bytes[i]!;
      if (b < 0x80) {
        chunk.push(b);
        i++;
        continue;
      }
      let cp: number;
      let need: number;
      if (b >= 0xc2 && b < 0xe0) {
        cp = b & 0x1f;
        need = 1;
      } else if (b >= 0xe0 && b < 0xf0) {
        cp = b & 0x0f;
        need = 2;
      } else if (b >= 0xf0 && b < 0xf5) {
        cp = b & 0x07;
        need = 3;
      } else {
        bad();
        i++;
        continue;
      }
      let j = 1;
      for (; j <= need; j++) {
        const c = bytes[i + j];
        if (c === undefined || (c & 0xc0) !== 0x80) break;
        cp = (cp << 6) | (c & 0x3f);
      }
      if (
        j <= need ||
        (need === 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (need === 3 && (cp < 0x10000 || cp > 0x10ffff))
      ) {
        bad();
        i += j;
        continue;
      }
      i += need + 1;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        chunk.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      } else chunk.push(cp);
    }
    return out + fromCodes(chunk);
  };

  class TextDecoder {
    readonly encoding: string;
    readonly fatal: boolean;
    readonly ignoreBOM: boolean;
    constructor(label = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
      const l = String(label).toLowerCase();
      const encoding =
        l === 'utf8' || l === 'utf-8'
          ? 'utf-8'
          : l === 'utf-16le'
            ? 'utf-16le'
            : l === 'latin1' || l === 'ascii' || l === 'iso-8859-1'
              ? 'windows-1252'
              : null;
      if (!encoding) throw new RangeError(`The "${label}" encoding is not supported`);
      this.encoding = encoding;
      this.fatal = Boolean(options?.fatal);
      this.ignoreBOM = Boolean(options?.ignoreBOM);
    }
    decode(input?: ArrayBuffer | ArrayBufferView): string {
      if (input === undefined) return '';
      const bytes = ArrayBuffer.isView(input)
        ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
        : new Uint8Array(input);
      if (this.encoding === 'utf-8') {
        const bom = !this.ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
        return utf8Decode(bom ? bytes.subarray(3) : bytes, this.fatal);
      }
      let out = '';
      if (this.encoding === 'utf-16le') {
        for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes[i]! | (bytes[i + 1]! << 8));
        return out;
      }
      for (let i = 0; i < bytes.length; i += 8192) out += fromCodes(Array.from(bytes.subarray(i, i + 8192)));
      return out;
    }
  }

  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }
    encodeInto(text: string, dest: Uint8Array): { read: number; written: number } {
      let w = 0;
      let r = 0;
      for (; r < text.length; r++) {
        let cp = text.charCodeAt(r);
        let units = 1;
        if (cp >= 0xd800 && cp < 0xdc00 && r + 1 < text.length) {
          const lo = text.charCodeAt(r + 1);
          if (lo >= 0xdc00 && lo < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            units = 2;
          }
        }
        if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd;
        const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (w + n > dest.length) break;
        if (n === 1) dest[w++] = cp;
        else if (n === 2) {
          dest[w++] = 0xc0 | (cp >> 6);
          dest[w++] = 0x80 | (cp & 0x3f);
        } else if (n === 3) {
          dest[w++] = 0xe0 | (cp >> 12);
          dest[w++] = 0x80 | ((cp >> 6) & 0x3f);
          dest[w++] = 0x80 | (cp & 0x3f);
        } else {
          dest[w++] = 0xf0 | (cp >> 18);
          dest[w++] = 0x80 | ((cp >> 12) & 0x3f);
          dest[w++] = 0x80 | ((cp >> 6) & 0x3f);
          dest[w++] = 0x80 | (cp & 0x3f);
        }
        r += units - 1;
      }
      return { read: r, written: w };
    }
    encode(text = ''): Uint8Array {
      const s = String(text);
      const dest = new Uint8Array(s.length * 3);
      return dest.slice(0, this.encodeInto(s, dest).written);
    }
  }

  // Random bytes: a pool the worker refills from the host's CSPRNG before each step; past it, a
  // xorshift stream seeded from the pool.
  const pool = new Uint8Array(4096);
  let poolAt = pool.length;
  let state = 0x9e3779b9;
  const crypto = {
    getRandomValues<T extends ArrayBufferView>(view: T): T {
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      for (let i = 0; i < bytes.length; i++) {
        if (poolAt < pool.length) {
          const byte = pool[poolAt++]!;
          bytes[i] = byte;
          state = (state ^ byte ^ (state << 8)) >>> 0 || 1;
          continue;
        }
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        bytes[i] = state & 0xff;
      }
      return view;
    },
  };

  // The memory bound: Emscripten grows the heap through Memory.prototype.grow, fixed here for good.
  let memoryCap = Infinity;
  interface WasmMemory {
    buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  const memoryProto = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly
    .Memory.prototype;
  const grow = memoryProto.grow;
  Object.defineProperty(memoryProto, 'grow', {
    value: function (this: WasmMemory, pages: number) {
      if (this.buffer.byteLength + pages * 65536 > memoryCap) throw new RangeError('the memory limit is reached');
      return grow.call(this, pages);
    },
    writable: false,
    configurable: false,
  });

  // No dynamic import(): from a vm context, Node answers one with an error object of the host
  // realm, whose constructor's constructor is the host's Function. So the realm's ways of making
  // code from text (Function and its async and generator kinds, eval) refuse any source that
  // names `import` (a keyword cannot be spelled with escapes), and the worker rewrites Pyodide's
  // own import() calls into `__refuseImport`, a rejection made here.
  const refuseSource = (args: unknown[]) => {
    if (args.some((a) => /\bimport\b/.test(String(a)))) throw new SyntaxError('import is not available in the sandbox');
  };
  type Maker = (...args: unknown[]) => unknown;
  const guard = (original: Maker & { prototype: object }) => {
    const guarded = function (...args: unknown[]) {
      refuseSource(args);
      return original(...args);
    };
    Object.defineProperty(guarded, 'prototype', { value: original.prototype, writable: false });
    Object.defineProperty(original.prototype, 'constructor', { value: guarded, writable: false, configurable: false });
    return guarded;
  };
  const makers = [
    Function,
    Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(function* () {}).constructor,
    Object.getPrototypeOf(async function* () {}).constructor,
  ] as Array<Maker & { prototype: object }>;
  const [guardedFunction] = makers.map(guard);
  define('Function', guardedFunction);
  const intrinsicEval = globalThis.eval;
  define('eval', (source: unknown) => {
    if (typeof source === 'string') refuseSource([source]);
    return intrinsicEval(source as string);
  });
  // WebAssembly's streaming compile goes through Node, whose errors are of the host realm.
  const wasm = (globalThis as unknown as { WebAssembly: Record<string, unknown> }).WebAssembly;
  for (const name of ['compileStreaming', 'instantiateStreaming'])
    Object.defineProperty(wasm, name, { value: undefined, writable: false, configurable: false });
  define('__refuseImport', () => Promise.reject(new Error('import() is not available in the sandbox')));

  define('TextDecoder', TextDecoder);
  define('TextEncoder', TextEncoder);
  define('crypto', crypto);
  define('performance', { now: () => Date.now(), timeOrigin: Date.now() });
  const say = (...args: unknown[]) => {
    log.push(args.map(String).join(' ').slice(0, 1000));
    if (log.length > 50) log.shift();
  };
  define('console', { log: say, warn: say, error: say, info: say, debug() {} });
  // Pyodide's loader in a "shell" reads its files with these.
  const readbuffer = (path: string) => {
    const f = files.get(path);
    if (!f) throw new Error(`no file ${path}`);
    return f.buffer;
  };
  define('readbuffer', readbuffer);
  define('read', (path: string) => new TextDecoder().decode(new Uint8Array(readbuffer(path))));
  define('load', () => {
    throw new Error('load is not available');
  });

  return {
    file(name, size) {
      const bytes = new Uint8Array(size);
      files.set(name, bytes);
      return bytes;
    },
    dropFiles() {
      files.clear();
    },
    pool() {
      poolAt = 0;
      return pool;
    },
    setMemoryCap(bytes) {
      memoryCap = bytes;
    },
    log,
  };
}
