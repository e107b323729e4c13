import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, tempDir, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { resolveConnectionCredentials } from '../connections/connections.service.ts';

const TTL_SECONDS = 600;
const clock = manualClock('2026-02-01T08:00:00.000Z');
let t: TestApp;
let secretsDir: string;
let devEnvironmentId: number;

before(async () => {
  secretsDir = tempDir('sb-secrets-');
  t = await createTestApp({ clock, env: { SECRETS_DIR: secretsDir, SECRETS_CACHE_TTL_SECONDS: String(TTL_SECONDS) } });
  devEnvironmentId = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev'))!.id;
});
after(() => t.close());

/** A rest connection whose bearer token is a secret reference; returns a function reading the token as a recipe would. */
async function connectionUsing(reference: string, token?: string): Promise<() => Promise<string>> {
  const res = await t.call('POST', '/api/connections', {
    body: {
      name: `Uses ${reference}`,
      provider: 'rest',
      input: { base_url: 'https://api.example', auth_type: 'bearer', token: { secret: reference } },
    },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  const id = res.body.id;
  return async () => {
    const creds = await resolveConnectionCredentials(
      t.ctx,
      { workspaceId: t.workspaceId, environmentId: devEnvironmentId },
      id,
    );
    return String(creds.values.token);
  };
}

async function secretNames(token?: string): Promise<string[]> {
  return (await t.call('GET', '/api/secrets_management/secrets', token ? { token } : {})).body.result.map(
    (s: { name: string }) => s.name,
  );
}

describe('POST /api/secrets_management/clear_cache', () => {
  test('a file secret changed on disk is used only after the cache is cleared (or its TTL ends)', async () => {
    const file = path.join(secretsDir, 'crm_token');
    fs.writeFileSync(file, 'token-v1\n');
    const readToken = await connectionUsing('file:crm_token');
    assert.equal(await readToken(), 'token-v1');
    fs.writeFileSync(file, 'token-v2\n');
    assert.equal(await readToken(), 'token-v1', 'cached');

    const res = await t.call('POST', '/api/secrets_management/clear_cache');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.equal(await readToken(), 'token-v2', 'read afresh after the clear');

    fs.writeFileSync(file, 'token-v3');
    clock.advance((TTL_SECONDS - 1) * 1000);
    assert.equal(await readToken(), 'token-v2', 'still within the TTL');
    clock.advance(2000);
    assert.equal(await readToken(), 'token-v3', 'the TTL ended');
  });

  test('a file secret that disappears keeps working from the cache until cleared, then fails', async () => {
    const file = path.join(secretsDir, 'short_lived');
    fs.writeFileSync(file, 'short-v1');
    const readToken = await connectionUsing('file:short_lived');
    assert.equal(await readToken(), 'short-v1');
    fs.rmSync(file);
    assert.equal(await readToken(), 'short-v1');
    await t.call('POST', '/api/secrets_management/clear_cache', { body: {} });
    await assert.rejects(readToken(), /secret file:short_lived: not found/);
  });

  test('the built-in store is read fresh each time (no cache to clear)', async () => {
    await t.call('PUT', '/api/secrets_management/secrets/api_token', { body: { value: 'store-v1' } });
    const readToken = await connectionUsing('api_token');
    assert.equal(await readToken(), 'store-v1');
    await t.call('PUT', '/api/secrets_management/secrets/api_token', { body: { value: 'store-v2' } });
    assert.equal(await readToken(), 'store-v2');
  });

  test("another workspace's clear does not empty this workspace's cache", async () => {
    const file = path.join(secretsDir, 'tenant_token');
    fs.writeFileSync(file, 'tenant-v1');
    const readToken = await connectionUsing('file:tenant_token');
    assert.equal(await readToken(), 'tenant-v1');
    fs.writeFileSync(file, 'tenant-v2');
    const other = await t.newWorkspace('Secrets Other Co');
    assert.equal(
      (await t.call('POST', '/api/secrets_management/clear_cache', { token: other.adminToken })).status,
      200,
    );
    assert.equal(await readToken(), 'tenant-v1');
  });

  test('400 for malformed JSON, 401, 403 (the cache is not cleared)', async () => {
    const file = path.join(secretsDir, 'guarded_token');
    fs.writeFileSync(file, 'guarded-v1');
    const readToken = await connectionUsing('file:guarded_token');
    assert.equal(await readToken(), 'guarded-v1');
    fs.writeFileSync(file, 'guarded-v2');
    assert.equal(
      (
        await t.call('POST', '/api/secrets_management/clear_cache', {
          raw: '{x',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/secrets_management/clear_cache', {
          raw: 'x',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
      415,
    );
    assert.equal((await t.call('POST', '/api/secrets_management/clear_cache', { token: null })).status, 401);
    const reader = await t.tokenWith('Secrets reader', ['secrets_management:read']);
    const denied = await t.call('POST', '/api/secrets_management/clear_cache', { token: reader });
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /secrets_management:write/);
    assert.equal(await readToken(), 'guarded-v1');
  });
});

describe('PUT /api/secrets_management/secrets/:name', () => {
  test('creates, then replaces (created_at kept); the value is never returned', async () => {
    const created = await t.call('PUT', '/api/secrets_management/secrets/db.password-1', {
      body: { value: 'first-value-abc' },
    });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(Object.keys(created.body.result).sort(), ['created_at', 'name', 'updated_at']);
    assert.equal(created.body.result.name, 'db.password-1');
    clock.advance(5000);
    const replaced = await t.call('PUT', '/api/secrets_management/secrets/db.password-1', {
      body: { value: 'second-value-def' },
    });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.result.created_at, created.body.result.created_at);
    assert.notEqual(replaced.body.result.updated_at, created.body.result.updated_at);
    assert.ok(!created.text.includes('first-value-abc') && !replaced.text.includes('second-value-def'));
    const readToken = await connectionUsing('store:db.password-1');
    assert.equal(await readToken(), 'second-value-def');
  });

  test('bad names and values: each a 400, and nothing is stored', async () => {
    const before = await secretNames();
    const cases: Array<[string, unknown, string]> = [
      ['.hidden', { value: 'v' }, 'name'],
      ['-dash', { value: 'v' }, 'name'],
      ['has%20space', { value: 'v' }, 'name'],
      ['ok_name', { value: '' }, 'value'],
      ['ok_name', { value: 'v'.repeat(64 * 1024 + 1) }, 'value'],
      ['ok_name', { value: 5 }, 'value'],
      ['ok_name', {}, 'value'],
      ['ok_name', { secret: 'v' }, 'value'],
    ];
    for (const [name, body, field] of cases) {
      const res = await t.call('PUT', `/api/secrets_management/secrets/${name}`, { body });
      assert.equal(
        res.status,
        400,
        `${name} ${JSON.stringify(body).slice(0, 50)} -> ${res.status} ${res.text.slice(0, 200)}`,
      );
      assert.ok(res.body.errors?.[field], res.text.slice(0, 200));
    }
    // Longer than any valid name, and than the router's segment limit: still the contract's error shape.
    const long = await t.call('PUT', `/api/secrets_management/secrets/${'x'.repeat(101)}`, { body: { value: 'v' } });
    assert.equal(long.status, 400);
    assert.ok(long.body.message);
    const longer = await t.call('PUT', `/api/secrets_management/secrets/${'x'.repeat(3000)}`, { body: { value: 'v' } });
    assert.ok([400, 404].includes(longer.status), 'past the router limit: a 4xx in the contract shape');
    assert.ok(longer.body.message);
    const badUrl = await t.call('PUT', '/api/secrets_management/secrets/%zz', { body: { value: 'v' } });
    assert.equal(badUrl.status, 400);
    assert.deepEqual(Object.keys(badUrl.body), ['message']);
    assert.equal((await t.call('PUT', '/api/secrets_management/secrets/ok_name')).status, 400, 'no body');
    assert.equal(
      (
        await t.call('PUT', '/api/secrets_management/secrets/ok_name', {
          raw: '{"value":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('PUT', '/api/secrets_management/secrets/ok_name', {
          raw: 'value=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.equal(
      (
        await t.call('PUT', '/api/secrets_management/secrets/ok_name', {
          raw: JSON.stringify({ value: 'x'.repeat(2 * 1024 * 1024) }),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      413,
    );
    assert.deepEqual(await secretNames(), before);
  });

  test('401 and 403 store nothing', async () => {
    const before = await secretNames();
    assert.equal(
      (await t.call('PUT', '/api/secrets_management/secrets/nope', { token: null, body: { value: 'v' } })).status,
      401,
    );
    assert.equal(
      (
        await t.call('PUT', '/api/secrets_management/secrets/nope', {
          token: await t.tokenWith('Secrets reader 2', ['secrets_management:read']),
          body: { value: 'v' },
        })
      ).status,
      403,
    );
    assert.deepEqual(await secretNames(), before);
  });
});

describe('GET /api/secrets_management/secrets', () => {
  test('names in order, per environment and workspace; never values', async () => {
    await t.call('PUT', '/api/secrets_management/secrets/zz_last', { body: { value: 'value-zz' } });
    await t.call('PUT', '/api/secrets_management/secrets/aa_first', { body: { value: 'value-aa' } });
    const res = await t.call('GET', '/api/secrets_management/secrets');
    assert.equal(res.status, 200);
    const names = res.body.result.map((s: { name: string }) => s.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes('aa_first') && names.includes('zz_last'));
    assert.ok(!res.text.includes('value-aa') && !res.text.includes('value-zz'));
    const prod = await t.tokenFor('Admin', 'prod');
    assert.deepEqual(await secretNames(prod), []);
    assert.equal(
      (await t.call('PUT', '/api/secrets_management/secrets/aa_first', { token: prod, body: { value: 'prod-value' } }))
        .status,
      200,
    );
    assert.deepEqual(await secretNames(prod), ['aa_first']);
    assert.deepEqual(await secretNames((await t.newWorkspace('Secrets List Co')).adminToken), []);
  });

  test('401 and 403', async () => {
    assert.equal((await t.call('GET', '/api/secrets_management/secrets', { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', '/api/secrets_management/secrets', {
          token: await t.tokenWith('No secrets', ['connections:read']),
        })
      ).status,
      403,
    );
  });
});

describe('DELETE /api/secrets_management/secrets/:name', () => {
  test('deletes; a connection referencing it then fails to resolve', async () => {
    await t.call('PUT', '/api/secrets_management/secrets/doomed', { body: { value: 'doomed-value' } });
    const readToken = await connectionUsing('doomed');
    assert.equal(await readToken(), 'doomed-value');
    const res = await t.call('DELETE', '/api/secrets_management/secrets/doomed');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { result: { success: true } });
    assert.ok(!(await secretNames()).includes('doomed'));
    await assert.rejects(readToken(), /secret doomed: not found/);
  });

  test('404 unknown or in another environment; 401; 403; nothing deleted', async () => {
    await t.call('PUT', '/api/secrets_management/secrets/kept', { body: { value: 'kept-value' } });
    const missing = await t.call('DELETE', '/api/secrets_management/secrets/never_stored');
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /^Not found/);
    assert.equal(
      (await t.call('DELETE', '/api/secrets_management/secrets/kept', { token: await t.tokenFor('Admin', 'test') }))
        .status,
      404,
    );
    assert.equal((await t.call('DELETE', '/api/secrets_management/secrets/kept', { token: null })).status, 401);
    assert.equal(
      (
        await t.call('DELETE', '/api/secrets_management/secrets/kept', {
          token: await t.tokenWith('Secrets reader 3', ['secrets_management:read']),
        })
      ).status,
      403,
    );
    assert.ok((await secretNames()).includes('kept'));
  });
});

describe('PUT|DELETE /api/secrets_management/secrets/:name by a client limited to some projects', () => {
  test('403: a secret serves every project of the environment; the value and the list are unchanged, the names readable', async () => {
    await t.call('PUT', '/api/secrets_management/secrets/shared_password', { body: { value: 'original-value' } });
    const readToken = await connectionUsing('shared_password');
    const project = await t.createProject('Secrets scope');
    const { token } = await t.scopedClient([project.folderId]);
    const replaced = await t.call('PUT', '/api/secrets_management/secrets/shared_password', {
      token,
      body: { value: 'attacker-value' },
    });
    assert.equal(replaced.status, 403);
    assert.equal(
      replaced.body.message,
      'Forbidden: built-in secrets serve every project of the environment; a client limited to some projects cannot change them',
    );
    assert.equal(
      (await t.call('PUT', '/api/secrets_management/secrets/new_one', { token, body: { value: 'x' } })).status,
      403,
    );
    assert.equal((await t.call('DELETE', '/api/secrets_management/secrets/shared_password', { token })).status, 403);
    assert.equal(await readToken(), 'original-value');
    const names = await t.call('GET', '/api/secrets_management/secrets', { token });
    assert.equal(names.status, 200);
    assert.ok(names.body.result.some((s: { name: string }) => s.name === 'shared_password'));
    assert.ok(!names.body.result.some((s: { name: string }) => s.name === 'new_one'));
  });
});
