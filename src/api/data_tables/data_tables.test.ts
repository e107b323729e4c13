// The data tables management API through HTTP: tables with typed columns, records, filters,
// paging, scope, and bad input (each a 4xx in the contract's shape, nothing changed).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { upsertRecord } from './data_tables.service.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { DATA_TABLE_MAX_RECORDS: '5' } });
});
after(async () => {
  await t.close();
});

let counter = 0;
const COLUMNS = [
  { name: 'email', type: 'string', optional: false },
  { name: 'age', type: 'integer' },
  { name: 'score', type: 'decimal' },
  { name: 'active', type: 'boolean', default_value: true },
  { name: 'born', type: 'date' },
  { name: 'seen', type: 'date_time' },
];

async function newTable(
  schema: unknown = COLUMNS,
  extra: Record<string, unknown> = {},
  token?: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<Record<string, any>> {
  const res = await t.call('POST', '/api/data_tables', {
    body: { name: `Customers ${++counter}`, schema, ...extra },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function count(tableId: number): Promise<number> {
  const res = await t.call('GET', `/api/data_tables/${tableId}`);
  return res.body.data.record_count as number;
}

describe('POST /api/data_tables', () => {
  test('creates a table with its columns in one call: each column gets a UUID', async () => {
    const table = await newTable();
    assert.equal(table.schema.length, 6);
    assert.match(table.schema[0].field_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      table.schema.map((c: { type: string }) => c.type),
      ['string', 'integer', 'decimal', 'boolean', 'date', 'date_time'],
    );
    assert.equal(table.schema[0].optional, false);
    assert.equal(table.schema[3].default_value, true);
    assert.equal(table.record_count, 0);
    assert.equal(typeof table.folder_id, 'number');
    const read = await t.call('GET', `/api/data_tables/${table.id}`);
    assert.deepEqual(read.body.data, table);
    const list = await t.call('GET', '/api/data_tables?per_page=100');
    assert.ok(list.body.data.some((x: { id: number }) => x.id === table.id));
  });

  test('accepts the type aliases and a given field_id', async () => {
    const id = '5d420ed4-eafd-44d7-89ae-77ed9c46dba5';
    const table = await newTable([
      { name: 'n', type: 'number' },
      { name: 'x', type: 'text', field_id: id.replaceAll('-', '_') },
    ]);
    assert.equal(table.schema[0].type, 'decimal');
    assert.equal(table.schema[1].type, 'string');
    assert.equal(table.schema[1].field_id, id);
  });

  test('bad definitions are a 400 naming the field; nothing is created', async () => {
    const before = (await t.call('GET', '/api/data_tables?per_page=100')).body.data.length;
    const cases: Array<[unknown, string]> = [
      [{ schema: COLUMNS }, 'name'],
      [{ name: 'A' }, 'schema'],
      [{ name: 'A', schema: [] }, 'schema'],
      [{ name: 'A', schema: [{ name: 'x', type: 'blob' }] }, 'schema.0.type'],
      [{ name: 'A', schema: [{ type: 'string' }] }, 'schema.0.name'],
      [
        {
          name: 'A',
          schema: [
            { name: 'x', type: 'string' },
            { name: 'X', type: 'integer' },
          ],
        },
        'schema.1.name',
      ],
      [{ name: 'A', schema: [{ name: 'Record ID', type: 'string' }] }, 'schema.0.name'],
      [{ name: 'A', schema: [{ name: 'n', type: 'integer', default_value: 'many' }] }, 'schema.0.default_value'],
      [{ name: 'A', schema: [{ name: 'n', type: 'integer', field_id: 'nope' }] }, 'schema.0.field_id'],
      [{ name: 'A', schema: 'x' }, 'schema'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/data_tables', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.body.errors?.[field], `${field} in ${res.text}`);
    }
    const wrongType = await t.call('POST', '/api/data_tables', { body: { name: 42, schema: 'x', folder_id: 'abc' } });
    assert.equal(wrongType.status, 400, wrongType.text);
    const malformed = await t.call('POST', '/api/data_tables', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400, malformed.text);
    const wrongMedia = await t.call('POST', '/api/data_tables', {
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(wrongMedia.status, 415, wrongMedia.text);
    const unknownFolder = await t.call('POST', '/api/data_tables', {
      body: { name: 'A', schema: COLUMNS, folder_id: 999999 },
    });
    assert.equal(unknownFolder.status, 404, unknownFolder.text);
    assert.equal((await t.call('GET', '/api/data_tables?per_page=100')).body.data.length, before);
  });

  test('a name is unique in the environment ignoring case: 422', async () => {
    const table = await newTable();
    const res = await t.call('POST', '/api/data_tables', { body: { name: table.name.toUpperCase(), schema: COLUMNS } });
    assert.equal(res.status, 422, res.text);
    assert.ok(res.body.errors.name);
  });

  test("roles and project scope: read-only clients cannot write; a scoped client sees only its projects' tables", async () => {
    const reader = await t.tokenFor('Read only');
    const denied = await t.call('POST', '/api/data_tables', { body: { name: 'R', schema: COLUMNS }, token: reader });
    assert.equal(denied.status, 403, denied.text);
    assert.equal((await t.call('GET', '/api/data_tables', { token: reader })).status, 200);
    assert.equal((await t.call('GET', '/api/data_tables', { token: null })).status, 401);

    const project = await t.createProject(`DT project ${++counter}`);
    const other = await t.createProject(`DT other ${++counter}`);
    const inside = await newTable(COLUMNS, { folder_id: project.folderId });
    const outside = await newTable(COLUMNS, { folder_id: other.folderId });
    const global = await newTable();
    assert.equal(inside.project_id, String(project.projectId));
    const scoped = await t.scopedClient([project.folderId]);
    const seen = (await t.call('GET', '/api/data_tables', { token: scoped.token })).body.data.map(
      (x: { id: number }) => x.id,
    );
    assert.deepEqual(seen, [inside.id]);
    assert.equal((await t.call('GET', `/api/data_tables/${outside.id}`, { token: scoped.token })).status, 404);
    assert.equal((await t.call('GET', `/api/data_tables/${global.id}`, { token: scoped.token })).status, 404);
    const noFolder = await t.call('POST', '/api/data_tables', {
      body: { name: `S ${++counter}`, schema: COLUMNS },
      token: scoped.token,
    });
    assert.equal(noFolder.status, 403, noFolder.text);
    assert.equal(
      noFolder.body.message,
      'Forbidden: a client limited to some projects must give the folder_id of a folder in one of them',
    );
    const foreignFolder = await t.call('POST', '/api/data_tables', {
      body: { name: `S ${++counter}`, schema: COLUMNS, folder_id: other.folderId },
      token: scoped.token,
    });
    assert.equal(foreignFolder.status, 404, foreignFolder.text);
    const prodToken = await t.tokenFor('Admin', 'prod');
    assert.equal(
      (await t.call('GET', `/api/data_tables/${inside.id}`, { token: prodToken })).status,
      404,
      'another environment',
    );
  });
});

describe('PUT /api/data_tables/:data_table_id and DELETE', () => {
  test('renames, adds and drops columns; a column keeps its values by field_id; its type cannot change', async () => {
    const table = await newTable([
      { name: 'email', type: 'string' },
      { name: 'age', type: 'integer' },
    ]);
    const rec = await t.call('POST', `/api/data_tables/${table.id}/records`, {
      body: { data: { email: 'a@x.io', age: 30 } },
    });
    assert.equal(rec.status, 200, rec.text);
    const [email, age] = table.schema;
    const res = await t.call('PUT', `/api/data_tables/${table.id}`, {
      body: {
        name: 'Renamed',
        schema: [
          { ...email, name: 'mail' },
          { name: 'city', type: 'string' },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Renamed');
    assert.equal(res.body.data.schema[0].field_id, email.field_id);
    const read = await t.call('GET', `/api/data_tables/${table.id}/records/${rec.body.data.record_id}`);
    assert.deepEqual(read.body.data.data, { mail: 'a@x.io', city: null });
    const retype = await t.call('PUT', `/api/data_tables/${table.id}`, {
      body: { schema: [{ ...email, type: 'integer' }] },
    });
    assert.equal(retype.status, 400, retype.text);
    assert.match(retype.body.errors['schema.0.type'][0], /cannot change/);
    assert.equal((await t.call('PUT', `/api/data_tables/${table.id}`, { body: {} })).status, 400);
    assert.equal((await t.call('PUT', '/api/data_tables/999999', { body: { name: 'x' } })).status, 404);
    void age;
  });

  test('delete removes the table and its records; then 404', async () => {
    const table = await newTable();
    await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data: { email: 'a@x.io' } } });
    const res = await t.call('DELETE', `/api/data_tables/${table.id}`);
    assert.deepEqual(res.body, { success: true });
    assert.equal((await t.call('GET', `/api/data_tables/${table.id}`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/data_tables/${table.id}`)).status, 404);
    const left = await t.ctx.db
      .selectFrom('data_table_records')
      .select('id')
      .where('table_id', '=', table.id)
      .execute();
    assert.equal(left.length, 0);
  });
});

describe('records: /api/data_tables/:data_table_id/records', () => {
  test('add, read, update (only the columns given), delete; values typed; defaults applied', async () => {
    const table = await newTable();
    const add = await t.call('POST', `/api/data_tables/${table.id}/records`, {
      body: {
        data: { email: 'ann@x.io', age: '41', score: 9.5, born: '1984-02-29', seen: '2025-03-04T10:00:00+02:00' },
      },
    });
    assert.equal(add.status, 200, add.text);
    const rec = add.body.data;
    assert.match(rec.record_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(rec.data, {
      email: 'ann@x.io',
      age: 41,
      score: 9.5,
      active: true,
      born: '1984-02-29',
      seen: '2025-03-04T08:00:00.000Z',
    });
    const upd = await t.call('PUT', `/api/data_tables/${table.id}/records/${rec.record_id}`, {
      body: { data: { age: 42, active: 'false' } },
    });
    assert.equal(upd.status, 200, upd.text);
    assert.deepEqual(upd.body.data.data, { ...rec.data, age: 42, active: false });
    const byId = await t.call('PUT', `/api/data_tables/${table.id}/records/${rec.record_id}`, {
      body: { data: { [table.schema[2].field_id.replaceAll('-', '_')]: null } },
    });
    assert.equal(byId.body.data.data.score, null, 'a column by its UUID; null empties it');
    assert.equal(await count(table.id), 1);
    const del = await t.call('DELETE', `/api/data_tables/${table.id}/records/${rec.record_id}`);
    assert.deepEqual(del.body, { success: true });
    assert.equal((await t.call('GET', `/api/data_tables/${table.id}/records/${rec.record_id}`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/data_tables/${table.id}/records/${rec.record_id}`)).status, 404);
    assert.equal(await count(table.id), 0);
  });

  test('a value of the wrong type is a 400 naming the column; a required column must be given; nothing stored', async () => {
    const table = await newTable();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: 'a', age: 'forty' }, 'data.age'],
      [{ email: 'a', age: 1.5 }, 'data.age'],
      [{ email: 'a', score: 'high' }, 'data.score'],
      [{ email: 'a', active: 'maybe' }, 'data.active'],
      [{ email: 'a', born: '2023-02-30' }, 'data.born'],
      [{ email: 'a', seen: 'yesterday' }, 'data.seen'],
      [{ email: { a: 1 } }, 'data.email'],
      [{ email: 'x'.repeat(10_241) }, 'data.email'],
      [{ age: 3 }, 'data.email'],
      [{ email: 'a', colour: 'red' }, 'data.colour'],
    ];
    for (const [data, field] of cases) {
      const res = await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data } });
      assert.equal(res.status, 400, `${JSON.stringify(data).slice(0, 80)}: ${res.text}`);
      assert.ok(res.body.errors?.[field], `${field} in ${res.text}`);
    }
    assert.equal((await t.call('POST', `/api/data_tables/${table.id}/records`, { body: {} })).status, 400);
    assert.equal((await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data: [1] } })).status, 400);
    assert.equal(
      (await t.call('POST', '/api/data_tables/999999/records', { body: { data: { email: 'a' } } })).status,
      404,
    );
    assert.equal(await count(table.id), 0);
  });

  test('list with by[column] filters and paging; next_page until the last page', async () => {
    const table = await newTable([
      { name: 'code', type: 'string' },
      { name: 'n', type: 'integer' },
    ]);
    const batch = await t.call('POST', `/api/data_tables/${table.id}/records/batch`, {
      body: {
        records: [
          { code: 'a', n: 1 },
          { code: 'b', n: 2 },
          { code: 'a', n: 3 },
        ],
      },
    });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body.data.length, 3);
    const page1 = await t.call('GET', `/api/data_tables/${table.id}/records?per_page=2`);
    assert.deepEqual(
      page1.body.data.map((r: { data: { n: number } }) => r.data.n),
      [1, 2],
    );
    assert.equal(page1.body.next_page, 2);
    const page2 = await t.call('GET', `/api/data_tables/${table.id}/records?per_page=2&page=2`);
    assert.deepEqual(
      page2.body.data.map((r: { data: { n: number } }) => r.data.n),
      [3],
    );
    assert.equal(page2.body.next_page, null);
    const filtered = await t.call('GET', `/api/data_tables/${table.id}/records?by[code]=a&by[n]=3`);
    assert.deepEqual(
      filtered.body.data.map((r: { data: { n: number } }) => r.data.n),
      [3],
    );
    // An update moves the record in the value index: found by its new value, not by its old one.
    const third = filtered.body.data[0].record_id;
    await t.call('PUT', `/api/data_tables/${table.id}/records/${third}`, { body: { data: { code: 'c' } } });
    assert.deepEqual(
      (await t.call('GET', `/api/data_tables/${table.id}/records?by[code]=a`)).body.data.map(
        (r: { data: { n: number } }) => r.data.n,
      ),
      [1],
    );
    assert.deepEqual(
      (await t.call('GET', `/api/data_tables/${table.id}/records?by[code]=c`)).body.data.map(
        (r: { record_id: string }) => r.record_id,
      ),
      [third],
    );
    assert.deepEqual(
      (await t.call('GET', `/api/data_tables/${table.id}/records?by[n]=%2B3`)).body.data.map(
        (r: { record_id: string }) => r.record_id,
      ),
      [third],
      'a number compared as a number (+3 is 3)',
    );
    await t.call('DELETE', `/api/data_tables/${table.id}/records/${third}`);
    assert.deepEqual((await t.call('GET', `/api/data_tables/${table.id}/records?by[code]=c`)).body.data, []);
    const bad = await t.call('GET', `/api/data_tables/${table.id}/records?by[n]=three`);
    assert.equal(bad.status, 400, bad.text);
    assert.ok(bad.body.errors['by[n]']);
    const unknown = await t.call('GET', `/api/data_tables/${table.id}/records?by[colour]=red`);
    assert.equal(unknown.status, 400, unknown.text);
  });

  test('a batch is all or none; the record limit (DATA_TABLE_MAX_RECORDS) is kept', async () => {
    const table = await newTable([{ name: 'n', type: 'integer' }]);
    const refused = await t.call('POST', `/api/data_tables/${table.id}/records/batch`, {
      body: { records: [{ n: 1 }, { n: 'x' }] },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.ok(refused.body.errors['records[1].n']);
    assert.equal(await count(table.id), 0);
    const four = await t.call('POST', `/api/data_tables/${table.id}/records/batch`, {
      body: { records: [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }] },
    });
    assert.equal(four.status, 200, four.text);
    const tooMany = await t.call('POST', `/api/data_tables/${table.id}/records/batch`, {
      body: { records: [{ n: 5 }, { n: 6 }] },
    });
    assert.equal(tooMany.status, 400, tooMany.text);
    assert.equal(tooMany.body.message, 'Data table is full: it holds the maximum of 5 records');
    assert.equal(
      (await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data: { n: 5 } } })).status,
      200,
    );
    assert.equal(
      (await t.call('POST', `/api/data_tables/${table.id}/records`, { body: { data: { n: 6 } } })).status,
      400,
    );
    assert.equal(await count(table.id), 5);
    const trunc = await t.call('POST', `/api/data_tables/${table.id}/truncate`);
    assert.deepEqual(trunc.body, { success: true, deleted_count: 5 });
    assert.equal(await count(table.id), 0);
    const empty = await t.call('POST', `/api/data_tables/${table.id}/records/batch`, { body: { records: [] } });
    assert.equal(empty.status, 400, empty.text);
  });

  test('a record of another table is a 404; a body over the limit is a 413', async () => {
    const a = await newTable();
    const b = await newTable();
    const rec = await t.call('POST', `/api/data_tables/${a.id}/records`, { body: { data: { email: 'a' } } });
    assert.equal((await t.call('GET', `/api/data_tables/${b.id}/records/${rec.body.data.record_id}`)).status, 404);
    assert.equal(
      (
        await t.call('PUT', `/api/data_tables/${b.id}/records/${rec.body.data.record_id}`, {
          body: { data: { email: 'b' } },
        })
      ).status,
      404,
    );
    const huge = await t.call('POST', `/api/data_tables/${a.id}/records`, {
      raw: JSON.stringify({ data: { email: 'x'.repeat(2 * 1024 * 1024) } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413, huge.text.slice(0, 200));
    assert.equal(await count(a.id), 1);
  });
});

describe('upserts of the same value at once', () => {
  test('one record is added, the others update it (queries interleaved as on a networked database)', async () => {
    const app = await createTestApp({ interleaveQueries: true });
    try {
      const res = await app.call('POST', '/api/data_tables', {
        body: {
          name: 'Upserts',
          schema: [
            { name: 'key', type: 'string' },
            { name: 'n', type: 'integer' },
          ],
        },
      });
      const table = res.body.data;
      const env = await app.ctx.db
        .selectFrom('data_tables')
        .select('environment_id')
        .where('id', '=', table.id)
        .executeTakeFirstOrThrow();
      const scope = {
        workspaceId: app.workspaceId,
        environmentId: env.environment_id,
        allFolders: true,
        folderIds: [],
      };
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((n) => upsertRecord(app.ctx, scope, table.id, 'key', { key: 'same', n })),
      );
      assert.equal(results.filter((r) => r.created).length, 1);
      const records = await app.call('GET', `/api/data_tables/${table.id}/records`);
      assert.equal(records.body.data.length, 1);
      assert.equal((await app.call('GET', `/api/data_tables/${table.id}`)).body.data.record_count, 1);
    } finally {
      await app.close();
    }
  });
});
