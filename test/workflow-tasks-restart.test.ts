// A job waiting for a workflow task survives a crash: a real server process is killed with
// SIGKILL while the job waits, started again on the same data directory, the task is completed,
// and the job goes on from the task (the step before it is not run again).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

const TOKEN = 'wrkdev-tasksrestart0123456789abcdef0123456789abcd';
let hits = 0;
const upstream = createServer((req, res) => {
  hits++;
  req.resume();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ hit: hits }));
});
after(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a job waiting for a task resumes after SIGKILL and a restart once the task is completed', async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/hit`;
  const dataDir = tempDir('sb-tasks-');
  const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN };
  const first = await startServer(dataDir, env);
  const pill = (line: string, ...path: string[]) =>
    `_dp('${JSON.stringify({ pill_type: 'output', provider: line === 'review' ? 'workato_workflow_task' : 'rest', line, path })}')`;
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
        provider: 'rest',
        name: 'make_request_v2',
        as: 'call',
        input: { request: { method: 'GET', url } },
      },
      {
        number: 2,
        keyword: 'action',
        provider: 'workato_workflow_task',
        name: 'human_review_on_existing_record',
        as: 'review',
        input: { name: 'Approve', email: 'ana@example.com' },
      },
      {
        number: 3,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'after',
        input: { message: `#{${pill('review', 'status')}} after hit #{${pill('call', 'body', 'hit')}}` },
      },
    ],
  };
  const created = await api(first.baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: 'Review', code: JSON.stringify(code) },
  });
  const id: number = created.body.id;
  assert.deepEqual((await api(first.baseUrl, 'PUT', `/api/recipes/${id}/start`, TOKEN)).body, { success: true });
  const hook = new URL((await api(first.baseUrl, 'GET', `/api/recipes/${id}`, TOKEN)).body.webhook_url).pathname;
  assert.equal(
    (await fetch(first.baseUrl + hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
      .status,
    200,
  );
  const task = await until('the job stops at the task', async () => {
    const items = (await api(first.baseUrl, 'GET', `/api/workflow_tasks?recipe_id=${id}&status=open`, TOKEN)).body
      .items;
    return items.length === 1 ? items[0] : undefined;
  });
  assert.equal(hits, 1);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await startServer(dataDir, env);
  const pending = await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs`, TOKEN);
  assert.equal(pending.body.items[0].status, 'pending', 'the waiting job is not marked interrupted');
  const done = await api(second.baseUrl, 'POST', `/api/workflow_tasks/${task.id}/complete`, TOKEN, {
    status: 'approved',
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  const job = await until('the job ends', async () => {
    const items = (await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs`, TOKEN)).body.items;
    return items[0].status === 'pending' ? undefined : items[0];
  });
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  assert.equal(hits, 1, 'the step before the task did not run again');
  const detail = await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs/${job.id}`, TOKEN);
  assert.deepEqual(
    detail.body.lines.map((l: { recipe_line_number: number }) => l.recipe_line_number),
    [0, 1, 2, 3],
  );
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
