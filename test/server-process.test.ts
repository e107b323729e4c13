// The server as a user runs it: a real process on a real socket and data directory.
// First start prints the admin token once; a restart, even after kill -9, keeps everything;
// SIGTERM finishes in-flight requests; SWITCHBOARD_ADMIN_TOKEN opens an admin client.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { onPostgres } from './test-database.ts';
import { api, postAcrossShutdown, spawnServe, startServer } from './process-helpers.ts';

describe('switchboard serve', () => {
  test('first start prints a working admin token once; data survives kill -9 and a restart', async () => {
    const dataDir = tempDir('sb-proc-');
    const first = await startServer(dataDir);
    const match = /SWITCHBOARD ADMIN API TOKEN[\s\S]*?(wrkdev-[0-9a-f]{64})/.exec(first.output());
    assert.ok(match, `banner with token:\n${first.output()}`);
    const token = match[1]!;
    assert.equal(first.output().split(token).length - 1, 2, 'printed once, plus once in the curl example');
    assert.equal(first.output().match(/"msg"[^\n]*wrkdev-/g), null, 'never in a log line');

    const me = await api(first.baseUrl, 'GET', '/api/users/me', token);
    assert.equal(me.status, 200);
    assert.equal(me.body.name, 'Switchboard');
    const created = await api(first.baseUrl, 'POST', '/api/developer_api_clients', token, {
      name: 'survivor',
      api_privilege_group_id: 2,
      all_folders: true,
    });
    assert.equal(created.status, 200);
    const survivorToken: string = created.body.result.token.value;

    first.child.kill('SIGKILL');
    assert.equal(await first.exited, null);
    // The data is in the SQLite file under DATA_DIR, or in PostgreSQL (then no file is made).
    assert.equal(fs.existsSync(path.join(dataDir, 'switchboard.sqlite')), !onPostgres);
    assert.equal(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777, 0o600);

    const second = await startServer(dataDir);
    assert.ok(!second.output().includes('SWITCHBOARD ADMIN API TOKEN'), 'no new token on restart');
    assert.equal((await api(second.baseUrl, 'GET', '/api/users/me', token)).status, 200);
    const list = await api(second.baseUrl, 'GET', '/api/developer_api_clients', survivorToken);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.result.items.map((c: { name: string }) => c.name),
      ['Bootstrap admin', 'survivor'],
    );
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  test('SIGTERM stops accepting, finishes the request in flight, closes the database and exits 0', async () => {
    const dataDir = tempDir('sb-proc-');
    const server = await startServer(dataDir);
    const token = /(wrkdev-[0-9a-f]{64})/.exec(server.output())![1]!;
    // Send the headers and half the body, signal, then the rest: the request is in flight.
    const res = await postAcrossShutdown(
      server.child,
      `${server.baseUrl}/api/developer_api_client_roles/2/copy`,
      token,
      JSON.stringify({ name: 'made during shutdown' }),
      10,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(JSON.parse(res.text).result.name, 'made during shutdown');
    assert.equal(await server.exited, 0);
    assert.match(server.output(), /shutdown complete/);
    await assert.rejects(fetch(`${server.baseUrl}/health`), 'no longer accepting');

    // What was acknowledged during shutdown is there after a restart.
    const again = await startServer(dataDir);
    const roles = await api(again.baseUrl, 'GET', '/api/developer_api_client_roles', token);
    assert.ok(roles.body.result.items.some((r: { name: string }) => r.name === 'made during shutdown'));
    again.child.kill('SIGTERM');
    await again.exited;
  });

  test('SWITCHBOARD_ADMIN_TOKEN: no secret printed; the token works; changing it re-keys the admin client', async () => {
    const dataDir = tempDir('sb-proc-');
    const tokenA = `ci-token-${'a'.repeat(40)}`;
    const tokenB = `ci-token-${'b'.repeat(40)}`;
    const first = await startServer(dataDir, { SWITCHBOARD_ADMIN_TOKEN: tokenA });
    assert.ok(!first.output().includes(tokenA));
    assert.ok(!/wrkdev-[0-9a-f]{64}/.test(first.output()), 'no generated token printed');
    assert.equal((await api(first.baseUrl, 'GET', '/api/users/me', tokenA)).status, 200);
    const created = await api(first.baseUrl, 'POST', '/api/developer_api_clients', tokenA, {
      name: 'made by CI',
      api_privilege_group_id: 2,
      all_folders: true,
    });
    assert.equal(created.status, 200);
    first.child.kill('SIGTERM');
    await first.exited;

    const second = await startServer(dataDir, { SWITCHBOARD_ADMIN_TOKEN: tokenB });
    assert.equal((await api(second.baseUrl, 'GET', '/api/users/me', tokenA)).status, 401);
    const list = await api(second.baseUrl, 'GET', '/api/developer_api_clients', tokenB);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.result.items.map((c: { name: string }) => c.name),
      ['Admin (SWITCHBOARD_ADMIN_TOKEN)', 'made by CI'],
    );
    second.child.kill('SIGTERM');
    await second.exited;
  });

  test('a bad setting stops the start with a clear message', async () => {
    const child = spawnServe({ DATA_DIR: tempDir('sb-proc-'), PORT: 'eighty' });
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
    });
    const code = await new Promise((r) => child.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, /PORT must be a whole number/);
    assert.ok(!err.includes('    at '), 'no stack trace');
  });
});
