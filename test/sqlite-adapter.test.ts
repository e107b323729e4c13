// The node:sqlite adapter keeps prepared statements for reuse by their text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { adaptNodeSqlite } from '../src/db/sqlite-adapter.ts';

/** Rows come with a null prototype; compare their fields. */
const plain = (rows: unknown[]) => rows.map((row) => ({ ...(row as object) }));

function counting() {
  const real = new DatabaseSync(':memory:');
  const prepared: string[] = [];
  const database = {
    prepare: (text: string) => {
      prepared.push(text);
      return real.prepare(text);
    },
    close: () => real.close(),
  } as unknown as DatabaseSync;
  return { adapted: adaptNodeSqlite(database), prepared };
}

test('a statement is prepared once per text and reused with new parameters', () => {
  const { adapted, prepared } = counting();
  adapted.prepare('create table t (id integer primary key, v text)').run([]);
  const insert = 'insert into t (v) values (?)';
  for (const v of ['a', 'b', 'c']) adapted.prepare(insert).run([v]);
  const select = 'select v from t where id = ?';
  assert.deepEqual(plain(adapted.prepare(select).all([2])), [{ v: 'b' }]);
  assert.deepEqual(plain(adapted.prepare(select).all([3])), [{ v: 'c' }]);
  assert.equal(prepared.filter((s) => s === insert).length, 1);
  assert.equal(prepared.filter((s) => s === select).length, 1);
});

test('a cached statement still works after the schema changes', () => {
  const { adapted } = counting();
  adapted.prepare('create table t (id integer primary key, v text)').run([]);
  adapted.prepare('insert into t (v) values (?)').run(['a']);
  assert.deepEqual(plain(adapted.prepare('select * from t').all([])), [{ id: 1, v: 'a' }]);
  adapted.prepare('alter table t add column w text').run([]);
  assert.deepEqual(plain(adapted.prepare('select * from t').all([])), [{ id: 1, v: 'a', w: null }]);
});

test('the cache is bounded: the least recently used statement is prepared again', () => {
  const { adapted, prepared } = counting();
  const first = 'select 0 as n';
  adapted.prepare(first).all([]);
  for (let i = 1; i <= 500; i++) adapted.prepare(`select ${i} as n`).all([]);
  assert.deepEqual(plain(adapted.prepare(first).all([])), [{ n: 0 }]);
  assert.equal(prepared.filter((s) => s === first).length, 2);
});
