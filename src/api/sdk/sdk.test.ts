import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { MAX_SAMPLE_BYTES } from './schema-inference.ts';
import { SAMPLE_BODY_LIMIT_BYTES } from './sdk.routes.ts';

let t: TestApp;
let noSdkToken: string;
before(async () => {
  t = await createTestApp();
  noSdkToken = await t.tokenWith('No SDK CLI', [
    'workspace_details:read',
    'connector_sdks:read',
    'connector_sdks:write',
  ]);
});
after(() => t.close());

const JSON_URL = '/api/sdk/generate_schema/json';
const CSV_URL = '/api/sdk/generate_schema/csv';

describe('POST /api/sdk/generate_schema/json', () => {
  test('the contract example: a bare array of fields, in the vendor key order', async () => {
    const sample = JSON.stringify({
      order_id: 981,
      placedAt: '2025-03-01T09:30:00Z',
      paid: true,
      customer: { name: 'Ana', profile_url: 'https://x.example' },
      lines: [{ sku: 'A-1', qty: 2 }],
      tags: ['new'],
    });
    const res = await t.call('POST', JSON_URL, { body: { sample } });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(
      res.body.map((f: { name: string; type: string }) => [f.name, f.type]),
      [
        ['order_id', 'number'],
        ['placedAt', 'date_time'],
        ['paid', 'boolean'],
        ['customer', 'object'],
        ['lines', 'array'],
        ['tags', 'array'],
      ],
    );
    assert.ok(
      res.text.startsWith(
        '[{"control_type":"number","label":"Order ID","parse_output":"float_conversion","type":"number","name":"order_id"},',
      ),
      res.text.slice(0, 120),
    );
    assert.deepEqual(res.body[3], {
      label: 'Customer',
      type: 'object',
      name: 'customer',
      properties: [
        { control_type: 'text', label: 'Name', type: 'string', name: 'name' },
        { control_type: 'text', label: 'Profile URL', type: 'string', name: 'profile_url' },
      ],
    });
    assert.deepEqual(res.body[2].toggle_field, {
      control_type: 'text',
      label: 'Paid',
      toggle_hint: 'Use custom value',
      type: 'boolean',
      name: 'paid',
    });
    assert.deepEqual(
      res.body[4].properties.map((f: { name: string }) => f.name),
      ['sku', 'qty'],
    );
    assert.equal(res.body[5].of, 'string');
  });

  test('a top-level array merges its objects; mixed types become strings', async () => {
    const res = await t.call('POST', JSON_URL, { body: { sample: '[{"id": 1, "v": 2}, {"id": "A-7", "w": null}]' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, [
      { control_type: 'text', label: 'ID', type: 'string', name: 'id' },
      { control_type: 'number', label: 'V', parse_output: 'float_conversion', type: 'number', name: 'v' },
      { control_type: 'text', label: 'W', type: 'string', name: 'w' },
    ]);
  });

  test('leniency: a sample sent as an object or array is used as the document', async () => {
    const empty = await t.call('POST', JSON_URL, { body: { sample: {} } });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, []);
    const object = await t.call('POST', JSON_URL, { body: { sample: { n: 1.5 } } });
    assert.deepEqual(object.body, [
      { control_type: 'number', label: 'N', parse_output: 'float_conversion', type: 'number', name: 'n' },
    ]);
    const array = await t.call('POST', JSON_URL, { body: { sample: [{ ok: 'yes' }] } });
    assert.deepEqual(array.body, [{ control_type: 'text', label: 'Ok', type: 'string', name: 'ok' }]);
  });

  test('a read-only role may generate schemas (it changes nothing: sdk_cli:read)', async () => {
    const readOnly = await t.tokenFor('Read only');
    const res = await t.call('POST', JSON_URL, { token: readOnly, body: { sample: '{"a": 1}' } });
    assert.equal(res.status, 200);
    assert.equal(res.body[0].name, 'a');
  });

  test('400: missing, null, invalid, primitive and wrongly typed samples', async () => {
    for (const body of [{}, { sample: null }]) {
      const res = await t.call('POST', JSON_URL, { body });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { message: 'sample is required', errors: { sample: ['is required'] } });
    }
    const invalid = await t.call('POST', JSON_URL, { body: { sample: '{"a": 1,' } });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.message, 'Sample is not valid JSON');
    assert.equal(typeof invalid.body.errors.sample[0], 'string');
    for (const sample of ['42', '"text"', 'null', '[1, 2]']) {
      const res = await t.call('POST', JSON_URL, { body: { sample } });
      assert.equal(res.status, 400, sample);
      assert.equal(res.body.message, 'Sample must be a JSON object or array');
    }
    for (const sample of [42, true]) {
      const res = await t.call('POST', JSON_URL, { body: { sample } });
      assert.equal(res.status, 400);
      assert.ok(res.body.errors.sample, res.text);
    }
    const deep = await t.call('POST', JSON_URL, { body: { sample: '['.repeat(101) + ']'.repeat(101) } });
    assert.equal(deep.status, 400);
    assert.equal(deep.body.message, 'Sample is nested too deeply');
    // Sent already parsed, a very deep sample must not reach anything recursive (a 500 before).
    const deepObject = await t.call('POST', JSON_URL, {
      raw: `{"sample": ${'{"a":'.repeat(300_000)}1${'}'.repeat(300_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(deepObject.status, 400);
    assert.equal(deepObject.body.message, 'The JSON body nests objects and arrays more than 128 levels deep');
  });

  test('413: a sample over 10 MB (counted in UTF-8 bytes); a larger body than the route takes', async () => {
    const multibyte = JSON.stringify({ text: 'é'.repeat(MAX_SAMPLE_BYTES / 2) });
    assert.ok(multibyte.length < MAX_SAMPLE_BYTES, 'fewer characters than the limit, more bytes');
    const res = await t.call('POST', JSON_URL, { body: { sample: multibyte } });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, { message: 'Sample too large', errors: { sample: ['is over 10 MB'] } });
    const objectSample = await t.call('POST', JSON_URL, { body: { sample: { text: 'x'.repeat(MAX_SAMPLE_BYTES) } } });
    assert.equal(objectSample.status, 413);
    const body = await t.call('POST', JSON_URL, {
      raw: JSON.stringify({ sample: 'x'.repeat(SAMPLE_BODY_LIMIT_BYTES) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(body.status, 413);
    assert.deepEqual(body.body, { message: 'Request body is too large' });
  });

  test('a sample just under 10 MB is inferred although the body is over BODY_LIMIT_BYTES', async () => {
    const big = JSON.stringify({ id: 1, blob: 'x'.repeat(MAX_SAMPLE_BYTES - 40) });
    assert.ok(Buffer.byteLength(big) <= MAX_SAMPLE_BYTES);
    const res = await t.call('POST', JSON_URL, { body: { sample: big } });
    assert.equal(res.status, 200, res.text.slice(0, 200));
    assert.deepEqual(
      res.body.map((f: { name: string }) => f.name),
      ['id', 'blob'],
    );
  });

  test('malformed body, wrong Content-Type, wrong method', async () => {
    const malformed = await t.call('POST', JSON_URL, {
      raw: '{"sample": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
    const form = await t.call('POST', JSON_URL, {
      raw: 'sample=%7B%7D',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    const text = await t.call('POST', JSON_URL, { raw: '{"a": 1}', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 415);
    assert.equal((await t.call('GET', JSON_URL)).status, 404);
  });

  test('401 without a token; 403 for a role without sdk_cli', async () => {
    const anonymous = await t.call('POST', JSON_URL, { token: null, body: { sample: '{}' } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { message: 'Unauthorized' });
    const forbidden = await t.call('POST', JSON_URL, { token: noSdkToken, body: { sample: '{}' } });
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.body.message, /sdk_cli:read/);
  });
});

describe('POST /api/sdk/generate_schema/csv', () => {
  const names = (res: { body: Array<{ name: string }> }) => res.body.map((f) => f.name);

  test('the contract example: every column a string field, with a named separator', async () => {
    const res = await t.call('POST', CSV_URL, {
      body: { sample: 'id;Full name;amount\n1;Ana;3.5', col_sep: 'semicolon' },
    });
    assert.equal(res.status, 200);
    assert.equal(
      res.text,
      '[{"control_type":"text","label":"ID","type":"string","name":"id"},{"control_type":"text","label":"Full name","type":"string","name":"Full name"},{"control_type":"text","label":"Amount","type":"string","name":"amount"}]',
    );
  });

  test('separators: default comma, each name, a literal character, custom_col_sep, null as absent', async () => {
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a,b;c' } })), ['a', 'b;c']);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a,b;c', col_sep: null } })), ['a', 'b;c']);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a\tb c', col_sep: 'tab' } })), [
      'a',
      'b c',
    ]);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a b:c', col_sep: 'space' } })), [
      'a',
      'b:c',
    ]);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a:b|c', col_sep: 'colon' } })), [
      'a',
      'b|c',
    ]);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a|b,c', col_sep: 'pipe' } })), [
      'a',
      'b,c',
    ]);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a;b,c', col_sep: ';' } })), ['a', 'b,c']);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'a~~b,c', custom_col_sep: '~~' } })), [
      'a',
      'b,c',
    ]);
    assert.deepEqual(
      names(await t.call('POST', CSV_URL, { body: { sample: 'a~~b,c', col_sep: 'comma', custom_col_sep: '~~' } })),
      ['a~~b', 'c'],
    );
  });

  test('quoted headers with separators, quotes and line breaks; BOM; header only; empty and duplicate headers', async () => {
    const quoted = await t.call('POST', CSV_URL, {
      body: { sample: '"Ship, to","say ""hi""","line\none"\r\n1,2,3\r\n' },
    });
    assert.equal(quoted.status, 200);
    assert.deepEqual(names(quoted), ['Ship, to', 'say "hi"', 'line\none']);
    assert.equal(quoted.body[0].label, 'Ship, to');
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: '\uFEFFid,name' } })), ['id', 'name']);
    assert.deepEqual(names(await t.call('POST', CSV_URL, { body: { sample: 'email,,email' } })), [
      'email',
      'column_2',
      'email_2',
    ]);
  });

  test('400: invalid CSV, no header, unknown separators, missing or wrongly typed sample', async () => {
    const unclosed = await t.call('POST', CSV_URL, { body: { sample: 'a,b\n"1,2' } });
    assert.equal(unclosed.status, 400);
    assert.equal(unclosed.body.message, 'Sample is not valid CSV');
    assert.match(unclosed.body.errors.sample[0], /quote/i);
    const empty = await t.call('POST', CSV_URL, { body: { sample: '' } });
    assert.deepEqual(empty.body, { message: 'Sample is not valid CSV', errors: { sample: ['has no header row'] } });
    const unknown = await t.call('POST', CSV_URL, { body: { sample: 'a,b', col_sep: 'semi-colon' } });
    assert.equal(unknown.status, 400);
    assert.ok(unknown.body.errors.col_sep);
    const quote = await t.call('POST', CSV_URL, { body: { sample: 'a,b', custom_col_sep: '"' } });
    assert.equal(quote.status, 400);
    assert.ok(quote.body.errors.custom_col_sep);
    const missing = await t.call('POST', CSV_URL, { body: { col_sep: 'comma' } });
    assert.deepEqual(missing.body, { message: 'sample is required', errors: { sample: ['is required'] } });
    for (const body of [
      { sample: { a: 1 } },
      { sample: 7 },
      { sample: 'a,b', col_sep: 1 },
      { sample: 'a,b', custom_col_sep: ['|'] },
    ]) {
      const res = await t.call('POST', CSV_URL, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof res.body.message, 'string');
      assert.ok(res.body.errors, res.text);
    }
  });

  test('a 10 MB sample is read; one byte more is 413', async () => {
    const header = 'id,name\n';
    const row = '1,Ana\n';
    const filler = row.repeat(Math.floor((MAX_SAMPLE_BYTES - header.length) / row.length));
    const exact = header + filler + 'x'.repeat(MAX_SAMPLE_BYTES - header.length - filler.length);
    assert.equal(Buffer.byteLength(exact), MAX_SAMPLE_BYTES);
    const ok = await t.call('POST', CSV_URL, { body: { sample: exact } });
    assert.equal(ok.status, 200);
    assert.deepEqual(names(ok), ['id', 'name']);
    const over = await t.call('POST', CSV_URL, { body: { sample: `${exact}x` } });
    assert.equal(over.status, 413);
    assert.equal(over.body.message, 'Sample too large');
  });

  test('401 without a token; 403 for a role without sdk_cli; 415 for a non-JSON body', async () => {
    assert.equal((await t.call('POST', CSV_URL, { token: null, body: { sample: 'a' } })).status, 401);
    assert.equal((await t.call('POST', CSV_URL, { token: noSdkToken, body: { sample: 'a' } })).status, 403);
    assert.equal(
      (await t.call('POST', CSV_URL, { raw: 'a,b\n1,2', headers: { 'content-type': 'text/csv' } })).status,
      415,
    );
  });
});

describe('POST /api/sdk/generate_schema/json|csv: hostile samples', () => {
  // Samples shaped to make a careless inference quadratic: they must stay fast and bounded.
  const distinctKeys = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ [`k${i}`]: 1 })));

  test(
    'an array of 100,000 objects with distinct keys (2 MB) is refused as too many fields; 10,000 fields are fine',
    { timeout: 60_000 },
    async () => {
      const res = await t.call('POST', JSON_URL, { body: { sample: distinctKeys(100_000) } });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        message: 'Sample has too many fields',
        errors: { sample: ['has more than 10000 fields'] },
      });
      const most = await t.call('POST', JSON_URL, { body: { sample: distinctKeys(10_000) } });
      assert.equal(most.status, 200);
      assert.equal(most.body.length, 10_000);
      assert.equal(most.body[9_999].name, 'k9999');
      const nested = await t.call('POST', JSON_URL, {
        body: { sample: JSON.stringify({ a: Array.from({ length: 10_000 }, (_, i) => ({ [`k${i}`]: 1 })) }) },
      });
      assert.equal(nested.status, 400, 'fields are counted over every level');
    },
  );

  test(
    'a CSV header of 12,000 repeated names is refused as too many columns; 10,000 get distinct names',
    { timeout: 60_000 },
    async () => {
      const res = await t.call('POST', CSV_URL, { body: { sample: `${Array(12_000).fill('a').join(',')}\n1\n` } });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        message: 'Sample has too many fields',
        errors: { sample: ['has more than 10000 columns'] },
      });
      const most = await t.call('POST', CSV_URL, { body: { sample: `${Array(10_000).fill('a').join(',')}\n` } });
      assert.equal(most.status, 200);
      assert.equal(new Set(most.body.map((f: { name: string }) => f.name)).size, 10_000);
      assert.equal(most.body[9_999].name, 'a_10000');
    },
  );

  test('other requests are answered while a large sample is analysed', { timeout: 60_000 }, async () => {
    // Two million header cells: seconds of parsing, which on the server's own thread would leave
    // every other request waiting until it ends.
    const sample = `${Array(2_000_000).fill('a').join(',')}\n`;
    // A route's schemas compile at its first request (src/http/validation.ts): that one-time cost
    // is not what this test measures, so the route asked below is answered once first.
    assert.equal((await t.call('GET', '/api/users/me')).status, 200);
    let done = false;
    const heavy = t.call('POST', CSV_URL, { body: { sample } }).finally(() => {
      done = true;
    });
    const gaps: number[] = [];
    let last = performance.now();
    while (!done) {
      // Between calls the loop lets timers and I/O run, as requests from other clients would.
      await new Promise((resolve) => setTimeout(resolve, 2));
      assert.equal((await t.call('GET', '/api/users/me')).status, 200);
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }
    const res = await heavy;
    assert.equal(res.status, 400);
    // Refused either way: for its fields, or, on a machine too busy to count them within the
    // time limit (10 s; more CPU goes to the database server on PostgreSQL), as too complex.
    assert.ok(['Sample has too many fields', 'Sample is too complex to analyse'].includes(res.body.message), res.text);
    assert.ok(gaps.length >= 10, `only ${gaps.length} other requests were answered while the sample was analysed`);
    // Generous: a request here takes a few milliseconds; a stalled event loop, whole seconds.
    assert.ok(Math.max(...gaps) < 500, `another request waited ${Math.max(...gaps).toFixed(0)} ms`);
  });
});
