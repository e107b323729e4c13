// A graceful stop (SIGTERM) of a real server process with jobs running: they finish and are
// recorded before the database closes, so after a restart every job has succeeded (the queued ones
// run then) and none is reported Interrupted. A job that outlasts SHUTDOWN_TIMEOUT_MS is stopped at
// its wait and recorded as interrupted by the shutdown, not left running.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, openServerDatabase, startServer } from './process-helpers.ts';

const TOKEN = `wrkdev-graceful${'0'.repeat(49)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A webhook recipe: a log line, a wait of `seconds`, another log line. Started; its id and webhook URL. */
async function slowRecipe(baseUrl: string, seconds: string, concurrency: number) {
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [
      { number: 1, keyword: 'action', provider: 'logger', name: 'log_message', as: 'before', input: { message: 'a' } },
      {
        number: 2,
        keyword: 'action',
        provider: 'clock',
        name: 'wait_for_interval',
        as: 'pause',
        input: { interval: seconds },
      },
      { number: 3, keyword: 'action', provider: 'logger', name: 'log_message', as: 'after', input: { message: 'b' } },
    ],
  };
  const created = await api(baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: `Slow ${seconds}`, code: JSON.stringify(code), concurrency },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id: number = created.body.id;
  assert.deepEqual((await api(baseUrl, 'PUT', `/api/recipes/${id}/start`, TOKEN)).body, { success: true });
  const webhookUrl: string = (await api(baseUrl, 'GET', `/api/recipes/${id}`, TOKEN)).body.webhook_url;
  return { id, hookPath: new URL(webhookUrl).pathname };
}

async function runningJobs(dataDir: string, recipeId: number): Promise<number> {
  const db = await openServerDatabase(dataDir);
  try {
    const row = await db.get<{ n: number }>(
      "select count(*) as n from jobs where recipe_id = ? and status = 'running'",
      recipeId,
    );
    return Number(row?.n ?? 0);
  } finally {
    await db.close();
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(25);
  }
}

type Job = { id: string; status: string; error: string | null; lines_count?: number };

async function jobsOf(baseUrl: string, recipeId: number): Promise<Job[]> {
  const res = await api(baseUrl, 'GET', `/api/recipes/${recipeId}/jobs?per_page=100`, TOKEN);
  assert.equal(res.status, 200);
  return res.body.items as Job[];
}

describe('SIGTERM with jobs running', () => {
  test('the running jobs finish and are recorded before the server exits; after a restart every job succeeded', async () => {
    const dataDir = tempDir('sb-graceful-');
    const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN, SHUTDOWN_TIMEOUT_MS: '20000' };
    const first = await startServer(dataDir, env);
    const { id, hookPath } = await slowRecipe(first.baseUrl, '1.5', 4);
    // Four run at once (the concurrency), two wait queued.
    for (let n = 0; n < 6; n++) {
      const res = await fetch(first.baseUrl + hookPath, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      assert.equal(res.status, 200);
    }
    await until('four jobs running', async () => (await runningJobs(dataDir, id)) === 4);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    const errors = first
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":50'));
    assert.deepEqual(errors, [], 'no error logged while stopping');

    const second = await startServer(dataDir, env);
    try {
      await until('every job ended', async () =>
        (await jobsOf(second.baseUrl, id)).every((job) => job.status !== 'pending'),
      );
      const jobs = await jobsOf(second.baseUrl, id);
      assert.equal(jobs.length, 6);
      assert.deepEqual(
        jobs.map((job) => [job.status, job.error]),
        jobs.map(() => ['succeeded', null]),
        'every job succeeded: none interrupted by the stop',
      );
      for (const job of jobs) {
        const detail = await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs/${job.id}`, TOKEN);
        assert.equal(detail.status, 200);
        assert.equal(detail.body.lines.length, 4, 'the trigger and the three steps recorded');
      }
      const recipe = (await api(second.baseUrl, 'GET', `/api/recipes/${id}`, TOKEN)).body;
      assert.equal(recipe.job_succeeded_count, 6);
      assert.equal(recipe.job_failed_count, 0);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  test('a job that outlasts SHUTDOWN_TIMEOUT_MS is stopped at its wait and recorded as interrupted by the shutdown', async () => {
    const dataDir = tempDir('sb-graceful-');
    const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN, SHUTDOWN_TIMEOUT_MS: '500' };
    const first = await startServer(dataDir, env);
    const { id, hookPath } = await slowRecipe(first.baseUrl, '60', 1);
    const res = await fetch(first.baseUrl + hookPath, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 200);
    await until('the job running', async () => (await runningJobs(dataDir, id)) === 1);
    const signalled = Date.now();
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    assert.ok(Date.now() - signalled < 40_000, 'the stop did not wait for the 60 s step');
    // Recorded by the stopping server itself (nothing left running for the next start to find).
    assert.equal(await runningJobs(dataDir, id), 0);

    const second = await startServer(dataDir, env);
    try {
      const [job] = await jobsOf(second.baseUrl, id);
      assert.equal(job?.status, 'failed');
      assert.match(job?.error ?? '', /^Interrupted: the server is shutting down/);
      const detail = await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs/${job!.id}`, TOKEN);
      assert.deepEqual(
        detail.body.lines.map((line: { adapter_operation: string }) => line.adapter_operation),
        ['new_event', 'log_message', 'wait_for_interval'],
        'the steps that ran are recorded, up to the interrupted wait',
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
