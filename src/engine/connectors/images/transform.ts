// File tools' `transform_image` (Transform image file): an image converted to PNG or JPEG and
// resized to fit a box, or padded with white to the exact box ("strict resize"). The header is read
// first (image-size): what is not a PNG, JPEG, GIF or BMP, or holds more pixels than MAX_PIXELS, is
// refused before anything is decoded. Decoding and encoding run in a thread of their own
// (image-threads.ts), so a large image never stalls the event loop; the thread ends with its answer.
import { imageSize } from 'image-size';
import { StepError, type ActionDef } from '../types.ts';
import { hashGet, isHash, newHash, toRubyString, type Hash, type Value } from '../../../recipe/formula/values.ts';
import { contentBytes } from '../file-content.ts';
import { imageThreadsOf } from './image-threads.ts';
/** The vendor's bound on the input file. */
export const MAX_IMAGE_BYTES = 50 * 1024 * 1024;
/** Pixels an input or output image may hold (a 24-megapixel photo fits): about 100 MB decoded. */
export const MAX_PIXELS = 25_000_000;
/** A side of the output, in pixels. */
export const MAX_SIDE = 10_000;
const READ_FORMATS: ReadonlySet<string> = new Set(['png', 'jpg', 'gif', 'bmp']);

function pick(input: Hash, ...names: string[]): Value {
  for (const name of names) {
    const v = hashGet(input, name);
    if (v !== null && v !== '') return v;
  }
  return null;
}

function side(value: Value, field: string): number | null {
  if (value === null || value === '') return null;
  const n = typeof value === 'number' ? value : Number(toRubyString(value).trim());
  if (!Number.isInteger(n) || n < 1)
    throw new StepError('Bad request', `${field} must be a whole number of pixels, 1 or more`);
  if (n > MAX_SIDE) throw new StepError('Bad request', `${field} must be at most ${MAX_SIDE} pixels`);
  return n;
}

function targetFormat(raw: Value, source: string): 'png' | 'jpg' {
  if (raw === null) return source === 'jpg' ? 'jpg' : 'png';
  const f = toRubyString(raw).trim().toLowerCase().replace(/^\./, '');
  if (f === 'png') return 'png';
  if (f === 'jpg' || f === 'jpeg') return 'jpg';
  throw new StepError('Bad request', `convert_to must be png or jpg, not ${JSON.stringify(f).slice(0, 40)}`);
}

export const transformImage: ActionDef = {
  title: 'Transform image file',
  required: [{ path: 'input_image', label: 'Input image' }],
  async run(input, sc) {
    const raw = pick(input, 'input_image', 'image', 'file_content', 'content');
    if (raw === null) throw new StepError('Bad request', 'input_image is required');
    const bytes = contentBytes(raw, hashGet(input, 'content_encoding') ?? 'base64', 'input_image');
    const maxBytes = Math.min(MAX_IMAGE_BYTES, sc.ctx.config.fileMaxBytes);
    if (bytes.length > maxBytes) throw new StepError('File too large', `the image is larger than ${maxBytes} bytes`);
    let header: { width?: number; height?: number; type?: string };
    try {
      header = imageSize(bytes);
    } catch {
      throw new StepError('Bad request', 'input_image is not an image (PNG, JPEG, GIF or BMP)');
    }
    const type = header.type ?? '';
    if (!READ_FORMATS.has(type))
      throw new StepError(
        'Bad request',
        `input_image is a ${type.toUpperCase()} image; PNG, JPEG, GIF and BMP are read`,
      );
    const w0 = header.width ?? 0;
    const h0 = header.height ?? 0;
    if (w0 < 1 || h0 < 1) throw new StepError('Bad request', 'input_image has no pixels');
    if (w0 * h0 > MAX_PIXELS)
      throw new StepError('Image too large', `the image is ${w0}x${h0} pixels; at most ${MAX_PIXELS} pixels are read`);

    const resizeRaw = hashGet(input, 'resize');
    const resize = isHash(resizeRaw) ? resizeRaw : input;
    const width = side(pick(resize, 'width') ?? pick(input, 'width'), 'width');
    const height = side(pick(resize, 'height') ?? pick(input, 'height'), 'height');
    const strictRaw = pick(resize, 'strict_resize') ?? pick(input, 'strict_resize');
    const strict = strictRaw === true || ['true', 'yes'].includes(toRubyString(strictRaw).trim().toLowerCase());
    const boxW = width ?? (height !== null ? Math.round((w0 * height) / h0) : w0);
    const boxH = height ?? (width !== null ? Math.round((h0 * width) / w0) : h0);
    if (boxW > MAX_SIDE || boxH > MAX_SIDE || boxW * boxH > MAX_PIXELS)
      throw new StepError(
        'Image too large',
        `the result would be ${boxW}x${boxH} pixels; at most ${MAX_PIXELS} pixels and ${MAX_SIDE} a side`,
      );
    const format = targetFormat(pick(input, 'convert_to', 'format'), type);

    const reply = await imageThreadsOf(sc).run({
      kind: 'transform',
      bytes: new Uint8Array(bytes),
      format,
      width,
      height,
      strict,
    });
    if (!reply.ok) throw new StepError('Image error', `the image could not be read: ${reply.message}`);
    const out = Buffer.from(reply.bytes);
    const name = toRubyString(pick(input, 'file_name') ?? 'image').replace(/\.[A-Za-z0-9]{1,5}$/, '');
    return newHash([
      ['transformed_image', out.toString('base64')],
      ['content_encoding', 'base64'],
      ['file_name', `${name || 'image'}.${format}`],
      ['mime_type', format === 'png' ? 'image/png' : 'image/jpeg'],
      ['width', reply.width],
      ['height', reply.height],
      ['size', out.length],
    ]);
  },
};
