// Start-up with running recipes: the engine starts (and the server answers) before the triggers of
// the running recipes are armed, which happens in the background; a webhook meanwhile is stored
// and run (webhooks need no arming); a recipe stopped meanwhile is not armed from the page read
// before its stop; the first polls of a restart spread over one poll interval.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { createRecipe, log, numbered, startRecipe, webhookRecipe } from '../../test/recipes.ts';
import { createEngine } from './engine.ts';
import { firstPollDelay } from './polls.ts';

let t: TestApp;
let upstream: Server;
let upstreamUrl: string;
/** The recipes whose poll reached the upstream (by the `r` query parameter). */
const polled: string[] = [];

before(async () => {
  upstream = createServer((req, res) => {
    polled.push(new URL(req.url ?? '/', 'http://x').searchParams.get('r') ?? '');
    res.setHeader('content-type', 'application/json');
    res.end('[]');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/items`;
  // On PostgreSQL a poll is a turn held for the interval (polls.ts): the same short interval for both engines.
  t = await createTestApp({ engine: { triggerPollMs: 400 } });
});
after(async () => {
  await t.close();
  await new Promise((resolve) => upstream.close(resolve));
});

const pollRecipe = (marker: string) =>
  numbered({
    keyword: 'trigger',
    provider: 'rest',
    name: 'new_poll_event',
    as: 'poll',
    input: { request: { method: 'GET', url: `${upstreamUrl}?r=${marker}` }, cursor_field: 'id' },
    block: [log('seen', 'record')],
  });

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('engine start with running recipes', () => {
  test('answers before arming; a webhook meanwhile is a job; a recipe stopped meanwhile stays unarmed', async () => {
    const { id: hookId, path } = await webhookRecipe(t, [log('seen', 'event')]);
    const kept = await createRecipe(t, pollRecipe('kept'));
    const stopped = await createRecipe(t, pollRecipe('stopped'));
    await startRecipe(t, kept);
    await startRecipe(t, stopped);
    await until('both recipes polled once at their start', () => polled.includes('kept') && polled.includes('stopped'));
    // The server restarts: the app's engine stops, a new one starts on the same database.
    await t.engine.close();
    polled.length = 0;

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const engine = createEngine(t.ctx, { pollMs: 50, triggerPollMs: 400, armAfter: gate });
    try {
      // Started while the arming is held: start does not wait for it.
      await engine.start();
      const key = path.split('/')[3]!;
      const outcome = await engine.receiveWebhook(key, { payload: { n: 1 } });
      assert.equal(outcome.status, 200);
      const handle = outcome.status === 200 ? outcome.jobId : null;
      assert.ok(handle);
      const stored = await t.ctx.db
        .selectFrom('jobs')
        .select(['recipe_id'])
        .where('handle', '=', handle)
        .executeTakeFirst();
      assert.equal(stored?.recipe_id, hookId);

      // Stopped before its trigger was armed (the page of running recipes may already be read).
      await t.ctx.db.updateTable('recipes').set({ running: 0 }).where('id', '=', stopped).execute();
      engine.recipeStopped(stopped);
      assert.equal(polled.length, 0, 'nothing polls before the triggers are armed');

      release();
      await engine.armed();
      await until('the running recipe polls within one interval of its arming', () => polled.includes('kept'));
      assert.equal(await engine.pollNow(kept), true);
      await engine.idle();
      const job = await t.ctx.db.selectFrom('jobs').select(['status']).where('handle', '=', handle).executeTakeFirst();
      assert.equal(job?.status, 'succeeded');
      assert.ok(!polled.includes('stopped'), 'the stopped recipe is not armed');
    } finally {
      release();
      await engine.close();
    }
  });
});

describe('firstPollDelay', () => {
  test('spreads consecutive recipes evenly over the interval, the same at every restart', () => {
    const interval = 300_000;
    const tenths = Array<number>(10).fill(0);
    for (let id = 1; id <= 3000; id++) {
      const delay = firstPollDelay(id, interval);
      assert.ok(delay >= 0 && delay < interval, `${delay}`);
      tenths[Math.floor(delay / (interval / 10))]!++;
    }
    for (const count of tenths) assert.ok(count > 240 && count < 360, `${tenths.join(', ')}`);
    assert.equal(firstPollDelay(42, interval), firstPollDelay(42, interval));
    assert.equal(firstPollDelay(7, 1), 0);
  });
});
