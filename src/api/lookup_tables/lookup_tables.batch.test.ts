// Lookups of one table that arrive together (lookup_tables.batch.ts): each gets its own answer,
// one statement answers them where statements are round trips, and a statement never serves a
// table changed since it was remembered, nor a row older than the lookup.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { readsShareStatements } from '../../db/dialect.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createFirstRowLookups } from './lookup_tables.batch.ts';
import type { TableFacts } from './lookup_tables.cache.ts';
import { findFirstMatchingRowByRef, findTableByRef } from './lookup_tables.service.ts';
import { findFirstRowsOfRemembered, type TableScope } from './lookup_tables.store.ts';

let t: TestApp;
let scope: TableScope;
before(async () => {
  t = await createTestApp();
  const env = await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev');
  scope = { workspaceId: t.workspaceId, environmentId: env!.id, allFolders: true, folderIds: [] };
});
after(async () => {
  await t.close();
});

let counter = 0;
async function newTable(labels: string[], rows: Array<Record<string, unknown>>): Promise<TableFacts> {
  const res = await t.call('POST', '/api/lookup_tables', {
    body: { name: `Gathered ${++counter}`, schema: labels.map((label) => ({ label })) },
  });
  assert.equal(res.status, 200, res.text);
  for (const data of rows)
    assert.equal((await t.call('POST', `/api/lookup_tables/${res.body.id}/rows`, { body: { data } })).status, 200);
  const facts = await findTableByRef(t.ctx, scope, res.body.id as number, false);
  assert.ok(facts);
  return facts;
}

/** The handle with every statement it runs counted. */
function counted() {
  const seen = { statements: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    // Once per statement run (transformQuery also sees each subquery built on the handle).
    transformResult: async (args) => {
      seen.statements += 1;
      return args.result;
    },
  };
  return { db: t.ctx.db.withPlugin(plugin), seen };
}

describe('findFirstRowsOfRemembered', () => {
  test('answers each value with the first row holding it, in the order of the values', async () => {
    const table = await newTable(
      ['code', 'tier'],
      [
        { code: 'CZ', tier: 'gold' },
        { code: 'DE', tier: 'silver' },
        { code: 'CZ', tier: 'bronze' },
        { code: null, tier: 'blank' },
      ],
    );
    const found = await findFirstRowsOfRemembered(t.ctx.db, table, 'col1', ['DE', 'XX', 'CZ', '', 'DE', "it's"]);
    assert.notEqual(found, 'changed');
    const tiers = (found as Array<{ col2: string | null } | undefined>).map((row) => row?.col2);
    assert.deepEqual(tiers, ['silver', undefined, 'gold', 'blank', 'silver', undefined]);
  });

  test("'changed' when the table is no longer as remembered", async () => {
    const table = await newTable(['code'], [{ code: 'CZ' }]);
    await t.ctx.db
      .updateTable('lookup_tables')
      .set({ columns: JSON.stringify(['iso']) })
      .where('id', '=', table.id)
      .execute();
    assert.equal(await findFirstRowsOfRemembered(t.ctx.db, table, 'col1', ['CZ', 'DE']), 'changed');
  });
});

describe('lookups of one table arriving together', () => {
  test('each gets its own row; one statement answers them where statements are round trips', async () => {
    const table = await newTable(
      ['code', 'tier'],
      Array.from({ length: 10 }, (_, i) => ({ code: `C${i}`, tier: `t${i}` })),
    );
    const { db, seen } = counted();
    const lookups = createFirstRowLookups(db);
    const found = await Promise.all(Array.from({ length: 12 }, (_, i) => lookups.find(db, table, 'col1', `C${i}`)));
    assert.deepEqual(
      found.map((row) => (row === 'changed' ? row : row?.col2)),
      [...Array.from({ length: 10 }, (_, i) => `t${i}`), undefined, undefined],
    );
    assert.equal(seen.statements, readsShareStatements(t.ctx.db) ? 1 : 12);
  });

  test('a lookup in a transaction is a statement of its own in it, and sees its writes', async () => {
    const table = await newTable(['code', 'tier'], [{ code: 'CZ', tier: 'gold' }]);
    const lookups = createFirstRowLookups(t.ctx.db);
    await t.ctx.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('lookup_table_rows').set({ col2: 'changed' }).where('table_id', '=', table.id).execute();
        const row = await lookups.find(trx, table, 'col1', 'CZ');
        assert.equal(row === 'changed' ? row : row?.col2, 'changed');
        throw new Error('roll back');
      })
      .catch((error: unknown) => assert.equal((error as Error).message, 'roll back'));
  });

  test('a row written before a lookup is asked is what the lookup finds, whatever was asked beside it', async () => {
    const table = await newTable(['code', 'tier'], [{ code: 'CZ', tier: 'gold' }]);
    const lookup = (code: string) =>
      findFirstMatchingRowByRef(t.ctx, (fresh) => findTableByRef(t.ctx, scope, table.id, false, fresh), {
        'by[code]': code,
      });
    const before = lookup('CZ');
    // Another node's write, committed before the second lookup is asked.
    await t.ctx.db
      .updateTable('lookup_table_rows')
      .set({ col2: 'platinum' })
      .where('table_id', '=', table.id)
      .execute();
    const [first, second] = await Promise.all([before, lookup('CZ')]);
    assert.ok(first?.row && second?.row);
    assert.equal(second.row.data.tier, 'platinum');
  });

  test('a table re-schemed unannounced: every lookup of the statement reads the table again', async () => {
    const table = await newTable(['code', 'tier'], [{ code: 'CZ', tier: 'gold' }]);
    await t.ctx.db
      .updateTable('lookup_tables')
      .set({ columns: JSON.stringify(['code', 'level']) })
      .where('id', '=', table.id)
      .execute();
    const found = await Promise.all(
      [1, 2, 3].map(() =>
        findFirstMatchingRowByRef(t.ctx, (fresh) => findTableByRef(t.ctx, scope, table.id, false, fresh), {
          'by[code]': 'CZ',
        }),
      ),
    );
    for (const one of found) assert.deepEqual(one?.row?.data, { code: 'CZ', level: 'gold' });
  });
});
