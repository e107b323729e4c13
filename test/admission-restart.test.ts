// The backlog after a crash: the jobs left pending keep their places, because the counts are
// rebuilt from the jobs table on start (src/engine/README.md, Overload). A real server process,
// killed with SIGKILL and started again on the same data directory.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

const TOKEN = 'wrkdev-backlogtest0123456789abcdef0123456789abcde';
const held: ServerResponse[] = [];
let holding = true;
const upstream = createServer((req, res) => {
  req.resume();
  req.on('end', () => (holding ? held.push(res) : res.end('{}')));
});
after(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('after SIGKILL and a restart, the pending jobs still count against JOB_BACKLOG_PER_RECIPE', async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const work = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/work`;
  const dataDir = tempDir('sb-backlog-');
  const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN, JOB_BACKLOG_PER_RECIPE: '3' };
  const first = await startServer(dataDir, env);
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
        as: 'up',
        input: { request: { method: 'POST', url: work, content_type: 'json', body: { a: 1 } }, response: {} },
      },
    ],
  };
  const created = await api(first.baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: 'Held', code: JSON.stringify(code), concurrency: 1 },
  });
  const id: number = created.body.id;
  assert.deepEqual((await api(first.baseUrl, 'PUT', `/api/recipes/${id}/start`, TOKEN)).body, { success: true });
  const hook = new URL((await api(first.baseUrl, 'GET', `/api/recipes/${id}`, TOKEN)).body.webhook_url).pathname;
  const post = (base: string) =>
    fetch(base + hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  for (let n = 0; n < 3; n++) assert.equal((await post(first.baseUrl)).status, 200);
  assert.equal((await post(first.baseUrl)).status, 429);
  await until('the first job waits on the upstream', () => held.length === 1);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await startServer(dataDir, env);
  // The job that was running is failed as interrupted; of the two queued, one runs (and waits).
  await until('a queued job runs after the restart', () => held.length === 2);
  assert.equal((await post(second.baseUrl)).status, 200);
  const refused = await post(second.baseUrl);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.deepEqual(await refused.json(), { error: 'Too many jobs are waiting to run; retry later' });

  holding = false;
  for (let res = held.shift(); res; res = held.shift()) res.end('{}');
  const pending = async () =>
    (await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs?status=pending&per_page=1`, TOKEN)).body
      .job_scope_count as number;
  await until('the backlog drains', async () => (await pending()) === 0);
  assert.equal((await post(second.baseUrl)).status, 200);
  await until('the last job ends', async () => (await pending()) === 0);
  const jobs = (await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs`, TOKEN)).body;
  assert.equal(jobs.job_count, 5);
  assert.deepEqual(jobs.items.map((j: { status: string }) => j.status).sort(), [
    'failed',
    'succeeded',
    'succeeded',
    'succeeded',
    'succeeded',
  ]);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
