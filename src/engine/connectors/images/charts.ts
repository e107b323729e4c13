// Utilities' `column_chart` (Generate column chart) and `pie_chart` (Generate pie chart): a PNG drawn
// from a list, two columns of its items read as the labels and the values (the vendor's description:
// for a column chart the X column holds the independent value, the Y column the dependent one; for a
// pie chart a name and a value column). The vendor publishes no reference of the fields; the names
// here are ours (src/engine/README.md says which sources were read). The image is drawn in an image
// thread (image-threads.ts, chart-draw.ts); the output is a file as File tools give one.
import { StepError, type ActionDef } from '../types.ts';
import { hashGet, isHash, newHash, toRubyString, type Hash, type Value } from '../../../recipe/formula/values.ts';
import type { ChartJob } from './chart-draw.ts';
import { imageThreadsOf } from './image-threads.ts';

/** Items a chart draws: a column needs a few pixels, a slice a share worth seeing. */
const MAX_COLUMNS = 500;
const MAX_SLICES = 100;
const MIN_SIDE = 100;
const MAX_SIDE = 4000;
const MAX_TEXT = 500;

function textOf(input: Hash, field: string, ...aliases: string[]): string {
  for (const name of [field, ...aliases]) {
    const v = hashGet(input, name);
    if (v === null || v === undefined || v === '') continue;
    if (isHash(v) || Array.isArray(v)) throw new StepError('Bad request', `${field} must be text`);
    const s = toRubyString(v).trim();
    if (s.length > MAX_TEXT) throw new StepError('Bad request', `${field} is longer than ${MAX_TEXT} characters`);
    return s;
  }
  return '';
}

function sideOf(input: Hash, field: string, fallback: number): number {
  const v = hashGet(input, field);
  if (v === null || v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(toRubyString(v).trim());
  if (!Number.isInteger(n) || n < MIN_SIDE || n > MAX_SIDE)
    throw new StepError('Bad request', `${field} must be a whole number of pixels from ${MIN_SIDE} to ${MAX_SIDE}`);
  return n;
}

function numberOf(v: Value, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v.trim().replace(/,/g, ''));
    if (Number.isFinite(n)) return n;
  }
  throw new StepError('Bad request', `${where} must be a number (got ${JSON.stringify(v).slice(0, 40)})`);
}

/**
 * The items' labels and values: `list` (or `data`) is a list of objects; `labelField`'s and
 * `valueField`'s inputs name the keys read from each (defaults `label` and `value` for a
 * `____source` mapping that sets those keys).
 */
function series(
  input: Hash,
  fields: { label: string; value: string; labelKey: string; valueKey: string },
  max: number,
): { labels: string[]; values: number[] } {
  const raw = hashGet(input, 'list') ?? hashGet(input, 'data') ?? hashGet(input, 'items');
  if (raw === null || raw === undefined || raw === '') throw new StepError('Bad request', 'list is required');
  const list = Array.isArray(raw) ? raw : isHash(raw) ? [raw] : null;
  if (list === null) throw new StepError('Bad request', 'list must be a list of objects');
  if (list.length === 0) throw new StepError('Bad request', 'list is empty: there is nothing to draw');
  if (list.length > max)
    throw new StepError('Bad request', `list holds ${list.length} items; at most ${max} are drawn`);
  const labelKey = textOf(input, fields.label) || fields.labelKey;
  const valueKey = textOf(input, fields.value) || fields.valueKey;
  const labels: string[] = [];
  const values: number[] = [];
  list.forEach((item, i) => {
    if (!isHash(item)) throw new StepError('Bad request', `list[${i}] must be an object`);
    const label = hashGet(item, labelKey);
    if (isHash(label) || Array.isArray(label))
      throw new StepError('Bad request', `list[${i}].${labelKey} must be text`);
    labels.push(label === null || label === undefined ? '' : toRubyString(label).slice(0, MAX_TEXT));
    values.push(numberOf(hashGet(item, valueKey) ?? null, `list[${i}].${valueKey}`));
  });
  return { labels, values };
}

async function drawn(
  sc: Parameters<ActionDef['run']>[1],
  chart: ChartJob,
  input: Hash,
  fallbackName: string,
): Promise<Hash> {
  const reply = await imageThreadsOf(sc).run({ kind: 'chart', chart });
  if (!reply.ok) throw new StepError('Image error', `the chart could not be drawn: ${reply.message}`);
  const bytes = Buffer.from(reply.bytes);
  const name = (textOf(input, 'file_name') || fallbackName).replace(/\.png$/i, '');
  return newHash([
    ['file_name', `${name}.png`],
    ['file_content', bytes.toString('base64')],
    ['content_encoding', 'base64'],
    ['mime_type', 'image/png'],
    ['width', reply.width],
    ['height', reply.height],
    ['size', bytes.length],
  ]);
}

export const columnChart: ActionDef = {
  title: 'Generate column chart',
  required: [{ path: 'list', label: 'List' }],
  async run(input, sc) {
    const { labels, values } = series(
      input,
      { label: 'x_axis_field', value: 'y_axis_field', labelKey: 'x', valueKey: 'y' },
      MAX_COLUMNS,
    );
    const chart: ChartJob = {
      kind: 'column',
      width: sideOf(input, 'width', 500),
      height: sideOf(input, 'height', 500),
      title: textOf(input, 'chart_title', 'title'),
      xAxisTitle: textOf(input, 'x_axis_title'),
      yAxisTitle: textOf(input, 'y_axis_title'),
      labels,
      values,
    };
    return drawn(sc, chart, input, 'column_chart');
  },
};

export const pieChart: ActionDef = {
  title: 'Generate pie chart',
  required: [{ path: 'list', label: 'List' }],
  async run(input, sc) {
    const { labels, values } = series(
      input,
      { label: 'name_field', value: 'value_field', labelKey: 'name', valueKey: 'value' },
      MAX_SLICES,
    );
    const negative = values.findIndex((v) => v < 0);
    if (negative >= 0) throw new StepError('Bad request', `list[${negative}] has a negative value; a slice cannot`);
    if (values.every((v) => v === 0)) throw new StepError('Bad request', 'every value is 0: there is no share to draw');
    const chart: ChartJob = {
      kind: 'pie',
      width: sideOf(input, 'width', 500),
      height: sideOf(input, 'height', 300),
      title: textOf(input, 'chart_title', 'title'),
      xAxisTitle: '',
      yAxisTitle: '',
      labels,
      values,
    };
    return drawn(sc, chart, input, 'pie_chart');
  },
};
