// Webhook intake under a burst: concurrent webhooks are stored together (on PostgreSQL one insert
// statement for the rows arriving together, src/db/insert-batcher.ts; on SQLite the group commit),
// and a webhook is acknowledged only once its own job is stored. A storage failure while they are
// written acknowledges none of them and gives their backlog places back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { allowWrites, refuseWrites } from '../../test/test-database.ts';
import { action, pill, webhookRecipe } from '../../test/recipes.ts';

const BURST = 300;

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { JOB_BACKLOG_PER_RECIPE: String(BURST) } });
});
after(() => t.close());

const logStep = action('logger', 'log_message', 'log', { message: 'order' });
const burst = (path: string) =>
  Promise.all(Array.from({ length: BURST }, (_, n) => t.app.inject({ method: 'POST', url: path, payload: { n } })));
const storedPayloads = async (recipeId: number) =>
  (
    await t.ctx.db.selectFrom('jobs').select(['handle', 'trigger_output']).where('recipe_id', '=', recipeId).execute()
  ).map((row) => ({ handle: row.handle, n: (JSON.parse(row.trigger_output) as { payload: { n: number } }).payload.n }));

describe('POST /webhooks/rest/:key/:event in a burst', () => {
  test('every acknowledged webhook is exactly one stored job, and each queued job is stored under its handle', async () => {
    const { id, path } = await webhookRecipe(t, [logStep]);
    const queued: string[] = [];
    const off = t.engine.events.on('job.queued', (e) => {
      if (e.recipeId === id) queued.push(e.jobId);
    });
    try {
      const replies = await burst(path);
      assert.deepEqual(
        replies.map((r) => r.statusCode),
        Array(BURST).fill(200),
      );
      const stored = await storedPayloads(id);
      assert.deepEqual(
        stored.map((row) => row.n).sort((a, b) => a - b),
        Array.from({ length: BURST }, (_, n) => n),
      );
      assert.equal(queued.length, BURST);
      assert.deepEqual(new Set(queued), new Set(stored.map((row) => row.handle)));
    } finally {
      off();
    }
    await t.engine.idle();
    const done = await t.call('GET', `/api/recipes/${id}/jobs?status=succeeded`);
    assert.equal(done.body.job_scope_count, BURST);
  });

  test('the database refusing writes: every webhook of the burst answers 503 and none is stored; their places are given back', async () => {
    const { id, path } = await webhookRecipe(t, [logStep]);
    await refuseWrites(t.ctx.db);
    try {
      const replies = await burst(path);
      assert.deepEqual([...new Set(replies.map((r) => r.statusCode))], [503]);
      assert.deepEqual(replies[0]?.json(), { error: 'Service unavailable; try again later' });
    } finally {
      await allowWrites(t.ctx.db);
    }
    assert.deepEqual(await storedPayloads(id), []);
    // Writes are taken again once the server says it is ready (on PostgreSQL the test's switch back
    // cuts the pooled connections, which the pool replaces as they report it).
    for (let tries = 0; (await t.call('GET', '/ready', { token: null })).status !== 200; tries++) {
      assert.ok(tries < 100, 'ready again within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The backlog holds exactly BURST: a place kept by a refused webhook would turn one of these into a 429.
    const again = await burst(path);
    assert.deepEqual(
      again.map((r) => r.statusCode),
      Array(BURST).fill(200),
    );
    assert.equal((await storedPayloads(id)).length, BURST);
    await t.engine.idle();
  });
});

test('a payload holding NUL (which PostgreSQL’s text cannot hold) among a burst: every webhook acknowledged, its job’s title, error and lines kept with U+FFFD in its place, the GET of the job a 200', async () => {
  const reason = pill('workato_webhooks', 'hook', 'payload', 'reason');
  const { id, path } = await webhookRecipe(t, [
    action('logger', 'log_message', 'log', { message: `said ${reason}` }),
    { keyword: 'stop', input: { stop_with_error: 'true', stop_reason: reason } },
  ]);
  const reasons = Array.from({ length: 20 }, (_, n) => (n === 7 ? 'a\u0000b\u0000' : `r${n}`));
  const replies = await Promise.all(
    reasons.map((r) => t.app.inject({ method: 'POST', url: path, payload: { reason: r } })),
  );
  assert.deepEqual(
    replies.map((r) => r.statusCode),
    Array(reasons.length).fill(200),
  );
  await t.engine.idle();
  const jobs = await t.ctx.db
    .selectFrom('jobs')
    .select(['id', 'handle', 'title', 'error'])
    .where('recipe_id', '=', id)
    .execute();
  assert.equal(jobs.length, reasons.length);
  assert.deepEqual(jobs.map((row) => row.error).sort(), reasons.map((r) => r.replaceAll('\u0000', '\uFFFD')).sort());
  const job = jobs.find((row) => row.error?.startsWith('a'))!;
  assert.equal(job.error, 'a\uFFFDb\uFFFD');
  assert.match(job.title, /reason=a\uFFFDb\uFFFD/);
  const res = await t.call('GET', `/api/recipes/${id}/jobs/${job.handle}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.error, 'a\uFFFDb\uFFFD');
  const lines = res.body.lines as Array<{ recipe_line_number: number; error?: string }>;
  assert.equal(lines.at(-1)!.error, 'a\uFFFDb\uFFFD');
  // The step's output is JSON, in which a NUL is an escape: kept as it was.
  const logged = await t.ctx.db
    .selectFrom('job_line_rows')
    .select('output')
    .where('job_id', '=', job.id)
    .where('recipe_line_number', '=', 1)
    .executeTakeFirstOrThrow();
  assert.deepEqual(JSON.parse(logged.output!), { message: 'said a\u0000b\u0000' });
});
