// The only system Ruby sees: a WASI preview 1 implementation that offers a clock, random bytes,
// standard output (collected as the call's log) and one channel to the host, and nothing else. No
// directory is opened for it (the standard library it reads is packed inside the WebAssembly
// module), no environment but the few variables given, no socket, no process. Every other call
// answers an error, so a file, a directory or a socket cannot even be named.
import { getRandomValues } from 'node:crypto';

/**
 * The host channel: Ruby writes requests to its standard input and reads the answers from it
 * (the module's packed file system keeps every other descriptor to itself).
 */
export const HOST_FD = 0;

const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_INVAL = 28;
const ERRNO_NOSYS = 52;
const ERRNO_SPIPE = 70;
const ERRNO_NOTCAPABLE = 76;

const FILETYPE_CHARACTER_DEVICE = 2;
const CLOCK_REALTIME = 0;
const EVENTTYPE_CLOCK = 0;

/** Thrown when the code calls `exit!` (WASI proc_exit): the interpreter is not used again. */
export class ProcessExit extends Error {
  override name = 'ProcessExit';
  readonly code: number;
  constructor(code: number) {
    super(`the code exited with status ${code}`);
    this.code = code;
  }
}

export interface WasiHooks {
  /** Text the code wrote to standard output or standard error. */
  output(fd: 1 | 2, bytes: Uint8Array): void;
  /**
   * One request on the host channel; returns the answer (blocking the thread until it is there), or
   * null for a message that takes none (the call's result).
   */
  request(bytes: Uint8Array): Uint8Array | null;
  /** Waits this long (Ruby's `sleep`), blocking the thread. */
  sleep(ms: number): void;
}

export interface Wasi {
  imports: Record<string, (...args: never[]) => number>;
  /** Set once the instance exists: the imports read and write its memory. */
  setMemory(memory: WebAssembly.Memory): void;
  /** Forget a half-written request or an unread answer (a call ended while one was in flight). */
  resetChannel(): void;
  /**
   * Empties the channel and puts a message in it for Ruby to read without asking (the call, before
   * it starts: nothing an earlier call left unread comes before it).
   */
  preload(bytes: Uint8Array): void;
}

export function createWasi(env: Readonly<Record<string, string>>, hooks: WasiHooks): Wasi {
  let memory: WebAssembly.Memory | null = null;
  const encoder = new TextEncoder();
  const environ = Object.entries(env).map(([k, v]) => encoder.encode(`${k}=${v}\0`));
  // The host channel: a request is a 4-byte big-endian length then that many bytes; so is an answer.
  let pendingRequest: Uint8Array[] = [];
  let pendingBytes = 0;
  let answer: Uint8Array = new Uint8Array(0);
  let answerAt = 0;

  const view = () => new DataView(memory!.buffer);
  const bytes = () => new Uint8Array(memory!.buffer);

  function iovecs(iovs: number, count: number): Array<[number, number]> {
    const dv = view();
    const out: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) out.push([dv.getUint32(iovs + i * 8, true), dv.getUint32(iovs + i * 8 + 4, true)]);
    return out;
  }

  function takeRequest(): void {
    while (pendingBytes >= 4) {
      const joined = concat(pendingRequest, pendingBytes);
      const length = new DataView(joined.buffer, joined.byteOffset).getUint32(0, false);
      if (joined.length < 4 + length) {
        pendingRequest = [joined];
        return;
      }
      const body = joined.slice(4, 4 + length);
      const rest = joined.subarray(4 + length);
      pendingRequest = rest.length ? [rest.slice()] : [];
      pendingBytes = rest.length;
      const reply = hooks.request(body);
      if (reply) queueAnswer(reply);
    }
  }

  function queueAnswer(reply: Uint8Array): void {
    const framed = new Uint8Array(4 + reply.length);
    new DataView(framed.buffer).setUint32(0, reply.length, false);
    framed.set(reply, 4);
    answer =
      answerAt < answer.length
        ? concat([answer.subarray(answerAt), framed], answer.length - answerAt + framed.length)
        : framed;
    answerAt = 0;
  }

  const imports: Record<string, (...args: never[]) => number> = {
    environ_sizes_get(countPtr: number, sizePtr: number) {
      const dv = view();
      dv.setUint32(countPtr, environ.length, true);
      dv.setUint32(
        sizePtr,
        environ.reduce((n, e) => n + e.length, 0),
        true,
      );
      return ERRNO_SUCCESS;
    },
    environ_get(environPtr: number, bufPtr: number) {
      const dv = view();
      let at = bufPtr;
      environ.forEach((e, i) => {
        dv.setUint32(environPtr + i * 4, at, true);
        bytes().set(e, at);
        at += e.length;
      });
      return ERRNO_SUCCESS;
    },
    clock_res_get(_id: number, resPtr: number) {
      view().setBigUint64(resPtr, 1000n, true);
      return ERRNO_SUCCESS;
    },
    clock_time_get(id: number, _precision: bigint, timePtr: number) {
      const ns =
        id === CLOCK_REALTIME
          ? BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor((performance.now() % 1) * 1_000_000))
          : process.hrtime.bigint();
      view().setBigUint64(timePtr, ns, true);
      return ERRNO_SUCCESS;
    },
    random_get(ptr: number, length: number) {
      for (let at = 0; at < length; at += 65536)
        getRandomValues(new Uint8Array(memory!.buffer, ptr + at, Math.min(65536, length - at)));
      return ERRNO_SUCCESS;
    },
    fd_write(fd: number, iovs: number, count: number, writtenPtr: number) {
      if (fd !== 1 && fd !== 2 && fd !== HOST_FD) return ERRNO_BADF;
      let written = 0;
      for (const [ptr, length] of iovecs(iovs, count)) {
        const chunk = bytes().slice(ptr, ptr + length);
        written += length;
        if (fd === HOST_FD) {
          pendingRequest.push(chunk);
          pendingBytes += length;
        } else hooks.output(fd, chunk);
      }
      view().setUint32(writtenPtr, written, true);
      if (fd === HOST_FD) takeRequest();
      return ERRNO_SUCCESS;
    },
    fd_read(fd: number, iovs: number, count: number, readPtr: number) {
      if (fd !== HOST_FD) return ERRNO_BADF;
      let read = 0;
      for (const [ptr, length] of iovecs(iovs, count)) {
        const n = Math.min(length, answer.length - answerAt);
        if (n <= 0) break;
        bytes().set(answer.subarray(answerAt, answerAt + n), ptr);
        answerAt += n;
        read += n;
      }
      view().setUint32(readPtr, read, true);
      return ERRNO_SUCCESS;
    },
    fd_fdstat_get(fd: number, ptr: number) {
      if (fd !== 0 && fd !== 1 && fd !== 2) return ERRNO_BADF;
      const dv = view();
      dv.setUint8(ptr, FILETYPE_CHARACTER_DEVICE);
      dv.setUint16(ptr + 2, 0, true);
      // fd_read, fd_write and fd_fdstat_set_flags; nothing that reaches a path.
      dv.setBigUint64(ptr + 8, (1n << 1n) | (1n << 6n) | (1n << 3n), true);
      dv.setBigUint64(ptr + 16, 0n, true);
      return ERRNO_SUCCESS;
    },
    fd_filestat_get(fd: number, ptr: number) {
      if (fd !== 0 && fd !== 1 && fd !== 2) return ERRNO_BADF;
      bytes().fill(0, ptr, ptr + 64);
      view().setUint8(ptr + 16, FILETYPE_CHARACTER_DEVICE);
      return ERRNO_SUCCESS;
    },
    fd_fdstat_set_flags(fd: number) {
      return fd === 0 || fd === 1 || fd === 2 ? ERRNO_SUCCESS : ERRNO_BADF;
    },
    fd_seek(fd: number) {
      return fd === 0 || fd === 1 || fd === 2 ? ERRNO_SPIPE : ERRNO_BADF;
    },
    fd_tell(fd: number) {
      return fd === 0 || fd === 1 || fd === 2 ? ERRNO_SPIPE : ERRNO_BADF;
    },
    // No directory is lent: Ruby's C library finds no place to resolve a path against.
    fd_prestat_get: () => ERRNO_BADF,
    fd_prestat_dir_name: () => ERRNO_BADF,
    fd_close: () => ERRNO_SUCCESS,
    fd_sync: () => ERRNO_SUCCESS,
    fd_datasync: () => ERRNO_SUCCESS,
    fd_advise: () => ERRNO_SUCCESS,
    fd_pread: () => ERRNO_SPIPE,
    fd_pwrite: () => ERRNO_SPIPE,
    fd_readdir: () => ERRNO_BADF,
    fd_renumber: () => ERRNO_BADF,
    fd_filestat_set_size: () => ERRNO_BADF,
    path_open: () => ERRNO_NOTCAPABLE,
    path_filestat_get: () => ERRNO_NOTCAPABLE,
    path_filestat_set_times: () => ERRNO_NOTCAPABLE,
    path_create_directory: () => ERRNO_NOTCAPABLE,
    path_remove_directory: () => ERRNO_NOTCAPABLE,
    path_unlink_file: () => ERRNO_NOTCAPABLE,
    path_rename: () => ERRNO_NOTCAPABLE,
    path_link: () => ERRNO_NOTCAPABLE,
    path_symlink: () => ERRNO_NOTCAPABLE,
    path_readlink: () => ERRNO_NOTCAPABLE,
    poll_oneoff(inPtr: number, outPtr: number, count: number, eventsPtr: number) {
      // Only clocks are waited on (Ruby's sleep); the earliest one fires.
      const dv = view();
      let soonest = -1;
      let userdata = 0n;
      for (let i = 0; i < count; i++) {
        const sub = inPtr + i * 48;
        if (dv.getUint8(sub + 8) !== EVENTTYPE_CLOCK) return ERRNO_NOSYS;
        const timeout = dv.getBigUint64(sub + 24, true);
        const absolute = (dv.getUint16(sub + 40, true) & 1) === 1;
        let ms = Number(timeout / 1_000_000n);
        if (absolute)
          ms -=
            dv.getUint32(sub + 16, true) === CLOCK_REALTIME ? Date.now() : Number(process.hrtime.bigint() / 1_000_000n);
        if (soonest < 0 || ms < soonest) {
          soonest = Math.max(0, ms);
          userdata = dv.getBigUint64(sub, true);
        }
      }
      if (soonest < 0) return ERRNO_INVAL;
      hooks.sleep(soonest);
      bytes().fill(0, outPtr, outPtr + 32);
      view().setBigUint64(outPtr, userdata, true);
      view().setUint8(outPtr + 10, EVENTTYPE_CLOCK);
      view().setUint32(eventsPtr, 1, true);
      return ERRNO_SUCCESS;
    },
    proc_exit(code: number): number {
      throw new ProcessExit(code);
    },
  };

  return {
    imports,
    setMemory(m) {
      memory = m;
    },
    resetChannel() {
      pendingRequest = [];
      pendingBytes = 0;
      answer = new Uint8Array(0);
      answerAt = 0;
    },
    preload(bytes) {
      pendingRequest = [];
      pendingBytes = 0;
      answer = new Uint8Array(0);
      answerAt = 0;
      queueAnswer(bytes);
    },
  };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
