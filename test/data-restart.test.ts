// Data tables and files across SIGKILL: a real server process is killed and started again on the
// same data directory. Records, files and the jobs their writes started are all there, and a
// running recipe's real-time data table trigger is armed again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

const TOKEN = 'wrkdev-datarestart0123456789abcdef0123456789abcd';

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('after SIGKILL and a restart: records, files and trigger jobs are kept; the trigger fires again', async () => {
  const dataDir = tempDir('sb-data-restart-');
  const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN };
  const first = await startServer(dataDir, env);
  const table = (
    await api(first.baseUrl, 'POST', '/api/data_tables', TOKEN, {
      name: 'Tickets',
      schema: [{ name: 'title', type: 'string' }],
    })
  ).body.data;
  const watcher = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_db_table',
    name: 'updated_records_realtime',
    as: 'trg',
    input: { table_id: String(table.id) },
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'workato_files',
        name: 'append_to_file',
        as: 'log',
        input: {
          file_path: '/tickets.log',
          content:
            '#{_dp(\'{"pill_type":"output","provider":"workato_db_table","line":"trg","path":["record","' +
            table.schema[0].field_id.replaceAll('-', '_') +
            '"]}\')}\n',
        },
      },
    ],
  };
  const created = await api(first.baseUrl, 'POST', '/api/recipes', TOKEN, {
    recipe: { name: 'Log tickets', code: JSON.stringify(watcher) },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.deepEqual((await api(first.baseUrl, 'PUT', `/api/recipes/${created.body.id}/start`, TOKEN)).body, {
    success: true,
  });
  const added = await api(first.baseUrl, 'POST', `/api/data_tables/${table.id}/records`, TOKEN, {
    data: { title: 'first' },
  });
  assert.equal(added.status, 200);
  const jobsOf = async (base: string) =>
    (await api(base, 'GET', `/api/recipes/${created.body.id}/jobs`, TOKEN)).body.items as Array<{ status: string }>;
  await until('the first job succeeds', async () =>
    (await jobsOf(first.baseUrl)).some((j) => j.status === 'succeeded'),
  );
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await startServer(dataDir, env);
  const records = await api(second.baseUrl, 'GET', `/api/data_tables/${table.id}/records`, TOKEN);
  assert.deepEqual(
    records.body.data.map((r: { data: { title: string } }) => r.data.title),
    ['first'],
  );
  await api(second.baseUrl, 'POST', `/api/data_tables/${table.id}/records`, TOKEN, { data: { title: 'second' } });
  await until(
    'the trigger fires after the restart',
    async () => (await jobsOf(second.baseUrl)).filter((j) => j.status === 'succeeded').length === 2,
  );
  const file = await fetch(`${second.baseUrl}/api/files/content?path=/tickets.log`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(await file.text(), 'first\nsecond\n');
  second.child.kill('SIGKILL');
  await second.exited;
});
