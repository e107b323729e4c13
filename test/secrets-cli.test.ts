// switchboard secrets set|list|delete: the built-in secret store from the command line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { loadConfig } from '../src/config.ts';
import { createSecretBox, loadOrCreateSecretKey } from '../src/crypto/secret-box.ts';
import { createDb } from '../src/db/index.ts';
import { secretResolverFor } from '../src/api/secrets_management/secret-resolver.ts';
import { findEnvironmentByType } from '../src/workspaces/workspaces.store.ts';
import { systemClock } from '../src/time.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function run(args: string[], dataDir: string, input?: string) {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'src/cli.ts'), ...args], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    encoding: 'utf8',
    timeout: 30_000,
    ...(input !== undefined ? { input } : {}),
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** What a recipe would get for this reference in the given environment of workspace 1. */
async function resolve(dataDir: string, env: 'dev' | 'test' | 'prod', reference: string): Promise<string> {
  const config = loadConfig({ DATA_DIR: dataDir });
  const box = createSecretBox(loadOrCreateSecretKey(config).key);
  const database = createDb(config);
  try {
    const environment = await findEnvironmentByType(database.db, 1, env);
    return await secretResolverFor(config, systemClock, box).resolve(
      database.db,
      { workspaceId: 1, environmentId: environment!.id },
      reference,
    );
  } finally {
    await database.db.destroy();
  }
}

describe('switchboard secrets', () => {
  test('set reads the value from stdin (one trailing newline dropped); list shows names only; delete removes', async () => {
    const dir = tempDir('sb-secrets-cli-');
    assert.equal(run(['init'], dir).code, 0);
    const set = run(['secrets', 'set', 'erp_password'], dir, 'cli-secret-value-Z9\n');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, '');
    assert.match(set.stderr, /stored secret erp_password in workspace 1, environment dev/);
    assert.equal(run(['secrets', 'set', 'erp_password', '--env', 'prod'], dir, 'prod-value').code, 0);
    assert.equal(await resolve(dir, 'dev', 'erp_password'), 'cli-secret-value-Z9');
    assert.equal(await resolve(dir, 'prod', 'store:erp_password'), 'prod-value');

    const list = run(['secrets', 'list'], dir);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^erp_password\t\d{4}-\d\d-\d\dT/);
    assert.ok(!list.stdout.includes('cli-secret-value-Z9'));
    assert.equal(run(['secrets', 'list', '--env', 'test'], dir).stdout, '');

    // Nothing in clear on disk: the database file and its write-ahead log.
    for (const file of fs.readdirSync(dir).filter((f) => f.startsWith('switchboard.sqlite'))) {
      assert.ok(!fs.readFileSync(path.join(dir, file)).includes('cli-secret-value-Z9'), file);
    }

    const del = run(['secrets', 'delete', 'erp_password'], dir);
    assert.equal(del.code, 0, del.stderr);
    assert.equal(run(['secrets', 'list'], dir).stdout, '');
    await assert.rejects(resolve(dir, 'dev', 'erp_password'), /not found/);
    assert.equal(await resolve(dir, 'prod', 'erp_password'), 'prod-value');
  });

  test('usage errors (exit 2): no name, a bad name, an empty value, an unknown secret or environment', () => {
    const dir = tempDir('sb-secrets-cli-');
    assert.equal(run(['init'], dir).code, 0);
    const noName = run(['secrets', 'set'], dir, 'v');
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /expected NAME/);
    const badName = run(['secrets', 'set', '../etc'], dir, 'v');
    assert.equal(badName.code, 2);
    assert.match(badName.stderr, /Name must be/);
    const empty = run(['secrets', 'set', 'empty_one'], dir, '\n');
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /Value can't be blank/);
    assert.equal(run(['secrets', 'delete', 'never_set'], dir).code, 2);
    assert.equal(run(['secrets', 'list', '--env', 'staging'], dir).code, 2);
    assert.equal(run(['secrets', 'list', 'extra'], dir).code, 2);
    assert.equal(run(['secrets', 'list'], dir).stdout, '');
  });
});
