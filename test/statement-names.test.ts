// Named statements on PostgreSQL: a statement run often is prepared once per connection; one whose
// table changed under it runs again unnamed rather than failing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openPostgresUrl } from '../src/db/index.ts';
import { StatementNames } from '../src/db/postgres.ts';
import type { Database } from '../src/db/types.ts';
import { freshPostgresDatabase, postgresOnly, TEST_POOL_SETTINGS } from './test-database.ts';

describe('StatementNames', () => {
  test('a text is named at its third run, keeps its name, and short-lived or long texts stay unnamed', () => {
    const names = new StatementNames('t');
    assert.equal(names.nameOf('select 1'), undefined);
    assert.equal(names.nameOf('select 1'), undefined);
    const name = names.nameOf('select 1');
    assert.equal(name, 't_1');
    assert.equal(names.nameOf('select 1'), 't_1');
    assert.equal(names.nameOf('select 2'), undefined);
    const long = `select ${'1 + '.repeat(3000)}1`;
    for (let i = 0; i < 5; i++) assert.equal(names.nameOf(long), undefined);
  });

  test('a forgotten text runs unnamed from then on', () => {
    const names = new StatementNames('t');
    for (let i = 0; i < 3; i++) names.nameOf('select 3');
    names.forget('select 3');
    for (let i = 0; i < 5; i++) assert.equal(names.nameOf('select 3'), undefined);
  });
});

describe(
  'named statements on PostgreSQL',
  { skip: postgresOnly('prepared statements of a PostgreSQL connection') },
  () => {
    let db: Kysely<Database>;
    before(async () => {
      db = openPostgresUrl(await freshPostgresDatabase(), TEST_POOL_SETTINGS).db;
      await sql`create table notes (id int primary key, body text not null)`.execute(db);
      await sql`insert into notes values (1, 'one'), (2, 'two')`.execute(db);
    });
    after(() => db.destroy());

    test('a statement run often is prepared on the connection under a name, and gives the same rows', async () => {
      await db.connection().execute(async (conn) => {
        const results = [];
        for (let i = 0; i < 5; i++)
          results.push((await sql<{ body: string }>`select body from notes where id = ${2}`.execute(conn)).rows);
        assert.ok(results.every((rows) => rows.length === 1 && rows[0]!.body === 'two'));
        const prepared = (
          await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(
            conn,
          )
        ).rows;
        assert.ok(
          prepared.some((p) => p.statement === 'select body from notes where id = $1' && /^sb_\d+$/.test(p.name)),
          JSON.stringify(prepared),
        );
      });
    });

    test('a table changed under a prepared statement: the statement runs again unnamed and sees the new column', async () => {
      await db.connection().execute(async (conn) => {
        for (let i = 0; i < 4; i++) await sql`select * from notes where id = ${1}`.execute(conn);
        await sql`alter table notes add column extra text default 'x'`.execute(conn);
        const { rows } = await sql<{
          id: number;
          body: string;
          extra: string;
        }>`select * from notes where id = ${1}`.execute(conn);
        assert.deepEqual(rows, [{ id: 1, body: 'one', extra: 'x' }]);
      });
    });
  },
);
