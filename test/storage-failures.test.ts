// A full database and a read-only one, on the server's own connection: writes answer 503 in each
// reply shape (never 500, never a stack trace), the writes that shared a commit with a failing one
// answer 503 too and are not stored, reads go on, GET /ready says why, and the server takes writes
// again as soon as the storage does, without a restart. SQLite's page limit (PRAGMA max_page_count)
// makes the database really full (SQLITE_FULL); PRAGMA query_only makes every write fail as on a
// read-only file (SQLITE_READONLY). test/disk-full-process.test.ts fills a real disk.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { storageFailureOf } from '../src/db/dialect.ts';
import { createTestApp, tempDir, type TestApp } from './helpers.ts';
import { action, webhookTrigger } from './recipes.ts';

let t: TestApp;
let tableId: number;
let hookPath: string;
let topicId: number;
before(async () => {
  t = await createTestApp({ database: { file: path.join(tempDir('sb-storage-'), 'switchboard.sqlite') } });
  const table = await t.call('POST', '/api/lookup_tables', {
    body: { name: 'Orders', schema: [{ label: 'code' }, { label: 'note' }] },
  });
  assert.equal(table.status, 200, table.text);
  tableId = table.body.id;
  const code = webhookTrigger([action('logger', 'log_message', 'log', { message: 'order' })]);
  const recipe = await t.call('POST', '/api/recipes', {
    body: { recipe: { name: 'Orders hook', code: JSON.stringify(code) } },
  });
  assert.equal(recipe.status, 200, recipe.text);
  assert.equal((await t.call('PUT', `/api/recipes/${recipe.body.id}/start`)).body.success, true);
  hookPath = new URL((await t.call('GET', `/api/recipes/${recipe.body.id}`)).body.webhook_url).pathname;
  const topic = await t.call('POST', '/api/event_streams/topics', {
    body: { name: 'Orders', schema: [{ name: 'note', type: 'string' }] },
  });
  assert.equal(topic.status, 200, topic.text);
  topicId = topic.body.data.id;
  assert.equal((await t.call('POST', `/api/v1/topics/${topicId}/publish`, { body: { note: 'before' } })).status, 200);
});
after(() => t.close());

/** A row bigger than a page (4 KiB): adding it needs new pages. */
const bigRow = (code: string) => ({ data: { code, note: 'n'.repeat(6000) } });

async function pragma(text: string): Promise<void> {
  await sql.raw(`PRAGMA ${text}`).execute(t.ctx.db);
}

async function rowCodes(): Promise<string[]> {
  const rows = await t.call('GET', `/api/lookup_tables/${tableId}/rows?per_page=1000`);
  assert.equal(rows.status, 200, rows.text);
  return (rows.body as Array<{ data: { code: string } }>).map((r) => r.data.code).sort();
}

/** The database may grow no further: no free page left, and the page limit at its size. */
async function fillDatabase(): Promise<void> {
  await pragma('wal_checkpoint(TRUNCATE)');
  await sql`VACUUM`.execute(t.ctx.db);
  const { page_count: pages } = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(t.ctx.db)).rows[0]!;
  await pragma(`max_page_count = ${pages}`);
}

describe('a full database (SQLITE_FULL)', () => {
  test('writes answer 503 in the error shape, all writes of the failing commit too; reads go on; /ready says why', async () => {
    assert.equal((await t.call('POST', `/api/lookup_tables/${tableId}/rows`, { body: bigRow('before') })).status, 200);
    await fillDatabase();

    // Concurrent adds share group commits: none is acknowledged, each answers 503.
    const adds = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.call('POST', `/api/lookup_tables/${tableId}/rows`, { body: bigRow(`full-${i}`) }),
      ),
    );
    for (const res of adds) {
      assert.equal(res.status, 503, res.text);
      assert.deepEqual(res.body, { message: 'Storage unavailable: the disk is full; try again later' });
      assert.equal(res.headers['retry-after'], '5');
    }
    assert.deepEqual(await rowCodes(), ['before'], 'what was acknowledged is there, nothing refused was stored');

    // A publish commits in a transaction of the event streams publisher, not the group commit.
    const published = await t.call('POST', `/api/v1/topics/${topicId}/publish`, { body: { note: 'n'.repeat(20_000) } });
    assert.equal(published.status, 503, published.text);
    assert.deepEqual(published.body, { message: 'Storage unavailable: the disk is full; try again later' });
    assert.doesNotMatch(published.text, /SQLITE|database or disk|at /);
    const consumed = await t.call('POST', `/api/v1/topics/${topicId}/consume`, { body: {} });
    assert.equal(consumed.status, 200, consumed.text);
    assert.deepEqual(
      consumed.body.messages.map((m: { payload: unknown }) => m.payload),
      [{ note: 'before' }],
    );

    const hook = await t.call('POST', hookPath, { token: null, body: { id: 'A-1', note: 'n'.repeat(8000) } });
    assert.equal(hook.status, 503, hook.text);
    assert.deepEqual(hook.body, { error: 'Service unavailable; try again later' });
    assert.equal(hook.headers['retry-after'], '5');

    const ready = await t.call('GET', '/ready', { token: null });
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, 'not_ready');
    assert.match(
      ready.body.message,
      /^storage unavailable since \S+Z: the disk is full; writes answer 503, reads go on$/,
    );
    assert.equal((await t.call('GET', '/health', { token: null })).status, 200);
    assert.equal((await t.call('GET', '/api/lookup_tables')).status, 200);
  });

  test('space returns: /ready is ready again and writes are acknowledged, without a restart', async () => {
    await pragma('max_page_count = 1073741823');
    const ready = await t.call('GET', '/ready', { token: null });
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual(ready.body, { status: 'ready' });
    const add = await t.call('POST', `/api/lookup_tables/${tableId}/rows`, { body: bigRow('after') });
    assert.equal(add.status, 200, add.text);
    assert.deepEqual(await rowCodes(), ['after', 'before']);
    assert.equal((await t.call('POST', hookPath, { token: null, body: { id: 'A-2' } })).status, 200);
  });
});

describe('a read-only database (SQLITE_READONLY)', () => {
  test('writes answer 503 saying so, reads go on, /ready says why; writable again, everything is back', async () => {
    await pragma('query_only = ON');
    try {
      const add = await t.call('POST', `/api/lookup_tables/${tableId}/rows`, { body: { data: { code: 'ro' } } });
      assert.equal(add.status, 503, add.text);
      assert.deepEqual(add.body, { message: 'Storage unavailable: the data directory is read-only; try again later' });
      const publish = await t.call('POST', `/api/v1/topics/${topicId}/publish`, { body: { note: 'read-only' } });
      assert.equal(publish.status, 503, publish.text);
      assert.equal((await t.call('POST', `/api/v1/topics/${topicId}/consume`, { body: {} })).status, 200);
      assert.deepEqual(await rowCodes(), ['after', 'before']);
      const ready = await t.call('GET', '/ready', { token: null });
      assert.equal(ready.status, 503);
      assert.match(ready.body.message, /the data directory is read-only/);
    } finally {
      await pragma('query_only = OFF');
    }
    assert.equal((await t.call('GET', '/ready', { token: null })).status, 200);
    assert.equal(
      (await t.call('POST', `/api/lookup_tables/${tableId}/rows`, { body: { data: { code: 'rw' } } })).status,
      200,
    );
  });
});

describe('storageFailureOf', () => {
  const sqliteError = (errcode: number) => Object.assign(new Error('any text'), { code: 'ERR_SQLITE_ERROR', errcode });
  test("tells storage failures by the driver's result code (extended codes included) and the system's error code", () => {
    assert.equal(storageFailureOf(sqliteError(13)), 'full');
    assert.equal(storageFailureOf(sqliteError(8)), 'read_only');
    assert.equal(storageFailureOf(sqliteError(8 | (3 << 8))), 'read_only', 'SQLITE_READONLY_ROLLBACK');
    assert.equal(storageFailureOf(sqliteError(10 | (4 << 8))), 'io_error', 'SQLITE_IOERR_WRITE');
    assert.equal(storageFailureOf(sqliteError(14)), 'cannot_open');
    assert.equal(storageFailureOf(Object.assign(new Error('x'), { code: 'ENOSPC' })), 'full');
    assert.equal(storageFailureOf(Object.assign(new Error('x'), { code: 'EROFS' })), 'read_only');
  });

  test('anything else is not one, whatever its message says', () => {
    assert.equal(storageFailureOf(sqliteError(2067)), undefined, 'a UNIQUE violation');
    assert.equal(storageFailureOf(sqliteError(3082)), undefined, 'SQLITE_IOERR_NOMEM: memory, not the disk');
    assert.equal(storageFailureOf(new Error('database or disk is full')), undefined);
    assert.equal(storageFailureOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), undefined);
    assert.equal(storageFailureOf('ENOSPC'), undefined);
  });
});

describe('a job whose end cannot be stored', () => {
  test('is stored once the storage takes writes again: it ends succeeded, not left running', async () => {
    const code = webhookTrigger(
      [
        action('clock', 'wait_for_interval', 'pause', { interval: '0.3' }),
        action('logger', 'log_message', 'log', { message: 'slow order' }),
      ],
      { input: { webhook_suffix: 'slow' } },
    );
    const recipe = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Slow orders', code: JSON.stringify(code) } },
    });
    assert.equal((await t.call('PUT', `/api/recipes/${recipe.body.id}/start`)).body.success, true);
    const hook = new URL((await t.call('GET', `/api/recipes/${recipe.body.id}`)).body.webhook_url).pathname;
    assert.equal((await t.call('POST', hook, { token: null, body: { id: 'S-1' } })).status, 200);
    // The stored state, which the API shows as pending until the job ends: queued, then running (claimed).
    const job = async () =>
      t.ctx.db.selectFrom('jobs').select('status').where('recipe_id', '=', recipe.body.id).executeTakeFirst();
    const until = async (status: string) => {
      const deadline = Date.now() + 5000;
      while ((await job())?.status !== status) {
        assert.ok(Date.now() < deadline, `the job is ${status} within 5 s (it is ${(await job())?.status})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until('running');
    await pragma('query_only = ON');
    try {
      // The wait step ends and the job's end is refused at least once.
      await new Promise((r) => setTimeout(r, 1200));
      assert.equal((await job())?.status, 'running');
    } finally {
      await pragma('query_only = OFF');
    }
    await until('succeeded');
  });
});
