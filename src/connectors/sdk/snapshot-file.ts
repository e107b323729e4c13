// The Ruby interpreter's memory snapshot on disk: most of its pages are zeros (the unused stack,
// reserved heap), so the file holds a map of the pages that are not and those pages only.
import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const MAGIC = 'SBRUBY01';
const PAGE = 65536;

export function encodeSnapshot(memory: Uint8Array): Buffer {
  const pages = Math.ceil(memory.length / PAGE);
  const map = Buffer.alloc(Math.ceil(pages / 8));
  const kept: Uint8Array[] = [];
  for (let p = 0; p < pages; p++) {
    const page = memory.subarray(p * PAGE, Math.min(memory.length, (p + 1) * PAGE));
    if (page.some((byte) => byte !== 0)) {
      map[p >> 3]! |= 1 << (p & 7);
      kept.push(page);
    }
  }
  const header = Buffer.alloc(16);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(memory.length, 8);
  header.writeUInt32LE(pages, 12);
  return Buffer.concat([header, map, ...kept]);
}

/** The memory a file holds, in shared memory (every worker of the process reads the same copy); null when it is not a snapshot. */
export function decodeSnapshot(file: Uint8Array): SharedArrayBuffer | null {
  if (file.length < 16 || Buffer.from(file.subarray(0, 8)).toString('latin1') !== MAGIC) return null;
  const dv = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const length = dv.getUint32(8, true);
  const pages = dv.getUint32(12, true);
  if (pages !== Math.ceil(length / PAGE)) return null;
  const mapAt = 16;
  let at = mapAt + Math.ceil(pages / 8);
  const out = new SharedArrayBuffer(length);
  const memory = new Uint8Array(out);
  for (let p = 0; p < pages; p++) {
    if (!(file[mapAt + (p >> 3)]! & (1 << (p & 7)))) continue;
    const size = Math.min(PAGE, length - p * PAGE);
    if (at + size > file.length) return null;
    memory.set(file.subarray(at, at + size), p * PAGE);
    at += size;
  }
  return at === file.length ? out : null;
}

/** The memory size a snapshot file holds, from its header alone; null when it is not a snapshot. */
export function snapshotFileSize(file: string): number | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const header = Buffer.alloc(16);
      if (readSync(fd, header, 0, 16, 0) !== 16 || header.toString('latin1', 0, 8) !== MAGIC) return null;
      return header.readUInt32LE(8);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

export function readSnapshotFile(file: string): SharedArrayBuffer | null {
  try {
    return decodeSnapshot(readFileSync(file));
  } catch {
    return null;
  }
}

/** Written under a name of this process, then renamed: a reader never sees half a file. */
export function writeSnapshotFile(file: string, memory: Uint8Array): boolean {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(partial, encodeSnapshot(memory));
    renameSync(partial, file);
    return true;
  } catch {
    rmSync(partial, { force: true });
    return false;
  }
}
