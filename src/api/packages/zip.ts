// Zip files of packages, with yazl (writing, streaming) and yauzl (reading, with its checks of
// entry names and sizes): docs/adr/0009. Reading refuses, before inflating anything, what would
// not fit the limits: too many entries, an entry or a total too large once uncompressed, names
// that escape the folder, symbolic links, encrypted entries; while inflating, it counts the bytes
// and stops at the limits whatever the archive declared.
import { Readable } from 'node:stream';
import type yauzl from 'yauzl';

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
  const zip = await openZip(buffer, limits);
  try {
    for (const name of zip.names) if (only === undefined || name === only) yield [name, await zip.read(name)];
  } finally {
    zip.close();
  }
}

/** An archive opened and checked: its files' names, and each file inflated on demand. */
export interface OpenZip {
  /** The files, in the archive's order (directories left out). */
  readonly names: readonly string[];
  /**
   * A file's content, inflated with its bytes counted as they come: past the limit of a file, or
   * (counting each file once) of the whole archive, inflating stops and it is refused, whatever
   * the archive declared.
   */
  read(name: string): Promise<Buffer>;
  close(): void;
}

/**
 * Open a zip and check it before anything is inflated: the number of entries, each name (yauzl
 * refuses `..`, absolute paths and backslashes), symbolic links, encryption, the sizes declared
 * for each file and in all, names given twice.
 */
export async function openZip(buffer: Buffer, limits: ZipLimits): Promise<OpenZip> {
  // The zip libraries load at the first archive read or written.
  const { default: reader } = await import('yauzl');
  let zip: yauzl.ZipFile;
  try {
    zip = await reader.fromBufferPromise(buffer, {
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
  const entries = new Map<string, yauzl.Entry>();
  let declared = 0;
  try {
    for (;;) {
      const entry = await nextEntry(zip);
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
      declared += entry.uncompressedSize;
      if (declared > limits.maxTotalBytes)
        throw new ZipError(`the archive holds more than ${limits.maxTotalBytes} bytes uncompressed`);
      if (entries.has(name)) throw new ZipError(`${name}: the archive names this file twice`);
      entries.set(name, entry);
    }
  } catch (error) {
    zip.close();
    if (error instanceof ZipError) throw error;
    // yauzl's own checks: names with .. or an absolute path, bad sizes, a broken central directory.
    throw new ZipError(`the archive is not valid: ${(error as Error).message}`);
  }
  const counted = new Set<string>();
  let inflated = 0;
  return {
    names: [...entries.keys()],
    async read(name) {
      const entry = entries.get(name);
      if (!entry) throw new ZipError(`${name}: not in the archive`);
      const first = !counted.has(name);
      counted.add(name);
      const parts: Buffer[] = [];
      let size = 0;
      let stream: NodeJS.ReadableStream & { destroy(): void };
      try {
        stream = (await zip.openReadStreamPromise(entry)) as typeof stream;
      } catch (error) {
        throw new ZipError(`the archive is not valid: ${(error as Error).message}`);
      }
      try {
        for await (const part of stream) {
          const chunk = part as Buffer;
          size += chunk.length;
          if (first) inflated += chunk.length;
          if (size > limits.maxEntryBytes)
            throw new ZipError(
              `${name}: more than ${limits.maxEntryBytes} bytes once inflated; at most that is accepted per file`,
            );
          if (inflated > limits.maxTotalBytes)
            throw new ZipError(`the archive holds more than ${limits.maxTotalBytes} bytes once inflated`);
          parts.push(chunk);
        }
      } catch (error) {
        stream.destroy();
        if (error instanceof ZipError) throw error;
        throw new ZipError(`the archive is not valid: ${(error as Error).message}`);
      }
      return Buffer.concat(parts, size);
    },
    close() {
      zip.close();
    },
  };
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise<yauzl.Entry | null>((resolve, reject) => {
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
}

/**
 * A zip written as it streams out: each entry's content is produced only when the archive reaches
 * it (so one asset at a time is in memory), compressed on the thread pool, and read from `stream`.
 */
export async function createZipWriter(mtime: Date): Promise<{
  add(name: string, produce: () => Promise<Buffer>): void;
  finish(): void;
  stream: Readable;
}> {
  const { default: yazl } = await import('yazl');
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
