// kill -9 during a burst of webhook calls: after a restart, every acknowledged event is exactly
// one job, no event is two jobs, and every job ends (interrupted ones as failed: docs/adr/0006).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { asAdmin, burstUntilKilled, openServerDatabase } from './process-helpers.ts';

const TOKEN = 'wrkdev-crashtest0123456789abcdef0123456789abcdef';
const { startServer, api } = asAdmin(TOKEN);

test('SIGKILL during a burst of webhook calls: every acknowledged event becomes exactly one job', async () => {
  const dataDir = tempDir('sb-burst-');
  const first = await startServer(dataDir);
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'clock',
        name: 'wait_for_interval',
        as: 'pause',
        input: { interval: '0.02' },
      },
      {
        number: 2,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'log',
        input: {
          message:
            'seq #{_dp(\'{"pill_type":"output","provider":"workato_webhooks","line":"hook","path":["payload","seq"]}\')}',
        },
      },
    ],
  };
  const created = await api(first.base, 'POST', '/api/recipes', {
    recipe: { name: 'Burst', code: JSON.stringify(code), concurrency: 4 },
  });
  const id: number = created.body.id;
  assert.deepEqual((await api(first.base, 'PUT', `/api/recipes/${id}/start`)).body, { success: true });
  const hook = new URL((await api(first.base, 'GET', `/api/recipes/${id}`)).body.webhook_url).pathname;

  const acknowledged = await burstUntilKilled(first.child, async (seq) => {
    const res = await fetch(first.base + hook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seq }),
    });
    return res.status === 200 && ((await res.json()) as { status: string }).status === 'ok';
  });
  assert.equal(await first.exited, null, 'killed');
  assert.ok(acknowledged.size >= 150);

  const second = await startServer(dataDir);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pending = await api(second.base, 'GET', `/api/recipes/${id}/jobs?status=pending&per_page=1`);
    if (pending.body.job_scope_count === 0) break;
    assert.ok(Date.now() < deadline, 'jobs finished after the restart');
    await new Promise((r) => setTimeout(r, 100));
  }
  const recipe = (await api(second.base, 'GET', `/api/recipes/${id}`)).body;
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);

  const db = await openServerDatabase(dataDir);
  const rows = (await db.all('select trigger_output, status, error_parts from jobs where recipe_id = ?', id)) as Array<{
    trigger_output: string;
    status: string;
    error_parts: string | null;
  }>;
  await db.close();
  const count = new Map<number, number>();
  for (const row of rows) {
    const seq = (JSON.parse(row.trigger_output) as { payload: { seq: number } }).payload.seq;
    count.set(seq, (count.get(seq) ?? 0) + 1);
    assert.ok(
      row.status === 'succeeded' ||
        (row.status === 'failed' && JSON.parse(row.error_parts ?? '{}').error_type === 'Interrupted'),
      `job of ${seq} ended: ${row.status}`,
    );
  }
  const missing = [...acknowledged].filter((seq) => !count.has(seq));
  const doubled = [...count.entries()].filter(([, n]) => n > 1);
  assert.deepEqual(missing, [], 'every acknowledged event has its job');
  assert.deepEqual(doubled, [], 'no event has two jobs');
  assert.equal(recipe.job_succeeded_count + recipe.job_failed_count, rows.length, 'the counters match the jobs');
});
