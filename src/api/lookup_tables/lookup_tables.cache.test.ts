// Remembered tables (lookup_tables.cache.ts): a recipe's lookup, and the API's, never serve a table
// deleted, renamed, re-schemed or moved since it was remembered; whether the change was announced
// (the notifier) or not yet (another node's notification still on its way, played here by a
// change written straight to the database).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createServiceContext, type ServiceContext } from '../../context.ts';
import { createPgNotifier, type PgNotifier } from '../../db/pg-notifier.ts';
import { createInProcessNotifier } from '../../notifier.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, fire, pill, webhookRecipe } from '../../../test/recipes.ts';
import { postgresOnly, TEST_DATABASE_URL } from '../../../test/test-database.ts';
import { createTable, deleteTables, findFirstMatchingRowByRef, findTableByRef } from './lookup_tables.service.ts';
import type { TableScope } from './lookup_tables.store.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

let counter = 0;
async function newTable(
  labels: string[],
  rows: Array<Record<string, unknown>>,
  project?: number,
): Promise<{ id: number; name: string }> {
  const name = `Remembered ${++counter}`;
  const res = await t.call('POST', '/api/lookup_tables', {
    body: { name, schema: labels.map((label) => ({ label })), ...(project ? { project_id: project } : {}) },
  });
  assert.equal(res.status, 200, res.text);
  for (const data of rows)
    assert.equal((await t.call('POST', `/api/lookup_tables/${res.body.id}/rows`, { body: { data } })).status, 200);
  return { id: res.body.id as number, name };
}

/** A change another node made, whose notification has not arrived: written to the database, announced to no one. */
async function changeUnannounced(
  id: number,
  values: { name?: string; columns?: string[]; project_id?: number | null },
): Promise<void> {
  await t.ctx.db
    .updateTable('lookup_tables')
    .set({
      ...(values.name !== undefined ? { name: values.name, name_key: values.name.toLowerCase() } : {}),
      ...(values.columns !== undefined ? { columns: JSON.stringify(values.columns) } : {}),
      ...(values.project_id !== undefined ? { project_id: values.project_id } : {}),
    })
    .where('id', '=', id)
    .execute();
}

const getEntry = (ref: unknown, parameters: Record<string, unknown>) =>
  action('lookup_table', 'get_entry', 'one', { lookup_table_id: ref, parameters });

describe('a recipe lookup in a table changed after a first lookup', () => {
  test('deleted through the API: the next lookup fails Not found', async () => {
    const table = await newTable(['code', 'country'], [{ code: 'CZ', country: 'Czechia' }]);
    const { path } = await webhookRecipe(t, [
      getEntry(table.name, { code: pill('workato_webhooks', 'hook', 'payload', 'code') }),
    ]);
    const first = await fire(t, path, { code: 'CZ' });
    assert.equal(first.status, 'succeeded', first.error ?? '');
    assert.deepEqual(first.output(1), {
      id: (first.output(1) as { id: number }).id,
      entry: { col1: 'CZ', col2: 'Czechia' },
    });
    assert.equal((await t.call('POST', '/api/lookup_tables/batch_delete', { body: { ids: [table.id] } })).status, 200);
    const second = await fire(t, path, { code: 'CZ' });
    assert.equal(second.status, 'failed');
    assert.equal(second.errorType, 'Not found');
  });

  test('re-schemed and renamed without a notification: the lookup reads the table again', async () => {
    const table = await newTable(['code', 'country'], [{ code: 'CZ', country: 'Czechia' }]);
    const byName = await webhookRecipe(t, [getEntry(table.name, { code: 'CZ' })]);
    const formula = await webhookRecipe(t, [
      action('logger', 'log_message', 'l', { message: `=lookup('${table.name}', 'code' => 'CZ')` }),
    ]);
    assert.equal((await fire(t, byName.path, {})).status, 'succeeded');
    assert.equal((await fire(t, formula.path, {})).status, 'succeeded');

    await changeUnannounced(table.id, { columns: ['iso', 'country'] });
    const reschemed = await fire(t, byName.path, {});
    assert.equal(reschemed.status, 'failed', 'the column "code" is gone');
    assert.match(reschemed.lines.find((l) => l.n === 1)?.error ?? '', /code/);
    const byNewLabel = await fire(t, (await webhookRecipe(t, [getEntry(table.name, { iso: 'CZ' })])).path, {});
    assert.equal(byNewLabel.status, 'succeeded', byNewLabel.error ?? '');
    assert.deepEqual((byNewLabel.output(1) as { entry: unknown }).entry, { col1: 'CZ', col2: 'Czechia' });

    await changeUnannounced(table.id, { name: `${table.name} renamed` });
    const oldName = await fire(t, byName.path, {});
    assert.equal(oldName.status, 'failed');
    assert.equal(oldName.errorType, 'Not found');
    const oldFormula = await fire(t, formula.path, {});
    assert.equal(oldFormula.status, 'failed');
    const newName = await fire(
      t,
      (await webhookRecipe(t, [getEntry(`${table.name} renamed`, { iso: 'CZ' })])).path,
      {},
    );
    assert.equal(newName.status, 'succeeded', newName.error ?? '');
  });

  test('deleted without a notification: the next lookup fails Not found, also by id', async () => {
    const table = await newTable(['code'], [{ code: 'CZ' }]);
    const { path } = await webhookRecipe(t, [getEntry(String(table.id), { code: 'CZ' })]);
    assert.equal((await fire(t, path, {})).status, 'succeeded');
    await t.ctx.db
      .updateTable('lookup_tables')
      .set({ deleted_at: '2026-01-01T00:00:00.000Z', name_key: null })
      .where('id', '=', table.id)
      .execute();
    const job = await fire(t, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Not found');
  });
});

describe('GET /api/lookup_tables/:lookup_table_id/lookup by a client limited to a project', () => {
  test('a table moved out of its projects, or whose project is deleted, is a 404 at once', async () => {
    const inScope = await t.createProject('Remembered in scope');
    const other = await t.createProject('Remembered elsewhere');
    const client = await t.scopedClient([inScope.folderId]);
    const table = await newTable(['code'], [{ code: 'CZ' }], inScope.projectId);
    const lookup = () => t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`, { token: client.token });
    assert.equal((await lookup()).status, 200);
    await changeUnannounced(table.id, { project_id: other.projectId });
    assert.equal((await lookup()).status, 404, 'moved: out of reach');
    await changeUnannounced(table.id, { project_id: inScope.projectId });
    assert.equal((await lookup()).status, 200, 'back in reach');
    assert.equal((await t.call('DELETE', `/api/projects/${inScope.projectId}`)).status, 200);
    assert.equal(
      (await t.call('GET', `/api/lookup_tables/${table.id}/lookup?by[code]=CZ`)).status,
      404,
      'its project deleted',
    );
  });
});

describe('two nodes on one PostgreSQL database', { skip: postgresOnly('LISTEN/NOTIFY between two nodes') }, () => {
  const notifiers: PgNotifier[] = [];
  after(async () => {
    for (const n of notifiers) await n.close();
  });

  test("a table deleted or created on one node is seen by the other's lookups", async () => {
    const channel = `switchboard_lookup_${process.pid}`;
    const log = pino({ level: 'silent' });
    const node = async (): Promise<ServiceContext> => {
      const notifier = createPgNotifier({ connectionString: TEST_DATABASE_URL as string, log, channel });
      notifiers.push(notifier);
      await notifier.start();
      return createServiceContext({ db: t.ctx.db, config: t.ctx.config, secretBox: t.ctx.secretBox, log, notifier });
    };
    const a = await node();
    const b = await node();
    const env = await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev');
    const scope: TableScope = { workspaceId: t.workspaceId, environmentId: env!.id, allFolders: true, folderIds: [] };
    const table = await createTable(a, scope, { name: 'Across nodes', schema: [{ label: 'code' }] });
    // a's notification of the new table may reach b after b's first lookup (and make it forget): look up until b remembers.
    for (let tries = 0; tries < 100 && !b.lookupTables.byId(table.id); tries += 1) {
      const found = await findFirstMatchingRowByRef(
        b,
        (fresh) => findTableByRef(b, scope, 'Across nodes', true, fresh),
        { 'by[code]': 'CZ' },
      );
      assert.equal(found?.table.id, table.id);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(b.lookupTables.byId(table.id), 'b remembers the table');

    await deleteTables(a, scope, [table.id], 'ids');
    const deadline = Date.now() + 5000;
    while (b.lookupTables.byId(table.id) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(b.lookupTables.byId(table.id), undefined, "b forgot the table on a's notification");
    assert.equal(await findTableByRef(b, scope, 'Across nodes', true), undefined);

    // A node that never hears the other (its notifier is its own): the lookup's statement still refuses the deleted table.
    const deaf = createServiceContext({
      db: t.ctx.db,
      config: t.ctx.config,
      secretBox: t.ctx.secretBox,
      log,
      notifier: createInProcessNotifier(),
    });
    const again = await createTable(a, scope, { name: 'Across nodes', schema: [{ label: 'code' }] });
    assert.equal((await findTableByRef(deaf, scope, again.id, false))?.id, again.id);
    await deleteTables(a, scope, [again.id], 'ids');
    assert.equal(
      await findFirstMatchingRowByRef(deaf, (fresh) => findTableByRef(deaf, scope, again.id, false, fresh), {
        'by[code]': 'CZ',
      }),
      undefined,
    );
  });
});
