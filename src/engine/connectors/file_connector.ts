// file_connector (File tools by Workato): `compress_file` (files into a zip, or one file into
// gzip), `uncompress_file` (a zip's files, or a gzip's content), `read_file` (Get file from URL).
// A job's values are text, so file content travels as text: UTF-8 when it is valid UTF-8, else
// base64, said by `content_encoding` ("utf-8" or "base64") beside it; inputs take either. Archives
// are read with the package reader's limits (src/api/packages/zip.ts): entries, sizes and the total
// are checked before anything is inflated, and a gzip is inflated within FILE_MAX_BYTES.
// `transform_image` (Transform image file) lives in images/transform.ts.
import { gunzipSync, gzipSync } from 'node:zlib';
import { createZipWriter, readZip, ZipError } from '../../api/packages/zip.ts';
import { StepError, type ActionDef, type Connector } from './types.ts';
import { transformImage } from './images/transform.ts';
import { contentBytes, contentValue } from './file-content.ts';
import { hashGet, isHash, newHash, toRubyString, type Hash } from '../../recipe/formula/values.ts';
import type { request } from 'undici';
import { undici } from '../../outbound/undici.ts';

const MAX_FILES = 1000;
const NAME = /^[^\0/\\][^\0]{0,254}$/;

export { contentBytes, contentValue } from './file-content.ts';

function fileHash(name: string, bytes: Buffer): Hash {
  const { content, encoding } = contentValue(bytes);
  return newHash([
    ['file_name', name],
    ['file_content', content],
    ['content_encoding', encoding],
    ['size', bytes.length],
  ]);
}

function formatOf(input: Hash): 'zip' | 'gzip' {
  const raw = hashGet(input, 'compression_format') ?? hashGet(input, 'format') ?? 'zip';
  const f = toRubyString(raw).trim().toLowerCase();
  if (f === 'zip' || f === '') return 'zip';
  if (f === 'gzip' || f === 'gz') return 'gzip';
  throw new StepError('Bad request', 'compression_format must be zip or gzip');
}

const compressFile: ActionDef = {
  title: 'Compress files',
  required: [{ path: 'files', label: 'Files' }],
  async run(input, sc) {
    const raw = hashGet(input, 'files');
    const list = Array.isArray(raw) ? raw : isHash(raw) ? [raw] : null;
    if (list === null || list.length === 0)
      throw new StepError('Bad request', 'files must be a list of {file_name, file_content}');
    if (list.length > MAX_FILES)
      throw new StepError('Bad request', `at most ${MAX_FILES} files are compressed at once`);
    const max = sc.ctx.config.fileMaxBytes;
    let total = 0;
    const files = list.map((item, i) => {
      if (!isHash(item))
        throw new StepError('Bad request', `files[${i}] must be an object with file_name and file_content`);
      const name = toRubyString(hashGet(item, 'file_name') ?? hashGet(item, 'name')).trim();
      if (!NAME.test(name) || name.split('/').some((p) => p === '..' || p === ''))
        throw new StepError('Bad request', `files[${i}]: ${JSON.stringify(name).slice(0, 80)} is not a file name`);
      const bytes = contentBytes(
        hashGet(item, 'file_content') ?? hashGet(item, 'content'),
        hashGet(item, 'content_encoding'),
        `files[${i}].file_content`,
      );
      total += bytes.length;
      if (total > max) throw new StepError('File too large', `the files hold more than ${max} bytes`);
      return { name, bytes };
    });
    const format = formatOf(input);
    const archiveName = toRubyString(hashGet(input, 'file_name') ?? '').trim();
    if (format === 'gzip') {
      if (files.length !== 1) throw new StepError('Bad request', 'gzip compresses one file; use zip for several');
      const only = files[0] as { name: string; bytes: Buffer };
      const gz = gzipSync(only.bytes);
      return fileHash(archiveName || `${only.name}.gz`, gz);
    }
    if (new Set(files.map((f) => f.name)).size !== files.length)
      throw new StepError('Bad request', 'two files have the same name');
    const writer = await createZipWriter(sc.ctx.clock.now());
    for (const f of files) writer.add(f.name, async () => f.bytes);
    writer.finish();
    const chunks: Buffer[] = [];
    for await (const chunk of writer.stream) chunks.push(chunk as Buffer);
    return fileHash(archiveName || 'archive.zip', Buffer.concat(chunks));
  },
};

const uncompressFile: ActionDef = {
  title: 'Uncompress a file',
  required: [{ path: 'file_content', label: 'File content' }],
  async run(input, sc) {
    const bytes = contentBytes(
      hashGet(input, 'file_content'),
      hashGet(input, 'content_encoding') ?? 'base64',
      'file_content',
    );
    const max = sc.ctx.config.fileMaxBytes;
    const isGzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
    if (isGzip) {
      let inflated: Buffer;
      try {
        inflated = gunzipSync(bytes, { maxOutputLength: max });
      } catch (error) {
        const tooBig = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError;
        throw tooBig
          ? new StepError('File too large', `the file holds more than ${max} bytes uncompressed`)
          : new StepError('Archive error', `the file is not a valid gzip: ${(error as Error).message}`);
      }
      const name = toRubyString(hashGet(input, 'file_name') ?? '').replace(/\.gz$/i, '') || 'file';
      return newHash([
        ['files', [fileHash(name, inflated)]],
        ['count', 1],
      ]);
    }
    let entries: Map<string, Buffer>;
    try {
      entries = await readZip(bytes, { maxEntries: MAX_FILES, maxEntryBytes: max, maxTotalBytes: max });
    } catch (error) {
      if (error instanceof ZipError) throw new StepError('Archive error', error.message);
      throw new StepError('Archive error', `the file is not a zip or gzip archive (${(error as Error).message})`);
    }
    const files = [...entries].map(([name, content]) => fileHash(name, content));
    return newHash([
      ['files', files],
      ['count', files.length],
    ]);
  },
};

/** Get file from URL: a GET of an http(s) URL; the answer's bytes as content, within FILE_MAX_BYTES. */
export const readFileFromUrl: ActionDef = {
  title: 'Get file from URL',
  required: [{ path: 'url', label: 'File URL' }],
  reachesOutside: true,
  async run(input, sc) {
    const raw = toRubyString(hashGet(input, 'url') ?? hashGet(input, 'file_url')).trim();
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new StepError('Bad request', `${JSON.stringify(raw).slice(0, 100)} is not an absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new StepError('Bad request', 'the URL must be http or https');
    const max = Math.min(sc.ctx.config.fileMaxBytes, sc.limits.httpMaxResponseBytes);
    try {
      sc.ctx.outbound.checkUrl(url);
    } catch (error) {
      throw new StepError('Bad request', (error as Error).message);
    }
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await undici().request(url, {
        method: 'GET',
        dispatcher: sc.ctx.outbound.dispatcher,
        headersTimeout: sc.limits.httpTimeoutMs,
        bodyTimeout: sc.limits.httpTimeoutMs,
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (code.includes('TIMEOUT'))
        throw new StepError('Timeout', `no answer from ${url.host} within ${sc.limits.httpTimeoutMs} ms`);
      throw new StepError('Connection error', `cannot reach ${url.host}: ${code || (error as Error).message}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > max) {
        res.body.destroy();
        throw new StepError('File too large', `the file is larger than ${max} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const bytes = Buffer.concat(chunks);
    if (res.statusCode < 200 || res.statusCode >= 300)
      throw new StepError(
        res.statusCode === 404 ? 'Not found' : `HTTP ${res.statusCode}`,
        `${res.statusCode}: ${bytes.toString('utf8').slice(0, 300)}`,
      );
    const type = res.headers['content-type'];
    const out = fileHash(decodeURIComponent(url.pathname.split('/').pop() ?? '') || 'file', bytes);
    out.content_type = Array.isArray(type) ? (type[0] ?? null) : (type ?? null);
    return out;
  },
};

export const fileConnector: Connector = {
  provider: 'file_connector',
  title: 'File tools',
  needsConnection: false,
  reachesOutside: false,
  triggers: {},
  actions: {
    compress_file: compressFile,
    uncompress_file: uncompressFile,
    read_file: readFileFromUrl,
    transform_image: transformImage,
  },
};
