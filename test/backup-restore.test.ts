// switchboard backup / restore: a consistent copy of a running server's database, and putting it
// back in place in a data directory whose server is stopped.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { sqliteOnly } from './test-database.ts';
import { asAdmin } from './process-helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const TOKEN = 'wrkdev-backuptest0123456789abcdef0123456789abcdef';
const { startServer, api } = asAdmin(TOKEN);

/** The CLI in a child process, without blocking this process's event loop (the test's writers keep going). */
function run(
  args: string[],
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'src/cli.ts'), ...args],
      {
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

async function rowCodes(base: string, tableId: number): Promise<Set<string>> {
  const codes = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await api(base, 'GET', `/api/lookup_tables/${tableId}/rows?page=${page}&per_page=1000`);
    assert.equal(res.status, 200);
    for (const row of res.body as Array<{ data: { code: string } }>) codes.add(row.data.code);
    if (res.body.length < 1000) return codes;
  }
}

describe('switchboard backup and restore', () => {
  test(
    'a backup taken under writes restores into a fresh data directory: rows and credentials are there',
    { skip: sqliteOnly('switchboard backup and restore copy the SQLite file; PostgreSQL is backed up with pg_dump') },
    async () => {
      const dataDir = tempDir('sb-backup-');
      const server = await startServer(dataDir);
      const table = await api(server.base, 'POST', '/api/lookup_tables', {
        name: 'Customers',
        schema: [{ label: 'code' }, { label: 'region' }],
      });
      assert.equal(table.status, 200, JSON.stringify(table.body));
      const tableId: number = table.body.id;
      for (let i = 0; i < 30; i++)
        assert.equal(
          (
            await api(server.base, 'POST', `/api/lookup_tables/${tableId}/rows`, {
              data: { code: `before-${i}`, region: 'eu' },
            })
          ).status,
          200,
        );
      const connection = await api(server.base, 'POST', '/api/connections', {
        name: 'Billing API',
        provider: 'rest',
        input: { base_url: 'https://billing.example', auth_type: 'basic', username: 'svc', password: 'backup-pw-7Q' },
      });
      assert.equal(connection.status, 200, JSON.stringify(connection.body));
      assert.equal(connection.body.authorization_status, 'success');

      // Four writers keep adding rows while the backup runs.
      const acknowledged = new Set<string>();
      let writing = true;
      const writer = async (w: number) => {
        for (let i = 0; writing; i++) {
          const code = `during-${w}-${i}`;
          if (
            (await api(server.base, 'POST', `/api/lookup_tables/${tableId}/rows`, { data: { code, region: 'us' } }))
              .status === 200
          )
            acknowledged.add(code);
        }
      };
      const writers = Promise.all([0, 1, 2, 3].map(writer));
      while (acknowledged.size < 20) await new Promise((r) => setTimeout(r, 10));
      const beforeBackup = new Set(acknowledged);
      const backupFile = path.join(tempDir('sb-backup-files-'), 'switchboard-backup.sqlite');
      const made = await run(['backup', backupFile], dataDir);
      const duringBackup = acknowledged.size;
      while (acknowledged.size < duringBackup + 20) await new Promise((r) => setTimeout(r, 10));
      writing = false;
      await writers;
      assert.equal(made.code, 0, made.stderr);
      assert.ok(duringBackup > beforeBackup.size, 'the server kept taking writes while the backup ran');
      assert.match(made.stderr, new RegExp(`backed up .* to ${backupFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.match(made.stderr, new RegExp(`secret key: ${path.join(dataDir, 'secret.key')}`));
      assert.ok(!/\n\s+at /.test(made.stderr), 'no stack trace');
      assert.deepEqual(
        fs.readdirSync(path.dirname(backupFile)),
        ['switchboard-backup.sqlite'],
        'one self-contained file',
      );

      // An existing file is kept unless --force.
      const size = fs.statSync(backupFile).size;
      const again = await run(['backup', backupFile], dataDir);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /already exists; choose another name or add --force/);
      assert.equal(fs.statSync(backupFile).size, size);
      const forced = path.join(path.dirname(backupFile), 'forced.sqlite');
      fs.writeFileSync(forced, 'old contents');
      assert.equal((await run(['backup', forced, '--force'], dataDir)).code, 0);
      assert.ok(fs.readFileSync(forced).subarray(0, 15).equals(Buffer.from('SQLite format 3')));

      // Restore is refused while the server has the database open, and nothing changes.
      const refused = await run(['restore', backupFile], dataDir);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /in use: stop the server/);
      assert.deepEqual(
        fs.readdirSync(dataDir).filter((f) => f.includes('restor')),
        [],
      );
      assert.equal((await api(server.base, 'GET', `/api/lookup_tables/${tableId}`)).status, 200);

      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);

      // A fresh data directory with the same secret key.
      const restoredDir = tempDir('sb-restored-');
      fs.copyFileSync(path.join(dataDir, 'secret.key'), path.join(restoredDir, 'secret.key'));
      const restored = await run(['restore', backupFile], restoredDir);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stderr, /restored .* into .*switchboard\.sqlite/);
      assert.match(restored.stderr, /the secret key \(.*secret\.key\) opens the credentials in it/);
      // Another key, or none yet: said before the server is started.
      const otherKeyDir = tempDir('sb-restored-other-key-');
      fs.writeFileSync(path.join(otherKeyDir, 'secret.key'), `${randomBytes(32).toString('hex')}\n`);
      const otherKey = await run(['restore', backupFile], otherKeyDir);
      assert.equal(otherKey.code, 0, otherKey.stderr);
      assert.match(
        otherKey.stderr,
        /WARNING: the secret key \(.*secret\.key\) does not open the credentials in this backup/,
      );
      const noKeyDir = tempDir('sb-restored-no-key-');
      const noKey = await run(['restore', backupFile], noKeyDir);
      assert.match(
        noKey.stderr,
        /no secret key here yet: put the secret\.key of the server the backup came from at .*secret\.key \(or set SWITCHBOARD_SECRET_KEY to it\)/,
      );
      assert.ok(!fs.existsSync(path.join(noKeyDir, 'secret.key')), 'restore creates no key');

      const second = await startServer(restoredDir);
      const codes = await rowCodes(second.base, tableId);
      for (let i = 0; i < 30; i++) assert.ok(codes.has(`before-${i}`), `before-${i}`);
      for (const code of beforeBackup) assert.ok(codes.has(code), `${code} was acknowledged before the backup began`);
      for (const code of codes)
        assert.ok(code.startsWith('before-') || acknowledged.has(code), `${code} was acknowledged`);
      assert.ok(codes.size < 30 + acknowledged.size, 'rows written after the backup are not in it');
      // The stored password still opens: testing the connection again succeeds.
      const retested = await api(second.base, 'PUT', `/api/connections/${connection.body.id}`, {
        shell_connection: false,
      });
      assert.equal(retested.status, 200, JSON.stringify(retested.body));
      assert.equal(retested.body.authorization_status, 'success');
      assert.deepEqual(retested.body.input_fields.sort(), ['auth_type', 'base_url', 'password', 'username']);
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    },
  );

  test(
    'restore over an existing database keeps it aside whole, what its write-ahead log held included',
    { skip: sqliteOnly('switchboard backup and restore copy the SQLite file; PostgreSQL is backed up with pg_dump') },
    async () => {
      const dataDir = tempDir('sb-restore-aside-');
      const first = await startServer(dataDir);
      await api(first.base, 'POST', '/api/lookup_tables', { name: 'In the backup', schema: [{ label: 'code' }] });
      const backupFile = path.join(tempDir('sb-backup-files-'), 'b.sqlite');
      assert.equal((await run(['backup', backupFile], dataDir)).code, 0);
      await api(first.base, 'POST', '/api/lookup_tables', { name: 'After the backup', schema: [{ label: 'code' }] });
      // SIGKILL: the log is left beside the database, as after a crash.
      first.child.kill('SIGKILL');
      await first.exited;

      const restored = await run(['restore', backupFile], dataDir);
      assert.equal(restored.code, 0, restored.stderr);
      const aside = /kept as (\S+)/.exec(restored.stderr)?.[1];
      assert.ok(aside, restored.stderr);
      assert.match(path.basename(aside), /^switchboard\.sqlite\.before-restore-\d{4}-\d\d-\d\dT[\d-]+Z$/);
      assert.ok(
        !fs.existsSync(path.join(dataDir, 'switchboard.sqlite-wal')),
        'no log of the old database beside the restored one',
      );

      const second = await startServer(dataDir);
      const names = ((await api(second.base, 'GET', '/api/lookup_tables')).body as Array<{ name: string }>).map(
        (t) => t.name,
      );
      assert.deepEqual(names, ['In the backup']);
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);

      // The database set aside is whole: the table written after the backup is in it.
      const old = new DatabaseSync(aside, { readOnly: true });
      try {
        const rows = old.prepare('select name from lookup_tables order by id').all() as Array<{ name: string }>;
        assert.deepEqual(
          rows.map((r) => r.name),
          ['In the backup', 'After the backup'],
        );
      } finally {
        old.close();
      }
    },
  );

  test(
    'restore refuses files that are not a Switchboard database of this version, and leaves the data directory alone',
    { skip: sqliteOnly('switchboard backup and restore copy the SQLite file; PostgreSQL is backed up with pg_dump') },
    async () => {
      const dataDir = tempDir('sb-restore-refused-');
      assert.equal((await run(['init'], dataDir)).code, 0);
      const files = tempDir('sb-restore-files-');
      const before = fs.readdirSync(dataDir).sort();

      const text = path.join(files, 'notes.txt');
      fs.writeFileSync(text, 'not a database at all\n'.repeat(100));
      const other = path.join(files, 'other.sqlite');
      const otherDb = new DatabaseSync(other);
      otherDb.exec('create table customers (id integer primary key, name text)');
      otherDb.close();
      const newer = path.join(files, 'newer.sqlite');
      assert.equal((await run(['backup', newer], dataDir)).code, 0);
      const newerDb = new DatabaseSync(newer);
      newerDb
        .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
        .run('9999_from_the_future', new Date().toISOString());
      newerDb.close();

      const cases: Array<[string, RegExp]> = [
        [text, /notes\.txt is not a Switchboard database/],
        [other, /other\.sqlite is not a Switchboard database \(it has no migration table\)/],
        [
          newer,
          /newer\.sqlite comes from a newer Switchboard \(migrations this version does not know: 9999_from_the_future\)/,
        ],
        [path.join(files, 'missing.sqlite'), /no backup file at .*missing\.sqlite/],
      ];
      for (const [file, message] of cases) {
        const res = await run(['restore', file], dataDir);
        assert.equal(res.code, 1, file);
        assert.match(res.stderr, message);
        assert.ok(!/\n\s+at /.test(res.stderr), 'no stack trace');
      }
      assert.deepEqual(fs.readdirSync(dataDir).sort(), before);
      assert.equal((await run(['workspaces', 'list'], dataDir)).code, 0, 'the database in place still works');
    },
  );

  test(
    'backup errors: no database, a missing directory',
    { skip: sqliteOnly('switchboard backup and restore copy the SQLite file; PostgreSQL is backed up with pg_dump') },
    async () => {
      const empty = tempDir('sb-backup-empty-');
      const none = await run(['backup', path.join(empty, 'b.sqlite')], path.join(empty, 'data'));
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no database at .*switchboard\.sqlite \(is DATA_DIR right\?\)/);
      assert.ok(!fs.existsSync(path.join(empty, 'data')), 'nothing created');

      const dataDir = tempDir('sb-backup-src-');
      assert.equal((await run(['migrate'], dataDir)).code, 0);
      const missing = await run(['backup', path.join(empty, 'no', 'such', 'dir', 'b.sqlite')], dataDir);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /cannot write .*b\.sqlite: the directory .* does not exist/);
      const usage = await run(['backup'], dataDir);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /usage: switchboard backup FILE \[--force\]/);
    },
  );

  test("with DATABASE_URL both commands point to the database's own tools", async () => {
    const dir = tempDir('sb-backup-pg-');
    for (const command of ['backup', 'restore']) {
      const res = await run([command, path.join(dir, 'x.sqlite')], dir, {
        DATABASE_URL: 'postgres://switchboard@localhost/switchboard',
      });
      assert.equal(res.code, 1, command);
      assert.match(res.stderr, /DATABASE_URL is set: .* PostgreSQL with its own tools \(pg_dump, pg_restore\)/);
    }
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test('--help shows both commands', async () => {
    const dir = tempDir('sb-backup-help-');
    const top = await run(['--help'], dir);
    assert.match(top.stdout, /\n {2}backup {13}/);
    assert.match(top.stdout, /\n {2}restore {12}/);
    assert.match((await run(['backup', '--help'], dir)).stdout, /^Usage: switchboard backup FILE \[--force\]/);
    assert.match((await run(['restore', '--help'], dir)).stdout, /^Usage: switchboard restore FILE/);
  });
});
