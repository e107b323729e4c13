// Utilities' column_chart and pie_chart through recipe runs: a PNG of the asked size that changes
// with the data, the titles and the labels (and only with them: the same input draws the same
// bytes), usable by a later step as a file; bad input as the step's error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { imageSize } from 'image-size';
import { createTestApp, type TestApp } from '../../../../test/helpers.ts';
import { action, fire, pill, webhookRecipe } from '../../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const rows = pill('workato_webhooks', 'hook', 'payload', 'rows');
const SALES = [
  { type: 'a', qty: 1 },
  { type: 'b', qty: 2 },
  { type: 'c', qty: 3 },
];

async function chart(name: 'column_chart' | 'pie_chart', input: Record<string, unknown>, payload: unknown) {
  const { path } = await webhookRecipe(t, [action('utility', name, 'chart', input)]);
  return fire(t, path, payload);
}

async function png(name: 'column_chart' | 'pie_chart', input: Record<string, unknown>, payload: unknown) {
  const job = await chart(name, input, payload);
  assert.equal(job.status, 'succeeded', job.error ?? '');
  const out = job.output(1) as Record<string, unknown>;
  const bytes = Buffer.from(out.file_content as string, 'base64');
  const header = imageSize(bytes);
  assert.equal(header.type, 'png');
  assert.deepEqual([header.width, header.height], [out.width, out.height], 'the output says the size drawn');
  assert.equal(out.size, bytes.length);
  assert.equal(out.mime_type, 'image/png');
  assert.equal(out.content_encoding, 'base64');
  return { out, bytes: bytes.toString('base64') };
}

const column = {
  list: rows,
  x_axis_field: 'type',
  y_axis_field: 'qty',
  chart_title: 'Sales',
  x_axis_title: 'Type',
  y_axis_title: 'Quantity',
};

describe('utility column_chart', () => {
  test('draws a 500x500 PNG (or the size asked) that changes with the values, the labels and the titles', async () => {
    const { out, bytes } = await png('column_chart', column, { rows: SALES });
    assert.deepEqual([out.width, out.height, out.file_name], [500, 500, 'column_chart.png']);

    const again = await png('column_chart', column, { rows: SALES });
    assert.equal(again.bytes, bytes, 'the same data draws the same image');
    const values = await png('column_chart', column, { rows: [...SALES.slice(0, 2), { type: 'c', qty: 30 }] });
    assert.notEqual(values.bytes, bytes, 'another value draws another column');
    const labels = await png('column_chart', column, { rows: SALES.map((r) => ({ ...r, type: `${r.type}x` })) });
    assert.notEqual(labels.bytes, bytes, 'the X labels are drawn');
    const untitled = await png(
      'column_chart',
      { ...column, chart_title: '', x_axis_title: '', y_axis_title: '' },
      { rows: SALES },
    );
    assert.notEqual(untitled.bytes, bytes, 'the titles are drawn');

    const sized = await png('column_chart', { ...column, width: '800', height: 300, file_name: 'q3' }, { rows: SALES });
    assert.deepEqual([sized.out.width, sized.out.height, sized.out.file_name], [800, 300, 'q3.png']);
  });

  test('reads `x` and `y` by default, numbers given as text, negative values below the axis', async () => {
    const { out } = await png(
      'column_chart',
      { list: rows },
      {
        rows: [
          { x: 'Jan', y: '1,200' },
          { x: 'Feb', y: -40.5 },
        ],
      },
    );
    assert.equal(out.width, 500);
  });

  test('its file is usable by a later step: transform_image reads it', async () => {
    const { path } = await webhookRecipe(t, [
      action('utility', 'column_chart', 'chart', column),
      action('file_connector', 'transform_image', 'img', {
        input_image: pill('utility', 'chart', 'file_content'),
        convert_to: 'jpg',
        resize: { width: 250 },
      }),
    ]);
    const job = await fire(t, path, { rows: SALES });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const img = job.output(2) as Record<string, unknown>;
    assert.deepEqual([img.mime_type, img.width, img.height], ['image/jpeg', 250, 250]);
  });

  test('bad input fails the step with a clear error', async () => {
    const cases: Array<[Record<string, unknown>, unknown, string]> = [
      [{ list: rows }, {}, 'Bad request: list is required'],
      [{ list: rows }, { rows: [] }, 'Bad request: list is empty: there is nothing to draw'],
      [{ list: rows }, { rows: 'a,b' }, 'Bad request: list must be a list of objects'],
      [{ list: rows }, { rows: [1, 2] }, 'Bad request: list[0] must be an object'],
      [column, { rows: [{ type: 'a', qty: 'many' }] }, 'Bad request: list[0].qty must be a number (got "many")'],
      [column, { rows: [{ type: 'a' }] }, 'Bad request: list[0].qty must be a number (got null)'],
      [column, { rows: [{ type: { x: 1 }, qty: 1 }] }, 'Bad request: list[0].type must be text'],
      [
        { ...column, width: 50 },
        { rows: SALES },
        'Bad request: width must be a whole number of pixels from 100 to 4000',
      ],
      [
        { ...column, height: '9000' },
        { rows: SALES },
        'Bad request: height must be a whole number of pixels from 100 to 4000',
      ],
      [
        { ...column, chart_title: 'x'.repeat(501) },
        { rows: SALES },
        'Bad request: chart_title is longer than 500 characters',
      ],
      [
        column,
        { rows: Array.from({ length: 501 }, (_, i) => ({ type: String(i), qty: i })) },
        'Bad request: list holds 501 items; at most 500 are drawn',
      ],
    ];
    for (const [input, payload, error] of cases) {
      const job = await chart('column_chart', input, payload);
      assert.equal(job.status, 'failed', error);
      assert.equal(job.error, error);
    }
  });
});

describe('utility pie_chart', () => {
  const pie = { list: rows, name_field: 'type', value_field: 'qty', chart_title: 'Type share' };

  test('draws a 500x300 PNG whose slices change with the values and whose legend changes with the names', async () => {
    const { out, bytes } = await png('pie_chart', pie, { rows: SALES });
    assert.deepEqual([out.width, out.height, out.file_name], [500, 300, 'pie_chart.png']);
    assert.equal((await png('pie_chart', pie, { rows: SALES })).bytes, bytes);
    const shares = await png('pie_chart', pie, { rows: SALES.map((r, i) => ({ ...r, qty: i === 0 ? 10 : r.qty })) });
    assert.notEqual(shares.bytes, bytes, 'another share draws another slice');
    const names = await png('pie_chart', pie, { rows: SALES.map((r) => ({ ...r, type: r.type.toUpperCase() })) });
    assert.notEqual(names.bytes, bytes, 'the legend is drawn');
    const byDefault = await png('pie_chart', { list: rows }, { rows: [{ name: 'only', value: 1 }] });
    assert.equal(byDefault.out.height, 300);
  });

  test('bad input fails the step with a clear error', async () => {
    const cases: Array<[Record<string, unknown>, unknown, string]> = [
      [
        pie,
        {
          rows: [
            { type: 'a', qty: -1 },
            { type: 'b', qty: 2 },
          ],
        },
        'Bad request: list[0] has a negative value; a slice cannot',
      ],
      [pie, { rows: [{ type: 'a', qty: 0 }] }, 'Bad request: every value is 0: there is no share to draw'],
      [pie, { rows: [{ type: 'a', qty: true }] }, 'Bad request: list[0].qty must be a number (got true)'],
      [
        pie,
        { rows: Array.from({ length: 101 }, (_, i) => ({ type: String(i), qty: 1 })) },
        'Bad request: list holds 101 items; at most 100 are drawn',
      ],
    ];
    for (const [input, payload, error] of cases) {
      const job = await chart('pie_chart', input, payload);
      assert.equal(job.status, 'failed', error);
      assert.equal(job.error, error);
    }
  });
});
