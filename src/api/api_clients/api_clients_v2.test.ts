// API clients v2 and their API keys (contract 03 §7), and the v1 view of the same data.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let projectId: number;
let collectionId: number;
let otherCollectionId: number;
let readOnly: string;

const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

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

async function clientCount(): Promise<number> {
  return (await t.call('GET', '/api/v2/api_clients')).body.count;
}

describe('POST /api/v2/api_clients', () => {
  test('creates a client: 200 {data}, ids as strings or integers, collections by name, no key yet', async () => {
    const res = await t.call('POST', '/api/v2/api_clients', {
      body: {
        name: 'Partner portal',
        description: 'B2B',
        api_collection_ids: [String(collectionId), otherCollectionId],
        auth_type: 'token',
        project_id: String(projectId),
        email: 'ops@example.com',
      },
    });
    assert.equal(res.status, 200, res.text);
    const c = res.body.data;
    assert.equal(c.name, 'Partner portal');
    assert.equal(c.is_legacy, false);
    assert.equal(c.auth_type, 'token');
    assert.equal(c.active_api_keys_count, 0);
    assert.equal(c.total_api_keys_count, 0);
    assert.deepEqual(c.api_collections, [
      { id: collectionId, name: 'Orders' },
      { id: otherCollectionId, name: 'Invoices' },
    ]);
    assert.deepEqual(c.api_policies, []);
    assert.equal(c.logo, null);
    assert.equal(c.logo_2x, null);
    assert.equal(c.mtls_enabled, false);
    assert.deepEqual(c.cert_bundle_ids, []);
    assert.equal(c.email, 'ops@example.com');
    assert.match(c.created_at, /\+00:00$/);
  });

  test('jwt and oidc clients: settings echoed, secrets never', async () => {
    const secret = 'a-shared-hmac-secret-of-32-bytes-or-more!';
    const hmac = await t.call('POST', '/api/v2/api_clients', {
      body: {
        name: 'JWT hmac',
        api_collection_ids: [collectionId],
        auth_type: 'jwt',
        jwt_method: 'hmac',
        jwt_secret: secret,
        allowed_issuers: ['https://idp.example'],
        required_claims: ['exp'],
        access_profile_claim: 'api_key',
      },
    });
    assert.equal(hmac.status, 200, hmac.text);
    assert.equal(hmac.body.data.jwt_method, 'hmac');
    assert.equal(hmac.body.data.access_profile_claim, 'api_key');
    assert.deepEqual(hmac.body.data.required_claims, ['exp']);
    assert.ok(!hmac.text.includes(secret));
    assert.equal(
      (
        await t.call('POST', '/api/v2/api_clients', {
          body: {
            name: 'JWT rsa',
            api_collection_ids: [collectionId],
            auth_type: 'jwt',
            jwt_method: 'rsa',
            jwt_secret: rsaPem,
          },
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await t.call('POST', '/api/v2/api_clients', {
          body: {
            name: 'JWT ec',
            api_collection_ids: [collectionId],
            auth_type: 'jwt',
            jwt_method: 'ecdsa',
            jwt_secret: ecPem,
          },
        })
      ).status,
      200,
    );
    const jwks = await t.call('POST', '/api/v2/api_clients', {
      body: {
        name: 'JWT jwks',
        api_collection_ids: [collectionId],
        auth_type: 'jwt',
        jwt_method: 'rsa',
        oidc_jwks_uri: 'http://127.0.0.1:9/jwks',
      },
    });
    assert.equal(jwks.body.data.oidc_jwks_uri, 'http://127.0.0.1:9/jwks');
    const oidc = await t.call('POST', '/api/v2/api_clients', {
      body: {
        name: 'OIDC',
        api_collection_ids: [collectionId],
        auth_type: 'oidc',
        oidc_issuer: 'http://127.0.0.1:9/realms/acme',
        allowed_audiences: ['orders-api'],
      },
    });
    assert.equal(oidc.status, 200, oidc.text);
    assert.equal(oidc.body.data.oidc_issuer, 'http://127.0.0.1:9/realms/acme');
    assert.deepEqual(oidc.body.data.allowed_audiences, ['orders-api']);
  });

  test('bad input: 400 naming the field, 415, malformed JSON, 401, 403; nothing created', async () => {
    const before = await clientCount();
    const base = { name: 'x', api_collection_ids: [collectionId], auth_type: 'token' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, name: undefined }, 'name'],
      [{ ...base, name: '  ' }, 'name'],
      [{ ...base, name: 7 }, 'name'],
      [{ ...base, api_collection_ids: undefined }, 'api_collection_ids'],
      [{ ...base, api_collection_ids: [] }, 'api_collection_ids'],
      [{ ...base, api_collection_ids: [999999] }, 'api_collection_ids'],
      [{ ...base, api_collection_ids: 'x' }, 'api_collection_ids'],
      [{ ...base, api_collection_ids: ['4x'] }, 'api_collection_ids'],
      [{ ...base, auth_type: undefined }, 'auth_type'],
      [{ ...base, auth_type: 'basic' }, 'auth_type'],
      [{ ...base, auth_type: 'jwt' }, 'jwt_method'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'none' }, 'jwt_method'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: 'short' }, 'jwt_secret'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'rsa', jwt_secret: 'not a key' }, 'jwt_secret'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'rsa', jwt_secret: ecPem }, 'jwt_secret'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'ecdsa', jwt_secret: rsaPem }, 'jwt_secret'],
      [{ ...base, auth_type: 'jwt', jwt_method: 'rsa', oidc_jwks_uri: 'file:///etc/passwd' }, 'oidc_jwks_uri'],
      [{ ...base, auth_type: 'oidc' }, 'oidc_issuer'],
      [
        { ...base, auth_type: 'oidc', oidc_issuer: 'https://a.example', oidc_jwks_uri: 'https://a.example/k' },
        'oidc_issuer',
      ],
      [{ ...base, project_id: 999999 }, 'project_id'],
      [{ ...base, api_policy_id: 4242 }, 'api_policy_id'],
      [{ ...base, api_portal_id: 3 }, 'email'],
      [{ ...base, email: 'nope' }, 'email'],
      [{ ...base, mtls_enabled: 'yes' }, 'mtls_enabled'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/v2/api_clients', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} ${res.text}`);
      assert.ok(
        Object.keys(res.body.errors ?? {}).some((f) => f === field || f.startsWith(`${field}.`)),
        `${field}: ${res.text}`,
      );
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal(
      (
        await t.call('POST', '/api/v2/api_clients', {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await t.call('POST', '/api/v2/api_clients', {
          raw: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
      415,
    );
    assert.equal((await t.call('POST', '/api/v2/api_clients', { token: null, body: base })).status, 401);
    assert.equal((await t.call('POST', '/api/v2/api_clients', { token: readOnly, body: base })).status, 403);
    assert.equal(await clientCount(), before);
  });
});

describe('GET /api/v2/api_clients', () => {
  test('{data, count, page, per_page}; paging; filter by project; v1 clients as is_legacy; other environments see nothing', async () => {
    const v1 = await t.call('POST', '/api/api_clients', { body: { name: 'Made through v1', project_id: projectId } });
    const all = await t.call('GET', '/api/v2/api_clients', { token: readOnly });
    assert.equal(all.status, 200);
    assert.equal(all.body.page, 1);
    assert.equal(all.body.per_page, 100);
    assert.equal(all.body.count, all.body.data.length);
    const legacy = all.body.data.find((c: { id: number }) => c.id === v1.body.id);
    assert.equal(legacy.is_legacy, true);
    assert.equal(legacy.auth_type, 'token');
    const second = await t.call('GET', '/api/v2/api_clients?per_page=1&page=2');
    assert.equal(second.body.data.length, 1);
    assert.equal(second.body.data[0].id, all.body.data[1].id);
    assert.equal(second.body.count, all.body.count);
    assert.equal(second.body.per_page, 1);
    const byProject = await t.call('GET', `/api/v2/api_clients?project_id=${projectId}`);
    assert.ok(byProject.body.data.every((c: { project_id: number }) => c.project_id === projectId));
    assert.deepEqual((await t.call('GET', '/api/v2/api_clients?project_id=999999')).body, {
      data: [],
      count: 0,
      page: 1,
      per_page: 100,
    });
    assert.equal((await t.call('GET', '/api/v2/api_clients?project_id=abc')).status, 400);
    assert.equal(
      (await t.call('GET', '/api/v2/api_clients', { token: await t.tokenFor('Admin', 'test') })).body.count,
      0,
    );
    assert.equal((await t.call('GET', '/api/v2/api_clients', { token: null })).status, 401);
  });

  test('cert_bundle_ids[] filters by certificate bundle', async () => {
    const c = await client({ cert_bundle_ids: [12, '13'] });
    const found = await t.call('GET', '/api/v2/api_clients?cert_bundle_ids[]=13');
    assert.deepEqual(
      found.body.data.map((x: { id: number }) => x.id),
      [c.id],
    );
    assert.deepEqual(found.body.data[0].cert_bundle_ids, [12, 13]);
    assert.equal((await t.call('GET', '/api/v2/api_clients?cert_bundle_ids[]=1')).body.count, 0);
  });
});

describe('GET /api/v2/api_clients/:api_client_id', () => {
  test('the client with its keys, tokens masked; 404 for unknown, other environment; 400 for a non-numeric id', async () => {
    const c = await client();
    const k = await key(c.id);
    const res = await t.call('GET', `/api/v2/api_clients/${c.id}`, { token: readOnly });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.total_api_keys_count, 1);
    assert.equal(res.body.data.active_api_keys_count, 1);
    assert.equal(res.body.data.api_keys.length, 1);
    assert.equal(res.body.data.api_keys[0].auth_token, `${k.auth_token.slice(0, 8)}…${k.auth_token.slice(-4)}`);
    assert.ok(!res.text.includes(k.auth_token));
    assert.equal((await t.call('GET', '/api/v2/api_clients/999999')).status, 404);
    assert.equal(
      (await t.call('GET', `/api/v2/api_clients/${c.id}`, { token: await t.tokenFor('Admin', 'test') })).status,
      404,
    );
    const bad = await t.call('GET', '/api/v2/api_clients/abc');
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.api_client_id);
  });
});

describe('PUT /api/v2/api_clients/:api_client_id', () => {
  test('partial update; collections and JWT settings reach the keys (the v1 view shows them)', async () => {
    const c = await client();
    const k = await key(c.id);
    const res = await t.call('PUT', `/api/v2/api_clients/${c.id}`, {
      body: { name: 'Renamed', api_collection_ids: [String(otherCollectionId)] },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Renamed');
    assert.deepEqual(res.body.data.api_collections, [{ id: otherCollectionId, name: 'Invoices' }]);
    const profile = (await t.call('GET', `/api/api_access_profiles?api_client_id=${c.id}`)).body[0];
    assert.equal(profile.id, k.id);
    assert.deepEqual(profile.api_collection_ids, [otherCollectionId]);
    const toJwt = await t.call('PUT', `/api/v2/api_clients/${c.id}`, {
      body: { auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: 'x'.repeat(40) },
    });
    assert.equal(toJwt.status, 200, toJwt.text);
    assert.equal((await t.call('GET', `/api/api_access_profiles?api_client_id=${c.id}`)).body[0].auth_type, 'jwt');
    assert.equal(
      (await t.call('PUT', `/api/v2/api_clients/${c.id}`, { body: { description: null } })).body.data.auth_type,
      'jwt',
    );
  });

  test('errors: unknown id 404; bad fields 400; to or from oauth2 with keys 400; nothing changes', async () => {
    const c = await client({ name: 'Stable client' });
    await key(c.id);
    assert.equal((await t.call('PUT', '/api/v2/api_clients/999999', { body: { name: 'x' } })).status, 404);
    for (const body of [
      { name: '' },
      { api_collection_ids: [] },
      { api_collection_ids: [999999] },
      { auth_type: 'oauth2' },
      { auth_type: 'jwt' },
      { auth_type: 'nope' },
      { name: 5 },
    ]) {
      const res = await t.call('PUT', `/api/v2/api_clients/${c.id}`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} ${res.text}`);
    }
    assert.equal(
      (await t.call('PUT', `/api/v2/api_clients/${c.id}`, { token: readOnly, body: { name: 'ro' } })).status,
      403,
    );
    const after = (await t.call('GET', `/api/v2/api_clients/${c.id}`)).body.data;
    assert.equal(after.name, 'Stable client');
    assert.equal(after.auth_type, 'token');
  });
});

describe('DELETE /api/v2/api_clients/:api_client_id', () => {
  test('{data: {success: true}}; the client and its keys are gone from both views', async () => {
    const c = await client();
    const k = await key(c.id);
    assert.equal((await t.call('DELETE', `/api/v2/api_clients/${c.id}`, { token: readOnly })).status, 403);
    assert.deepEqual((await t.call('DELETE', `/api/v2/api_clients/${c.id}`)).body, { data: { success: true } });
    assert.equal((await t.call('GET', `/api/v2/api_clients/${c.id}`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/v2/api_clients/${c.id}`)).status, 404);
    assert.ok(!(await t.call('GET', '/api/api_access_profiles')).body.some((p: { id: number }) => p.id === k.id));
    assert.ok(!(await t.call('GET', '/api/api_clients')).body.some((x: { id: number }) => x.id === c.id));
  });
});
