import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { openProfileCredentials } from './custom_oauth_profiles.service.ts';

const CLIENT_SECRET = 'oauth-client-secret-Zq81';
const EXTRA_TOKEN = 'oauth-signing-token-Lm44';

let t: TestApp;
let devEnvironmentId: number;

before(async () => {
  t = await createTestApp();
  devEnvironmentId = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev'))!.id;
});
after(() => t.close());

async function create(body: Record<string, unknown>, token?: string) {
  return t.call('POST', '/api/custom_oauth_profiles', { body, ...(token ? { token } : {}) });
}

async function profileCount(token?: string): Promise<number> {
  return (await t.call('GET', '/api/custom_oauth_profiles', token ? { token } : {})).body.result.length;
}

async function secretsOf(id: number) {
  return openProfileCredentials(t.ctx, { workspaceId: t.workspaceId, environmentId: devEnvironmentId }, id);
}

const slackApp = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  provider: 'slack',
  data: { client_id: '1234567890.987654321', client_secret: CLIENT_SECRET, token: EXTRA_TOKEN },
  ...extra,
});

const PROFILE_KEYS = [
  'created_at',
  'data',
  'id',
  'name',
  'oem_customers_count',
  'provider',
  'shared_accounts_count',
  'updated_at',
  'user_id',
];

describe('POST /api/custom_oauth_profiles', () => {
  test('creates a profile; the reply shows only client_id; the secrets are kept encrypted', async () => {
    const res = await create(slackApp('Acme Slack app'));
    assert.equal(res.status, 200, res.text);
    const p = res.body.result;
    assert.deepEqual(Object.keys(p).sort(), PROFILE_KEYS);
    assert.equal(p.name, 'Acme Slack app');
    assert.equal(p.provider, 'slack');
    assert.deepEqual(p.data, { client_id: '1234567890.987654321' });
    assert.equal(p.user_id, t.workspaceId);
    assert.equal(p.shared_accounts_count, 0);
    assert.equal(p.oem_customers_count, 0);
    assert.match(p.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.ok(!res.text.includes(CLIENT_SECRET) && !res.text.includes(EXTRA_TOKEN));
    assert.deepEqual(await secretsOf(p.id), {
      provider: 'slack',
      clientId: '1234567890.987654321',
      clientSecret: CLIENT_SECRET,
      token: EXTRA_TOKEN,
    });
  });

  test('the token is optional', async () => {
    const res = await create({
      name: 'No token',
      provider: 'github',
      data: { client_id: 'gh', client_secret: 'gh-secret' },
    });
    assert.equal(res.status, 200);
    assert.equal((await secretsOf(res.body.result.id)).token, null);
  });

  test('422 for a duplicate name in the environment (case-insensitive); the same name in test is fine', async () => {
    assert.equal((await create(slackApp('Unique app'))).status, 200);
    const before = await profileCount();
    const dup = await create(slackApp('UNIQUE APP'));
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.body, {
      message: 'Name has already been taken',
      errors: { name: ['has already been taken'] },
    });
    assert.equal(await profileCount(), before);
    const testToken = await t.tokenFor('Admin', 'test');
    assert.equal((await create(slackApp('Unique app'), testToken)).status, 200);
  });

  test('bad input: each a 400 naming the field, and nothing is created', async () => {
    const before = await profileCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'slack', data: { client_id: 'a', client_secret: 'b' } }, 'name'],
      [{ name: ' ', provider: 'slack', data: { client_id: 'a', client_secret: 'b' } }, 'name'],
      [{ name: 'n'.repeat(256), provider: 'slack', data: { client_id: 'a', client_secret: 'b' } }, 'name'],
      [{ name: 'x', data: { client_id: 'a', client_secret: 'b' } }, 'provider'],
      [{ name: 'x', provider: 'not a key!', data: { client_id: 'a', client_secret: 'b' } }, 'provider'],
      [{ name: 'x', provider: 'slack' }, 'data'],
      [{ name: 'x', provider: 'slack', data: { client_secret: 'b' } }, 'data.client_id'],
      [{ name: 'x', provider: 'slack', data: { client_id: 'a' } }, 'data.client_secret'],
      [{ name: 'x', provider: 'slack', data: { client_id: 'a', client_secret: '' } }, 'data.client_secret'],
      [{ name: 'x', provider: 'slack', data: { client_id: 42, client_secret: 'b' } }, 'data.client_id'],
      [{ name: 'x', provider: 'slack', data: { client_id: 'a', client_secret: 'b', token: 5 } }, 'data.token'],
      [
        { name: 'x', provider: 'slack', data: { client_id: 'a', client_secret: 's'.repeat(10_001) } },
        'data.client_secret',
      ],
      [{ name: 'x', provider: 'slack', data: 'client_id=a' }, 'data'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text.slice(0, 200)}`);
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text.slice(0, 300)}`);
    }
    const malformed = await t.call('POST', '/api/custom_oauth_profiles', {
      raw: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(
      (await t.call('POST', '/api/custom_oauth_profiles', { raw: 'name=x', headers: { 'content-type': 'text/plain' } }))
        .status,
      415,
    );
    const huge = await t.call('POST', '/api/custom_oauth_profiles', {
      raw: JSON.stringify(slackApp('x'.repeat(2 * 1024 * 1024))),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413);
    assert.equal(await profileCount(), before);
  });

  test('401 and 403 (nothing created)', async () => {
    const before = await profileCount();
    assert.equal(
      (await t.call('POST', '/api/custom_oauth_profiles', { token: null, body: slackApp('x') })).status,
      401,
    );
    const reader = await t.tokenWith('OAuth reader', ['custom_oauth_profiles:read']);
    const res = await create(slackApp('x'), reader);
    assert.equal(res.status, 403);
    assert.match(res.body.message, /custom_oauth_profiles:write/);
    assert.equal(await profileCount(), before);
  });
});

describe('GET /api/custom_oauth_profiles', () => {
  test('{"result": [...]} in id order, paged with page and per_page; no secrets', async () => {
    for (let i = 0; i < 3; i++) await create(slackApp(`Paged app ${i}`));
    const all = await t.call('GET', '/api/custom_oauth_profiles');
    assert.equal(all.status, 200);
    const ids = all.body.result.map((p: { id: number }) => p.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => a - b),
    );
    assert.ok(!all.text.includes(CLIENT_SECRET) && !all.text.includes(EXTRA_TOKEN));
    const page1 = await t.call('GET', '/api/custom_oauth_profiles?page=1&per_page=2');
    const page2 = await t.call('GET', '/api/custom_oauth_profiles?page=2&per_page=2');
    assert.equal(page1.body.result.length, 2);
    assert.deepEqual(page2.body.result[0].id, ids[2]);
    assert.deepEqual((await t.call('GET', '/api/custom_oauth_profiles?page=999')).body, { result: [] });
    assert.equal((await t.call('GET', '/api/custom_oauth_profiles?page=x&per_page=1000')).status, 200);
  });

  test('other environments and workspaces do not see them', async () => {
    await create(slackApp('Dev-only app'));
    const prod = await t.tokenFor('Admin', 'prod');
    assert.ok(
      !(await t.call('GET', '/api/custom_oauth_profiles', { token: prod })).body.result.some(
        (p: { name: string }) => p.name === 'Dev-only app',
      ),
    );
    const other = await t.newWorkspace('OAuth Other Co');
    assert.deepEqual((await t.call('GET', '/api/custom_oauth_profiles', { token: other.adminToken })).body, {
      result: [],
    });
  });

  test('401 and 403', async () => {
    assert.equal((await t.call('GET', '/api/custom_oauth_profiles', { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', '/api/custom_oauth_profiles', {
          token: await t.tokenWith('No OAuth', ['workspace_details:read']),
        })
      ).status,
      403,
    );
  });
});

describe('GET /api/custom_oauth_profiles/:id', () => {
  test('{"result": {...}} with shared_accounts_count = connections using it', async () => {
    const created = await create(slackApp('Counted app'));
    const id = created.body.result.id;
    await t.call('POST', '/api/connections', {
      body: { name: 'Slack A', provider: 'slack', custom_oauth_profile_id: id },
    });
    await t.call('POST', '/api/connections', {
      body: { name: 'Slack B', provider: 'slack', custom_oauth_profile_id: id },
    });
    const res = await t.call('GET', `/api/custom_oauth_profiles/${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.result.shared_accounts_count, 2);
    assert.equal(res.body.result.name, 'Counted app');
    assert.ok(!res.text.includes(CLIENT_SECRET));
  });

  test('404 unknown / other environment / other workspace; 400 non-numeric; 401; 403', async () => {
    const created = await create(slackApp('Private app'));
    const id = created.body.result.id;
    assert.deepEqual((await t.call('GET', '/api/custom_oauth_profiles/999999')).body, { message: 'Not found' });
    assert.equal(
      (await t.call('GET', `/api/custom_oauth_profiles/${id}`, { token: await t.tokenFor('Admin', 'test') })).status,
      404,
    );
    assert.equal(
      (
        await t.call('GET', `/api/custom_oauth_profiles/${id}`, {
          token: (await t.newWorkspace('OAuth Get Co')).adminToken,
        })
      ).status,
      404,
    );
    assert.equal((await t.call('GET', '/api/custom_oauth_profiles/abc')).status, 400);
    assert.equal((await t.call('GET', `/api/custom_oauth_profiles/${id}`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('GET', `/api/custom_oauth_profiles/${id}`, {
          token: await t.tokenWith('No OAuth 2', ['connections:read']),
        })
      ).status,
      403,
    );
  });
});

describe('PUT /api/custom_oauth_profiles/:id', () => {
  test('partial update: an omitted client_secret is kept; a new one replaces it; token null removes it', async () => {
    const created = await create(slackApp('Editable app'));
    const id = created.body.result.id;
    const renamed = await t.call('PUT', `/api/custom_oauth_profiles/${id}`, {
      body: { name: 'Edited app', data: { client_id: 'new-client' } },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.result.name, 'Edited app');
    assert.deepEqual(renamed.body.result.data, { client_id: 'new-client' });
    assert.deepEqual(await secretsOf(id), {
      provider: 'slack',
      clientId: 'new-client',
      clientSecret: CLIENT_SECRET,
      token: EXTRA_TOKEN,
    });
    const rotated = await t.call('PUT', `/api/custom_oauth_profiles/${id}`, {
      body: { data: { client_secret: 'rotated-secret-77', token: null } },
    });
    assert.equal(rotated.status, 200);
    assert.ok(!rotated.text.includes('rotated-secret-77'));
    const secrets = await secretsOf(id);
    assert.equal(secrets.clientSecret, 'rotated-secret-77');
    assert.equal(secrets.token, null);
    // rk sends the full set every time.
    const full = await t.call('PUT', `/api/custom_oauth_profiles/${id}`, { body: slackApp('Edited app') });
    assert.equal(full.status, 200);
  });

  test('the provider cannot change while connections use the profile (422); it can when unused', async () => {
    const created = await create(slackApp('Provider app'));
    const id = created.body.result.id;
    assert.equal(
      (await t.call('PUT', `/api/custom_oauth_profiles/${id}`, { body: { provider: 'slack_v2' } })).status,
      200,
    );
    const conn = await t.call('POST', '/api/connections', {
      body: { name: 'Uses it', provider: 'slack_v2', custom_oauth_profile_id: id },
    });
    assert.equal(conn.status, 200);
    const res = await t.call('PUT', `/api/custom_oauth_profiles/${id}`, { body: { provider: 'slack' } });
    assert.equal(res.status, 422);
    assert.match(res.body.message, /^Custom OAuth profile is in use/);
    assert.equal((await t.call('GET', `/api/custom_oauth_profiles/${id}`)).body.result.provider, 'slack_v2');
  });

  test('errors change nothing: 404, 400 (empty, bad types, blank secret), 422 duplicate, 401, 403', async () => {
    await create(slackApp('Taken name'));
    const created = await create(slackApp('Stable app'));
    const id = created.body.result.id;
    const snapshot = (await t.call('GET', `/api/custom_oauth_profiles/${id}`)).body;
    assert.equal((await t.call('PUT', '/api/custom_oauth_profiles/999999', { body: { name: 'x' } })).status, 404);
    assert.equal(
      (
        await t.call('PUT', `/api/custom_oauth_profiles/${id}`, {
          token: await t.tokenFor('Admin', 'prod'),
          body: { name: 'x' },
        })
      ).status,
      404,
    );
    assert.equal((await t.call('PUT', '/api/custom_oauth_profiles/x', { body: { name: 'x' } })).status, 400);
    for (const body of [
      undefined,
      {},
      { nmae: 'x' },
      { name: '' },
      { name: 3 },
      { data: { client_secret: '' } },
      { data: { client_secret: 5 } },
      { provider: 'bad key' },
      { data: 'x' },
    ]) {
      const res = await t.call('PUT', `/api/custom_oauth_profiles/${id}`, body === undefined ? {} : { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text}`);
    }
    const dup = await t.call('PUT', `/api/custom_oauth_profiles/${id}`, { body: { name: 'taken NAME' } });
    assert.equal(dup.status, 422);
    assert.equal(
      (
        await t.call('PUT', `/api/custom_oauth_profiles/${id}`, {
          raw: '{x',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/custom_oauth_profiles/${id}`, { token: null, body: { name: 'x' } })).status,
      401,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/custom_oauth_profiles/${id}`, {
          token: await t.tokenWith('OAuth reader 2', ['custom_oauth_profiles:read']),
          body: { name: 'x' },
        })
      ).status,
      403,
    );
    assert.deepEqual((await t.call('GET', `/api/custom_oauth_profiles/${id}`)).body, snapshot);
    assert.equal((await secretsOf(id)).clientSecret, CLIENT_SECRET);
  });
});

describe('DELETE /api/custom_oauth_profiles/:id', () => {
  test('deletes: {"result": {"success": true}}', async () => {
    const created = await create(slackApp('Doomed app'));
    const res = await t.call('DELETE', `/api/custom_oauth_profiles/${created.body.result.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { result: { success: true } });
    assert.equal((await t.call('GET', `/api/custom_oauth_profiles/${created.body.result.id}`)).status, 404);
  });

  test('422 while a connection uses it; deletable once the connection lets go', async () => {
    const created = await create(slackApp('In-use app'));
    const id = created.body.result.id;
    const conn = await t.call('POST', '/api/connections', {
      body: { name: 'Holder', provider: 'slack', custom_oauth_profile_id: id },
    });
    const res = await t.call('DELETE', `/api/custom_oauth_profiles/${id}`);
    assert.equal(res.status, 422);
    assert.equal(res.body.message, 'Custom OAuth profile is in use by 1 connection(s)');
    assert.equal((await t.call('GET', `/api/custom_oauth_profiles/${id}`)).status, 200);
    assert.equal(
      (await t.call('PUT', `/api/connections/${conn.body.id}`, { body: { custom_oauth_profile_id: null } })).status,
      200,
    );
    assert.equal((await t.call('DELETE', `/api/custom_oauth_profiles/${id}`)).status, 200);
  });

  test('404 unknown / other environment, 400 non-numeric, 401, 403; nothing deleted', async () => {
    const created = await create(slackApp('Kept app'));
    const id = created.body.result.id;
    assert.equal((await t.call('DELETE', '/api/custom_oauth_profiles/999999')).status, 404);
    assert.equal(
      (await t.call('DELETE', `/api/custom_oauth_profiles/${id}`, { token: await t.tokenFor('Admin', 'test') })).status,
      404,
    );
    assert.equal((await t.call('DELETE', '/api/custom_oauth_profiles/abc')).status, 400);
    assert.equal((await t.call('DELETE', `/api/custom_oauth_profiles/${id}`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('DELETE', `/api/custom_oauth_profiles/${id}`, {
          token: await t.tokenWith('OAuth reader 3', ['custom_oauth_profiles:read']),
        })
      ).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/custom_oauth_profiles/${id}`)).status, 200);
  });
});
