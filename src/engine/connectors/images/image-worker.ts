// The image codec's thread (image-threads.ts): decoding, resizing, drawing charts and encoding run
// here, in pure JavaScript (Jimp), off the server's event loop and in a heap of its own with a
// bound. One image a thread: the thread ends with its answer.
import { parentPort, workerData } from 'node:worker_threads';
import { createJimp } from '@jimp/core';
import bmp from '@jimp/js-bmp';
import gif from '@jimp/js-gif';
import jpeg from '@jimp/js-jpeg';
import png from '@jimp/js-png';
import { methods as resizeMethods } from '@jimp/plugin-resize';
import { drawChart, type ChartJob } from './chart-draw.ts';

export type ImageJob = TransformJob | ({ kind: 'chart' } & { chart: ChartJob });

export interface TransformJob {
  kind: 'transform';
  bytes: Uint8Array;
  format: 'png' | 'jpg';
  width: number | null;
  height: number | null;
  strict: boolean;
}

export type ImageReply =
  { ok: true; bytes: Uint8Array; width: number; height: number } | { ok: false; message: string };

const Jimp = createJimp({ formats: [png, jpeg, gif, bmp], plugins: [resizeMethods] });
const WHITE = 0xffffffff;

/** What this file uses of a Jimp image (its generic types do not survive a resize). */
interface Img {
  bitmap: { width: number; height: number };
  resize(options: { w: number; h: number }): unknown;
  composite(source: Img, x: number, y: number): unknown;
  getBuffer(mime: 'image/png' | 'image/jpeg'): Promise<Buffer>;
}
const blank = (width: number, height: number) => new Jimp({ width, height, color: WHITE }) as unknown as Img;

async function transform(job: TransformJob): Promise<ImageReply> {
  let image = (await Jimp.fromBuffer(Buffer.from(job.bytes))) as unknown as Img;
  const { width: w0, height: h0 } = image.bitmap;
  const { width, height } = job;
  if (width !== null || height !== null) {
    // Fit within the box, keeping the aspect ratio: a missing side follows from the other.
    const boxW = width ?? Math.max(1, Math.round((w0 * (height as number)) / h0));
    const boxH = height ?? Math.max(1, Math.round((h0 * (width as number)) / w0));
    const scale = Math.min(boxW / w0, boxH / h0);
    const fitW = Math.max(1, Math.min(boxW, Math.round(w0 * scale)));
    const fitH = Math.max(1, Math.min(boxH, Math.round(h0 * scale)));
    if (fitW !== w0 || fitH !== h0) image = image.resize({ w: fitW, h: fitH }) as Img;
    if (job.strict && (fitW !== boxW || fitH !== boxH)) {
      // Strict: the exact box, the image centred on white.
      const canvas = blank(boxW, boxH);
      canvas.composite(image, Math.floor((boxW - fitW) / 2), Math.floor((boxH - fitH) / 2));
      image = canvas;
    }
  }
  if (job.format === 'jpg') {
    // JPEG has no alpha: transparent pixels become white, as on a page.
    const flat = blank(image.bitmap.width, image.bitmap.height);
    flat.composite(image, 0, 0);
    image = flat;
  }
  const out = await image.getBuffer(job.format === 'png' ? 'image/png' : 'image/jpeg');
  return { ok: true, bytes: out, width: image.bitmap.width, height: image.bitmap.height };
}

async function run(job: ImageJob): Promise<ImageReply> {
  if (job.kind === 'transform') return transform(job);
  return { ok: true, ...(await drawChart(job.chart)) };
}

run(workerData as ImageJob).then(
  (reply) => parentPort?.postMessage(reply),
  (error: unknown) =>
    parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
);
