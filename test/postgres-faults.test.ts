// PostgreSQL going away, with a real server of its own (postgres-cluster.ts) that the tests stop
// and start: at start, `serve` says so in one line and exits 1; while running, requests that need
// the database answer 503 in the error shape, GET /ready says why, nothing acknowledged is lost,
// and the server takes requests again by itself once the database is back. Run by
// `npm run test:postgres` (skipped on SQLite: they need PostgreSQL installed).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { releaseAfterFile, tempDir } from './helpers.ts';
import { startPostgresCluster, freePort, type PostgresCluster } from './postgres-cluster.ts';
import { api, spawnServe, startServer } from './process-helpers.ts';
import { postgresOnly } from './test-database.ts';
import { DatabaseUnreachableError, storageFailureOf } from '../src/db/dialect.ts';

const TOKEN = 'wrkdev-pgfaulttest0123456789abcdef0123456789abcd';
const skip = postgresOnly('stops and starts a PostgreSQL server of its own');

async function waitFor(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('PostgreSQL unreachable at start', { skip }, () => {
  test('serve prints one line naming the cause and exits 1, without a stack trace', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const child = spawnServe({
      DATA_DIR: tempDir('sb-pg-start-'),
      PORT: '0',
      DATABASE_URL: `postgres://switchboard:secret-password@127.0.0.1:${port}/switchboard`,
    });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    const lines = err.trim().split('\n');
    assert.equal(lines.length, 1, err);
    assert.match(
      lines[0] as string,
      /^switchboard: the database cannot be used: the database server cannot be reached or refused the connection \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/,
    );
    assert.doesNotMatch(err, /secret-password/, 'the password is never printed');
  });

  test('a database that does not exist: one line naming it, exit 1', { timeout: 30_000 }, async () => {
    const cluster = await startPostgresCluster();
    releaseAfterFile(() => cluster.remove());
    const child = spawnServe({
      DATA_DIR: tempDir('sb-pg-start-'),
      PORT: '0',
      DATABASE_URL: cluster.url.replace(/\/postgres$/, '/nosuchdb'),
    });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    assert.equal(await new Promise<number | null>((resolve) => child.on('exit', resolve)), 1);
    assert.equal(
      err,
      'switchboard: the database cannot be used: the database server cannot be reached or refused the connection (database "nosuchdb" does not exist)\n',
    );
  });
});

describe('PostgreSQL lost while the server runs', { skip }, () => {
  let cluster: PostgresCluster;
  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(() => cluster?.remove());

  test(
    'writes answer 503 in the error shape, /ready says why; once it is back everything works again and nothing acknowledged is lost',
    { timeout: 120_000 },
    async () => {
      const dataDir = tempDir('sb-pg-lost-');
      // A password in the URL (the test server trusts loopback and ignores it): never in the output.
      const url = cluster.url.replace('postgres@', 'postgres:pw-never-logged-1234@');
      const server = await startServer(dataDir, { DATABASE_URL: url, SWITCHBOARD_ADMIN_TOKEN: TOKEN });
      const call = (method: string, url: string, body?: unknown) => api(server.baseUrl, method, url, TOKEN, body);
      const table = await call('POST', '/api/lookup_tables', { name: 'Orders', schema: [{ label: 'code' }] });
      assert.equal(table.status, 200);
      const rows = `/api/lookup_tables/${table.body.id}/rows`;
      const acknowledged: string[] = [];
      const add = async (code: string) => {
        const res = await call('POST', rows, { data: { code } });
        if (res.status === 200) acknowledged.push(code);
        return res;
      };
      for (let i = 0; i < 20; i++) assert.equal((await add(`before-${i}`)).status, 200);
      assert.equal((await fetch(`${server.baseUrl}/ready`)).status, 200);

      cluster.stop();
      const refused = await add('while-down');
      assert.equal(refused.status, 503);
      assert.deepEqual(refused.body, {
        message:
          'Storage unavailable: the database server cannot be reached or refused the connection; try again later',
      });
      const read = await call('GET', rows);
      assert.equal(read.status, 503, 'a read needs the database too');
      const webhookless = await call('GET', '/api/users/me');
      assert.equal(webhookless.status, 503, 'so does checking a token');
      const ready = await fetch(`${server.baseUrl}/ready`);
      assert.equal(ready.status, 503);
      assert.match(
        ((await ready.json()) as { message: string }).message,
        /database unavailable: the database server cannot be reached/,
      );
      assert.equal((await fetch(`${server.baseUrl}/health`)).status, 200, 'the process itself is alive');

      cluster.start();
      await waitFor('/ready is ready again', async () => (await fetch(`${server.baseUrl}/ready`)).status === 200);
      for (let i = 0; i < 20; i++) assert.equal((await add(`after-${i}`)).status, 200);

      assert.ok(!server.output().includes('pw-never-logged-1234'), 'the password is never logged');
      assert.match(server.output(), /"database":"postgres","location":"postgres:\/\/127\.0\.0\.1:\d+\/postgres"/);
      server.child.kill('SIGKILL');
      await server.exited;
      const second = await startServer(dataDir, { DATABASE_URL: url, SWITCHBOARD_ADMIN_TOKEN: TOKEN });
      const stored = (await api(second.baseUrl, 'GET', `${rows}?per_page=1000`, TOKEN)).body as Array<{
        data: { code: string };
      }>;
      const codes = stored.map((r) => r.data.code).sort();
      assert.deepEqual(codes, [...acknowledged].sort(), 'every acknowledged write is there, once, and nothing refused');
      assert.ok(!codes.includes('while-down'));
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    },
  );

  test(
    'the server restarted under a running Switchboard (connections cut): requests recover without a restart of Switchboard',
    { timeout: 120_000 },
    async () => {
      const server = await startServer(tempDir('sb-pg-restart-'), {
        DATABASE_URL: cluster.url,
        SWITCHBOARD_ADMIN_TOKEN: TOKEN,
      });
      const call = (method: string, url: string, body?: unknown) => api(server.baseUrl, method, url, TOKEN, body);
      assert.equal((await call('GET', '/api/users/me')).status, 200);
      cluster.stop();
      cluster.start();
      // The pool's connections were cut: the first request on one may fail (503), never a 500 or an exit.
      await waitFor('a request succeeds again', async () => {
        const res = await call('GET', '/api/users/me');
        assert.ok(res.status === 200 || res.status === 503, `answered ${res.status}`);
        return res.status === 200;
      });
      assert.equal(server.child.exitCode, null, 'still running');
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    },
  );
});

describe('storageFailureOf on PostgreSQL errors', () => {
  test('a connection that failed or was refused is `unreachable`; by class or SQLSTATE, never by message', () => {
    const sqlstate = (code: string) => Object.assign(new Error('any text'), { code });
    assert.equal(
      storageFailureOf(
        new DatabaseUnreachableError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      ),
      'unreachable',
    );
    for (const code of ['57P01', '57P03', '08006', '53300', '28P01', '3D000'])
      assert.equal(storageFailureOf(sqlstate(code)), 'unreachable', code);
    assert.equal(storageFailureOf(sqlstate('53100')), 'full', 'disk_full');
    assert.equal(storageFailureOf(sqlstate('25006')), 'read_only', 'read_only_sql_transaction');
    assert.equal(storageFailureOf(sqlstate('23505')), undefined, "a unique violation is the request's");
    assert.equal(
      storageFailureOf(new Error('Connection terminated unexpectedly')),
      undefined,
      'an error of no known kind, whatever it says',
    );
  });
});
