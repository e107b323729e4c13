// Charts drawn in an image thread (image-worker.ts): a column chart (a title, the Y axis with its
// ticks and grid lines, a column a value, the X labels and the axis titles) and a pie chart (a
// slice a value from twelve o'clock clockwise, its share in it, a legend). Shapes are written into
// the bitmap directly; text is printed with the Open Sans bitmap fonts of Jimp's print plugin.
import { createJimp } from '@jimp/core';
import png from '@jimp/js-png';
import { measureText, methods as printMethods } from '@jimp/plugin-print';
import { SANS_12_BLACK, SANS_16_BLACK, SANS_16_WHITE } from '@jimp/plugin-print/fonts';
import { loadFont } from '@jimp/plugin-print/load-font';

export interface ChartJob {
  kind: 'column' | 'pie';
  width: number;
  height: number;
  title: string;
  xAxisTitle: string;
  yAxisTitle: string;
  labels: string[];
  values: number[];
}

type Font = Awaited<ReturnType<typeof loadFont>>;
interface Canvas {
  bitmap: { width: number; height: number; data: Buffer };
  print(options: { font: Font; x: number; y: number; text: string }): unknown;
  getBuffer(mime: 'image/png'): Promise<Buffer>;
}

const Jimp = createJimp({ formats: [png], plugins: [printMethods] });

const WHITE = 0xffffffff;
const GRID = 0xccccccff;
const AXIS = 0x333333ff;
const COLUMN = 0x3366ccff;
/** Slice colours, in turn. */
const PALETTE = [
  0x3366ccff, 0xdc3912ff, 0xff9900ff, 0x109618ff, 0x990099ff, 0x0099c6ff, 0xdd4477ff, 0x66aa00ff, 0xb82e2eff,
  0x316395ff,
];

function fillRect(c: Canvas, x: number, y: number, w: number, h: number, rgba: number): void {
  const { width, height, data } = c.bitmap;
  const x0 = Math.max(0, Math.round(x));
  const y0 = Math.max(0, Math.round(y));
  const x1 = Math.min(width, Math.round(x + w));
  const y1 = Math.min(height, Math.round(y + h));
  for (let py = y0; py < y1; py++)
    for (let px = x0; px < x1; px++) data.writeUInt32BE(rgba >>> 0, (py * width + px) * 4);
}

/** The text as the font can print it: characters it lacks become '?', cut with '…' to fit `max` pixels. */
function fit(font: Font, text: string, max: number): string {
  const known = [...text].map((ch) => (font.chars[ch] ? ch : '?')).join('');
  if (measureText(font, known) <= max) return known;
  let cut = known;
  while (cut.length > 0 && measureText(font, `${cut}...`) > max) cut = cut.slice(0, -1);
  return cut.length > 0 ? `${cut}...` : '';
}

function print(c: Canvas, font: Font, x: number, y: number, text: string, align: 'left' | 'center' | 'right' = 'left') {
  if (text === '') return;
  const w = measureText(font, text);
  const left = align === 'left' ? x : align === 'center' ? x - w / 2 : x - w;
  c.print({ font, x: Math.round(left), y: Math.round(y), text });
}

/** Tick values from 0 (or a negative minimum) to at least the maximum, about five steps of 1, 2 or 5 × 10^n. */
function ticks(min: number, max: number): number[] {
  const lo = Math.min(0, min);
  const hi = Math.max(0, max);
  const span = hi - lo || 1;
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const out: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if ((out.at(-1) ?? 0) < hi) out.push(Number(((out.at(-1) ?? 0) + step).toPrecision(12)));
  return out;
}

function label(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(6)));
}

async function fonts() {
  const [small, large, inverse] = await Promise.all([
    loadFont(SANS_12_BLACK),
    loadFont(SANS_16_BLACK),
    loadFont(SANS_16_WHITE),
  ]);
  return { small, large, inverse };
}

function columnChart(c: Canvas, job: ChartJob, f: Awaited<ReturnType<typeof fonts>>): void {
  const { width: W, height: H } = job;
  const scale = ticks(Math.min(...job.values), Math.max(...job.values));
  const tickLabels = scale.map(label);
  const left = 16 + Math.max(...tickLabels.map((t) => measureText(f.small, t)));
  const top = 56;
  const right = 24;
  const bottom = job.xAxisTitle === '' ? 40 : 64;
  const plotW = Math.max(1, W - left - right);
  const plotH = Math.max(1, H - top - bottom);
  const lo = scale[0] ?? 0;
  const hi = scale.at(-1) ?? 1;
  const y = (v: number) => top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;

  print(c, f.large, 12, 10, fit(f.large, job.title, W - 24));
  print(c, f.small, 12, 34, fit(f.small, job.yAxisTitle, W - 24));
  scale.forEach((v, i) => {
    fillRect(c, left, y(v), plotW, 1, v === 0 ? AXIS : GRID);
    print(c, f.small, left - 6, y(v) - 8, tickLabels[i] ?? '', 'right');
  });
  const band = plotW / job.values.length;
  const barW = Math.max(1, band * 0.4);
  job.values.forEach((v, i) => {
    const x = left + band * i + (band - barW) / 2;
    const from = y(Math.max(v, 0));
    const to = y(Math.min(v, 0));
    fillRect(c, x, from, barW, Math.max(1, to - from), COLUMN);
    print(c, f.small, left + band * (i + 0.5), top + plotH + 6, fit(f.small, job.labels[i] ?? '', band - 2), 'center');
  });
  print(c, f.small, left + plotW / 2, H - 26, fit(f.small, job.xAxisTitle, W - 24), 'center');
}

function pieChart(c: Canvas, job: ChartJob, f: Awaited<ReturnType<typeof fonts>>): void {
  const { width: W, height: H } = job;
  print(c, f.large, 12, 10, fit(f.large, job.title, W - 24));
  const top = 40;
  const r = Math.max(4, Math.floor(Math.min(H - top - 12, W * 0.55) / 2));
  const cx = 16 + r;
  const cy = top + r;
  const total = job.values.reduce((a, b) => a + b, 0);
  // Each slice's end angle, from twelve o'clock clockwise, in turns.
  const ends: number[] = [];
  let sum = 0;
  for (const v of job.values) {
    sum += v;
    ends.push(sum / total);
  }
  const { width, data } = c.bitmap;
  for (let py = Math.max(0, cy - r); py <= Math.min(H - 1, cy + r); py++) {
    for (let px = Math.max(0, cx - r); px <= Math.min(W - 1, cx + r); px++) {
      const dx = px - cx;
      const dy = py - cy;
      if (dx * dx + dy * dy > r * r) continue;
      const turn = (Math.atan2(dx, -dy) / (2 * Math.PI) + 1) % 1;
      let slice = ends.findIndex((end) => turn < end);
      if (slice < 0) slice = ends.length - 1;
      data.writeUInt32BE((PALETTE[slice % PALETTE.length] ?? COLUMN) >>> 0, (py * width + px) * 4);
    }
  }
  let start = 0;
  for (const v of job.values) {
    const share = v / total;
    if (share >= 0.05) {
      const mid = (start + share / 2) * 2 * Math.PI;
      const text = `${Number((share * 100).toFixed(1))}%`;
      print(c, f.inverse, cx + Math.sin(mid) * r * 0.62, cy - Math.cos(mid) * r * 0.62 - 9, text, 'center');
    }
    start += share;
  }
  // The legend: a square of the slice's colour and its label, as many as fit the height.
  const lx = cx + r + 24;
  const rows = Math.max(1, Math.floor((H - top) / 20));
  job.labels.slice(0, rows).forEach((name, i) => {
    const ly = top + i * 20;
    const more = i === rows - 1 && job.labels.length > rows;
    fillRect(c, lx, ly + 3, 10, 10, (PALETTE[i % PALETTE.length] ?? COLUMN) >>> 0);
    print(c, f.small, lx + 16, ly, more ? `+${job.labels.length - i} more` : fit(f.small, name, W - lx - 20));
  });
}

export async function drawChart(job: ChartJob): Promise<{ bytes: Buffer; width: number; height: number }> {
  const canvas = new Jimp({ width: job.width, height: job.height, color: WHITE }) as unknown as Canvas;
  const f = await fonts();
  if (job.kind === 'column') columnChart(canvas, job, f);
  else pieChart(canvas, job, f);
  return { bytes: await canvas.getBuffer('image/png'), width: job.width, height: job.height };
}
