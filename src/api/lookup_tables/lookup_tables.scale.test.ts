// Lookups on a table of tens of thousands of rows: the query plans (EXPLAIN QUERY PLAN) show an
// index search led by one given column and never a scan of the table; the answers are checked
// against the generated data. Also the row limit (a setting) and the purge of a deleted table.
// Timings belong to the benchmark (npm run bench -- lookup), not here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { onPostgres } from '../../../test/test-database.ts';
import { toStored } from '../../time.ts';
import {
  insertRows,
  markTablesDeleted,
  planFilters,
  probeQuery,
  rowsQuery,
  type CellFilter,
  type Cells,
} from './lookup_tables.store.ts';
import { purgeDeletedTables } from './lookup_tables.service.ts';

const ROWS = 30_000;
const EUR_EVERY = 3;

/** Row i of the generated table: a unique code, a common currency (EUR on every third row), a sparse region. */
function generated(i: number): { code: string; name: string; currency: string; region: string | null } {
  return {
    code: `K${i}`,
    name: `name ${i % 1000}`,
    currency: i % EUR_EVERY === 0 ? 'EUR' : `C${i % 40}`,
    region: i % 10 === 0 ? 'north' : null,
  };
}

let t: TestApp;
let tableId: number;
let firstRowId: number;

before(async () => {
  t = await createTestApp();
  const created = await t.call('POST', '/api/lookup_tables', {
    body: {
      name: 'big',
      schema: [{ label: 'code' }, { label: 'name' }, { label: 'currency' }, { label: 'region' }, { label: 'spare' }],
    },
  });
  assert.equal(created.status, 200, created.text);
  tableId = created.body.id;
  const rows: Cells[] = [];
  for (let i = 0; i < ROWS; i++) {
    const g = generated(i);
    rows.push({ col1: g.code, col2: g.name, col3: g.currency, col4: g.region });
  }
  await t.ctx.db.transaction().execute((trx) => insertRows(trx, tableId, 5, rows, toStored(new Date())));
  // PostgreSQL plans from statistics, which its autovacuum gathers in its own time.
  if (onPostgres) await sql`analyze lookup_table_rows`.execute(t.ctx.db);
  const first = await t.call('GET', `/api/lookup_tables/${tableId}/rows?per_page=1`);
  firstRowId = first.body[0].id;
});
after(() => t.close());

const idOf = (i: number) => firstRowId + i;

async function plan(query: { compile(): CompiledQuery }): Promise<string[]> {
  const compiled = query.compile();
  if (onPostgres) {
    const result = await t.ctx.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]),
    );
    return result.rows.map((r) => r['QUERY PLAN'].trim());
  }
  const result = await t.ctx.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
  );
  return result.rows.map((r) => r.detail);
}

/**
 * Every access to the rows table is an index search; nothing is scanned or sorted. PostgreSQL
 * names the index but not the columns it searches (the cell index holds md5(cell): dialect.ts).
 */
function assertIndexSearch(lines: string[], index: string, constraint: string): void {
  if (onPostgres) {
    assert.ok(
      lines.some((l) => new RegExp(`Index (Only )?Scan using ${index} on lookup_table_rows`).test(l)),
      `${index} in: ${lines.join(' | ')}`,
    );
    assert.ok(
      !lines.some((l) =>
        /Seq Scan on lookup_table_rows|Bitmap Heap Scan on lookup_table_rows|^(-> +)?(Incremental )?Sort/.test(l),
      ),
      lines.join(' | '),
    );
    return;
  }
  const onRows = lines.filter((l) => l.includes('lookup_table_rows'));
  assert.ok(onRows.length > 0, lines.join(' | '));
  for (const line of onRows)
    assert.match(line, /^SEARCH lookup_table_rows USING (COVERING )?INDEX /, lines.join(' | '));
  assert.ok(
    lines.some(
      (l) =>
        l.includes(`USING INDEX ${index} (${constraint})`) ||
        l.includes(`USING COVERING INDEX ${index} (${constraint})`),
    ),
    `${index} (${constraint}) in: ${lines.join(' | ')}`,
  );
  assert.ok(!lines.some((l) => /^SCAN lookup_table_rows|TEMP B-TREE/.test(l)), lines.join(' | '));
}

describe('lookup plans at scale', () => {
  test('a lookup or filter by any one column is an index search on (table_id, that column), in id order without a sort', async () => {
    for (let n = 1; n <= 5; n++) {
      const column = `col${n}` as CellFilter['column'];
      for (const value of ['some value', null]) {
        const lines = await plan(rowsQuery(t.ctx.db, tableId, [{ column, value }]).limit(1));
        assertIndexSearch(lines, `lookup_table_rows_col${n}`, `table_id=? AND col${n}=?`);
        const page = await plan(rowsQuery(t.ctx.db, tableId, [{ column, value }]).limit(500).offset(1000));
        assertIndexSearch(page, `lookup_table_rows_col${n}`, `table_id=? AND col${n}=?`);
      }
    }
  });

  test('with several columns the rarest value leads, and only its index is used', async () => {
    const common: CellFilter = { column: 'col3', value: 'EUR' };
    const rare: CellFilter = { column: 'col1', value: 'K29997' };
    const planned = await planFilters(t.ctx.db, tableId, [common, rare]);
    assert.deepEqual(planned, [rare, common]);
    assertIndexSearch(
      await plan(rowsQuery(t.ctx.db, tableId, planned as CellFilter[]).limit(1)),
      'lookup_table_rows_col1',
      'table_id=? AND col1=?',
    );
    // The other order leads with col3, proving the plan follows the order chosen.
    assertIndexSearch(
      await plan(rowsQuery(t.ctx.db, tableId, [common, rare]).limit(1)),
      'lookup_table_rows_col3',
      'table_id=? AND col3=?',
    );
    // The probe that counts each value's matches searches each column's own index.
    const probe = await plan(probeQuery(t.ctx.db, tableId, [common, rare, { column: 'col4', value: null }]));
    for (const n of [3, 1, 4]) assertIndexSearch(probe, `lookup_table_rows_col${n}`, `table_id=? AND col${n}=?`);
    // A value that matches nothing means no row can match: no query at all.
    assert.equal(await planFilters(t.ctx.db, tableId, [common, { column: 'col2', value: 'absent' }]), null);
  });

  test('listing without filters searches (table_id, id)', async () => {
    // PostgreSQL knows that every row of this database is of this table, and rightly walks the
    // primary key instead, filtering on table_id: still no scan and no sort.
    if (onPostgres) {
      const lines = await plan(rowsQuery(t.ctx.db, tableId, []).limit(500).offset(500));
      assert.ok(
        lines.some((l) => /Index Scan using lookup_table_rows_(table|pkey) on lookup_table_rows/.test(l)),
        lines.join(' | '),
      );
      assert.ok(!lines.some((l) => /Seq Scan|Sort/.test(l)), lines.join(' | '));
      return;
    }
    assertIndexSearch(
      await plan(rowsQuery(t.ctx.db, tableId, []).limit(500).offset(500)),
      'lookup_table_rows_table',
      'table_id=?',
    );
  });
});

describe('GET /api/lookup_tables/:lookup_table_id/lookup at scale', () => {
  test('finds rows by a unique column, a common one, two columns, and an empty cell', async () => {
    const last = await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[code]=K${ROWS - 1}`);
    assert.equal(last.status, 200);
    assert.equal(last.body.id, idOf(ROWS - 1));
    assert.deepEqual(last.body.data, { ...generated(ROWS - 1), spare: null });
    assert.equal((await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[currency]=EUR`)).body.id, idOf(0));
    assert.equal((await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[currency]=C1`)).body.id, idOf(1));
    const pair = await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[currency]=EUR&by[code]=K${ROWS - 3}`);
    assert.equal(pair.body.id, idOf(ROWS - 3));
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[currency]=EUR&by[code]=K${ROWS - 2}`)).status,
      404,
    );
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[region]=&by[name]=name%201`)).body.id,
      idOf(1),
    );
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[region]=&by[name]=name%200`)).status,
      404,
    );
    assert.equal((await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[spare]=`)).body.id, idOf(0));
  });

  test('filtered pages deep in a common value are the right rows', async () => {
    const res = await t.call(
      'GET',
      `/api/lookup_tables/${tableId}/rows?by[currency]=EUR&by[region]=north&per_page=100&page=3`,
    );
    assert.equal(res.status, 200);
    // EUR and north: i divisible by 3 and by 10, i.e. by 30; page 3 holds matches 200..299.
    assert.deepEqual(
      res.body.map((r: { id: number }) => r.id),
      Array.from({ length: 100 }, (_, k) => idOf((200 + k) * 30)),
    );
  });
});

describe('row limit (LOOKUP_TABLE_MAX_ROWS)', () => {
  test('a full table refuses rows with a 400 and stores nothing more; a delete frees a place; the limit is per table', async () => {
    const limited = await createTestApp({ env: { LOOKUP_TABLE_MAX_ROWS: '5' } });
    try {
      const table = (
        await limited.call('POST', '/api/lookup_tables', { body: { name: 'small', schema: [{ label: 'k' }] } })
      ).body;
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          limited.call('POST', `/api/lookup_tables/${table.id}/rows`, { body: { data: { k: `v${i}` } } }),
        ),
      );
      assert.equal(replies.filter((r) => r.status === 200).length, 5);
      const refused = replies.filter((r) => r.status !== 200);
      assert.equal(refused.length, 7);
      for (const r of refused) {
        assert.equal(r.status, 400);
        assert.match(r.body.message, /Lookup table is full.*5 rows/);
      }
      const rows = (await limited.call('GET', `/api/lookup_tables/${table.id}/rows`)).body;
      assert.equal(rows.length, 5);
      assert.equal((await limited.call('DELETE', `/api/lookup_tables/${table.id}/rows/${rows[0].id}`)).status, 200);
      assert.equal(
        (await limited.call('POST', `/api/lookup_tables/${table.id}/rows`, { body: { data: { k: 'again' } } })).status,
        200,
      );
      assert.equal(
        (await limited.call('POST', `/api/lookup_tables/${table.id}/rows`, { body: { data: { k: 'over' } } })).status,
        400,
      );
      // The limit is per table.
      const other = (
        await limited.call('POST', '/api/lookup_tables', { body: { name: 'other', schema: [{ label: 'k' }] } })
      ).body;
      assert.equal(
        (await limited.call('POST', `/api/lookup_tables/${other.id}/rows`, { body: { data: { k: 'x' } } })).status,
        200,
      );
    } finally {
      await limited.close();
    }
  });
});

describe('POST /api/lookup_tables/batch_delete of a large table', () => {
  test('the table is gone at once; its rows are purged in the background, chunk by chunk, while requests are served', async () => {
    const created = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'to_purge', schema: [{ label: 'k' }] },
    });
    const id = created.body.id;
    await t.ctx.db.transaction().execute((trx) =>
      insertRows(
        trx,
        id,
        1,
        Array.from({ length: 5000 }, (_, i) => ({ col1: `p${i}` })),
        toStored(new Date()),
      ),
    );
    const countRows = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('lookup_table_rows')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('table_id', '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await countRows(), 5000);
    const res = await t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [id] } });
    assert.equal(res.status, 200);
    assert.equal((await t.call('GET', `/api/lookup_tables/${id}`)).status, 404);
    // Requests are answered while the purge runs, and the name is free already.
    assert.equal((await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[code]=K5`)).status, 200);
    assert.equal(
      (await t.call('POST', '/api/lookup_tables', { body: { name: 'to_purge', schema: [{ label: 'k' }] } })).status,
      200,
    );
    const record = () => t.ctx.db.selectFrom('lookup_tables').select('id').where('id', '=', id).executeTakeFirst();
    // The purge runs in the background: wait (bounded) until the rows and then the record are gone.
    for (let attempt = 0; attempt < 500 && ((await countRows()) > 0 || (await record()) !== undefined); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await countRows(), 0);
    assert.equal(await record(), undefined, 'the table record is removed once its rows are gone');
  });
});

describe('purge of deleted tables after a restart', () => {
  test('purgeDeletedTables (run at every start) removes the rows and record of tables marked deleted', async () => {
    const created = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'cut_short', schema: [{ label: 'k' }] },
    });
    const id = created.body.id;
    await t.ctx.db.transaction().execute((trx) =>
      insertRows(
        trx,
        id,
        1,
        Array.from({ length: 1200 }, (_, i) => ({ col1: `c${i}` })),
        toStored(new Date()),
      ),
    );
    // As if the server stopped right after the batch delete committed: marked, not purged.
    await markTablesDeleted(t.ctx.db, [id], toStored(new Date()));
    assert.equal((await t.call('GET', `/api/lookup_tables/${id}`)).status, 404);
    await purgeDeletedTables(t.ctx);
    assert.deepEqual(
      await t.ctx.db.selectFrom('lookup_table_rows').select('id').where('table_id', '=', id).execute(),
      [],
    );
    assert.equal(
      await t.ctx.db.selectFrom('lookup_tables').select('id').where('id', '=', id).executeTakeFirst(),
      undefined,
    );
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${tableId}/lookup?by[code]=K1`)).status,
      200,
      'other tables untouched',
    );
  });
});
