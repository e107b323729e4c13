// A recipe that loops for ever, in a real server process: while its job runs, the server answers
// /health within 100 ms and the API at once, and cancel_jobs ends the job (on PostgreSQL, sent to
// another node than the one running it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { databaseUrlFor, startServer, type Running } from './process-helpers.ts';
import { condition, dp, log, webhookTrigger } from './recipes.ts';
import { onPostgres } from './test-database.ts';

const TOKEN = `wrkdev-looping${'0'.repeat(50)}`;

/** An API call that gives up after 10 s: a server frozen by a job never answers. */
async function api(
  base: string,
  method: string,
  url: string,
  token: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a recipe looping for ever: /health answers within 100 ms while it runs, and cancel_jobs ends it', async (t) => {
  const dataDir = tempDir('sb-looping-');
  const env = {
    SWITCHBOARD_ADMIN_TOKEN: TOKEN,
    SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex'),
    JOB_MAX_STEPS: '1000000000',
  };
  const first = await startServer(dataDir, env);
  const servers: Running[] = [first];
  try {
    const always = { keyword: 'while_condition', input: condition('present', 'x') };
    const code = webhookTrigger([
      {
        keyword: 'repeat',
        as: 'outer',
        block: [
          {
            keyword: 'try',
            block: [
              {
                keyword: 'repeat',
                as: 'inner',
                block: [log('tick', `pass #{${dp('repeat', 'inner', 'index')}}`), always],
              },
              { keyword: 'catch', as: 'oops', input: {}, block: [] },
            ],
          },
          always,
        ],
      },
    ]);
    const created = await api(first.baseUrl, 'POST', '/api/recipes', TOKEN, {
      recipe: { name: 'For ever', code: JSON.stringify(code) },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id as number;
    assert.deepEqual((await api(first.baseUrl, 'PUT', `/api/recipes/${id}/start`, TOKEN)).body, { success: true });
    const recipe = await api(first.baseUrl, 'GET', `/api/recipes/${id}`, TOKEN);
    const hook = await fetch(first.baseUrl + new URL(recipe.body.webhook_url as string).pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(hook.status, 200);
    // The job has started once its first lines are there to read... its steps run, it has not ended.
    const handle = await until('the job runs', async () => {
      const jobs = await api(first.baseUrl, 'GET', `/api/recipes/${id}/jobs`, TOKEN);
      const job = jobs.body.items[0];
      return job?.status === 'pending' && job.is_error === false ? (job.id as string) : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));

    const took: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      const res = await fetch(`${first.baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
      took.push(performance.now() - started);
      assert.equal(res.status, 200);
      await res.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    took.sort((a, b) => a - b);
    const median = took[10] as number;
    t.diagnostic(`/health while the job looped: ${took.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    assert.ok(median < 100, `/health took ${took.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    assert.ok((took.at(-1) as number) < 1000, `/health took ${took.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    const still = await api(first.baseUrl, 'GET', `/api/recipes/${id}/jobs/${handle}`, TOKEN);
    assert.equal(still.body.status, 'pending', 'the job was still running while /health answered');

    // The cancel goes to another node when there are several (PostgreSQL): the one running the job ends it.
    let canceler = first;
    if (onPostgres) {
      canceler = await startServer(tempDir('sb-looping-b-'), {
        ...env,
        DATABASE_URL: await databaseUrlFor(dataDir),
        NODE_LEASE_MS: '5000',
      });
      servers.push(canceler);
    }
    const cancel = await api(canceler.baseUrl, 'POST', `/api/recipes/${id}/cancel_jobs`, TOKEN, {
      job_ids: [handle],
    });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    assert.equal(cancel.body.results[0].status, 'canceling');
    const ended = await until('the canceled job ends', async () => {
      const job = await api(first.baseUrl, 'GET', `/api/recipes/${id}/jobs/${handle}`, TOKEN);
      return job.body.status === 'pending' ? undefined : job.body;
    });
    assert.equal(ended.status, 'failed');
    assert.match(String(ended.error), /^Canceled/);
  } finally {
    // A server that does not stop within its shutdown time is killed (a frozen one would never exit).
    for (const server of servers.reverse()) {
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
      await server.exited;
      clearTimeout(timer);
    }
  }
});
