// The cursor of a polling HTTP trigger survives a crash: a real server polls, is killed with
// SIGKILL, and on its next start polls again from the stored cursor (only newer records are jobs).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

const TOKEN = 'wrkdev-pollrestart0123456789abcdef0123456789abcde';
let records: Array<{ id: number }> = [];
const upstream = createServer((req, res) => {
  req.resume();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(records));
});
after(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

async function jobsOf(base: string, id: number, count: number): Promise<Array<{ title: string; status: string }>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = (await api(base, 'GET', `/api/recipes/${id}/jobs`, TOKEN)).body;
    if (body.items.length >= count && body.items.every((j: { status: string }) => j.status !== 'pending'))
      return body.items;
    assert.ok(Date.now() < deadline, `${count} jobs`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('after SIGKILL and a restart, a polling trigger goes on from its stored cursor', async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/records`;
  const dataDir = tempDir('sb-poll-');
  const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN, TRIGGER_POLL_SECONDS: '3600' };
  records = [{ id: 1 }, { id: 2 }];
  const first = await startServer(dataDir, env);
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'rest',
    name: 'new_poll_event',
    as: 'poll',
    input: { request: { url }, cursor_field: 'id' },
    block: [
      { number: 1, keyword: 'action', provider: 'logger', name: 'log_message', as: 'seen', input: { message: 'seen' } },
    ],
  };
  const id: number = (
    await api(first.baseUrl, 'POST', '/api/recipes', TOKEN, { recipe: { name: 'Poller', code: JSON.stringify(code) } })
  ).body.id;
  assert.deepEqual((await api(first.baseUrl, 'PUT', `/api/recipes/${id}/start`, TOKEN)).body, { success: true });
  assert.equal((await jobsOf(first.baseUrl, id, 2)).length, 2);
  first.child.kill('SIGKILL');
  await first.exited;

  records = [{ id: 1 }, { id: 2 }, { id: 3 }];
  const second = await startServer(dataDir, env);
  // On SQLite the restarted server polls at start. On PostgreSQL the poll's turn taken before the
  // kill holds for its interval (nodes poll once per interval together), so the test asks for the
  // poll, as an operator would: either way the poll reads from the stored cursor.
  assert.equal((await api(second.baseUrl, 'POST', `/api/recipes/${id}/poll_now`, TOKEN)).status, 200);
  const jobs = await jobsOf(second.baseUrl, id, 3);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(
    (await api(second.baseUrl, 'GET', `/api/recipes/${id}/jobs`, TOKEN)).body.items.length,
    3,
    'only the new record made a job',
  );
  assert.ok(jobs.every((j) => j.status === 'succeeded'));
  assert.deepEqual((await api(second.baseUrl, 'GET', `/api/recipes/${id}`, TOKEN)).body.trigger_closure, { cursor: 3 });
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
