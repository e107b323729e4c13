// A real full disk under a running server: its data directory is a small tmpfs, filled up by a
// file beside the database. Writes answer 503 (never 500), reads go on, GET /ready says the disk is
// full; once the file is deleted the server takes writes again by itself; and after a SIGKILL and a
// restart every write it had acknowledged is there, once. Then a data directory on a read-only file
// system at start: one line saying so, no stack trace. Mounting needs root (CI runs as root);
// elsewhere the tests are skipped and say why.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { releaseAfterFile, tempDir } from './helpers.ts';
import { sqliteOnly } from './test-database.ts';
import { asAdmin, spawnServe } from './process-helpers.ts';

const TOKEN = 'wrkdev-diskfulltest0123456789abcdef0123456789ab';
const { startServer, api } = asAdmin(TOKEN);

/** A tmpfs of `size` mounted on a new directory, unmounted when the file ends; undefined when mounting is not permitted. */
function smallDisk(size: string): string | undefined {
  const dir = tempDir('sb-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  releaseAfterFile(() => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }));
  return dir;
}

/** Writes a file until the disk refuses more: big chunks, then small ones. */
function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1 << 9]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          fs.writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

const disk = smallDisk('48m');

test(
  'a full disk: writes answer 503, reads go on, /ready says so; space returns and nothing acknowledged is lost',
  {
    skip:
      sqliteOnly(
        'fills the disk under DATA_DIR, where the SQLite database lives; PostgreSQL lost or refusing: test/postgres-faults.test.ts',
      ) || (disk === undefined ? 'needs permission to mount a tmpfs (root)' : false),
    timeout: 120_000,
  },
  async () => {
    const dataDir = path.join(disk as string, 'data');
    const first = await startServer(dataDir);
    const table = await api(first.base, 'POST', '/api/lookup_tables', {
      name: 'Orders',
      schema: [{ label: 'code' }, { label: 'note' }],
    });
    assert.equal(table.status, 200);
    const rows = `/api/lookup_tables/${table.body.id}/rows`;
    const acknowledged: string[] = [];
    const add = async (code: string) => {
      const res = await api(first.base, 'POST', rows, { data: { code, note: 'n'.repeat(6000) } });
      if (res.status === 200) acknowledged.push(code);
      return res;
    };
    for (let i = 0; i < 20; i++) assert.equal((await add(`before-${i}`)).status, 200);

    const filler = path.join(disk as string, 'filler');
    fillDisk(filler);
    // What the write-ahead log already holds on disk can take a few more writes; then the disk is full.
    let refused: { status: number; body: unknown } | undefined;
    for (let i = 0; i < 3000 && !refused; i++) {
      const res = await add(`full-${i}`);
      assert.ok(
        res.status === 200 || res.status === 503,
        `a write answered ${res.status}: ${JSON.stringify(res.body)}`,
      );
      if (res.status === 503) refused = res;
    }
    assert.ok(refused, 'a write was refused');
    assert.deepEqual(refused.body, { message: 'Storage unavailable: the disk is full; try again later' });
    for (let i = 0; i < 5; i++) assert.equal((await add(`still-full-${i}`)).status, 503);

    const listed = await api(first.base, 'GET', `${rows}?per_page=1000`);
    assert.equal(listed.status, 200, 'reads go on');
    assert.equal(listed.body.length, acknowledged.length);
    const ready = await fetch(`${first.base}/ready`);
    assert.equal(ready.status, 503);
    assert.match(((await ready.json()) as { message: string }).message, /the disk is full/);

    fs.rmSync(filler);
    const deadline = Date.now() + 10_000;
    while ((await fetch(`${first.base}/ready`)).status !== 200) {
      assert.ok(Date.now() < deadline, '/ready is ready again within 10 s of the space returning');
      await new Promise((r) => setTimeout(r, 100));
    }
    for (let i = 0; i < 20; i++) assert.equal((await add(`after-${i}`)).status, 200);

    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startServer(dataDir);
    const stored = (await api(second.base, 'GET', `${rows}?per_page=1000`)).body as Array<{ data: { code: string } }>;
    const codes = stored.map((r) => r.data.code);
    assert.deepEqual(
      codes.filter((code) => !acknowledged.includes(code)),
      [],
      'nothing refused was stored',
    );
    assert.deepEqual([...codes].sort(), [...acknowledged].sort(), 'every acknowledged write is there, once');
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  },
);

const readOnlyDisk = smallDisk('16m');

test(
  'a data directory on a read-only file system: serve stops at once with one line saying so, and starts once it is writable',
  { skip: readOnlyDisk === undefined ? 'needs permission to mount a tmpfs (root)' : false, timeout: 60_000 },
  async () => {
    const dataDir = path.join(readOnlyDisk as string, 'data');
    const first = await startServer(dataDir);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    execFileSync('mount', ['-o', 'remount,ro', readOnlyDisk as string]);
    try {
      const child = spawnServe({ DATA_DIR: dataDir, PORT: '0', SWITCHBOARD_ADMIN_TOKEN: TOKEN });
      let err = '';
      child.stderr!.on('data', (d) => {
        err += d;
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 2);
      assert.equal(
        err,
        `switchboard: DATA_DIR ${dataDir} is not writable (it is on a read-only file system); the database lives there\n`,
      );
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', readOnlyDisk as string]);
    }
    const again = await startServer(dataDir);
    assert.equal((await fetch(`${again.base}/ready`)).status, 200);
    again.child.kill('SIGTERM');
    assert.equal(await again.exited, 0);
  },
);
