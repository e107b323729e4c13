// Lookup tables under concurrent requests. The app's database yields to the event loop after
// every query (interleaveQueries), as a networked database would, so that concurrent requests
// really interleave between their statements: a write split over several statements, or a check
// made before its write, would show here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type Reply, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ interleaveQueries: true });
});
after(() => t.close());

let tableCounter = 0;
async function newTable(app: TestApp = t): Promise<{ id: number; name: string }> {
  tableCounter += 1;
  const res = await app.call('POST', '/api/lookup_tables', {
    body: {
      name: `concurrent_${tableCounter}`,
      schema: [{ label: 'code' }, { label: 'country' }, { label: 'currency' }],
    },
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const addRow = (tableId: number, data: Record<string, unknown>, app: TestApp = t): Promise<Reply> =>
  app.call('POST', `/api/lookup_tables/${tableId}/rows`, { body: { data } });

async function rowIds(tableId: number, app: TestApp = t): Promise<number[]> {
  const res = await app.call('GET', `/api/lookup_tables/${tableId}/rows?per_page=1000`);
  assert.equal(res.status, 200, res.text);
  return res.body.map((r: { id: number }) => r.id);
}

describe('POST /api/lookup_tables/:lookup_table_id/rows (concurrent)', () => {
  test('concurrent adds: each row is stored once, and each is found by the lookup that follows its reply', async () => {
    const table = await newTable();
    const ids = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const currency = i % 2 ? 'EUR' : 'USD';
        const added = await addRow(table.id, { code: `C${i}`, country: `Country ${i}`, currency });
        assert.equal(added.status, 200, added.text);
        const found = await t.call(
          'GET',
          `/api/lookup_tables/${table.id}/lookup?by[code]=C${i}&by[currency]=${currency}`,
        );
        assert.equal(found.status, 200, `C${i}: ${found.text}`);
        assert.deepEqual(found.body, added.body);
        return added.body.id as number;
      }),
    );
    assert.equal(new Set(ids).size, 60);
    assert.deepEqual(
      await rowIds(table.id),
      [...ids].sort((a, b) => a - b),
    );
  });

  test('adds racing the row limit: exactly the limit is stored, the rest are refused with a 400', async () => {
    const limited = await createTestApp({ env: { LOOKUP_TABLE_MAX_ROWS: '5' }, interleaveQueries: true });
    try {
      const table = await newTable(limited);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => addRow(table.id, { code: `v${i}` }, limited)),
      );
      assert.deepEqual(replies.map((r) => r.status).sort(), [...Array(5).fill(200), ...Array(15).fill(400)]);
      assert.equal((await rowIds(table.id, limited)).length, 5);
    } finally {
      await limited.close();
    }
  });
});

describe('PUT /api/lookup_tables/:lookup_table_id/rows/:row_id (concurrent)', () => {
  test('concurrent updates of one row: every reply and the final row hold one whole value, never a mix', async () => {
    const table = await newTable();
    const rowId = (await addRow(table.id, { code: 'start', country: 'start', currency: 'start' })).body.id;
    for (let round = 0; round < 3; round++) {
      const values = Array.from({ length: 40 }, (_, i) => `r${round}-v${i}`);
      const replies = await Promise.all(
        values.map((v, i) =>
          // Half by label and half by position, so that the two spellings race too.
          t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, {
            body: { data: i % 2 ? { code: v, country: v, currency: v } : { col1: v, col2: v, col3: v } },
          }),
        ),
      );
      for (const [i, reply] of replies.entries()) {
        assert.equal(reply.status, 200, reply.text);
        assert.deepEqual(reply.body.data, { code: values[i], country: values[i], currency: values[i] });
      }
      const final = (await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`)).body.data;
      assert.ok(values.includes(final.code), final.code);
      assert.deepEqual(final, { code: final.code, country: final.code, currency: final.code });
    }
  });

  test('an update racing a delete of the same row either lands whole before it or answers 404', async () => {
    const table = await newTable();
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push((await addRow(table.id, { code: `d${i}` })).body.id);
    const replies = await Promise.all(
      ids.flatMap((id) => [
        t.call('PUT', `/api/lookup_tables/${table.id}/rows/${id}`, {
          body: { data: { code: 'changed', country: 'changed' } },
        }),
        t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${id}`),
      ]),
    );
    for (let i = 0; i < replies.length; i += 2) {
      const [put, del] = [replies[i] as Reply, replies[i + 1] as Reply];
      assert.equal(del.status, 200, del.text);
      assert.ok(put.status === 200 || put.status === 404, put.text);
      if (put.status === 200) assert.deepEqual(put.body.data, { code: 'changed', country: 'changed', currency: null });
    }
    assert.deepEqual(await rowIds(table.id), []);
  });
});

describe('POST /api/lookup_tables (concurrent)', () => {
  test('creates racing for one name: exactly one wins, the others get 422', async () => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.call('POST', '/api/lookup_tables', { body: { name: 'raced', schema: [{ label: 'k' }] } }),
      ),
    );
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, ...Array(9).fill(422)]);
  });
});

describe('POST /api/lookup_tables/batch_delete (concurrent)', () => {
  test('overlapping batch deletes: one deletes all of its tables, the other is a 404 and deletes nothing', async () => {
    const [a, b, c] = [await newTable(), await newTable(), await newTable()];
    const [first, second] = await Promise.all([
      t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [a.id, b.id] } }),
      t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [b.id, c.id] } }),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [200, 404]);
    const survivor = first.status === 200 ? c : a;
    const gone = first.status === 200 ? [a, b] : [b, c];
    assert.equal((await t.call('GET', `/api/lookup_tables/${survivor.id}`)).status, 200);
    for (const table of gone) assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}`)).status, 404);
  });

  test('adds racing the delete of their table: each is a 200 before it or a 404, and no row survives the purge', async () => {
    const table = await newTable();
    const replies = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => addRow(table.id, { code: `r${i}` })),
      t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [table.id] } }),
      ...Array.from({ length: 20 }, (_, i) => addRow(table.id, { code: `s${i}` })),
    ]);
    assert.equal((replies[20] as Reply).status, 200);
    for (const reply of replies) assert.ok(reply.status === 200 || reply.status === 404, reply.text);
    const remaining = async () =>
      (await t.ctx.db.selectFrom('lookup_table_rows').select('id').where('table_id', '=', table.id).execute()).length;
    for (let attempt = 0; attempt < 200 && (await remaining()) > 0; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await remaining(), 0);
  });
});
