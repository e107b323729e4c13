// Unit tests of the inference functions on tricky samples; the HTTP behaviour is in sdk.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../errors.ts';
import {
  csvColumnNames,
  inferCsvSchema,
  inferJsonSchema,
  isDateTime,
  labelFor,
  MAX_SAMPLE_DEPTH,
  parseJsonSample,
  resolveColumnSeparator,
} from './schema-inference.ts';

const json = (text: string) => inferJsonSchema(parseJsonSample(text));
const text = (name: string, label: string) => ({ control_type: 'text', label, type: 'string', name });
const num = (name: string, label: string) => ({
  control_type: 'number',
  label,
  parse_output: 'float_conversion',
  type: 'number',
  name,
});

function rejects(fn: () => unknown, code: string): AppError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    return error;
  }
  assert.fail(`expected ${code}`);
}

describe('labelFor', () => {
  test('the contract examples', () => {
    assert.equal(labelFor('created_at'), 'Created at');
    assert.equal(labelFor('addedAt'), 'Added at');
    assert.equal(labelFor('SendStatements'), 'Send statements');
    assert.equal(labelFor('has_accepted_invite'), 'Has accepted invite');
    assert.equal(labelFor('org_id'), 'Org ID');
    assert.equal(labelFor('profile_url'), 'Profile URL');
    assert.equal(labelFor('id'), 'ID');
    assert.equal(labelFor('t1_f1'), 'T 1 f 1');
  });

  test('separators, acronyms and unicode', () => {
    assert.equal(labelFor('Full name'), 'Full name');
    assert.equal(labelFor('first-name  last'), 'First name last');
    assert.equal(labelFor('userID'), 'User ID');
    assert.equal(labelFor('HTTPServer'), 'Http server');
    assert.equal(labelFor('URL'), 'URL');
    assert.equal(labelFor('idea'), 'Idea', 'id only as a whole word');
    assert.equal(labelFor('ÉtéPlage'), 'Été plage');
    assert.equal(labelFor('名前'), '名前');
    assert.equal(labelFor('😀_count'), '😀 count');
    assert.equal(labelFor(''), '');
    assert.equal(labelFor('___'), '___', 'a name without words keeps its text');
  });
});

describe('isDateTime', () => {
  test('full ISO 8601 date-times, with or without seconds, fraction and offset', () => {
    for (const value of [
      '2024-05-01T10:00:00Z',
      '2024-05-01T10:00:00.123456+05:30',
      '2024-05-01T10:00:00',
      '2024-05-01T10:00',
      '2024-02-29T23:59:59-0800',
      '2024-05-01t10:00:00z',
    ]) {
      assert.equal(isDateTime(value), true, value);
    }
  });

  test('dates alone, impossible dates and other text stay strings', () => {
    for (const value of [
      '2024-05-01',
      '2023-02-29T10:00:00Z',
      '2024-13-01T10:00:00Z',
      '2024-04-31T10:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T10:61:00Z',
      '2024-05-01T10:00:00+25:00',
      '2024-05-01 10:00:00',
      ' 2024-05-01T10:00:00Z',
      'yesterday',
      '',
    ]) {
      assert.equal(isDateTime(value), false, value);
    }
  });
});

describe('inferJsonSchema', () => {
  test('the contract example (04 §3.6), key order included', () => {
    const out = json(
      JSON.stringify({
        order_id: 981,
        placedAt: '2025-03-01T09:30:00Z',
        paid: true,
        customer: { name: 'Ana', profile_url: 'https://x.example' },
        lines: [{ sku: 'A-1', qty: 2 }],
        tags: ['new'],
      }),
    );
    assert.deepEqual(out, [
      num('order_id', 'Order ID'),
      {
        control_type: 'text',
        label: 'Placed at',
        render_input: 'date_time_conversion',
        parse_output: 'date_time_conversion',
        type: 'date_time',
        name: 'placedAt',
      },
      {
        control_type: 'checkbox',
        label: 'Paid',
        render_input: 'boolean_conversion',
        parse_output: 'boolean_conversion',
        toggle_hint: 'Select from option list',
        toggle_field: {
          control_type: 'text',
          label: 'Paid',
          toggle_hint: 'Use custom value',
          type: 'boolean',
          name: 'paid',
        },
        type: 'boolean',
        name: 'paid',
      },
      {
        label: 'Customer',
        type: 'object',
        name: 'customer',
        properties: [text('name', 'Name'), text('profile_url', 'Profile URL')],
      },
      {
        label: 'Lines',
        type: 'array',
        of: 'object',
        name: 'lines',
        properties: [text('sku', 'Sku'), num('qty', 'Qty')],
      },
      { control_type: 'text', label: 'Tags', type: 'array', of: 'string', name: 'tags' },
    ]);
    assert.deepEqual(Object.keys(out[1]!), ['control_type', 'label', 'render_input', 'parse_output', 'type', 'name']);
  });

  test('integers and decimals are both number; null is a string; a date alone is a string', () => {
    assert.deepEqual(json('{"a": 1, "b": -2.5e3, "c": null, "d": "2024-05-01"}'), [
      num('a', 'A'),
      num('b', 'B'),
      text('c', 'C'),
      text('d', 'D'),
    ]);
  });

  test('empty arrays, arrays of nulls, of numbers, of booleans, of date-times, of arrays', () => {
    const out = json(
      '{"none": [], "nulls": [null, null], "n": [1, 2.5], "flags": [true, false], "at": ["2024-05-01T10:00:00Z"], "grid": [[1], [2]]}',
    );
    assert.deepEqual(out, [
      { label: 'None', type: 'array', of: 'string', name: 'none' },
      { label: 'Nulls', type: 'array', of: 'string', name: 'nulls' },
      { control_type: 'text', label: 'N', type: 'array', of: 'number', name: 'n' },
      { control_type: 'text', label: 'Flags', type: 'array', of: 'boolean', name: 'flags' },
      { control_type: 'text', label: 'At', type: 'array', of: 'date_time', name: 'at' },
      { label: 'Grid', type: 'array', of: 'array', name: 'grid' },
    ]);
  });

  test('mixed types in an array become strings; nulls yield to the other type', () => {
    const out = json(
      '{"mixed": [1, "a"], "with_null": [null, 3], "dates_and_text": ["2024-05-01T10:00:00Z", "soon"], "objects_and_numbers": [{"a": 1}, 2]}',
    );
    assert.deepEqual(out, [
      { control_type: 'text', label: 'Mixed', type: 'array', of: 'string', name: 'mixed' },
      { control_type: 'text', label: 'With null', type: 'array', of: 'number', name: 'with_null' },
      { control_type: 'text', label: 'Dates and text', type: 'array', of: 'string', name: 'dates_and_text' },
      { control_type: 'text', label: 'Objects and numbers', type: 'array', of: 'string', name: 'objects_and_numbers' },
    ]);
  });

  test('array elements merge: union of keys in first-appearance order, conflicts become strings, objects merge deeply', () => {
    const out = json(
      JSON.stringify({
        items: [
          { id: 1, meta: { a: 1 }, note: null, when: '2024-05-01T10:00:00Z' },
          { id: 'x-2', meta: { b: true }, note: 'hi', extra: [] },
          { meta: { a: 2, c: { d: 'e' } }, extra: [{ k: 1 }], when: '2024-06-01T10:00:00Z' },
        ],
      }),
    );
    assert.deepEqual(out, [
      {
        label: 'Items',
        type: 'array',
        of: 'object',
        name: 'items',
        properties: [
          text('id', 'ID'),
          {
            label: 'Meta',
            type: 'object',
            name: 'meta',
            properties: [
              num('a', 'A'),
              {
                control_type: 'checkbox',
                label: 'B',
                render_input: 'boolean_conversion',
                parse_output: 'boolean_conversion',
                toggle_hint: 'Select from option list',
                toggle_field: {
                  control_type: 'text',
                  label: 'B',
                  toggle_hint: 'Use custom value',
                  type: 'boolean',
                  name: 'b',
                },
                type: 'boolean',
                name: 'b',
              },
              { label: 'C', type: 'object', name: 'c', properties: [text('d', 'D')] },
            ],
          },
          text('note', 'Note'),
          {
            control_type: 'text',
            label: 'When',
            render_input: 'date_time_conversion',
            parse_output: 'date_time_conversion',
            type: 'date_time',
            name: 'when',
          },
          { label: 'Extra', type: 'array', of: 'object', name: 'extra', properties: [num('k', 'K')] },
        ],
      },
    ]);
  });

  test('an object under one key and a list under the same key elsewhere is a string', () => {
    assert.deepEqual(json('[{"v": {"a": 1}}, {"v": [1]}]'), [text('v', 'V')]);
  });

  test('top-level arrays: union of the objects; empty gives no fields; nulls are skipped', () => {
    assert.deepEqual(json('[{"a": 1}, null, {"b": "x"}]'), [num('a', 'A'), text('b', 'B')]);
    assert.deepEqual(json('[]'), []);
    assert.deepEqual(json('{}'), []);
  });

  test('unicode and odd keys are kept exactly', () => {
    const out = json(
      '{"名前": "x", "Ünïcödé Kéy": 1, "": "empty", "a.b": true, "__proto__": {"polluted": 1}, "constructor": 2}',
    );
    assert.deepEqual(
      out.map((f) => [f.name, f.label, f.type]),
      [
        ['名前', '名前', 'string'],
        ['Ünïcödé Kéy', 'Ünïcödé kéy', 'number'],
        ['', '', 'string'],
        ['a.b', 'A.b', 'boolean'],
        ['__proto__', 'Proto', 'object'],
        ['constructor', 'Constructor', 'number'],
      ],
    );
    assert.deepEqual(out[4]!.properties, [num('polluted', 'Polluted')]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('deep nesting up to the limit is inferred; deeper is refused', () => {
    const nest = (levels: number) => '{"a":'.repeat(levels - 1) + '{"leaf": 1}' + '}'.repeat(levels - 1);
    let field = json(nest(MAX_SAMPLE_DEPTH))[0];
    let depth = 1;
    while (field?.type === 'object') {
      field = field.properties?.[0];
      depth += 1;
    }
    assert.equal(depth, MAX_SAMPLE_DEPTH);
    assert.deepEqual(field, num('leaf', 'Leaf'));
    rejects(() => json(nest(MAX_SAMPLE_DEPTH + 1)), 'sample_too_deep');
    rejects(() => json('['.repeat(200_000) + ']'.repeat(200_000)), 'sample_too_deep');
  });

  test('an already parsed object or array is used as it is; a BOM is ignored', () => {
    assert.deepEqual(inferJsonSchema(parseJsonSample({ a: 1 })), [num('a', 'A')]);
    assert.deepEqual(inferJsonSchema(parseJsonSample([{ a: 'x' }])), [text('a', 'A')]);
    assert.deepEqual(json('\uFEFF{"a": "x"}'), [text('a', 'A')]);
  });

  test('invalid JSON and top-level primitives are refused with the field named', () => {
    for (const bad of ['', '{', '{"a": 1,}', "{'a': 1}", 'undefined', '{"a": 1} trailing']) {
      const error = rejects(() => json(bad), 'sample_not_json');
      assert.ok(error.errors?.sample?.[0], bad);
    }
    for (const primitive of ['1', '"text"', 'true', 'null', '[1, 2]', '["a", {"b": 1}]', '[[{"a": 1}]]']) {
      assert.ok(rejects(() => json(primitive), 'sample_not_object').errors?.sample, primitive);
    }
    assert.deepEqual(json('[null]'), [], 'a top-level array of nulls holds no fields, like an empty one');
  });
});

describe('resolveColumnSeparator', () => {
  test('the six names, a literal single character, a custom separator, and the default', () => {
    assert.equal(resolveColumnSeparator({}), ',');
    assert.equal(resolveColumnSeparator({ col_sep: null, custom_col_sep: null }), ',');
    const names = { comma: ',', semicolon: ';', space: ' ', tab: '\t', colon: ':', pipe: '|' };
    for (const [name, char] of Object.entries(names)) assert.equal(resolveColumnSeparator({ col_sep: name }), char);
    assert.equal(resolveColumnSeparator({ col_sep: 'Semicolon' }), ';');
    assert.equal(resolveColumnSeparator({ col_sep: ',' }), ',');
    assert.equal(resolveColumnSeparator({ col_sep: '#' }), '#');
    assert.equal(resolveColumnSeparator({ custom_col_sep: '||' }), '||');
    assert.equal(resolveColumnSeparator({ col_sep: 'tab', custom_col_sep: '||' }), '\t', 'col_sep wins');
  });

  test('unknown names and unusable separators are refused', () => {
    assert.ok(rejects(() => resolveColumnSeparator({ col_sep: 'semi' }), 'validation_failed').errors?.col_sep);
    assert.ok(rejects(() => resolveColumnSeparator({ col_sep: '"' }), 'validation_failed').errors?.col_sep);
    assert.ok(
      rejects(() => resolveColumnSeparator({ custom_col_sep: 'a"b' }), 'validation_failed').errors?.custom_col_sep,
    );
    assert.ok(
      rejects(() => resolveColumnSeparator({ custom_col_sep: '\n' }), 'validation_failed').errors?.custom_col_sep,
    );
    assert.ok(
      rejects(() => resolveColumnSeparator({ custom_col_sep: '-'.repeat(17) }), 'validation_failed').errors
        ?.custom_col_sep,
    );
  });
});

describe('inferCsvSchema', () => {
  const names = (sample: string, separator = ',') => inferCsvSchema(sample, separator).map((f) => f.name);

  test('the contract example: every column is a string field named by its trimmed header', () => {
    assert.deepEqual(inferCsvSchema('id;Full name;amount\n1;Ana;3.5', ';'), [
      text('id', 'ID'),
      text('Full name', 'Full name'),
      text('amount', 'Amount'),
    ]);
  });

  test('quoted headers may hold separators, doubled quotes and line breaks', () => {
    assert.deepEqual(names('"a,b","say ""hi""","two\nlines"\n1,2,3'), ['a,b', 'say "hi"', 'two\nlines']);
  });

  test('a header-only CSV, CRLF endings, a BOM and leading blank lines', () => {
    assert.deepEqual(names('id,name'), ['id', 'name']);
    assert.deepEqual(names('id,name\r\n1,a\r\n'), ['id', 'name']);
    assert.deepEqual(names('\uFEFFid,name\n1,a'), ['id', 'name']);
    assert.deepEqual(names('\n\nid,name\n'), ['id', 'name']);
  });

  test('empty and duplicate headers get distinct names', () => {
    assert.deepEqual(names(' id ,,name,id, ,id_2,id'), ['id', 'column_2', 'name', 'id_3', 'column_5', 'id_2', 'id_4']);
    assert.deepEqual(csvColumnNames(['a', 'a', 'a_2']), ['a', 'a_3', 'a_2']);
  });

  test('other separators, including several characters and spaces', () => {
    assert.deepEqual(names('a\tb c\td', '\t'), ['a', 'b c', 'd']);
    assert.deepEqual(names('a||b|c', '||'), ['a', 'b|c']);
    assert.deepEqual(names('first last', ' '), ['first', 'last']);
    assert.deepEqual(names('a,b;c', ';'), ['a,b', 'c']);
  });

  test('rows with more or fewer cells than the header do not matter', () => {
    assert.deepEqual(names('a,b\n1,2,3\n4'), ['a', 'b']);
  });

  test('unicode headers keep their text', () => {
    assert.deepEqual(inferCsvSchema('名前,Prénom Nom', ','), [text('名前', '名前'), text('Prénom Nom', 'Prénom nom')]);
  });

  test('malformed quoting anywhere, and a sample without a header, are refused', () => {
    for (const bad of ['"abc', 'a,b\n"x,y', '"a"x,b', 'a,b"c']) {
      const error = rejects(() => inferCsvSchema(bad, ','), 'sample_not_csv');
      assert.ok(error.errors?.sample?.[0], bad);
    }
    for (const empty of ['', '\r\n\r\n', ' \n1', ' , \n1,2'])
      assert.deepEqual(rejects(() => inferCsvSchema(empty, ','), 'sample_not_csv').errors, {
        sample: ['has no header row'],
      });
  });
});

describe('csvColumnNames on a long repeated header', () => {
  test('200,000 copies of one name get distinct names in order', { timeout: 60_000 }, () => {
    const names = csvColumnNames(Array(200_000).fill('a'));
    assert.equal(names.length, 200_000);
    assert.equal(new Set(names).size, 200_000);
    assert.deepEqual(names.slice(0, 3), ['a', 'a_2', 'a_3']);
    assert.equal(names[199_999], 'a_200000');
    assert.deepEqual(csvColumnNames(['a', 'a_2', 'a', 'a', 'a_2']), ['a', 'a_2', 'a_3', 'a_4', 'a_2_2']);
  });
});
