// API clients v2 and their API keys (contract 03 §7), and the v1 view of the same data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let projectId: number;
let collectionId: number;
let otherCollectionId: number;
let readOnly: string;

before(async () => {
  t = await createTestApp();
  projectId = (await t.createProject('Partners')).projectId;
  collectionId = (await t.call('POST', '/api/api_collections', { body: { name: 'Orders', project_id: projectId } }))
    .body.id;
  otherCollectionId = (
    await t.call('POST', '/api/api_collections', { body: { name: 'Invoices', project_id: projectId } })
  ).body.id;
  readOnly = await t.tokenFor('Read only');
});
after(() => t.close());

async function client(body: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/api/v2/api_clients', {
    body: {
      name: `c${Math.random()}`,
      api_collection_ids: [collectionId],
      auth_type: 'token',
      project_id: projectId,
      ...body,
    },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function key(clientId: number, body: Record<string, unknown> = {}) {
  const res = await t.call('POST', `/api/v2/api_clients/${clientId}/api_keys`, {
    body: { name: `k${Math.random()}`, active: true, ...body },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

describe('POST /api/v2/api_clients/:api_client_id/api_keys', () => {
  test('the token is shown once; lists mask it; an inactive key keeps its active_since', async () => {
    const c = await client();
    const res = await t.call('POST', `/api/v2/api_clients/${c.id}/api_keys`, {
      body: { name: 'CI', active: false, ip_allow_list: ['10.0.0.0/8'] },
    });
    assert.equal(res.status, 200, res.text);
    const k = res.body.data;
    assert.match(k.auth_token, /^[0-9a-f]{64}$/);
    assert.equal(k.auth_type, 'token');
    assert.equal(k.active, false);
    assert.match(k.active_since, /\+00:00$/);
    assert.deepEqual(k.ip_allow_list, ['10.0.0.0/8']);
    assert.deepEqual(k.ip_deny_list, []);
    const listed = await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys`);
    assert.equal(listed.body.count, 1);
    assert.equal(listed.body.data[0].auth_token, `${k.auth_token.slice(0, 8)}…${k.auth_token.slice(-4)}`);
    assert.ok(!listed.text.includes(k.auth_token));
  });

  test('oauth2 keys carry their oauth client id; the secret is the auth_token', async () => {
    const c = await client({ auth_type: 'oauth2' });
    const k = await key(c.id);
    assert.match(k.oauth_client_id, /^oauth-/);
    assert.match(k.auth_token, /^[0-9a-f]{64}$/);
    const token = await t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: k.oauth_client_id,
        client_secret: k.auth_token,
      }),
    });
    assert.equal(token.statusCode, 200, token.body);
  });

  test('at most 20 keys a client, whichever view creates them: the 21st is 422 and nothing is created', async () => {
    const c = await client();
    for (let i = 0; i < 19; i++) await key(c.id);
    const v1 = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'via v1', api_client_id: c.id, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    assert.equal(v1.status, 200, v1.text);
    const refused = await t.call('POST', `/api/v2/api_clients/${c.id}/api_keys`, {
      body: { name: 'one too many', active: true },
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body, { message: 'An API client has at most 20 API keys' });
    const refusedV1 = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'via v1 too', api_client_id: c.id, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    assert.equal(refusedV1.status, 422);
    assert.equal((await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys`)).body.count, 20);
    const page2 = await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys?per_page=15&page=2`);
    assert.equal(page2.body.data.length, 5);
    assert.equal(page2.body.count, 20);
  });

  test('bad input 400, unknown client 404, a v1 client with no grant 422, 401, 403', async () => {
    const c = await client();
    for (const body of [
      {},
      { name: 'x' },
      { active: true },
      { name: '', active: true },
      { name: 'x', active: 'yes' },
      { name: 'x', active: true, ip_deny_list: ['nope'] },
    ]) {
      const res = await t.call('POST', `/api/v2/api_clients/${c.id}/api_keys`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} ${res.text}`);
    }
    assert.equal(
      (await t.call('POST', '/api/v2/api_clients/999999/api_keys', { body: { name: 'x', active: true } })).status,
      404,
    );
    const bare = await t.call('POST', '/api/api_clients', { body: { name: 'No profiles', project_id: projectId } });
    const none = await t.call('POST', `/api/v2/api_clients/${bare.body.id}/api_keys`, {
      body: { name: 'x', active: true },
    });
    assert.equal(none.status, 422);
    assert.equal(
      (await t.call('POST', `/api/v2/api_clients/${c.id}/api_keys`, { token: null, body: { name: 'x', active: true } }))
        .status,
      401,
    );
    assert.equal(
      (
        await t.call('POST', `/api/v2/api_clients/${c.id}/api_keys`, {
          token: readOnly,
          body: { name: 'x', active: true },
        })
      ).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys`)).body.count, 0);
  });
});

describe('PUT /api/v2/api_clients/:api_client_id/api_keys/:api_key_id (and enable, disable)', () => {
  test('update; enable/disable answer {"result":"success"}, are idempotent, and move active_since only on enable', async () => {
    const c = await client();
    const k = await key(c.id);
    const updated = await t.call('PUT', `/api/v2/api_clients/${c.id}/api_keys/${k.id}`, {
      body: { name: 'Renamed key', ip_deny_list: '192.0.2.1' },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.data.name, 'Renamed key');
    assert.deepEqual(updated.body.data.ip_deny_list, ['192.0.2.1']);
    assert.equal(updated.body.data.auth_token, `${k.auth_token.slice(0, 8)}…${k.auth_token.slice(-4)}`);
    const base = `/api/v2/api_clients/${c.id}/api_keys/${k.id}`;
    assert.deepEqual((await t.call('PUT', `${base}/disable`)).body, { result: 'success' });
    assert.deepEqual((await t.call('PUT', `${base}/disable`)).body, { result: 'success' });
    const state = async () => (await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys`)).body.data[0];
    assert.equal((await state()).active, false);
    assert.equal((await t.call('GET', `/api/v2/api_clients/${c.id}`)).body.data.active_api_keys_count, 0);
    assert.deepEqual((await t.call('PUT', `${base}/enable`)).body, { result: 'success' });
    assert.equal((await state()).active, true);
    // The v1 view is the same key.
    assert.equal((await t.call('GET', `/api/api_access_profiles?api_client_id=${c.id}`)).body[0].name, 'Renamed key');
  });

  test('unknown key, a key of another client: 404; bad body 400; 403', async () => {
    const c = await client();
    const other = await client();
    const k = await key(other.id);
    for (const path of [
      `/api/v2/api_clients/${c.id}/api_keys/${k.id}`,
      `/api/v2/api_clients/${c.id}/api_keys/999999`,
      `/api/v2/api_clients/999999/api_keys/${k.id}`,
    ]) {
      assert.equal((await t.call('PUT', path, { body: { name: 'x' } })).status, 404, path);
      assert.equal((await t.call('PUT', `${path}/enable`)).status, 404, path);
      assert.equal((await t.call('PUT', `${path}/disable`)).status, 404, path);
      assert.equal((await t.call('PUT', `${path}/refresh_secret`)).status, 404, path);
      assert.equal((await t.call('DELETE', path)).status, 404, path);
    }
    assert.equal(
      (await t.call('PUT', `/api/v2/api_clients/${other.id}/api_keys/${k.id}`, { body: { active: 'no' } })).status,
      400,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/v2/api_clients/${other.id}/api_keys/${k.id}`, {
          body: { ip_allow_list: ['300.1.1.1'] },
        })
      ).status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/v2/api_clients/${other.id}/api_keys/${k.id}/disable`, { token: readOnly })).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/v2/api_clients/${other.id}/api_keys`)).body.data[0].active, true);
  });
});

describe('PUT /api/v2/api_clients/:api_client_id/api_keys/:api_key_id/refresh_secret, DELETE .../api_keys/:api_key_id', () => {
  test('refresh shows a new token (jwt keys too: the access profile key); delete answers {data: {success: true}}', async () => {
    const c = await client({ auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: 'y'.repeat(40) });
    const k = await key(c.id);
    const refreshed = await t.call('PUT', `/api/v2/api_clients/${c.id}/api_keys/${k.id}/refresh_secret`);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.match(refreshed.body.data.auth_token, /^[0-9a-f]{64}$/);
    assert.notEqual(refreshed.body.data.auth_token, k.auth_token);
    assert.deepEqual((await t.call('DELETE', `/api/v2/api_clients/${c.id}/api_keys/${k.id}`)).body, {
      data: { success: true },
    });
    assert.equal((await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys`)).body.count, 0);
  });
});

describe('one set of data, two views', () => {
  test('a v1 access profile of a v2 client is one of its keys; a v1 client lists its profiles as keys', async () => {
    const c = await client();
    const v1 = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'v1 profile', api_client_id: c.id, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    const keys = (await t.call('GET', `/api/v2/api_clients/${c.id}/api_keys`)).body.data;
    assert.deepEqual(
      keys.map((k: { id: number }) => k.id),
      [v1.body.id],
    );
    assert.equal(keys[0].auth_token, `${v1.body.secret.slice(0, 8)}…${v1.body.secret.slice(-4)}`);

    const legacy = (await t.call('POST', '/api/api_clients', { body: { name: 'Legacy', project_id: projectId } })).body;
    await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Legacy oauth',
        api_client_id: legacy.id,
        api_collection_ids: [otherCollectionId],
        auth_type: 'oauth2',
      },
    });
    const viewed = (await t.call('GET', `/api/v2/api_clients/${legacy.id}`)).body.data;
    assert.equal(viewed.is_legacy, true);
    assert.equal(viewed.auth_type, 'oauth2');
    assert.deepEqual(viewed.api_collections, [{ id: otherCollectionId, name: 'Invoices' }]);
    assert.equal(viewed.api_keys[0].auth_type, 'oauth2');
    // A key added through v2 takes the client's grants and auth type.
    const added = await key(legacy.id);
    assert.equal(added.auth_type, 'oauth2');
    const profile = (await t.call('GET', `/api/api_access_profiles?api_client_id=${legacy.id}`)).body.find(
      (p: { id: number }) => p.id === added.id,
    );
    assert.deepEqual(profile.api_collection_ids, [otherCollectionId]);
    // A v1 client whose profiles mix oauth2 and token: a shared setting would strand one kind, so it is refused.
    await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Legacy token', api_client_id: legacy.id, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    const mixed = await t.call('PUT', `/api/v2/api_clients/${legacy.id}`, {
      body: { api_collection_ids: [collectionId] },
    });
    assert.equal(mixed.status, 400, mixed.text);
    assert.ok(mixed.body.errors.auth_type);
    assert.equal(
      (await t.call('PUT', `/api/v2/api_clients/${legacy.id}`, { body: { name: 'Legacy renamed' } })).status,
      200,
      'a setting of the client alone is fine',
    );
    const types = (await t.call('GET', `/api/api_access_profiles?api_client_id=${legacy.id}`)).body
      .map((p: { auth_type: string }) => p.auth_type)
      .sort();
    assert.deepEqual(types, ['oauth2', 'oauth2', 'token']);
  });
});

describe('/api/v2/api_clients by a caller limited to some projects', () => {
  test('sees and touches only the clients of its projects; must name one of them to create', async () => {
    const mine = await t.createProject('Scoped v2: mine');
    const scoped = await t.scopedClient([mine.folderId]);
    const myCollection = (
      await t.call('POST', '/api/api_collections', {
        token: scoped.token,
        body: { name: 'Scoped orders', project_id: mine.projectId },
      })
    ).body.id;
    const own = await t.call('POST', '/api/v2/api_clients', {
      token: scoped.token,
      body: { name: 'Mine', api_collection_ids: [myCollection], auth_type: 'token', project_id: mine.projectId },
    });
    assert.equal(own.status, 200, own.text);
    assert.equal(
      (
        await t.call('POST', '/api/v2/api_clients', {
          token: scoped.token,
          body: { name: 'No project', api_collection_ids: [myCollection], auth_type: 'token' },
        })
      ).status,
      403,
    );
    const foreignGrant = await t.call('POST', '/api/v2/api_clients', {
      token: scoped.token,
      body: { name: 'Reach', api_collection_ids: [collectionId], auth_type: 'token', project_id: mine.projectId },
    });
    assert.equal(foreignGrant.status, 400);
    const listed = await t.call('GET', '/api/v2/api_clients', { token: scoped.token });
    assert.deepEqual(
      listed.body.data.map((c: { id: number }) => c.id),
      [own.body.data.id],
    );
    assert.equal(listed.body.count, 1);
    const other = await client();
    assert.equal((await t.call('GET', `/api/v2/api_clients/${other.id}`, { token: scoped.token })).status, 404);
    assert.equal(
      (
        await t.call('POST', `/api/v2/api_clients/${other.id}/api_keys`, {
          token: scoped.token,
          body: { name: 'x', active: true },
        })
      ).status,
      404,
    );
    assert.equal((await t.call('DELETE', `/api/v2/api_clients/${other.id}`, { token: scoped.token })).status, 404);
    assert.equal((await t.call('GET', `/api/v2/api_clients/${other.id}`)).status, 200);
  });
});

describe('GET /api/openapi.json', () => {
  test('documents the v2 routes', async () => {
    const doc = await t.call('GET', '/api/openapi.json', { token: null });
    assert.equal(doc.status, 200);
    for (const path of [
      '/api/v2/api_clients',
      '/api/v2/api_clients/{api_client_id}',
      '/api/v2/api_clients/{api_client_id}/api_keys/{api_key_id}/refresh_secret',
    ])
      assert.ok(doc.body.paths[path], path);
  });
});
