import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { COUNTRY_SCHEMA, lookupTables } from '../../../test/lookup-tables.ts';

let t: TestApp;
let readerToken: string;
let noLookupToken: string;

before(async () => {
  t = await createTestApp();
  readerToken = await t.tokenWith('Lookup reader', ['lookup_tables:read']);
  noLookupToken = await t.tokenWith('No lookups', ['workspace_details:read']);
});
after(() => t.close());

const { newTable, addRow, addRows, allRows, tableNames, allTableCount } = lookupTables(() => t);

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('GET /api/lookup_tables/:lookup_table_id/rows', () => {
  let table: { id: number };
  let ids: number[];
  before(async () => {
    table = await newTable();
    ids = await addRows(table.id, [
      { code: 'CZ', country: 'Czechia', currency: 'CZK' },
      { code: 'DE', country: 'Germany', currency: 'EUR' },
      { code: 'FR', country: 'France', currency: 'EUR' },
      { code: 'fr', country: 'France (lower)', currency: 'EUR' },
      { code: 'XX', country: 'Nowhere' },
      { code: 'DE', country: 'Germany (again)', currency: 'EUR' },
    ]);
  });

  test('all rows in id order, as a bare array', async () => {
    const res = await t.call('GET', `/api/lookup_tables/${table.id}/rows`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((r: { id: number }) => r.id),
      ids,
    );
    assert.deepEqual(res.body[4].data, { code: 'XX', country: 'Nowhere', currency: null });
  });

  test('by[column] filters: exact and case-sensitive, AND across columns, by label or position; "" matches empty cells', async () => {
    const query = async (q: string) =>
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows?${q}`)).body.map((r: { id: number }) => r.id);
    assert.deepEqual(await query('by[currency]=EUR'), [ids[1], ids[2], ids[3], ids[5]]);
    assert.deepEqual(await query('by[code]=FR'), [ids[2]]);
    assert.deepEqual(await query('by[code]=DE&by[currency]=EUR'), [ids[1], ids[5]]);
    assert.deepEqual(await query('by[col1]=DE&by[country]=Germany'), [ids[1]]);
    assert.deepEqual(await query('by%5Bcountry%5D=France+%28lower%29'), [ids[3]]);
    assert.deepEqual(await query('by[currency]='), [ids[4]]);
    assert.deepEqual(await query('by[code]=DE&by[currency]=CZK'), []);
    assert.deepEqual(await query('by[code]=ZZ'), []);
    assert.deepEqual(await query('by[currency]=EUR&unrelated=1'), [ids[1], ids[2], ids[3], ids[5]]);
  });

  test('pages: per_page default 500, at most 1000; a page past the end is empty', async () => {
    assert.deepEqual(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows?per_page=2&page=2`)).body.map(
        (r: { id: number }) => r.id,
      ),
      [ids[2], ids[3]],
    );
    assert.deepEqual(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows?by[currency]=EUR&per_page=3&page=2`)).body.map(
        (r: { id: number }) => r.id,
      ),
      [ids[5]],
    );
    assert.deepEqual((await t.call('GET', `/api/lookup_tables/${table.id}/rows?page=5`)).body, []);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows?per_page=5000&page=x`)).body.length,
      ids.length,
    );
  });

  test('400 for an unknown column (named), a repeated filter, a bare `by`, or the same column twice', async () => {
    const unknown = await t.call('GET', `/api/lookup_tables/${table.id}/rows?by[colour]=red&by[code]=CZ`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.message, 'Unknown column: by[colour]');
    assert.match(unknown.body.errors['by[colour]'][0], /not a column/);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows?by[col4]=x`)).status, 400);
    const twice = await t.call('GET', `/api/lookup_tables/${table.id}/rows?by[code]=CZ&by[code]=DE`);
    assert.equal(twice.status, 400);
    assert.ok(twice.body.errors['by[code]']);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows?by=CZ`)).status, 400);
    const same = await t.call('GET', `/api/lookup_tables/${table.id}/rows?by[code]=CZ&by[col1]=CZ`);
    assert.equal(same.status, 400);
    assert.ok(same.body.errors['by[col1]']);
  });

  test('404 unknown or foreign table; 400 non-numeric id; 401; 403; the read privilege is enough', async () => {
    assert.equal((await t.call('GET', '/api/lookup_tables/999999/rows')).status, 404);
    const other = await t.newWorkspace('Reader Co');
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: other.adminToken })).status, 404);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: await t.tokenFor('Admin', 'prod') })).status,
      404,
    );
    assert.equal((await t.call('GET', '/api/lookup_tables/1.5/rows')).status, 400);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: noLookupToken })).status, 403);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows`, { token: readerToken })).body.length,
      ids.length,
    );
  });
});

describe('GET /api/lookup_tables/:lookup_table_id/lookup', () => {
  let table: { id: number };
  let ids: number[];
  before(async () => {
    table = await newTable();
    ids = await addRows(table.id, [
      { code: 'CZ', country: 'Czechia', currency: 'CZK' },
      { code: 'DE', country: 'Germany', currency: 'EUR' },
      { code: 'AT', country: 'Austria', currency: 'EUR' },
      { code: 'DE', country: 'Germany (duplicate)', currency: 'EUR' },
    ]);
  });

  test('the first matching row (lowest id), by one column or several', async () => {
    const byCode = await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`);
    assert.equal(byCode.status, 200);
    assert.deepEqual(byCode.body.data, { code: 'CZ', country: 'Czechia', currency: 'CZK' });
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[currency]=EUR`)).body.id, ids[1]);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=DE`)).body.id, ids[1]);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[currency]=EUR&by[code]=AT`)).body.id,
      ids[2],
    );
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[country]=Germany+(duplicate)&by[col1]=DE`)).body
        .id,
      ids[3],
    );
  });

  test('404 when nothing matches (also for a value of another case)', async () => {
    for (const q of ['by[code]=PL', 'by[code]=cz', 'by[code]=CZ&by[currency]=EUR', 'by[country]=']) {
      const res = await t.call('GET', `/api/lookup_tables/${table.id}/lookup?${q}`);
      assert.equal(res.status, 404, q);
      assert.equal(typeof res.body.message, 'string');
    }
  });

  test('400 without any by[...], or with an unknown column', async () => {
    const none = await t.call('GET', `/api/lookup_tables/${table.id}/lookup`);
    assert.equal(none.status, 400);
    assert.ok(none.body.errors.by);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?page=1`)).status, 400);
    const unknown = await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[iso]=CZ`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.message, 'Unknown column: by[iso]');
  });

  test('404 unknown or foreign table; 400 non-numeric id; 401; 403', async () => {
    assert.equal((await t.call('GET', '/api/lookup_tables/999999/lookup?by[code]=CZ')).status, 404);
    const other = await t.newWorkspace('Lookup Co');
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`, { token: other.adminToken })).status,
      404,
    );
    assert.equal((await t.call('GET', '/api/lookup_tables/x/lookup?by[code]=CZ')).status, 400);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`, { token: null })).status,
      401,
    );
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`, { token: noLookupToken })).status,
      403,
    );
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`, { token: readerToken })).status,
      200,
    );
  });
});

describe('GET /api/lookup_tables/:lookup_table_id/rows/:row_id', () => {
  test('returns the row; 404 for an unknown row, a row of another table, or a foreign table; 400 for bad ids', async () => {
    const table = await newTable();
    const otherTable = await newTable();
    const [rowId] = await addRows(table.id, [{ code: 'CZ' }]);
    const [otherRowId] = await addRows(otherTable.id, [{ code: 'DE' }]);
    const res = await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.code, 'CZ');
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows/999999`)).status, 404);
    const crossed = await t.call('GET', `/api/lookup_tables/${table.id}/rows/${otherRowId}`);
    assert.equal(crossed.status, 404);
    assert.deepEqual(crossed.body, { message: 'Not found' });
    const other = await t.newWorkspace('Row Co');
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token: other.adminToken })).status,
      404,
    );
    const bad = await t.call('GET', `/api/lookup_tables/${table.id}/rows/abc`);
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.row_id);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows/0`)).status, 400);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token: null })).status, 401);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token: noLookupToken })).status,
      403,
    );
  });
});

describe('PUT /api/lookup_tables/:lookup_table_id/rows/:row_id', () => {
  test('changes only the columns given; null or "" empties a cell; the reply is the whole row', async () => {
    const table = await newTable();
    const [rowId] = await addRows(table.id, [{ code: 'CZ', country: 'Czechia', currency: 'CZK' }]);
    const res = await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, {
      body: { data: { country: 'Czech Republic' } },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { code: 'CZ', country: 'Czech Republic', currency: 'CZK' });
    const cleared = await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, {
      body: { data: { col3: null, code: '' } },
    });
    assert.deepEqual(cleared.body.data, { code: null, country: 'Czech Republic', currency: null });
    // A cell emptied by an update is found as empty.
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[currency]=`)).body.id, rowId);
    const alias = await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, { body: { row: { code: 7 } } });
    assert.deepEqual(alias.body.data, { code: '7', country: 'Czech Republic', currency: null });
    assert.deepEqual((await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`)).body, alias.body);
    // The lookup sees the new values at once, and no longer the old ones.
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=7`)).body.id, rowId);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`)).status, 404);
  });

  test('bad input and errors: each a 4xx, and the row is unchanged', async () => {
    const table = await newTable();
    const otherTable = await newTable();
    const [rowId = 0] = await addRows(table.id, [{ code: 'CZ', country: 'Czechia', currency: 'CZK' }]);
    const [otherRowId = 0] = await addRows(otherTable.id, [{ code: 'DE' }]);
    const snapshot = (await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`)).body;
    const put = (body: unknown, id: number | string = rowId, tableId: number | string = table.id, token?: string) =>
      t.call('PUT', `/api/lookup_tables/${tableId}/rows/${id}`, { body, ...(token ? { token } : {}) });
    const badBodies: Array<[unknown, string]> = [
      [{ data: { colour: 'red' } }, 'data.colour'],
      [{ data: { code: 'x'.repeat(10 * 1024 + 1) } }, 'data.code'],
      [{ data: { code: { a: 1 } } }, 'data.code'],
      [{ data: { code: [] } }, 'data.code'],
      [{ data: {} }, 'data'],
      [{ data: 'CZ' }, 'data'],
      [{}, 'data'],
    ];
    for (const [body, field] of badBodies) {
      const res = await put(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)} -> ${res.text}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
    }
    assert.equal((await put({ data: { code: 'X' } }, otherRowId)).status, 404, 'a row of another table');
    assert.equal((await put({ data: { code: 'X' } }, 999999)).status, 404);
    assert.equal((await put({ data: { code: 'X' } }, rowId, 999999)).status, 404);
    assert.equal((await put({ data: { code: 'X' } }, 'abc')).status, 400);
    const other = await t.newWorkspace('Updater Co');
    assert.equal((await put({ data: { code: 'X' } }, rowId, table.id, other.adminToken)).status, 404);
    assert.equal((await put({ data: { code: 'X' } }, rowId, table.id, readerToken)).status, 403);
    assert.equal(
      (
        await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, {
          token: null,
          body: { data: { code: 'X' } },
        })
      ).status,
      401,
    );
    assert.equal(
      (await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, { raw: '{"data":', headers: JSON_HEADERS }))
        .status,
      400,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, {
          raw: 'x',
          headers: { 'content-type': 'text/csv' },
        })
      ).status,
      415,
    );
    assert.deepEqual((await t.call('GET', `/api/lookup_tables/${table.id}/rows/${rowId}`)).body, snapshot);
    assert.equal((await t.call('GET', `/api/lookup_tables/${otherTable.id}/rows/${otherRowId}`)).body.data.code, 'DE');
  });
});

describe('DELETE /api/lookup_tables/:lookup_table_id/rows/:row_id', () => {
  test('deletes the row: {"success": true}; it is gone from gets, lists and lookups', async () => {
    const table = await newTable();
    const [keep, drop] = await addRows(table.id, [{ code: 'CZ' }, { code: 'DE' }]);
    const res = await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${drop}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/rows/${drop}`)).status, 404);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=DE`)).status, 404);
    assert.deepEqual(
      (await allRows(table.id)).map((r) => r.id),
      [keep],
    );
    assert.equal(
      (await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${drop}`)).status,
      404,
      'a second delete',
    );
  });

  test('404 for a row of another table, an unknown row or table; 400 bad id; 401; 403; nothing deleted', async () => {
    const table = await newTable();
    const otherTable = await newTable();
    const [rowId] = await addRows(table.id, [{ code: 'CZ' }]);
    const [otherRowId] = await addRows(otherTable.id, [{ code: 'DE' }]);
    assert.equal((await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${otherRowId}`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/999999`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/lookup_tables/999999/rows/${rowId}`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/abc`)).status, 400);
    const other = await t.newWorkspace('Deleter Co');
    assert.equal(
      (await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token: other.adminToken })).status,
      404,
    );
    assert.equal((await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token: null })).status, 401);
    assert.equal(
      (await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token: readerToken })).status,
      403,
    );
    assert.equal((await allRows(table.id)).length, 1);
    assert.equal((await allRows(otherTable.id)).length, 1);
  });
});

describe('POST /api/lookup_tables/batch_delete', () => {
  test('deletes every named table with its rows; ids as integers or strings, duplicates once; names become free', async () => {
    const a = await newTable();
    const b = await newTable();
    const keep = await newTable();
    await addRows(a.id, [{ code: 'CZ' }, { code: 'DE' }]);
    const res = await t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [a.id, String(b.id), a.id] } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { deleted_ids: [a.id, b.id], failed_ids: [] });
    assert.equal((await t.call('GET', `/api/lookup_tables/${a.id}`)).status, 404);
    assert.equal((await t.call('GET', `/api/lookup_tables/${a.id}/rows`)).status, 404);
    assert.equal((await t.call('GET', `/api/lookup_tables/${a.id}/lookup?by[code]=CZ`)).status, 404);
    const names = await tableNames();
    assert.ok(!names.includes(a.name) && !names.includes(b.name) && names.includes(keep.name));
    assert.equal(
      (await t.call('POST', '/api/lookup_tables', { body: { name: a.name, schema: COUNTRY_SCHEMA } })).status,
      200,
    );
  });

  test('accepts the alias lookup_table_ids', async () => {
    const a = await newTable();
    const res = await t.call('POST', '/api/lookup_tables/batch_delete', { body: { lookup_table_ids: [String(a.id)] } });
    assert.deepEqual(res.body, { deleted_ids: [a.id], failed_ids: [] });
  });

  test('all or nothing: an unknown id, or one of another environment or workspace, is a 404 naming it and nothing is deleted', async () => {
    const a = await newTable();
    const b = await newTable();
    await addRows(a.id, [{ code: 'CZ' }]);
    const unknown = await t.call('POST', '/api/lookup_tables/batch_delete', {
      body: { ids: [a.id, 999998, b.id, 999999] },
    });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /999998, 999999/);
    assert.deepEqual(unknown.body.errors, { ids: ['unknown: 999998, 999999'] });
    const alias = await t.call('POST', '/api/lookup_tables/batch_delete', {
      body: { lookup_table_ids: [a.id, 999999] },
    });
    assert.deepEqual(alias.body.errors, { lookup_table_ids: ['unknown: 999999'] });
    const testToken = await t.tokenFor('Admin', 'test');
    const inTest = await newTable(COUNTRY_SCHEMA, {}, testToken);
    assert.equal(
      (await t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [a.id, inTest.id] } })).status,
      404,
    );
    const other = await t.newWorkspace('Batch Co');
    assert.equal(
      (await t.call('POST', '/api/lookup_tables/batch_delete', { token: other.adminToken, body: { ids: [a.id] } }))
        .status,
      404,
    );
    for (const id of [a.id, b.id]) assert.equal((await t.call('GET', `/api/lookup_tables/${id}`)).status, 200);
    assert.equal((await t.call('GET', `/api/lookup_tables/${inTest.id}`, { token: testToken })).status, 200);
    assert.equal((await allRows(a.id)).length, 1);
  });

  test('bad input: missing or empty ids, wrong types, too many; 401; 403; nothing deleted', async () => {
    const a = await newTable();
    const before = await allTableCount();
    for (const body of [
      {},
      { ids: [] },
      { ids: 'all' },
      { ids: [a.id, 'abc'] },
      { ids: [1.5] },
      { ids: [0] },
      { ids: [{ id: a.id }] },
      { lookup_table_ids: {} },
      { ids: Array.from({ length: 1001 }, (_, i) => i + 1) },
    ]) {
      const res = await t.call('POST', '/api/lookup_tables/batch_delete', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)} -> ${res.text}`);
      assert.ok(res.body.errors, res.text);
    }
    assert.equal(
      (await t.call('POST', '/api/lookup_tables/batch_delete', { raw: '{"ids": [', headers: JSON_HEADERS })).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/lookup_tables/batch_delete', {
          raw: `ids=${a.id}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.equal(
      (await t.call('POST', '/api/lookup_tables/batch_delete', { token: null, body: { ids: [a.id] } })).status,
      401,
    );
    assert.equal(
      (await t.call('POST', '/api/lookup_tables/batch_delete', { token: readerToken, body: { ids: [a.id] } })).status,
      403,
    );
    assert.equal(await allTableCount(), before);
  });
});

describe('project scope', () => {
  test("a client limited to one project sees, creates and deletes only that project's tables", async () => {
    const mine = await t.createProject('Scoped project');
    const theirs = await t.createProject('Other project');
    const { token } = await t.scopedClient([mine.folderId]);
    const global = await newTable();
    const inTheirs = await newTable(COUNTRY_SCHEMA, { project_id: theirs.projectId });

    const noProject = await t.call('POST', '/api/lookup_tables', {
      token,
      body: { name: 'scoped_global', schema: COUNTRY_SCHEMA },
    });
    assert.equal(noProject.status, 403);
    const outside = await t.call('POST', '/api/lookup_tables', {
      token,
      body: { name: 'scoped_outside', schema: COUNTRY_SCHEMA, project_id: theirs.projectId },
    });
    assert.equal(outside.status, 404);
    const created = await t.call('POST', '/api/lookup_tables', {
      token,
      body: { name: 'scoped_inside', schema: COUNTRY_SCHEMA, project_id: mine.projectId },
    });
    assert.equal(created.status, 200, created.text);

    assert.deepEqual(await tableNames(token), ['scoped_inside']);
    for (const hidden of [global.id, inTheirs.id]) {
      assert.equal((await t.call('GET', `/api/lookup_tables/${hidden}`, { token })).status, 404);
      assert.equal((await t.call('GET', `/api/lookup_tables/${hidden}/rows`, { token })).status, 404);
      assert.equal((await addRow(hidden, { code: 'x' }, token)).status, 404);
    }
    assert.equal((await addRow(created.body.id, { code: 'x' }, token)).status, 200);
    assert.equal(
      (
        await t.call('POST', '/api/lookup_tables/batch_delete', {
          token,
          body: { ids: [created.body.id, inTheirs.id] },
        })
      ).status,
      404,
    );
    assert.equal((await t.call('GET', `/api/lookup_tables/${inTheirs.id}`)).status, 200);
    assert.equal(
      (await t.call('POST', '/api/lookup_tables/batch_delete', { token, body: { ids: [created.body.id] } })).status,
      200,
    );
    // The admin (all projects) sees every table.
    const names = await tableNames();
    assert.ok(names.includes(global.name) && names.includes(inTheirs.name) && !names.includes('scoped_inside'));
  });
});
