// Migration 0009 on a database written before it: empty cells were stored as null and every
// column had a full index. After the upgrade the same rows answer the same way (empty cells are
// null in replies and found by `by[col]=`), and the lookups are index searches on the new
// partial indexes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { sqliteOnly } from '../../../test/test-database.ts';
import { dialectOf } from '../../db/dialect.ts';
import { up as partialIndexes } from '../../db/migrations/0009_lookup_rows_partial_indexes.ts';
import { rowsQuery } from './lookup_tables.store.ts';

let t: TestApp;
let narrow: { id: number };
let wide: { id: number };

before(async () => {
  t = await createTestApp();
  narrow = (
    await t.call('POST', '/api/lookup_tables', {
      body: { name: 'narrow', schema: [{ label: 'code' }, { label: 'note' }] },
    })
  ).body;
  wide = (
    await t.call('POST', '/api/lookup_tables', {
      body: { name: 'wide', schema: Array.from({ length: 10 }, (_, i) => ({ label: `c${i + 1}` })) },
    })
  ).body;
  // The database as it was before 0009: full indexes, null for every empty cell.
  const db = t.ctx.db;
  for (let n = 1; n <= 10; n++) {
    await db.schema.dropIndex(`lookup_table_rows_col${n}`).execute();
    await db.schema
      .createIndex(`lookup_table_rows_col${n}`)
      .on('lookup_table_rows')
      .columns(['table_id', `col${n}`])
      .execute();
  }
  const now = new Date().toISOString();
  const empty = {
    col1: null,
    col2: null,
    col3: null,
    col4: null,
    col5: null,
    col6: null,
    col7: null,
    col8: null,
    col9: null,
    col10: null,
  };
  await db
    .insertInto('lookup_table_rows')
    .values([
      { ...empty, table_id: narrow.id, col1: 'A', col2: 'first', created_at: now, updated_at: now },
      { ...empty, table_id: narrow.id, col1: 'B', created_at: now, updated_at: now },
      { ...empty, table_id: wide.id, col1: 'W', col10: 'last', created_at: now, updated_at: now },
    ])
    .execute();
  await db.updateTable('lookup_tables').set({ row_count: 2 }).where('id', '=', narrow.id).execute();
  await db.updateTable('lookup_tables').set({ row_count: 1 }).where('id', '=', wide.id).execute();
  await db.transaction().execute((trx) => partialIndexes(trx as unknown as Kysely<unknown>, dialectOf(db)));
});
after(() => t.close());

describe('lookup rows written before migration 0009', () => {
  test('empty cells are still null in replies and found by an empty by[col]', async () => {
    const rows = (await t.call('GET', `/api/lookup_tables/${narrow.id}/rows`)).body;
    assert.deepEqual(
      rows.map((r: { data: unknown }) => r.data),
      [
        { code: 'A', note: 'first' },
        { code: 'B', note: null },
      ],
    );
    const found = await t.call('GET', `/api/lookup_tables/${narrow.id}/lookup?by[note]=`);
    assert.equal(found.status, 200);
    assert.deepEqual(found.body.data, { code: 'B', note: null });
    const wideRow = await t.call('GET', `/api/lookup_tables/${wide.id}/lookup?by[c9]=&by[c10]=last`);
    assert.equal(wideRow.status, 200);
    assert.deepEqual(wideRow.body.data, {
      c1: 'W',
      c2: null,
      c3: null,
      c4: null,
      c5: null,
      c6: null,
      c7: null,
      c8: null,
      c9: null,
      c10: 'last',
    });
  });

  test('rows added, changed and looked up after the upgrade mix with the old ones', async () => {
    const added = await t.call('POST', `/api/lookup_tables/${narrow.id}/rows`, { body: { data: { code: 'C' } } });
    assert.equal(added.status, 200);
    const empties = await t.call('GET', `/api/lookup_tables/${narrow.id}/rows?by[note]=`);
    assert.deepEqual(
      empties.body.map((r: { data: { code: string } }) => r.data.code),
      ['B', 'C'],
    );
    const first = (await t.call('GET', `/api/lookup_tables/${narrow.id}/lookup?by[code]=A`)).body;
    await t.call('PUT', `/api/lookup_tables/${narrow.id}/rows/${first.id}`, { body: { data: { note: null } } });
    assert.deepEqual(
      (await t.call('GET', `/api/lookup_tables/${narrow.id}/rows?by[note]=`)).body.map(
        (r: { data: { code: string } }) => r.data.code,
      ),
      ['A', 'B', 'C'],
    );
  });

  test(
    'a lookup by a value or by an empty cell is a search of the new partial index',
    {
      skip: sqliteOnly(
        "reads SQLite's schema table and EXPLAIN QUERY PLAN; the PostgreSQL plans are checked in lookup_tables.scale.test.ts",
      ),
    },
    async () => {
      const indexes = await sql<{
        sql: string;
      }>`select sql from sqlite_master where type = 'index' and name = 'lookup_table_rows_col2'`.execute(t.ctx.db);
      assert.match(indexes.rows[0]?.sql ?? '', /where "col2" is not null/i);
      for (const value of ['first', null]) {
        const compiled = rowsQuery(t.ctx.db, narrow.id, [{ column: 'col2', value }])
          .limit(1)
          .compile();
        const plan = (
          await t.ctx.db.executeQuery<{ detail: string }>(
            CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
          )
        ).rows.map((r) => r.detail);
        assert.ok(
          plan.some((line) => line.includes('USING INDEX lookup_table_rows_col2 (table_id=? AND col2=?)')),
          plan.join(' | '),
        );
      }
    },
  );
});
