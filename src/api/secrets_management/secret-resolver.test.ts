// The secret providers and the resolver's cache, below the HTTP layer (the routes are tested in
// secrets_management.test.ts, and through connections in connections.test.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../../test/helpers.ts';
import { ConfigError, loadConfig } from '../../config.ts';
import { createServiceContext } from '../../context.ts';
import { createSecretBox } from '../../crypto/secret-box.ts';
import { openSqlite } from '../../db/index.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import type { Db } from '../../db/types.ts';
import { manualClock } from '../../time.ts';
import { createWorkspace } from '../../workspaces/workspaces.service.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { createLogger } from '../../logger.ts';
import {
  builtInStoreProvider,
  createSecretResolver,
  environmentProvider,
  fileProvider,
  MAX_SECRET_BYTES,
  parseSecretReference,
  secretResolverFor,
  SecretResolutionError,
  type SecretScope,
} from './secret-resolver.ts';
import { upsertSecret } from './secrets_management.store.ts';

const clock = manualClock();
let db: Db & { destroy(): Promise<void> };
let scope: SecretScope;
let dir: string;

before(async () => {
  const kysely = openSqlite(':memory:');
  await migrateToLatest(kysely, 'sqlite');
  db = kysely;
  const box = createSecretBox(randomBytes(32));
  const config = loadConfig({});
  const secrets = secretResolverFor(config, clock, box);
  const workspace = await createWorkspace(
    createServiceContext({ db: kysely, config, secretBox: box, log: createLogger('silent'), clock, secrets }),
    { name: 'Resolver Co', ownerEmail: 'r@example.com' },
  );
  scope = { workspaceId: workspace.id, environmentId: (await findEnvironmentByType(kysely, workspace.id, 'dev'))!.id };
  dir = tempDir('sb-resolver-');
});
after(() => db.destroy());

describe('parseSecretReference', () => {
  test('NAME and store:NAME are the built-in store; env: and file: name their provider', () => {
    assert.deepEqual(parseSecretReference('db_password'), { provider: 'store', name: 'db_password' });
    assert.deepEqual(parseSecretReference('store:db.password-2'), { provider: 'store', name: 'db.password-2' });
    assert.deepEqual(parseSecretReference('env:SWITCHBOARD_SECRET_X'), {
      provider: 'env',
      name: 'SWITCHBOARD_SECRET_X',
    });
    assert.deepEqual(parseSecretReference('file:api.key'), { provider: 'file', name: 'api.key' });
  });

  test('refuses other providers, paths and odd names', () => {
    for (const bad of [
      '',
      'vault:x',
      'file:',
      'file:../x',
      'file:a/b',
      'file:.hidden',
      'env:1X',
      'env:A-B',
      'store:a b',
      ':x',
      'x'.repeat(101),
    ]) {
      assert.ok('error' in parseSecretReference(bad), bad);
    }
  });
});

describe('fileProvider', () => {
  const resolver = () => createSecretResolver({ providers: [fileProvider(dir)], clock, ttlSeconds: 0 });

  test('reads a file of the directory, dropping one trailing newline only', async () => {
    fs.writeFileSync(path.join(dir, 'plain'), 'value\n\n');
    assert.equal(await resolver().resolve(db, scope, 'file:plain'), 'value\n');
    fs.writeFileSync(path.join(dir, 'crlf'), 'value\r\n');
    assert.equal(await resolver().resolve(db, scope, 'file:crlf'), 'value');
  });

  test('a symbolic link is followed only while it stays inside the directory (Kubernetes layout works)', async () => {
    fs.mkdirSync(path.join(dir, '..2026_01_01'));
    fs.writeFileSync(path.join(dir, '..2026_01_01', 'k8s_secret'), 'mounted');
    fs.symlinkSync('..2026_01_01', path.join(dir, '..data'));
    fs.symlinkSync(path.join('..data', 'k8s_secret'), path.join(dir, 'k8s_secret'));
    assert.equal(await resolver().resolve(db, scope, 'file:k8s_secret'), 'mounted');

    const outside = tempDir('sb-outside-');
    fs.writeFileSync(path.join(outside, 'victim'), 'not for you');
    fs.symlinkSync(path.join(outside, 'victim'), path.join(dir, 'escape'));
    await assert.rejects(
      resolver().resolve(db, scope, 'file:escape'),
      (e: unknown) => e instanceof SecretResolutionError && e.message === 'secret file:escape: is outside SECRETS_DIR',
    );
  });

  test('missing, a directory, too large: clear errors without content', async () => {
    await assert.rejects(resolver().resolve(db, scope, 'file:absent'), /secret file:absent: not found/);
    fs.mkdirSync(path.join(dir, 'a_directory'));
    await assert.rejects(resolver().resolve(db, scope, 'file:a_directory'), /is not a file/);
    fs.writeFileSync(path.join(dir, 'huge'), 'x'.repeat(MAX_SECRET_BYTES + 1));
    await assert.rejects(resolver().resolve(db, scope, 'file:huge'), /is larger than/);
  });

  test('off without SECRETS_DIR: the reference is refused before any use', async () => {
    const off = createSecretResolver({ providers: [fileProvider(undefined)], clock, ttlSeconds: 60 });
    assert.equal(off.check('file:x'), 'file secrets are off (set SECRETS_DIR)');
    await assert.rejects(off.resolve(db, scope, 'file:x'), /file secrets are off/);
  });
});

describe('environmentProvider and the configuration snapshot', () => {
  test('only variables under the prefix, never the server settings, and the config never prints values', () => {
    const config = loadConfig({
      SWITCHBOARD_SECRET_DB: 'db-pass',
      SWITCHBOARD_SECRET_KEY: 'ab'.repeat(32),
      HOME: '/root',
      OTHER_SECRET: 'x',
    });
    assert.deepEqual([...config.secretsEnvironment.keys()], ['SWITCHBOARD_SECRET_DB']);
    assert.ok(!JSON.stringify(config).includes('db-pass'));
    const custom = loadConfig({ SECRETS_ENV_PREFIX: 'ACME_', ACME_TOKEN: 't', SWITCHBOARD_SECRET_DB: 'db' });
    assert.deepEqual([...custom.secretsEnvironment.keys()], ['ACME_TOKEN']);
  });

  test('resolution follows the prefix', async () => {
    const resolver = createSecretResolver({
      providers: [environmentProvider(new Map([['APP_SECRET_A', 'a-value']]), 'APP_SECRET_')],
      clock,
      ttlSeconds: 60,
    });
    assert.equal(await resolver.resolve(db, scope, 'env:APP_SECRET_A'), 'a-value');
    assert.match(resolver.check('env:PATH') ?? '', /only environment variables starting with APP_SECRET_/);
    await assert.rejects(resolver.resolve(db, scope, 'env:APP_SECRET_B'), /not found/);
  });

  test('loadConfig: defaults, and bad settings name the variable', () => {
    const c = loadConfig({});
    assert.equal(c.secretsCacheTtlSeconds, 3600);
    assert.equal(c.secretsEnvPrefix, 'SWITCHBOARD_SECRET_');
    assert.equal(c.secretsDir, undefined);
    assert.equal(loadConfig({ SECRETS_DIR: 'run/secrets' }).secretsDir, path.resolve('run/secrets'));
    for (const env of [
      { SECRETS_CACHE_TTL_SECONDS: 'soon' },
      { SECRETS_CACHE_TTL_SECONDS: '999999999' },
      { SECRETS_ENV_PREFIX: 'X' },
      { SECRETS_ENV_PREFIX: 'BAD-PREFIX' },
    ]) {
      const name = Object.keys(env)[0]!;
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && e.message.includes(name),
        name,
      );
    }
  });
});

describe('the cache', () => {
  test('TTL 0 never caches', async () => {
    const file = path.join(dir, 'uncached');
    fs.writeFileSync(file, 'one');
    const resolver = createSecretResolver({ providers: [fileProvider(dir)], clock, ttlSeconds: 0 });
    assert.equal(await resolver.resolve(db, scope, 'file:uncached'), 'one');
    fs.writeFileSync(file, 'two');
    assert.equal(await resolver.resolve(db, scope, 'file:uncached'), 'two');
  });

  test('entries are per workspace environment; clearCache drops one workspace and counts', async () => {
    const file = path.join(dir, 'shared');
    fs.writeFileSync(file, 'one');
    const resolver = createSecretResolver({ providers: [fileProvider(dir)], clock, ttlSeconds: 60 });
    const other = { workspaceId: scope.workspaceId + 1000, environmentId: 1 };
    await resolver.resolve(db, scope, 'file:shared');
    await resolver.resolve(db, other, 'file:shared');
    fs.writeFileSync(file, 'two');
    assert.equal(resolver.clearCache(other.workspaceId), 1);
    assert.equal(await resolver.resolve(db, other, 'file:shared'), 'two');
    assert.equal(await resolver.resolve(db, scope, 'file:shared'), 'one');
  });
});

describe('builtInStoreProvider', () => {
  test('opens sealed values; a value sealed under another key is an error, not a crash', async () => {
    const box = createSecretBox(randomBytes(32));
    await upsertSecret(db, scope, 'sealed_one', box.seal('plain-one'), new Date().toISOString());
    const good = createSecretResolver({ providers: [builtInStoreProvider(box)], clock, ttlSeconds: 60 });
    assert.equal(await good.resolve(db, scope, 'sealed_one'), 'plain-one');
    const wrongKey = createSecretResolver({
      providers: [builtInStoreProvider(createSecretBox(randomBytes(32)))],
      clock,
      ttlSeconds: 60,
    });
    await assert.rejects(wrongKey.resolve(db, scope, 'sealed_one'), /does not open with this SWITCHBOARD_SECRET_KEY/);
  });
});
