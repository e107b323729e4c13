// The command line: npx switchboard <command>.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/index.ts';
import { createServiceContext } from '../src/context.ts';
import { authenticate } from '../src/auth/credentials.ts';
import { inviteMember } from '../src/api/member_invitations/member_invitations.service.ts';
import { createLogger } from '../src/logger.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { randomBytes } from 'node:crypto';
import { tempDir } from './helpers.ts';
import { systemClock } from '../src/time.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function run(args: string[], dataDir: string, options: { bin?: boolean } = {}) {
  const [cmd, argv] = options.bin
    ? [path.join(ROOT, 'bin/switchboard'), args]
    : [process.execPath, [path.join(ROOT, 'src/cli.ts'), ...args]];
  const res = spawnSync(cmd, argv, {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

async function privilegesOf(dataDir: string, token: string) {
  const database = createDb(loadConfig({ DATA_DIR: dataDir }));
  try {
    const auth = await authenticate(database.db, systemClock, token);
    return (
      auth && { privileges: [...auth.privileges], workspaceId: auth.workspaceId, environment: auth.environmentType }
    );
  } finally {
    await database.db.destroy();
  }
}

describe('switchboard CLI', () => {
  test('--help lists the commands, and each command has its own --help', () => {
    const dir = tempDir('sb-cli-');
    const top = run(['--help'], dir);
    assert.equal(top.code, 0);
    for (const name of ['serve', 'migrate', 'init', 'tokens create', 'workspaces create', 'invitations list'])
      assert.ok(top.stdout.includes(name), name);
    for (const args of [
      ['serve'],
      ['migrate'],
      ['init'],
      ['tokens', 'create'],
      ['workspaces', 'create'],
      ['workspaces', 'list'],
      ['invitations', 'list'],
    ]) {
      const res = run([...args, '--help'], dir);
      assert.equal(res.code, 0, args.join(' '));
      assert.match(res.stdout, /^Usage: switchboard /);
    }
    assert.deepEqual(fs.readdirSync(dir), [], '--help touches nothing');
  });

  test('bin/switchboard runs on the project Node.js whatever node is on PATH', () => {
    const res = run(['--help'], tempDir('sb-cli-'), { bin: true });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /Usage: switchboard/);
  });

  test("bin/switchboard gives the process glibc's allocator thresholds, keeping those the caller set", () => {
    // What the process sees (Node reads NODE_OPTIONS; glibc reads the same variables at start-up).
    const report =
      "process.stderr.write('MALLOC ' + JSON.stringify([process.env.MALLOC_TRIM_THRESHOLD_, process.env.MALLOC_MMAP_THRESHOLD_]))";
    const start = (extra: Record<string, string>) =>
      spawnSync(path.join(ROOT, 'bin/switchboard'), ['--help'], {
        env: {
          PATH: process.env.PATH,
          NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(report)}`,
          ...extra,
        },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const plain = start({});
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stderr, /MALLOC \["131072","131072"\]/);
    const chosen = start({ MALLOC_TRIM_THRESHOLD_: '65536' });
    assert.equal(chosen.status, 0, chosen.stderr);
    assert.match(chosen.stderr, /MALLOC \["65536","131072"\]/);
  });

  test('src/entry.js with a filled compile cache runs a command without loading the TypeScript stripper', () => {
    // What every start after the first pays (docs/adr/0023): Node's type stripper, amaro, is loaded
    // only to strip a file the compile cache does not hold yet.
    // The cache's default place is the system's temporary directory: one of the test's own here.
    const tmp = tempDir('sb-compile-cache-');
    const report =
      "process.on('exit', () => process.stderr.write(process.moduleLoadList.some((m) => m.includes('amaro')) ? 'STRIPPER LOADED' : 'NO STRIPPER'))";
    const start = (entry: string) =>
      spawnSync(process.execPath, ['--import', `data:text/javascript,${report}`, path.join(ROOT, entry), '--help'], {
        env: { PATH: process.env.PATH, TMPDIR: tmp },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const first = start('src/entry.js');
    assert.equal(first.status, 0, first.stderr);
    assert.ok(first.stdout.includes('Usage: switchboard'), first.stdout);
    assert.ok(first.stderr.includes('STRIPPER LOADED'), 'an empty cache: the modules are stripped once');
    const warm = start('src/entry.js');
    assert.equal(warm.status, 0, warm.stderr);
    assert.ok(warm.stdout.includes('Usage: switchboard'), warm.stdout);
    assert.ok(warm.stderr.includes('NO STRIPPER'), warm.stderr);
    // The TypeScript entry still works, but is stripped before it can turn the cache on.
    const typescriptEntry = start('src/cli.ts');
    assert.equal(typescriptEntry.status, 0, typescriptEntry.stderr);
    assert.ok(typescriptEntry.stderr.includes('STRIPPER LOADED'), typescriptEntry.stderr);
  });

  test('unknown commands and options are usage errors (exit 2)', () => {
    const dir = tempDir('sb-cli-');
    assert.equal(run(['frobnicate'], dir).code, 2);
    const bad = run(['tokens', 'create', '--rol', 'Admin'], dir);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--rol/);
  });

  test('migrate, then init prints the admin token once; a second init does not', async () => {
    const dir = tempDir('sb-cli-');
    const migrated = run(['migrate'], dir);
    assert.equal(migrated.code, 0);
    assert.match(migrated.stderr, /0001_foundation/);
    assert.match(run(['migrate'], dir).stderr, /up to date/);
    const init = run(['init', '--workspace-name', 'Acme', '--owner-email', 'ops@acme.test'], dir);
    assert.equal(init.code, 0, init.stderr);
    const token = /(wrkdev-[0-9a-f]{64})/.exec(init.stdout)?.[1];
    assert.ok(token);
    assert.equal((await privilegesOf(dir, token))?.environment, 'dev');
    const again = run(['init'], dir);
    assert.equal(again.code, 0);
    assert.ok(!/wrkdev-/.test(again.stdout));
    assert.match(again.stderr, /already exists/);
  });

  test('tokens create --role prints only a token with that role', async () => {
    const dir = tempDir('sb-cli-');
    const res = run(['tokens', 'create', '--role', 'Read only', '--env', 'prod', '--name', 'grafana'], dir);
    assert.equal(res.code, 0, res.stderr);
    const token = res.stdout.trim();
    assert.match(token, /^wrkprod-[0-9a-f]{64}$/);
    const auth = await privilegesOf(dir, token);
    assert.ok(auth);
    assert.equal(auth.environment, 'prod');
    assert.ok(auth.privileges.length > 0 && auth.privileges.every((p) => p.endsWith(':read')));
    const missing = run(['tokens', 'create', '--role', 'Superuser'], dir);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /No developer API client role named "Superuser"/);
    assert.equal(run(['tokens', 'create'], dir).code, 2);
    assert.equal(run(['tokens', 'create', '--role', 'Admin', '--env', 'staging'], dir).code, 2);
  });

  test('workspaces create makes a separate workspace with its own admin token', async () => {
    const dir = tempDir('sb-cli-');
    run(['init'], dir);
    const res = run(['workspaces', 'create', '--name', 'Globex', '--owner-email', 'it@globex.test'], dir);
    assert.equal(res.code, 0, res.stderr);
    const token = /(wrkdev-[0-9a-f]{64})/.exec(res.stdout)![1]!;
    const auth = await privilegesOf(dir, token);
    assert.equal(auth?.workspaceId, 2);
    const list = run(['workspaces', 'list'], dir);
    assert.match(list.stdout, /^1\tSwitchboard\t/m);
    assert.match(list.stdout, /^2\tGlobex\tit@globex\.test$/m);
    assert.equal(run(['workspaces', 'create', '--name', 'No email'], dir).code, 2);
  });

  test('invitations list shows the invitations of a workspace, filtered by status', async () => {
    const dir = tempDir('sb-cli-');
    assert.equal(run(['init'], dir).code, 0);
    const database = createDb(loadConfig({ DATA_DIR: dir }));
    try {
      const secretBox = createSecretBox(randomBytes(32));
      const config = loadConfig({ DATA_DIR: dir });
      const ctx = createServiceContext({ db: database.db, config, secretBox, log: createLogger('silent') });
      await inviteMember(
        ctx,
        { workspaceId: 1, clientId: 1 },
        { name: 'Ana López', email: 'ana@example.com', role_name: 'Operator' },
      );
      await inviteMember(
        ctx,
        { workspaceId: 1, clientId: 1 },
        { name: 'Bo', email: 'bo@example.com', env_roles: [{ environment_type: 'dev', name: 'Admin' }] },
      );
    } finally {
      await database.db.destroy();
    }
    const all = run(['invitations', 'list'], dir);
    assert.equal(all.code, 0, all.stderr);
    const rows = all.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.deepEqual(
      rows.map((r) => r.slice(1, 5)),
      [
        ['ana@example.com', 'Ana López', 'Operator', 'pending'],
        ['bo@example.com', 'Bo', 'dev=Admin', 'pending'],
      ],
    );
    assert.equal(run(['invitations', 'list', '--status', 'sent'], dir).stdout, '');
    assert.equal(run(['invitations', 'list', '--status', 'pending'], dir).stdout.trim().split('\n').length, 2);
    assert.equal(run(['invitations', 'list', '--status', 'lost'], dir).code, 2);
    assert.equal(run(['invitations', 'list', '--workspace', 'x'], dir).code, 2);
  });
});
