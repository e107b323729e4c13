// Access profiles of API clients (contract 03 §5).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let projectId: number;
let collectionId: number;
let clientId: number;
let readOnly: string;

before(async () => {
  t = await createTestApp();
  projectId = (await t.createProject('Partners')).projectId;
  collectionId = (await t.call('POST', '/api/api_collections', { body: { name: 'Orders', project_id: projectId } }))
    .body.id;
  clientId = (
    await t.call('POST', '/api/api_clients', {
      body: { name: 'Partner portal', project_id: projectId, description: 'B2B' },
    })
  ).body.id;
  readOnly = await t.tokenFor('Read only');
});
after(() => t.close());

async function profileCount(): Promise<number> {
  return (await t.call('GET', '/api/api_access_profiles')).body.length;
}

describe('POST /api/api_access_profiles', () => {
  test('token profile: the secret is shown once, then never', async () => {
    const res = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Portal token',
        api_client_id: String(clientId),
        api_collection_ids: [collectionId, String(collectionId)],
        auth_type: 'token',
        ip_allow_list: ['10.0.0.0/8'],
      },
    });
    assert.equal(res.status, 200);
    assert.match(res.body.secret, /^[0-9a-f]{64}$/);
    assert.deepEqual(res.body.api_collection_ids, [collectionId]);
    assert.equal(res.body.active, true);
    assert.deepEqual(res.body.ip_allow_list, ['10.0.0.0/8']);
    assert.equal(res.body.oauth_client_id, undefined);
    const listed = await t.call('GET', `/api/api_access_profiles?api_client_id=${clientId}`);
    assert.ok(!listed.text.includes(res.body.secret));
    assert.equal(listed.body[0].secret, undefined);
  });

  test('oauth2 profile: oauth_client_id always, oauth_client_secret once', async () => {
    const res = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Portal oauth', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'oauth2' },
    });
    assert.equal(res.status, 200);
    assert.match(res.body.oauth_client_id, /^oauth-[0-9a-f]{24}$/);
    assert.match(res.body.oauth_client_secret, /^[0-9a-f]{64}$/);
    assert.equal(res.body.secret, undefined);
    const listed = (await t.call('GET', '/api/api_access_profiles')).body.find(
      (p: { id: number }) => p.id === res.body.id,
    );
    assert.equal(listed.oauth_client_id, res.body.oauth_client_id);
    assert.equal(listed.oauth_client_secret, undefined);
  });

  test('jwt profile: method and secret required; the HMAC secret is never echoed', async () => {
    const secret = 'a-shared-hmac-secret-of-32-bytes-or-more!';
    const res = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Portal jwt',
        api_client_id: clientId,
        api_collection_ids: [collectionId],
        auth_type: 'jwt',
        jwt_method: 'hmac',
        jwt_secret: secret,
        allowed_issuers: ['https://idp.example'],
      },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.jwt_method, 'hmac');
    assert.match(res.body.secret, /^[0-9a-f]{64}$/, 'the access profile key the JWT must carry');
    assert.ok(!res.text.includes(secret));
    assert.deepEqual(res.body.allowed_issuers, ['https://idp.example']);
  });

  test('bad input: 400 naming the field; nothing created', async () => {
    const before = await profileCount();
    const base = { name: 'x', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'token' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, name: undefined }, 'name'],
      [{ ...base, api_client_id: undefined }, 'api_client_id'],
      [{ ...base, api_client_id: 999999 }, 'api_client_id'],
      [{ ...base, api_collection_ids: [] }, 'api_collection_ids'],
      [{ ...base, api_collection_ids: [999999] }, 'api_collection_ids'],
      [{ ...base, auth_type: 'password' }, 'auth_type'],
      [{ ...base, auth_type: 'oidc' }, 'oidc_issuer'],
      [{ ...base, auth_type: 'oidc', oidc_issuer: 'ftp://idp' }, 'oidc_issuer'],
      [{ ...base, auth_type: 'jwt' }, 'jwt_method'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: 'short' }, 'jwt_secret'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'rsa', jwt_secret: 'not a pem' }, 'jwt_secret'],
      [{ ...base, ip_allow_list: ['nope'] }, 'ip_allow_list'],
      [{ ...base, api_policy_id: 4242 }, 'api_policy_id'],
      [{ ...base, api_collection_ids: 'x' }, 'api_collection_ids'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/api_access_profiles', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} ${res.text}`);
      assert.ok(res.body.errors[field], `${field}: ${res.text}`);
    }
    assert.equal(
      (
        await t.call('POST', '/api/api_access_profiles', {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal((await t.call('POST', '/api/api_access_profiles', { token: readOnly, body: base })).status, 403);
    assert.equal((await t.call('POST', '/api/api_access_profiles', { token: null, body: base })).status, 401);
    assert.equal(await profileCount(), before);
  });
});

describe('GET /api/api_access_profiles', () => {
  test('bare array; filter by client; paging; other workspaces see nothing', async () => {
    const all = await t.call('GET', '/api/api_access_profiles');
    assert.ok(all.body.length >= 3);
    assert.equal((await t.call('GET', '/api/api_access_profiles?per_page=1&page=2')).body[0].id, all.body[1].id);
    assert.deepEqual((await t.call('GET', '/api/api_access_profiles?api_client_id=999999')).body, []);
    const other = await t.newWorkspace('Other');
    assert.deepEqual((await t.call('GET', '/api/api_access_profiles', { token: other.adminToken })).body, []);
  });
});

describe('PUT /api/api_access_profiles/:id (and the id-in-body spelling)', () => {
  test('partial update; changing auth_type issues new credentials in the reply', async () => {
    const created = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Changeable', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    const id = created.body.id;
    const renamed = await t.call('PUT', `/api/api_access_profiles/${id}`, {
      body: { name: 'Changed', ip_deny_list: '192.0.2.1' },
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Changed');
    assert.deepEqual(renamed.body.ip_deny_list, ['192.0.2.1']);
    assert.equal(renamed.body.secret, undefined);
    const toOAuth = await t.call('PUT', '/api/api_access_profiles', { body: { id: String(id), auth_type: 'oauth2' } });
    assert.equal(toOAuth.status, 200);
    assert.equal(toOAuth.body.auth_type, 'oauth2');
    assert.match(toOAuth.body.oauth_client_secret, /^[0-9a-f]{64}$/);
  });

  test('errors: no id, unknown id, bad fields, changing the client; nothing changes', async () => {
    const created = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Stable', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    const id = created.body.id;
    const noId = await t.call('PUT', '/api/api_access_profiles', { body: { name: 'x' } });
    assert.equal(noId.status, 400);
    assert.equal(noId.body.message, 'id is required');
    assert.equal((await t.call('PUT', '/api/api_access_profiles/999999', { body: { name: 'x' } })).status, 404);
    assert.equal(
      (await t.call('PUT', `/api/api_access_profiles/${id}`, { body: { api_collection_ids: [] } })).status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/api_access_profiles/${id}`, { body: { api_client_id: clientId } })).status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/api_access_profiles/${id}`, { body: { auth_type: 'kerberos' } })).status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/api_access_profiles/${id}`, { token: readOnly, body: { name: 'ro' } })).status,
      403,
    );
    const after = (await t.call('GET', '/api/api_access_profiles')).body.find((p: { id: number }) => p.id === id);
    assert.equal(after.name, 'Stable');
    assert.equal(after.auth_type, 'token');
  });
});

describe('PUT /api/api_access_profiles/:id/enable|disable (and without /api)', () => {
  test('answer {"result":"success"}, idempotent, at both spellings', async () => {
    const created = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Toggle', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    const id = created.body.id;
    const state = async () =>
      (await t.call('GET', '/api/api_access_profiles')).body.find((p: { id: number }) => p.id === id).active;
    assert.deepEqual((await t.call('PUT', `/api/api_access_profiles/${id}/disable`)).body, { result: 'success' });
    assert.equal(await state(), false);
    assert.deepEqual((await t.call('PUT', `/api/api_access_profiles/${id}/disable`)).body, { result: 'success' });
    assert.deepEqual((await t.call('PUT', `/api_access_profiles/${id}/enable`)).body, { result: 'success' });
    assert.equal(await state(), true);
    assert.deepEqual((await t.call('PUT', `/api_access_profiles/${id}/disable`)).body, { result: 'success' });
    assert.equal(await state(), false);
    assert.equal((await t.call('PUT', '/api/api_access_profiles/999999/enable')).status, 404);
    assert.equal((await t.call('PUT', '/api_access_profiles/999999/enable')).status, 404);
    assert.equal((await t.call('PUT', `/api_access_profiles/${id}/enable`, { token: null })).status, 401);
    assert.equal((await t.call('PUT', `/api_access_profiles/${id}/enable`, { token: readOnly })).status, 403);
    assert.equal(await state(), false);
  });
});

describe('PUT /api/api_access_profiles/:id/refresh_secret', () => {
  test('token and oauth2: a new secret (oauth client id kept); jwt: 400', async () => {
    const tokenProfile = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Refresh token', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'token' },
    });
    const refreshed = await t.call('PUT', `/api/api_access_profiles/${tokenProfile.body.id}/refresh_secret`);
    assert.equal(refreshed.status, 200);
    assert.match(refreshed.body.secret, /^[0-9a-f]{64}$/);
    assert.notEqual(refreshed.body.secret, tokenProfile.body.secret);

    const oauth = await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Refresh oauth', api_client_id: clientId, api_collection_ids: [collectionId], auth_type: 'oauth2' },
    });
    const refreshedOAuth = await t.call('PUT', `/api/api_access_profiles/${oauth.body.id}/refresh_secret`);
    assert.equal(refreshedOAuth.body.oauth_client_id, oauth.body.oauth_client_id);
    assert.notEqual(refreshedOAuth.body.oauth_client_secret, oauth.body.oauth_client_secret);

    const jwt = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Refresh jwt',
        api_client_id: clientId,
        api_collection_ids: [collectionId],
        auth_type: 'jwt',
        jwt_method: 'hmac',
        jwt_secret: 'x'.repeat(40),
      },
    });
    const refused = await t.call('PUT', `/api/api_access_profiles/${jwt.body.id}/refresh_secret`);
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { message: 'Cannot refresh secret for JWT access profiles' });
    assert.equal((await t.call('PUT', '/api/api_access_profiles/999999/refresh_secret')).status, 404);
    assert.equal(
      (await t.call('PUT', `/api/api_access_profiles/${oauth.body.id}/refresh_secret`, { token: readOnly })).status,
      403,
    );
  });
});

describe('POST|PUT /api/api_access_profiles by a caller limited to some projects', () => {
  test('a collection of another project is not granted: 400 naming it, nothing created or changed', async () => {
    const mine = await t.createProject('Scoped grants: mine');
    const adminRoleId = (await t.call('GET', '/api/developer_api_client_roles')).body.result.items.find(
      (r: { name: string }) => r.name === 'Admin',
    ).id;
    const scoped = await t.call('POST', '/api/developer_api_clients', {
      body: {
        name: 'scoped-profile-maker',
        api_privilege_group_id: adminRoleId,
        all_folders: false,
        folder_ids: [mine.folderId],
      },
    });
    assert.equal(scoped.status, 200);
    const token = scoped.body.result.token.value as string;
    const myCollection = (
      await t.call('POST', '/api/api_collections', { token, body: { name: 'Mine', project_id: mine.projectId } })
    ).body.id;
    const myClient = (
      await t.call('POST', '/api/api_clients', { token, body: { name: 'My partner', project_id: mine.projectId } })
    ).body.id;

    const before = await profileCount();
    const foreign = await t.call('POST', '/api/api_access_profiles', {
      token,
      body: {
        name: 'Reach out',
        api_client_id: myClient,
        api_collection_ids: [myCollection, collectionId],
        auth_type: 'token',
      },
    });
    assert.equal(foreign.status, 400);
    assert.match(foreign.body.errors.api_collection_ids[0], new RegExp(`unknown collection ids: ${collectionId}`));
    assert.equal(await profileCount(), before);

    const own = await t.call('POST', '/api/api_access_profiles', {
      token,
      body: { name: 'Own only', api_client_id: myClient, api_collection_ids: [myCollection], auth_type: 'token' },
    });
    assert.equal(own.status, 200);
    const widened = await t.call('PUT', `/api/api_access_profiles/${own.body.id}`, {
      token,
      body: { api_collection_ids: [collectionId] },
    });
    assert.equal(widened.status, 400);
    assert.deepEqual(
      (await t.call('GET', '/api/api_access_profiles')).body.find((p: { id: number }) => p.id === own.body.id)
        .api_collection_ids,
      [myCollection],
    );
  });
});
