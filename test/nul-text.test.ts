// A NUL character (U+0000) in text a client sends. PostgreSQL's text cannot hold one: there the
// request is a 400 in the contract's error shape (text_has_nul) and nothing is stored; SQLite
// stores the text and gives it back. Never a 500. A job's text is stored with U+FFFD in place of
// NUL on both (src/engine/intake.test.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runsStoredFunctions } from '../src/db/dialect.ts';
import { createTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
let postgres: boolean;
before(async () => {
  t = await createTestApp();
  postgres = runsStoredFunctions(t.ctx.db);
});
after(() => t.close());

const NUL_NAME = 'before\u0000after';
const code = JSON.stringify({ keyword: 'trigger', provider: 'clock', name: 'scheduled_event', input: {}, block: [] });

/** A 400 text_has_nul on PostgreSQL, a success holding the text on SQLite. */
async function refusedOnPostgres(
  res: { status: number; body: Record<string, unknown>; text: string },
  stored: () => unknown,
): Promise<void> {
  if (postgres) {
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body, { message: 'Text must not contain the NUL character (\\u0000)' });
  } else {
    assert.equal(res.status, 200, res.text);
    assert.equal(await stored(), NUL_NAME);
  }
}

test('a name holding NUL: refused on PostgreSQL with nothing stored, kept on SQLite, never a 500', async () => {
  const count = async (table: 'recipes' | 'connections' | 'lookup_tables' | 'event_topics') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const before = {
    recipes: await count('recipes'),
    connections: await count('connections'),
    lookup_tables: await count('lookup_tables'),
    topics: await count('event_topics'),
  };
  const recipe = await t.call('POST', '/api/recipes', { body: { recipe: { name: NUL_NAME, code } } });
  await refusedOnPostgres(recipe, async () => (await t.call('GET', `/api/recipes/${recipe.body.id}`)).body.name);
  const connection = await t.call('POST', '/api/connections', { body: { name: NUL_NAME, provider: 'http' } });
  await refusedOnPostgres(connection, () => connection.body.name);
  const table = await t.call('POST', '/api/lookup_tables', { body: { name: NUL_NAME, schema: [{ label: 'code' }] } });
  await refusedOnPostgres(table, () => table.body.name);
  const topic = await t.call('POST', '/api/event_streams/topics', { body: { name: NUL_NAME } });
  await refusedOnPostgres(topic, () => topic.body.data.name);
  const grew = postgres ? 0 : 1;
  assert.deepEqual(
    {
      recipes: await count('recipes'),
      connections: await count('connections'),
      lookup_tables: await count('lookup_tables'),
      topics: await count('event_topics'),
    },
    {
      recipes: before.recipes + grew,
      connections: before.connections + grew,
      lookup_tables: before.lookup_tables + grew,
      topics: before.topics + grew,
    },
  );
});

test('a lookup table row holding NUL, and a lookup by a value holding one (a query parameter): refused on PostgreSQL, kept and found on SQLite', async () => {
  const table = await t.call('POST', '/api/lookup_tables', { body: { name: 'Codes', schema: [{ label: 'code' }] } });
  assert.equal(table.status, 200, table.text);
  const row = await t.call('POST', `/api/lookup_tables/${table.body.id}/rows`, { body: { data: { code: NUL_NAME } } });
  await refusedOnPostgres(row, () => row.body.data.code);
  const lookup = await t.call(
    'GET',
    `/api/lookup_tables/${table.body.id}/lookup?by[code]=${encodeURIComponent(NUL_NAME)}`,
  );
  await refusedOnPostgres(lookup, () => lookup.body.data.code);
  const rows = await t.call('GET', `/api/lookup_tables/${table.body.id}/rows`);
  assert.equal(rows.status, 200);
  assert.equal(rows.body.length, postgres ? 0 : 1);
});
