// The package reader's thread (reader.ts): files are read one at a time in a heap of its own; a
// file that does not fit it ends the thread, not the server, and fails the package naming it; a
// table's rows come back a batch at a time, as they are stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeZip } from '../../../test/helpers.ts';
import { PackageFailure } from './export.ts';
import { openPackageReader } from './reader.ts';

const LIMITS = { maxEntries: 100, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 };

function table(rows: number): string {
  const data = Array.from({ length: rows }, (_, i) => `{"col1":"SKU-${i}","col2":"Item ${i}","col3":${i % 97}}`);
  return `{"name":"Prices","schema":[{"label":"sku"},{"label":"title"},{"label":"price"}],"data":[${data.join(',')}]}`;
}

describe('the package reader', () => {
  test("a file that does not fit the reader's heap fails the package naming it; the server's process goes on", async () => {
    const zip = await makeZip({
      'a.recipe.json': JSON.stringify({ name: 'A', code: { keyword: 'trigger', block: [] } }),
      'prices.lookup_table.json': table(400_000),
    });
    const reader = await openPackageReader(zip, LIMITS, 24);
    try {
      await assert.rejects(reader.entries(), (error: unknown) => {
        assert.ok(error instanceof PackageFailure, String(error));
        assert.equal(
          error.message,
          "prices.lookup_table.json: too large to read within the import's 24 MiB; nothing was imported",
        );
        return true;
      });
      // The reader is done; asking again says so rather than hanging.
      await assert.rejects(reader.entries(), PackageFailure);
    } finally {
      await reader.close();
    }
  });

  test('entries keep a recipe code as text and test cases as stored; rows come back 200 at a time, as cells', async () => {
    const code = {
      number: 0,
      keyword: 'trigger',
      provider: 'workato_webhooks',
      name: 'new_event',
      as: 'hook',
      input: {},
      block: [{ number: 1, keyword: 'action', provider: 'logger', name: 'log_message', as: 'say', input: {} }],
    };
    const zip = await makeZip({
      'flows/a.recipe.json': JSON.stringify({
        name: 'A',
        code,
        test_cases: [{ name: 'Says', trigger_output: { n: 1 }, expectations: [{ step: 'say', ran: true }] }],
      }),
      'prices.lookup_table.json': table(450),
    });
    const reader = await openPackageReader(zip, LIMITS);
    try {
      const { entries } = await reader.entries();
      const recipe = entries.find((e) => e.type === 'recipe')!;
      assert.equal(recipe.dir, 'flows');
      assert.equal(typeof recipe.body.code, 'string');
      assert.deepEqual(JSON.parse(recipe.body.code as string), code);
      assert.equal(recipe.body.test_cases, undefined);
      assert.deepEqual(
        recipe.testCases?.map((c) => ({ ...c, body: JSON.parse(c.body) })),
        [
          {
            name: 'Says',
            description: '',
            body: {
              trigger_output: { n: 1 },
              mocks: [],
              expectations: [{ step: 'say', ran: true }],
              allow_external: false,
            },
          },
        ],
      );
      const prices = entries.find((e) => e.type === 'lookup_table')!;
      assert.deepEqual(prices.data, { rows: 450 });
      assert.equal(prices.body.data, undefined);
      const batches = [];
      for await (const batch of reader.lookupRows('prices.lookup_table.json', 2)) batches.push(batch);
      assert.deepEqual(
        batches.map((b) => b.length),
        [200, 200, 50],
      );
      assert.deepEqual(batches[2]!.at(-1), { col1: 'SKU-449', col2: 'Item 449' });
    } finally {
      await reader.close();
    }
  });
});
