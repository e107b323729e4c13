// PostgreSQL on the same machine, reached through its Unix-domain socket: a DATABASE_URL that names
// the socket's directory (`postgres://user@localhost/db?host=/run/postgresql`) serves the API and
// runs a webhook recipe's job as one over TCP does, and every connection the server holds, the
// notifier's LISTEN included, is a socket's (pg_stat_activity shows no client address for them). PostgreSQL only; skipped when the
// test server's socket is not on this machine or does not let the test's user in.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';
import { log, pill, webhookTrigger } from './recipes.ts';
import { freshPostgresDatabase, onPostgres } from './test-database.ts';

const TOKEN = 'wrkdev-sockettest0123456789abcdef0123456789abcdef';

/** The socket form of a TCP URL to the same server and database, or why there is none here. */
async function socketUrlOf(tcpUrl: string): Promise<{ url: string } | { skip: string }> {
  const client = new pg.Client({ connectionString: tcpUrl });
  await client.connect();
  let directory: string | undefined;
  let port: string;
  try {
    const dirs = (await client.query<{ d: string }>("select current_setting('unix_socket_directories') as d")).rows[0]!
      .d;
    port = (await client.query<{ p: string }>("select current_setting('port') as p")).rows[0]!.p;
    directory = dirs
      .split(',')
      .map((d) => d.trim())
      .find((d) => d.startsWith('/') && fs.existsSync(path.join(d, `.s.PGSQL.${port}`)));
  } finally {
    await client.end();
  }
  if (directory === undefined) return { skip: 'the test PostgreSQL has no socket on this machine' };
  const parsed = new URL(tcpUrl);
  const url = `postgres://${parsed.username}${parsed.password ? `:${parsed.password}` : ''}@localhost${parsed.pathname}?host=${encodeURIComponent(directory)}&port=${port}`;
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
  } catch (error) {
    return { skip: `the socket does not let the test's user in: ${String(error)}` };
  } finally {
    await probe.end().catch(() => undefined);
  }
  return { url };
}

test('a DATABASE_URL naming the Unix socket: the API and a webhook job, over the socket only', async (t) => {
  if (!onPostgres) return t.skip('PostgreSQL only');
  const tcpUrl = await freshPostgresDatabase();
  const socket = await socketUrlOf(tcpUrl);
  if ('skip' in socket) return t.skip(socket.skip);

  const server = await startServer(tempDir('sb-socket-'), {
    DATABASE_URL: socket.url,
    SWITCHBOARD_ADMIN_TOKEN: TOKEN,
  });
  const call = (method: string, url: string, body?: unknown) => api(server.baseUrl, method, url, TOKEN, body);
  const code = webhookTrigger([log('log', `order ${pill('workato_webhooks', 'hook', 'payload', 'id')}`)]);
  const created = await call('POST', '/api/recipes', {
    recipe: { name: 'Over the socket', code: JSON.stringify(code) },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = created.body.id as number;
  assert.deepEqual((await call('PUT', `/api/recipes/${id}/start`)).body, { success: true });
  const hook = (await call('GET', `/api/recipes/${id}`)).body.webhook_url as string;
  const sent = await fetch(server.baseUrl + new URL(hook).pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'A-7' }),
  });
  assert.equal(sent.status, 200);

  let job: { status: string; id: string } | undefined;
  const deadline = Date.now() + 30_000;
  while (job?.status !== 'succeeded') {
    assert.ok(Date.now() < deadline, `the job ended: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 50));
    job = (await call('GET', `/api/recipes/${id}/jobs`)).body.items[0];
  }
  assert.equal((await call('GET', `/api/recipes/${id}/jobs/${job.id}`)).status, 200);

  const admin = new pg.Client({ connectionString: tcpUrl });
  await admin.connect();
  try {
    // The logger's line, as stored: it holds the payload's id.
    const logged = await admin.query<{ input: string }>(
      'select l.input from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = $1 and l.recipe_line_number = 1',
      [id],
    );
    assert.equal(logged.rows.length, 1);
    assert.match(logged.rows[0]!.input, /order A-7/);
    // Every connection of the server to its database came through the socket (no client address).
    const database = new URL(tcpUrl).pathname.slice(1);
    const rows = (
      await admin.query<{ over_tcp: number; over_socket: number; notifier: number }>(
        `select count(*) filter (where client_addr is not null)::int as over_tcp,
                count(*) filter (where client_addr is null)::int as over_socket,
                count(*) filter (where client_addr is null and application_name = 'switchboard-notifier')::int as notifier
           from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        [database],
      )
    ).rows[0]!;
    assert.equal(rows.over_tcp, 0);
    assert.ok(rows.over_socket >= 2, `the server's connections: ${JSON.stringify(rows)}`);
    assert.equal(rows.notifier, 1, 'the notifier listens through the socket too');
  } finally {
    await admin.end();
  }
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
