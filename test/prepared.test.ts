// Queries built once (src/db/prepared.ts): compiled on first use, then run with new values.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, SqliteDialect, sql, type Generated, type Selectable } from 'kysely';
import { prepareQuery } from '../src/db/prepared.ts';
import { adaptNodeSqlite } from '../src/db/sqlite-adapter.ts';

interface Db {
  items: { id: Generated<number>; name: string; size: number; note: string | null };
}

let db: Kysely<Db>;
/** Every statement SQLite was asked to prepare (the adapter prepares a text once and reuses it). */
const statements: string[] = [];

before(async () => {
  const real = new DatabaseSync(':memory:');
  const counted = {
    prepare: (text: string) => {
      statements.push(text);
      return real.prepare(text);
    },
    close: () => real.close(),
  } as unknown as DatabaseSync;
  db = new Kysely<Db>({ dialect: new SqliteDialect({ database: adaptNodeSqlite(counted) }) });
  await sql`create table items (id integer primary key, name text not null, size integer not null, note text)`.execute(
    db,
  );
});
after(() => db.destroy());

const insertItem = prepareQuery<{ name: string; size: number; note: string | null }, { id: number }, Db>((kdb, param) =>
  kdb
    .insertInto('items')
    .values({ name: param('name'), size: param('size'), note: param('note') })
    .returning('id'),
);

// A constant of the query (the 1 of size + 1), placeholders in where and set, one of them twice.
const grow = prepareQuery<{ name: string; min: number }, never, Db>((kdb, param) =>
  kdb
    .updateTable('items')
    .set((eb) => ({ size: eb('size', '+', 1), note: param('name') }))
    .where('name', '=', param('name'))
    .where('size', '>=', param('min')),
);

let byNameBuilt = 0;
const byName = prepareQuery<{ name: string }, Selectable<Db['items']>, Db>((kdb, param) => {
  byNameBuilt += 1;
  return kdb.selectFrom('items').selectAll().where('name', '=', param('name'));
});

test('each run binds its own values; the query is compiled once and its statement prepared once', async () => {
  const before = statements.length;
  const a = (await insertItem.execute(db, { name: 'a', size: 1, note: null })).rows[0];
  const b = (await insertItem.execute(db, { name: 'b', size: 5, note: 'x' })).rows[0];
  assert.ok(a && b && b.id > a.id);
  assert.deepEqual(
    { ...(await byName.execute(db, { name: 'b' })).rows[0] },
    { id: b.id, name: 'b', size: 5, note: 'x' },
  );
  assert.deepEqual(
    { ...(await byName.execute(db, { name: 'a' })).rows[0] },
    { id: a.id, name: 'a', size: 1, note: null },
  );
  assert.equal(statements.length - before, 2, 'one prepared statement for the insert, one for the select');
  assert.equal(byNameBuilt, 1, 'the query was built and compiled once');
});

test('constants of the query stay, a placeholder used twice gets its value twice, and affected rows are reported', async () => {
  await insertItem.execute(db, { name: 'c', size: 3, note: null });
  assert.equal(Number((await grow.execute(db, { name: 'c', min: 4 })).numAffectedRows), 0);
  assert.equal(Number((await grow.execute(db, { name: 'c', min: 3 })).numAffectedRows), 1);
  assert.deepEqual({ ...(await byName.execute(db, { name: 'c' })).rows[0] }, { id: 3, name: 'c', size: 4, note: 'c' });
});

test('runs inside a transaction, on its connection, with the same compiled query', async () => {
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await insertItem.execute(trx, { name: 'rolled back', size: 1, note: null });
      assert.equal((await byName.execute(trx, { name: 'rolled back' })).rows.length, 1);
      throw new Error('undo');
    }),
    /undo/,
  );
  assert.equal((await byName.execute(db, { name: 'rolled back' })).rows.length, 0);
  assert.equal(byNameBuilt, 1);
});

test('a placeholder that does not become a bound value is refused when the query is first compiled', async () => {
  const inlined = prepareQuery<{ name: string }, never, Db>((kdb, param) =>
    kdb.deleteFrom('items').where('name', '=', sql.lit(param('name'))),
  );
  await assert.rejects(inlined.execute(db, { name: 'a' }), /placeholder\(s\) name did not become bound values/);
  assert.equal((await byName.execute(db, { name: 'a' })).rows.length, 1, 'nothing ran');
});

test('bind: values read in place from structured parameters (rows of a multi-row insert)', async () => {
  type Rows = { rows: ReadonlyArray<{ name: string; size: number }> } & Record<string, unknown>;
  const insertTwo = prepareQuery<Rows, never, Db>(
    (kdb, param) =>
      kdb
        .insertInto('items')
        .values([0, 1].map((i) => ({ name: param(`${i}.name`) as string, size: param(`${i}.size`) as number }))),
    {
      bind: (name) => {
        const [i, column] = name.split('.') as [string, 'name' | 'size'];
        return (p) => p.rows[Number(i)]?.[column];
      },
    },
  );
  await insertTwo.execute(db, {
    rows: [
      { name: 'bound-1', size: 11 },
      { name: 'bound-2', size: 22 },
    ],
  });
  await insertTwo.execute(db, {
    rows: [
      { name: 'bound-3', size: 33 },
      { name: 'bound-4', size: 44 },
    ],
  });
  const rows = (
    await db.selectFrom('items').select(['name', 'size']).where('name', 'like', 'bound-%').orderBy('name').execute()
  ).map((row) => ({ ...row }));
  assert.deepEqual(rows, [
    { name: 'bound-1', size: 11 },
    { name: 'bound-2', size: 22 },
    { name: 'bound-3', size: 33 },
    { name: 'bound-4', size: 44 },
  ]);
});
