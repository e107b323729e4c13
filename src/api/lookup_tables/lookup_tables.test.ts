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

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
const JSON_HEADERS = { 'content-type': 'application/json' };

describe('POST /api/lookup_tables', () => {
  test('creates a table; schema comes back as a JSON string of positional columns', async () => {
    const res = await t.call('POST', '/api/lookup_tables', { body: { name: 'country_codes', schema: COUNTRY_SCHEMA } });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['id', 'name', 'schema', 'created_at', 'updated_at', 'project_id']);
    assert.equal(res.body.name, 'country_codes');
    assert.equal(res.body.project_id, null);
    assert.match(res.body.created_at, TIMESTAMP);
    assert.equal(typeof res.body.schema, 'string');
    assert.deepEqual(JSON.parse(res.body.schema), [
      { control_type: 'text', label: 'code', name: 'col1', type: 'string', sticky: true },
      { control_type: 'text', label: 'country', name: 'col2', type: 'string', sticky: true },
      { control_type: 'text', label: 'currency', name: 'col3', type: 'string', sticky: true },
    ]);
    assert.ok((await tableNames()).includes('country_codes'));
  });

  test('accepts the wrapped form (which wins over top-level fields), a project_id as a string, and a JSON-string schema', async () => {
    const project = await t.createProject('Finance');
    const wrapped = await t.call('POST', '/api/lookup_tables', {
      body: {
        name: 'ignored',
        lookup_table: {
          name: 'fx_rates',
          project_id: String(project.projectId),
          schema: [{ label: 'from', extra: 'ignored' }, { label: 'to' }, { label: 'rate' }],
        },
      },
    });
    assert.equal(wrapped.status, 200, wrapped.text);
    assert.equal(wrapped.body.name, 'fx_rates');
    assert.equal(wrapped.body.project_id, String(project.projectId));
    assert.deepEqual(
      JSON.parse(wrapped.body.schema).map((c: { label: string }) => c.label),
      ['from', 'to', 'rate'],
    );
    // A table read from one environment can be posted back as it was returned (schema as a string).
    const copy = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'fx_rates_copy', schema: wrapped.body.schema },
    });
    assert.equal(copy.status, 200, copy.text);
    assert.equal(copy.body.schema, wrapped.body.schema);
    assert.ok(!(await tableNames()).includes('ignored'));
  });

  test('trims the name and labels; ten columns are allowed; a label may be its own positional key', async () => {
    const labels = Array.from({ length: 10 }, (_, i) => ({ label: i === 1 ? 'col2' : `  c${i}  ` }));
    const res = await t.call('POST', '/api/lookup_tables', { body: { name: '  ten_columns  ', schema: labels } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'ten_columns');
    assert.deepEqual(
      JSON.parse(res.body.schema)
        .map((c: { label: string; name: string }) => `${c.name}=${c.label}`)
        .slice(0, 3),
      ['col1=c0', 'col2=col2', 'col3=c2'],
    );
  });

  test('422 for a name already taken in the environment, ignoring case; nothing is created', async () => {
    await newTable(COUNTRY_SCHEMA, { name: 'Feature_Flags' });
    const before = await allTableCount();
    const res = await t.call('POST', '/api/lookup_tables', { body: { name: 'feature_flags', schema: COUNTRY_SCHEMA } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      message: 'Name has already been taken',
      errors: { name: ['has already been taken'] },
    });
    assert.equal(await allTableCount(), before);
  });

  test('bad input: each a 400 naming the field, and no table is created', async () => {
    const before = await allTableCount();
    const eleven = Array.from({ length: 11 }, (_, i) => ({ label: `c${i}` }));
    const cases: Array<[unknown, string]> = [
      [{ schema: COUNTRY_SCHEMA }, 'name'],
      [{ name: '   ', schema: COUNTRY_SCHEMA }, 'name'],
      [{ name: 42, schema: COUNTRY_SCHEMA }, 'name'],
      [{ name: 'x'.repeat(256), schema: COUNTRY_SCHEMA }, 'name'],
      [{ name: 'no_schema' }, 'schema'],
      [{ name: 'empty_schema', schema: [] }, 'schema'],
      [{ name: 'eleven', schema: eleven }, 'schema'],
      [{ name: 'object_schema', schema: { label: 'code' } }, 'schema'],
      [{ name: 'bad_json_schema', schema: '[{"label":' }, 'schema'],
      [{ name: 'dup', schema: [{ label: 'code' }, { label: 'name' }, { label: 'code' }] }, 'schema.2.label'],
      [{ name: 'dup_case', schema: [{ label: 'Code' }, { label: ' code ' }] }, 'schema.1.label'],
      [{ name: 'no_label', schema: [{ name: 'code' }] }, 'schema.0.label'],
      [{ name: 'number_label', schema: [{ label: 7 }] }, 'schema.0.label'],
      [{ name: 'string_columns', schema: ['code'] }, 'schema.0.label'],
      [{ name: 'blank_label', schema: [{ label: ' ' }] }, 'schema.0.label'],
      [{ name: 'long_label', schema: [{ label: 'l'.repeat(256) }] }, 'schema.0.label'],
      [{ name: 'proto_label', schema: [{ label: '__proto__' }] }, 'schema.0.label'],
      [{ name: 'ambiguous', schema: [{ label: 'code' }, { label: 'col1' }] }, 'schema.1.label'],
      [{ name: 'bad_project', schema: COUNTRY_SCHEMA, project_id: 'abc' }, 'project_id'],
      [{ name: 'float_project', schema: COUNTRY_SCHEMA, project_id: 1.5 }, 'project_id'],
      [{ lookup_table: 'country_codes' }, 'lookup_table'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/lookup_tables', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
    }
    const tooMany = await t.call('POST', '/api/lookup_tables', { body: { name: 'eleven', schema: eleven } });
    assert.match(tooMany.body.errors.schema[0], /at most 10/);
    const dup = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'dup', schema: [{ label: 'code' }, { label: 'code' }] },
    });
    assert.match(dup.body.errors['schema.1.label'][0], /repeats/);
    assert.equal(await allTableCount(), before);
  });

  test('malformed JSON, wrong Content-Type, no body and an oversized body are refused; nothing is created', async () => {
    const before = await allTableCount();
    const malformed = await t.call('POST', '/api/lookup_tables', { raw: '{"name": "x", ', headers: JSON_HEADERS });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
    const form = await t.call('POST', '/api/lookup_tables', {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.match(form.body.message, /Content-Type/);
    const empty = await t.call('POST', '/api/lookup_tables', { raw: '', headers: JSON_HEADERS });
    assert.equal(empty.status, 400);
    assert.ok(empty.body.errors.body);
    const array = await t.call('POST', '/api/lookup_tables', { body: [COUNTRY_SCHEMA] });
    assert.equal(array.status, 400);
    const huge = await t.call('POST', '/api/lookup_tables', {
      raw: JSON.stringify({ name: 'huge', schema: [{ label: 'x'.repeat(2 * 1024 * 1024) }] }),
      headers: JSON_HEADERS,
    });
    assert.equal(huge.status, 413);
    assert.equal(await allTableCount(), before);
  });

  test('404 for an unknown project, or a project of another environment; nothing is created', async () => {
    const before = await allTableCount();
    const unknown = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'orphan', schema: COUNTRY_SCHEMA, project_id: 999999 },
    });
    assert.equal(unknown.status, 404);
    assert.ok(unknown.body.errors.project_id);
    const testProject = await t.createProject('Only in test', 'test');
    const elsewhere = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'orphan', schema: COUNTRY_SCHEMA, project_id: testProject.projectId },
    });
    assert.equal(elsewhere.status, 404);
    assert.equal(await allTableCount(), before);
  });

  test('401 without a token; 403 for a role that may only read lookup tables', async () => {
    const before = await allTableCount();
    assert.equal(
      (await t.call('POST', '/api/lookup_tables', { token: null, body: { name: 'nope', schema: COUNTRY_SCHEMA } }))
        .status,
      401,
    );
    const res = await t.call('POST', '/api/lookup_tables', {
      token: readerToken,
      body: { name: 'nope', schema: COUNTRY_SCHEMA },
    });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /lookup_tables:write/);
    assert.equal(await allTableCount(), before);
  });

  test('names are per environment: the same name can exist in dev and test', async () => {
    await newTable(COUNTRY_SCHEMA, { name: 'per_env' });
    const testToken = await t.tokenFor('Admin', 'test');
    const res = await t.call('POST', '/api/lookup_tables', {
      token: testToken,
      body: { name: 'per_env', schema: COUNTRY_SCHEMA },
    });
    assert.equal(res.status, 200, res.text);
  });
});

describe('GET /api/lookup_tables', () => {
  test('a bare array in id order; pages of at most 100; junk paging falls back to defaults', async () => {
    for (let i = 0; i < 3; i++) await newTable();
    const all = (await t.call('GET', '/api/lookup_tables')).body;
    assert.ok(Array.isArray(all));
    const ids = all.map((table: { id: number }) => table.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    const page1 = await t.call('GET', '/api/lookup_tables?page=1&per_page=2');
    const page2 = await t.call('GET', '/api/lookup_tables?page=2&per_page=2');
    assert.equal(page1.body.length, 2);
    assert.deepEqual(
      [...page1.body, ...page2.body].map((x: { id: number }) => x.id),
      ids.slice(0, 4),
    );
    assert.equal(
      (await t.call('GET', '/api/lookup_tables?page=abc&per_page=-1')).body.length,
      Math.min(all.length, 100),
    );
    assert.deepEqual((await t.call('GET', '/api/lookup_tables?page=999')).body, []);
    assert.equal((await t.call('GET', '/api/lookup_tables?per_page=100000')).status, 200);
  });

  test('updated_at follows row changes', async () => {
    const clockTable = await newTable();
    const before = (await t.call('GET', `/api/lookup_tables/${clockTable.id}`)).body.updated_at;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await addRow(clockTable.id, { code: 'CZ' });
    const after = (await t.call('GET', `/api/lookup_tables/${clockTable.id}`)).body.updated_at;
    assert.ok(after > before, `${after} > ${before}`);
  });

  test('401; 403 without the privilege; the read privilege is enough', async () => {
    assert.equal((await t.call('GET', '/api/lookup_tables', { token: null })).status, 401);
    assert.equal((await t.call('GET', '/api/lookup_tables', { token: noLookupToken })).status, 403);
    assert.equal((await t.call('GET', '/api/lookup_tables', { token: readerToken })).status, 200);
  });

  test('another environment and another workspace see none of these tables', async () => {
    const mine = await tableNames();
    assert.ok(mine.length > 0);
    const testToken = await t.tokenFor('Admin', 'test');
    assert.ok((await tableNames(testToken)).every((name) => name === 'per_env' || !mine.includes(name)));
    const other = await t.newWorkspace('Other Co');
    assert.deepEqual(await tableNames(other.adminToken), []);
  });
});

describe('GET /api/lookup_tables/:lookup_table_id', () => {
  test("returns one table; 404 for an unknown id or another workspace's table; 400 for a non-numeric id", async () => {
    const table = await newTable();
    const res = await t.call('GET', `/api/lookup_tables/${table.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, table);
    assert.equal((await t.call('GET', '/api/lookup_tables/999999')).status, 404);
    const other = await t.newWorkspace('Peeking Co');
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}`, { token: other.adminToken })).status, 404);
    const bad = await t.call('GET', '/api/lookup_tables/abc');
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.lookup_table_id);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/lookup_tables/${table.id}`, { token: noLookupToken })).status, 403);
  });
});

describe('POST /api/lookup_tables/:lookup_table_id/rows', () => {
  test('adds a row keyed by label; columns not given are empty (null)', async () => {
    const table = await newTable();
    const res = await addRow(table.id, { code: 'CZ', country: 'Czechia' });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['id', 'data', 'created_at', 'updated_at']);
    assert.deepEqual(res.body.data, { code: 'CZ', country: 'Czechia', currency: null });
    assert.match(res.body.created_at, TIMESTAMP);
    assert.deepEqual((await t.call('GET', `/api/lookup_tables/${table.id}/rows/${res.body.id}`)).body, res.body);
  });

  test('accepts positional keys col1..colN, the `row` alias, numbers and booleans as text, and "" or null as empty', async () => {
    const table = await newTable();
    const positional = await addRow(table.id, { col1: 'DE', col3: 'EUR' });
    assert.deepEqual(positional.body.data, { code: 'DE', country: null, currency: 'EUR' });
    const alias = await t.call('POST', `/api/lookup_tables/${table.id}/rows`, { body: { row: { code: 'FR' } } });
    assert.equal(alias.status, 200, alias.text);
    assert.deepEqual(alias.body.data, { code: 'FR', country: null, currency: null });
    const scalars = await addRow(table.id, { code: 42, country: true, currency: 1.5 });
    assert.deepEqual(scalars.body.data, { code: '42', country: 'true', currency: '1.5' });
    const empties = await addRow(table.id, { code: '', country: null, currency: ' ' });
    assert.deepEqual(empties.body.data, { code: null, country: null, currency: ' ' });
    const none = await addRow(table.id, {});
    assert.deepEqual(none.body.data, { code: null, country: null, currency: null });
    const found = await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=42`);
    assert.equal(found.body.id, scalars.body.id);
  });

  test('a value of exactly 10 KB (UTF-8) is accepted; one byte more is not', async () => {
    const table = await newTable();
    const max = 'é'.repeat(5 * 1024);
    const ok = await addRow(table.id, { code: max });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.code, max);
    const before = (await allRows(table.id)).length;
    const over = await addRow(table.id, { code: `${max}x` });
    assert.equal(over.status, 400);
    assert.match(over.body.errors['data.code'][0], /too long/);
    assert.equal((await allRows(table.id)).length, before);
  });

  test('bad input: unknown columns, objects, arrays, the same column twice, missing data; each a 400 and no row is added', async () => {
    const table = await newTable();
    await addRow(table.id, { code: 'CZ' });
    const cases: Array<[unknown, string]> = [
      [{ data: { code: 'x', colour: 'red', size: 'L' } }, 'data.colour'],
      [{ data: { col4: 'x' } }, 'data.col4'],
      [{ data: { Code: 'x' } }, 'data.Code'],
      [{ data: { code: { iso: 'CZ' } } }, 'data.code'],
      [{ data: { code: ['CZ'] } }, 'data.code'],
      [{ data: { code: 12345678901234567890 } }, 'data.code'],
      [{ data: { code: Number.MAX_SAFE_INTEGER + 2 } }, 'data.code'],
      [{ data: { code: 'CZ', col1: 'CZ' } }, 'data.col1'],
      [{ data: 'code=CZ' }, 'data'],
      [{ data: ['CZ'] }, 'data'],
      [{ data: null }, 'data'],
      [{ code: 'CZ' }, 'data'],
      [{}, 'data'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', `/api/lookup_tables/${table.id}/rows`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text}`);
    }
    const unknown = await addRow(table.id, { code: 'x', colour: 'red', size: 'L' });
    assert.equal(unknown.body.message, 'Unknown columns: colour, size');
    assert.equal(
      (await t.call('POST', `/api/lookup_tables/${table.id}/rows`, { raw: '{"data": {', headers: JSON_HEADERS }))
        .status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', `/api/lookup_tables/${table.id}/rows`, {
          raw: 'code=CZ',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
      415,
    );
    assert.equal(
      (
        await t.call('POST', `/api/lookup_tables/${table.id}/rows`, {
          raw: JSON.stringify({ data: { code: 'x'.repeat(2 * 1024 * 1024) } }),
          headers: JSON_HEADERS,
        })
      ).status,
      413,
    );
    assert.equal(
      (
        await t.call('POST', `/api/lookup_tables/${table.id}/rows`, {
          raw: '{"data": {"__proto__": {"x": 1}}}',
          headers: JSON_HEADERS,
        })
      ).status,
      400,
    );
    const infinite = await t.call('POST', `/api/lookup_tables/${table.id}/rows`, {
      raw: '{"data": {"code": 1e400}}',
      headers: JSON_HEADERS,
    });
    assert.equal(infinite.status, 400);
    assert.ok(infinite.body.errors['data.code']);
    assert.equal((await allRows(table.id)).length, 1);
  });

  test("404 for an unknown table, a deleted one and another workspace's; 400 for a non-numeric id; 401; 403 read-only", async () => {
    const table = await newTable();
    assert.equal((await addRow(999999, { code: 'x' })).status, 404);
    const other = await t.newWorkspace('Writer Co');
    assert.equal((await addRow(table.id, { code: 'x' }, other.adminToken)).status, 404);
    assert.equal((await t.call('POST', '/api/lookup_tables/abc/rows', { body: { data: { code: 'x' } } })).status, 400);
    assert.equal(
      (await t.call('POST', `/api/lookup_tables/${table.id}/rows`, { token: null, body: { data: { code: 'x' } } }))
        .status,
      401,
    );
    assert.equal((await addRow(table.id, { code: 'x' }, readerToken)).status, 403);
    assert.deepEqual(await allRows(table.id), []);
    await t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [table.id] } });
    assert.equal((await addRow(table.id, { code: 'x' })).status, 404);
  });

  test('a table already written to (its columns and owner remembered) is still checked on every write', async () => {
    const project = await t.createProject('Remembered project');
    const table = await newTable(COUNTRY_SCHEMA, { project_id: project.projectId });
    const [rowId] = await addRows(table.id, [{ code: 'CZ' }]);
    // Other callers: another workspace, a client limited to another project.
    const other = await t.newWorkspace('Remembering Co');
    const { token: elsewhere } = await t.scopedClient([(await t.createProject('Elsewhere')).folderId]);
    for (const token of [other.adminToken, elsewhere]) {
      assert.equal((await addRow(table.id, { code: 'x' }, token)).status, 404);
      assert.equal(
        (await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token, body: { data: { code: 'x' } } }))
          .status,
        404,
      );
      assert.equal((await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${rowId}`, { token })).status, 404);
    }
    assert.equal(
      (await addRow(table.id, { code: 'DE' }, (await t.scopedClient([project.folderId])).token)).status,
      200,
    );
    // Deleted: every write is a 404, bad input too (not found comes first), and nothing changes.
    assert.equal((await t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [table.id] } })).status, 200);
    assert.equal((await addRow(table.id, { code: 'x' })).status, 404);
    assert.equal((await addRow(table.id, { colour: 'red' })).status, 404);
    assert.equal(
      (await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, { body: { data: { code: 'x' } } })).status,
      404,
    );
    assert.equal(
      (await t.call('PUT', `/api/lookup_tables/${table.id}/rows/${rowId}`, { body: { data: {} } })).status,
      404,
    );
    assert.equal((await t.call('DELETE', `/api/lookup_tables/${table.id}/rows/${rowId}`)).status, 404);
    // A table that went with its project (deleted in cascade, not marked) as well.
    const second = await t.createProject('Going project');
    const gone = await newTable(COUNTRY_SCHEMA, { project_id: second.projectId });
    await addRows(gone.id, [{ code: 'CZ' }]);
    assert.equal((await t.call('DELETE', `/api/projects/${second.projectId}`)).status, 200);
    assert.equal((await addRow(gone.id, { code: 'x' })).status, 404);
    // (The rows of deleted tables are purged in the background; none was ever added or changed to 'x'.)
    assert.deepEqual(
      await t.ctx.db
        .selectFrom('lookup_table_rows')
        .select('id')
        .where('table_id', 'in', [table.id, gone.id])
        .where('col1', '=', 'x')
        .execute(),
      [],
    );
  });

  test('a row added is found by the very next lookup, every time', async () => {
    const table = await newTable();
    for (let i = 0; i < 25; i++) {
      const added = await addRow(table.id, { code: `K${i}`, currency: 'EUR' });
      const found = await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=K${i}`);
      assert.equal(found.status, 200);
      assert.equal(found.body.id, added.body.id);
    }
  });
});
