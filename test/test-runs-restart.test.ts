// A run request cut off by SIGKILL is taken up again after the restart: it completes, with a
// result for every test case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, openServerDatabase, startServer } from './process-helpers.ts';

const TOKEN = 'wrkdev-testrestart0123456789abcdef0123456789abc';
const CASES = 300;

test('a run request interrupted by SIGKILL completes after the restart, every test case with its result', async () => {
  const dataDir = tempDir('sb-test-restart-');
  const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN };
  const first = await startServer(dataDir, env);
  const folder = await api(first.baseUrl, 'POST', '/api/folders', TOKEN, { name: 'Many cases' });
  const pill = `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', 'n'] })}')}`;
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
        provider: 'logger',
        name: 'log_message',
        as: 'say',
        input: { message: `n=${pill}` },
      },
    ],
  };
  const recipe = await api(first.baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: 'Counter', folder_id: folder.body.id, code: JSON.stringify(code) },
  });
  for (let n = 0; n < CASES; n += 1) {
    const res = await api(first.baseUrl, 'POST', `/api/recipes/${recipe.body.id}/test_cases`, TOKEN, {
      name: `n ${n}`,
      trigger_output: { payload: { n } },
      expectations: [{ step: 'say', output_path: ['message'], equals: `n=${n}` }],
    });
    assert.equal(res.status, 200);
  }
  const started = await api(first.baseUrl, 'POST', '/api/test_cases/run_requests', TOKEN, {
    recipe_id: recipe.body.id,
  });
  assert.equal(started.body.data.status, 'running');
  first.child.kill('SIGKILL');
  await first.exited;
  const restartedAt = new Date().toISOString();

  const second = await startServer(dataDir, env);
  let run = started.body.data;
  const deadline = Date.now() + 30_000;
  while (run.status !== 'completed') {
    assert.ok(Date.now() < deadline, 'the run request completes');
    await new Promise((resolve) => setTimeout(resolve, 50));
    run = (await api(second.baseUrl, 'GET', `/api/test_cases/run_requests/${started.body.data.id}`, TOKEN)).body.data;
  }
  assert.equal(run.results.length, CASES);
  assert.deepEqual(
    run.results.filter((r: { status: string }) => r.status !== 'succeeded'),
    [],
  );
  assert.equal(run.coverage.value, 100);
  second.child.kill('SIGTERM');
  await second.exited;
  const db = await openServerDatabase(dataDir);
  try {
    // The work went on after the restart: test jobs were made by the second server.
    const after = (await db.get(
      'SELECT count(*) AS n FROM jobs WHERE is_test = 1 AND created_at > ?',
      restartedAt,
    )) as { n: number };
    assert.ok(after.n > 0, 'test cases ran after the restart');
    // No job stays running; the recipe's production counters (its row and its appended counts) count none of them.
    assert.equal(
      ((await db.get("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')")) as { n: number }).n,
      0,
    );
    assert.deepEqual(
      {
        ...((await db.get(
          `SELECT cast(r.job_succeeded_count + coalesce(sum(c.succeeded), 0) AS integer) AS job_succeeded_count,
             cast(r.job_failed_count + coalesce(sum(c.failed), 0) AS integer) AS job_failed_count
           FROM recipes r LEFT JOIN recipe_job_counts c ON c.recipe_id = r.id WHERE r.id = ? GROUP BY r.id`,
          recipe.body.id,
        )) as object),
      },
      { job_succeeded_count: 0, job_failed_count: 0 },
    );
  } finally {
    await db.close();
  }
});
