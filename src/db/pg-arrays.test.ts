// pgArray: array parameters as PostgreSQL reads them. The literal's shape is checked everywhere;
// against a real PostgreSQL (TEST_DATABASE_URL), every value comes back from `$1::text[]` and
// `$1::bigint[]` exactly as node-postgres's own conversion of the array brings it back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pgArray } from './pg-arrays.ts';
import { postgresOnly, TEST_DATABASE_URL } from '../../test/test-database.ts';

const TEXTS = [
  'plain',
  '',
  'NULL',
  'null',
  '{"input":{"tier":"gold","ids":[1,2]},"quote":"say \\"hi\\""}',
  'back\\slash and \\\\ two',
  'comma, {braces} and spaces ',
  'é 日本 🎉 emoji pair',
  'tab\there',
  'line\nbreak',
  'lone \ud800 surrogate',
  `long ${'x'.repeat(300)} with "quotes", a \\ and a\nline break`,
  `long ${'y'.repeat(300)} plain`,
];

describe('pgArray', () => {
  it('writes texts, numbers and nulls as one literal', () => {
    assert.equal(pgArray(['a"b', null, 'c\\d', 'NULL']), '{"a\\"b",null,"c\\\\d","NULL"}');
    assert.equal(pgArray([1, -2, 30_000_000_000, null]), '{1,-2,30000000000,null}');
    assert.equal(pgArray([]), '{}');
  });

  it('escapes a text that JSON escapes its own way, and a long text, as node-postgres does', () => {
    assert.equal(pgArray(['a\nb "q"', 'ok']), '{"a\nb \\"q\\"","ok"}');
    const long = `${'x'.repeat(300)}"\\`;
    assert.equal(pgArray([long, null, 2]), `{"${'x'.repeat(300)}\\"\\\\",NULL,2}`);
  });

  it('leaves to node-postgres an array of anything else', () => {
    for (const odd of [[Number.NaN], [Infinity], [true], [[1]], [{}], [undefined], ['a', 1n]]) {
      assert.equal(pgArray(odd), odd, String(odd));
    }
  });
});

describe('pgArray against PostgreSQL', { skip: postgresOnly('array literals read by the server') }, () => {
  let client: pg.Client;
  before(async () => {
    client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
  });
  after(async () => {
    await client.end();
  });

  const readBack = async (cast: string, value: unknown) =>
    (await client.query<{ v: unknown }>(`select $1::${cast} as v`, [value])).rows[0]!.v;

  it('brings every text back as node-postgres does, one array at a time and all together', async () => {
    for (const text of [...TEXTS, null]) {
      const values = [text, 'after'];
      assert.deepEqual(await readBack('text[]', pgArray(values)), await readBack('text[]', values), String(text));
    }
    const written = [...TEXTS.slice(0, 8), null];
    assert.equal(typeof pgArray(written), 'string', 'written as a literal');
    assert.deepEqual(await readBack('text[]', pgArray(written)), written);
    const all = [...TEXTS, null];
    assert.equal(typeof pgArray(all), 'string', 'the long and escaped texts too');
    assert.deepEqual(await readBack('text[]', pgArray(all)), await readBack('text[]', all));
  });

  it('brings numbers and nulls back', async () => {
    const ids = [1, null, 9_007_199_254_740_991, -5];
    assert.deepEqual(await readBack('bigint[]', pgArray(ids)), ['1', null, '9007199254740991', '-5']);
    assert.deepEqual(await readBack('int[]', pgArray([3, null, 0])), [3, null, 0]);
  });
});
