// Zip files of packages, with yazl (writing, streaming) and yauzl (reading, with its checks of
// entry names and sizes): docs/adr/0009. Reading refuses, before inflating anything, what would
// not fit the limits: too many entries, an entry or a total too large once uncompressed, names
// that escape the folder, symbolic links, encrypted entries.
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import yazl from 'yazl';

export interface ZipLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
}

export class ZipError extends Error {
  override name = 'ZipError';
}

/** The entries of a zip, by name (files only; directory entries are skipped). */
export async function readZip(buffer: Buffer, limits: ZipLimits): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for await (const [name, content] of zipFiles(buffer, limits)) out.set(name, content);
  return out;
}

/**
 * The files of a zip, each inflated when the loop asks for it, so that one file at a time is in
 * memory. The limits are checked on the whole archive before the first file is inflated. With
 * `only`, just that file is inflated.
 */
export async function* zipFiles(buffer: Buffer, limits: ZipLimits, only?: string): AsyncGenerator<[string, Buffer]> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, {
      lazyEntries: true,
      validateEntrySizes: true,
      strictFileNames: true,
      decodeStrings: true,
    });
  } catch (error) {
    throw new ZipError(`the file is not a zip archive (${(error as Error).message})`);
  }
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new ZipError(`the archive holds ${zip.entryCount} entries; at most ${limits.maxEntries} are accepted`);
  }
  const entries: yauzl.Entry[] = [];
  let total = 0;
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => {
          cleanup();
          resolve(e);
        };
        const onEnd = () => {
          cleanup();
          resolve(null);
        };
        const onError = (err: Error) => {
          cleanup();
          reject(err);
        };
        const cleanup = () => {
          zip.off('entry', onEntry);
          zip.off('end', onEnd);
          zip.off('error', onError);
        };
        zip.on('entry', onEntry);
        zip.on('end', onEnd);
        zip.on('error', onError);
        zip.readEntry();
      });
      if (entry === null) break;
      const name = entry.fileName;
      const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
      if (mode === 0o120000) throw new ZipError(`${name}: symbolic links are not accepted`);
      if (entry.isEncrypted()) throw new ZipError(`${name}: encrypted entries are not accepted`);
      if (name.endsWith('/')) continue;
      if (entry.uncompressedSize > limits.maxEntryBytes)
        throw new ZipError(
          `${name}: ${entry.uncompressedSize} bytes uncompressed; at most ${limits.maxEntryBytes} are accepted per file`,
        );
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes)
        throw new ZipError(`the archive holds more than ${limits.maxTotalBytes} bytes uncompressed`);
      if (only === undefined || name === only) entries.push(entry);
    }
  } catch (error) {
    zip.close();
    if (error instanceof ZipError) throw error;
    // yauzl's own checks: names with .. or an absolute path, bad sizes, a broken central directory.
    throw new ZipError(`the archive is not valid: ${(error as Error).message}`);
  }
  const seen = new Set<string>();
  try {
    for (const entry of entries) {
      if (seen.has(entry.fileName)) throw new ZipError(`${entry.fileName}: the archive names this file twice`);
      seen.add(entry.fileName);
      let content: Buffer;
      try {
        const stream = await zip.openReadStreamPromise(entry);
        const parts: Buffer[] = [];
        for await (const part of stream) parts.push(part as Buffer);
        content = Buffer.concat(parts);
      } catch (error) {
        throw new ZipError(`the archive is not valid: ${(error as Error).message}`);
      }
      yield [entry.fileName, content];
    }
  } finally {
    zip.close();
  }
}

/**
 * A zip written as it streams out: each entry's content is produced only when the archive reaches
 * it (so one asset at a time is in memory), compressed on the thread pool, and read from `stream`.
 */
export function createZipWriter(mtime: Date): {
  add(name: string, produce: () => Promise<Buffer>): void;
  finish(): void;
  stream: Readable;
} {
  const zip = new yazl.ZipFile();
  const stream = zip.outputStream as Readable;
  zip.on('error', (error: Error) => stream.destroy(error));
  return {
    add(name, produce) {
      zip.addReadStreamLazy(name, { mtime, mode: 0o100644, compress: true }, (cb) => {
        produce().then(
          (content) => cb(null, Readable.from([content])),
          (error: unknown) => cb(error, Readable.from([])),
        );
      });
    },
    finish() {
      zip.end();
    },
    stream,
  };
}
