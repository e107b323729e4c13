// JWT and OIDC credentials at the gateway (contract 03 §9.1-§9.4): v2 API clients and their keys
// against an identity provider on loopback (discovery document and JWKS), and the attacks a
// verifier must refuse. Every refusal is a 401 (or 404 for a disabled key), never a 5xx.
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { manualClock } from '../time.ts';

const clock = manualClock('2026-06-01T09:00:00.000Z');
let t: TestApp;
let upstream: http.Server;
let idp: http.Server;
let idpUrl: string;
let endpointPath: string;
let collectionId: number;

// What the identity provider publishes, changed by the tests.
const published: { keys: JWK[]; mode: 'ok' | 'down' | 'garbage' | 'huge' | 'wrong-issuer'; maxAge?: number } = {
  keys: [],
  mode: 'ok',
};
let jwksHits = 0;

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

before(async () => {
  upstream = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"order":42}'),
  );
  const upstreamUrl = await listen(upstream);
  idp = http.createServer((req, res) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    // Any realm: /realms/<name>/.well-known/openid-configuration and /realms/<name>/keys.
    const realm = /^\/realms\/([a-z0-9-]+)\//.exec(req.url ?? '')?.[1];
    if (realm && req.url === `/realms/${realm}/.well-known/openid-configuration`) {
      return json(200, {
        issuer: published.mode === 'wrong-issuer' ? 'https://elsewhere.example' : `${idpUrl}/realms/${realm}`,
        jwks_uri: `${idpUrl}/realms/${realm}/keys`,
      });
    }
    if (realm && req.url === `/realms/${realm}/keys`) {
      jwksHits += 1;
      if (published.mode === 'down') return json(503, { error: 'down' });
      if (published.mode === 'garbage') return json(200, '<html>not json');
      if (published.mode === 'huge') return json(200, { keys: published.keys, padding: 'x'.repeat(70_000) });
      return json(
        200,
        { keys: published.keys },
        published.maxAge !== undefined ? { 'cache-control': `max-age=${published.maxAge}` } : {},
      );
    }
    return json(404, { error: 'not found' });
  });
  idpUrl = await listen(idp);

  t = await createTestApp({ clock });
  const project = await t.createProject('Partner APIs');
  const connection = await t.call('POST', '/api/connections', {
    body: { name: 'Orders backend', provider: 'rest', input: { base_url: upstreamUrl, auth_type: 'none' } },
  });
  const collection = await t.call('POST', '/api/api_collections', {
    body: { name: 'Orders', project_id: project.projectId, proxy_connection_id: connection.body.id },
  });
  collectionId = collection.body.id;
  const endpoint = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
    body: { name: 'Get order', method: 'GET', path: 'orders/{id}' },
  });
  assert.equal((await t.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`)).status, 200);
  endpointPath = new URL(endpoint.body.url.replace('{id}', '42')).pathname;
});
after(async () => {
  await t.close();
  await new Promise((r) => upstream.close(r));
  await new Promise((r) => idp.close(r));
});

async function clientWithKey(body: Record<string, unknown>) {
  const c = await t.call('POST', '/api/v2/api_clients', {
    body: { name: `c${Math.random()}`, api_collection_ids: [collectionId], ...body },
  });
  assert.equal(c.status, 200, c.text);
  const k = await t.call('POST', `/api/v2/api_clients/${c.body.data.id}/api_keys`, {
    body: { name: 'key', active: true },
  });
  assert.equal(k.status, 200, k.text);
  return {
    clientId: c.body.data.id as number,
    keyId: k.body.data.id as number,
    token: k.body.data.auth_token as string,
  };
}

async function call(jwt: string | undefined, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'GET',
    url: endpointPath,
    headers: { ...(jwt !== undefined ? { authorization: `Bearer ${jwt}` } : {}), ...headers },
  });
  return { status: res.statusCode, body: res.body };
}

const nowS = () => Math.floor(clock.now().getTime() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function sign(claims: Record<string, unknown>, key: CryptoKey | Uint8Array, header: { alg: string; kid?: string }) {
  return new SignJWT({ iat: nowS(), exp: nowS() + 300, ...claims }).setProtectedHeader(header).sign(key);
}

describe('jwt clients with HMAC (HS256)', () => {
  const secret = 'a-shared-hmac-secret-of-32-bytes-or-more!';
  const key = new TextEncoder().encode(secret);

  test('a token signed with the client secret and carrying the key passes; the attacks of 03 §9.4 are 401, never 5xx', async () => {
    const { token } = await clientWithKey({
      auth_type: 'jwt',
      jwt_method: 'hmac',
      jwt_secret: secret,
      allowed_issuers: ['https://idp.example'],
      allowed_audiences: ['orders'],
      required_claims: ['exp', 'tenant'],
    });
    const good = { sub: token, iss: 'https://idp.example', aud: 'orders', tenant: 'acme' };
    const ok = await call(await sign(good, key, { alg: 'HS256' }));
    assert.equal(ok.status, 200, ok.body);
    assert.equal(ok.body, '{"order":42}');
    const attacks: Record<string, string> = {
      'wrong key': await sign(good, new TextEncoder().encode('another-secret-another-secret-another-s'), {
        alg: 'HS256',
      }),
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...good, exp: nowS() + 300 })}.`,
      'alg none with a signature': `${b64({ alg: 'none' })}.${b64({ ...good, exp: nowS() + 300 })}.${'A'.repeat(43)}`,
      expired: await sign({ ...good, exp: nowS() - 1 }, key, { alg: 'HS256' }),
      'not yet valid': await sign({ ...good, nbf: nowS() + 120 }, key, { alg: 'HS256' }),
      'wrong issuer': await sign({ ...good, iss: 'https://evil.example' }, key, { alg: 'HS256' }),
      'wrong audience': await sign({ ...good, aud: 'billing' }, key, { alg: 'HS256' }),
      'missing required claim': await sign({ sub: token, iss: 'https://idp.example', aud: 'orders' }, key, {
        alg: 'HS256',
      }),
      'unknown key in sub': await sign({ ...good, sub: 'f'.repeat(64) }, key, { alg: 'HS256' }),
      'truncated signature': (await sign(good, key, { alg: 'HS256' })).slice(0, -4),
      garbage: 'eyJ.eyJ.x',
    };
    for (const [name, jwt] of Object.entries(attacks)) {
      const res = await call(jwt);
      assert.equal(res.status, 401, `${name}: ${res.body}`);
      assert.deepEqual(JSON.parse(res.body), { error: 'Unauthorized' });
    }
  });

  test('revocation at the next request: disable (404), enable, refresh (the old key 401), delete (401); a remembered token does not outlive them', async () => {
    const { clientId, keyId, token } = await clientWithKey({
      auth_type: 'jwt',
      jwt_method: 'hmac',
      jwt_secret: secret,
    });
    const jwt = await sign({ sub: token }, key, { alg: 'HS256' });
    assert.equal((await call(jwt)).status, 200);
    assert.equal((await call(jwt)).status, 200, 'the same token again (remembered)');
    const keyPath = `/api/v2/api_clients/${clientId}/api_keys/${keyId}`;
    await t.call('PUT', `${keyPath}/disable`);
    assert.equal((await call(jwt)).status, 404);
    await t.call('PUT', `${keyPath}/enable`);
    assert.equal((await call(jwt)).status, 200);
    const refreshed = (await t.call('PUT', `${keyPath}/refresh_secret`)).body.data.auth_token as string;
    assert.equal((await call(jwt)).status, 401);
    const fresh = await sign({ sub: refreshed }, key, { alg: 'HS256' });
    assert.equal((await call(fresh)).status, 200);
    await t.call('DELETE', keyPath);
    assert.equal((await call(fresh)).status, 401);
  });

  test('a changed client secret takes effect at the next request; a claim mapped to the key replaces the default list', async () => {
    const { clientId, token } = await clientWithKey({
      auth_type: 'jwt',
      jwt_method: 'hmac',
      jwt_secret: secret,
      access_profile_claim: 'api_key',
    });
    const mapped = await sign({ api_key: token, sub: 'user-7' }, key, { alg: 'HS256' });
    assert.equal((await call(mapped)).status, 200);
    assert.equal(
      (await call(await sign({ sub: token }, key, { alg: 'HS256' }))).status,
      401,
      'sub is not read when a claim is named',
    );
    const newSecret = 'a-new-shared-hmac-secret-of-32-bytes-or-more';
    assert.equal(
      (await t.call('PUT', `/api/v2/api_clients/${clientId}`, { body: { jwt_secret: newSecret } })).status,
      200,
    );
    assert.equal((await call(mapped)).status, 401);
    assert.equal(
      (await call(await sign({ api_key: token }, new TextEncoder().encode(newSecret), { alg: 'HS256' }))).status,
      200,
    );
  });
});

describe('jwt clients with a public key (RS256, ES256)', () => {
  test('RS256 with a PEM key passes; another key, ES256, and HS256 signed with the public key (algorithm confusion) are 401', async () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const { token } = await clientWithKey({ auth_type: 'jwt', jwt_method: 'rsa', jwt_secret: pem });
    const { privateKey } = await generateKeyPair('RS256');
    const own = await new SignJWT({ sub: token, exp: nowS() + 60 })
      .setProtectedHeader({ alg: 'RS256' })
      .sign(pair.privateKey);
    assert.equal((await call(own)).status, 200);
    assert.equal((await call(await sign({ sub: token }, privateKey, { alg: 'RS256' }))).status, 401, 'another RSA key');
    const ec = await generateKeyPair('ES256');
    assert.equal(
      (await call(await sign({ sub: token }, ec.privateKey, { alg: 'ES256' }))).status,
      401,
      'ES256 for an rsa client',
    );
    // The classic confusion: HS256 with the server's public key text as the HMAC secret.
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const body = b64({ sub: token, exp: nowS() + 60 });
    const forged = `${header}.${body}.${createHmac('sha256', pem).update(`${header}.${body}`).digest('base64url')}`;
    assert.equal((await call(forged)).status, 401, 'HS256 signed with the public key');
  });

  test('ES256 with a PEM key passes; RS256 is refused', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { token } = await clientWithKey({
      auth_type: 'jwt',
      jwt_method: 'ecdsa',
      jwt_secret: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    assert.equal(
      (
        await call(
          await new SignJWT({ sub: token, exp: nowS() + 60 })
            .setProtectedHeader({ alg: 'ES256' })
            .sign(pair.privateKey),
        )
      ).status,
      200,
    );
    const rsa = await generateKeyPair('RS256');
    assert.equal((await call(await sign({ sub: token }, rsa.privateKey, { alg: 'RS256' }))).status, 401);
  });
});

describe('keys from a JWKS URL and from an OIDC issuer', () => {
  test('RS256 from a JWKS URL; keys cached for their lifetime; an unknown kid fetches again, at a bounded rate', async () => {
    const first = await generateKeyPair('RS256');
    published.keys = [{ ...(await exportJWK(first.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }];
    published.mode = 'ok';
    published.maxAge = 120;
    const { token } = await clientWithKey({
      auth_type: 'jwt',
      jwt_method: 'rsa',
      oidc_jwks_uri: `${idpUrl}/realms/acme/keys`,
    });
    const hits = jwksHits;
    assert.equal((await call(await sign({ sub: token }, first.privateKey, { alg: 'RS256', kid: 'k1' }))).status, 200);
    assert.equal(
      (await call(await sign({ sub: token, n: 2 }, first.privateKey, { alg: 'RS256', kid: 'k1' }))).status,
      200,
    );
    assert.equal(jwksHits, hits + 1, 'one fetch for both calls');

    // The provider rotates: a token with the new kid makes one more fetch, then passes.
    const second = await generateKeyPair('RS256');
    published.keys = [...published.keys, { ...(await exportJWK(second.publicKey)), kid: 'k2', alg: 'RS256' }];
    clock.advance(31_000);
    assert.equal((await call(await sign({ sub: token }, second.privateKey, { alg: 'RS256', kid: 'k2' }))).status, 200);
    assert.equal(jwksHits, hits + 2);
    // Made-up kids within the refresh interval fetch nothing more.
    const stranger = await generateKeyPair('RS256');
    for (let i = 0; i < 5; i++)
      assert.equal(
        (await call(await sign({ sub: token, i }, stranger.privateKey, { alg: 'RS256', kid: `x${i}` }))).status,
        401,
      );
    assert.equal(jwksHits, hits + 2, 'unknown kids do not hammer the provider');
    // Past the lifetime (max-age 120 s) the set is fetched again.
    clock.advance(121_000);
    assert.equal(
      (await call(await sign({ sub: token, n: 3 }, first.privateKey, { alg: 'RS256', kid: 'k1' }))).status,
      200,
    );
    assert.equal(jwksHits, hits + 3);
    delete published.maxAge;
  });

  test("OIDC: keys from the issuer's discovery document; iss must be the issuer; a mapped claim names the key; audience checked", async () => {
    const pair = await generateKeyPair('ES256');
    published.keys = [{ ...(await exportJWK(pair.publicKey)), kid: 'oidc-1', alg: 'ES256' }];
    published.mode = 'ok';
    const issuer = `${idpUrl}/realms/oidc`;
    const { token } = await clientWithKey({
      auth_type: 'oidc',
      oidc_issuer: issuer,
      access_profile_claim: 'switchboard_key',
      allowed_audiences: ['orders-api'],
    });
    const good = { iss: issuer, aud: 'orders-api', sub: 'user-42', switchboard_key: token };
    assert.equal((await call(await sign(good, pair.privateKey, { alg: 'ES256', kid: 'oidc-1' }))).status, 200);
    for (const [name, claims] of Object.entries({
      'another issuer': { ...good, iss: 'https://elsewhere.example' },
      'no issuer': { ...good, iss: undefined },
      'another audience': { ...good, aud: 'billing' },
      expired: { ...good, exp: nowS() - 10 },
    })) {
      assert.equal(
        (await call(await sign(claims, pair.privateKey, { alg: 'ES256', kid: 'oidc-1' }))).status,
        401,
        name,
      );
    }
    // HS256 is never accepted from an identity provider, whatever the header says.
    assert.equal(
      (await call(await sign(good, new TextEncoder().encode(token), { alg: 'HS256', kid: 'oidc-1' }))).status,
      401,
    );
  });

  test('a provider that is down, answers garbage, too much, or a discovery document for another issuer: 401, never 5xx', async () => {
    const pair = await generateKeyPair('RS256');
    published.keys = [{ ...(await exportJWK(pair.publicKey)), kid: 'd1', alg: 'RS256' }];
    for (const mode of ['down', 'garbage', 'huge', 'wrong-issuer'] as const) {
      published.mode = mode;
      const issuer = `${idpUrl}/realms/${mode}`;
      const { token } = await clientWithKey({ auth_type: 'oidc', oidc_issuer: issuer });
      const res = await call(await sign({ sub: token, iss: issuer }, pair.privateKey, { alg: 'RS256', kid: 'd1' }));
      assert.equal(res.status, 401, `${mode}: ${res.body}`);
    }
    // Once the provider is back, the next fetch (after the refresh interval) lets calls through.
    published.mode = 'ok';
    clock.advance(31_000);
    const { token: back } = await clientWithKey({ auth_type: 'oidc', oidc_issuer: `${idpUrl}/realms/down` });
    assert.equal(
      (
        await call(
          await sign({ sub: back, iss: `${idpUrl}/realms/down` }, pair.privateKey, { alg: 'RS256', kid: 'd1' }),
        )
      ).status,
      200,
    );
    // An address where nothing listens.
    const closed = http.createServer();
    const url = await listen(closed);
    await new Promise((r) => closed.close(r));
    const { token } = await clientWithKey({ auth_type: 'jwt', jwt_method: 'rsa', oidc_jwks_uri: `${url}/keys` });
    assert.equal((await call(await sign({ sub: token }, pair.privateKey, { alg: 'RS256', kid: 'd1' }))).status, 401);
  });

  test('a v1 oidc access profile is verified the same way', async () => {
    const pair = await generateKeyPair('RS256');
    published.keys = [{ ...(await exportJWK(pair.publicKey)), kid: 'v1', alg: 'RS256' }];
    published.mode = 'ok';
    clock.advance(31_000);
    const v1Client = await t.call('POST', '/api/api_clients', { body: { name: 'v1 oidc' } });
    const profile = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'oidc',
        api_client_id: v1Client.body.id,
        api_collection_ids: [collectionId],
        auth_type: 'oidc',
        oidc_jwks_uri: `${idpUrl}/realms/v1/keys`,
      },
    });
    assert.equal(profile.status, 200, profile.text);
    assert.equal(
      (await call(await sign({ sub: profile.body.secret }, pair.privateKey, { alg: 'RS256', kid: 'v1' }))).status,
      200,
    );
  });
});

describe('exp is required, and no further ahead than CALLER_JWT_MAX_LIFETIME_SECONDS (RFC 7523 §3)', () => {
  test('HS256, RS256 (PEM) and RS256 from a JWKS URL without exp are 401; with exp a day ahead they pass, further ahead they are 401', async () => {
    const secret = 'a-shared-hmac-secret-of-32-bytes-or-more!';
    const hmac = await clientWithKey({ auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: secret });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = await clientWithKey({
      auth_type: 'jwt',
      jwt_method: 'rsa',
      jwt_secret: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const idpPair = await generateKeyPair('RS256');
    published.keys = [{ ...(await exportJWK(idpPair.publicKey)), kid: 'exp-1', alg: 'RS256' }];
    published.mode = 'ok';
    const jwks = await clientWithKey({ auth_type: 'oidc', oidc_jwks_uri: `${idpUrl}/realms/exp/keys` });
    const cases = [
      {
        name: 'HS256',
        token: hmac.token,
        key: new TextEncoder().encode(secret) as CryptoKey | Uint8Array,
        alg: 'HS256',
      },
      { name: 'RS256 with a PEM key', token: pem.token, key: rsa.privateKey as unknown as CryptoKey, alg: 'RS256' },
      { name: 'RS256 from a JWKS URL', token: jwks.token, key: idpPair.privateKey, alg: 'RS256', kid: 'exp-1' },
    ];
    for (const c of cases) {
      const header = { alg: c.alg, ...(c.kid ? { kid: c.kid } : {}) };
      const signed = (claims: Record<string, unknown>) => sign({ sub: c.token, ...claims }, c.key, header);
      assert.equal((await call(await signed({}))).status, 200, `${c.name}: exp 5 minutes ahead`);
      assert.equal((await call(await signed({ exp: nowS() + 86_400 }))).status, 200, `${c.name}: exp a day ahead`);
      const refused: Record<string, Record<string, unknown>> = {
        'no exp': { exp: undefined },
        'no exp nor iat': { exp: undefined, iat: undefined },
        'exp a day and a minute ahead': { exp: nowS() + 86_460 },
        'exp a year ahead': { exp: nowS() + 365 * 86_400 },
        'issued two days before its exp': { iat: nowS() - 86_400, exp: nowS() + 86_400 + 60 },
        'exp not a number': { exp: String(nowS() + 60) },
      };
      for (const [name, claims] of Object.entries(refused)) {
        const res = await call(await signed(claims));
        assert.equal(res.status, 401, `${c.name}, ${name}: ${res.body}`);
        assert.deepEqual(JSON.parse(res.body), { error: 'Unauthorized' });
      }
    }
  });

  test('a longer CALLER_JWT_MAX_LIFETIME_SECONDS lets a token valid for a week pass, and still refuses one without exp', async () => {
    const other = await createTestApp({ clock, env: { CALLER_JWT_MAX_LIFETIME_SECONDS: String(8 * 86_400) } });
    try {
      const connection = await other.call('POST', '/api/connections', {
        body: { name: 'Backend', provider: 'rest', input: { base_url: 'http://127.0.0.1:9', auth_type: 'none' } },
      });
      const collection = await other.call('POST', '/api/api_collections', {
        body: { name: 'Week', proxy_connection_id: connection.body.id },
      });
      const endpoint = await other.call('POST', `/api/api_collections/${collection.body.id}/api_endpoints`, {
        body: { name: 'Ping', method: 'GET', path: 'ping' },
      });
      await other.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`);
      const secret = 'a-shared-hmac-secret-of-32-bytes-or-more!';
      const client = await other.call('POST', '/api/v2/api_clients', {
        body: {
          name: 'weekly',
          api_collection_ids: [collection.body.id],
          auth_type: 'jwt',
          jwt_method: 'hmac',
          jwt_secret: secret,
        },
      });
      const apiKey = await other.call('POST', `/api/v2/api_clients/${client.body.data.id}/api_keys`, {
        body: { name: 'key', active: true },
      });
      const url = new URL(endpoint.body.url).pathname;
      const status = async (claims: Record<string, unknown>) =>
        (
          await other.app.inject({
            method: 'GET',
            url,
            headers: {
              authorization: `Bearer ${await sign({ sub: apiKey.body.data.auth_token, ...claims }, new TextEncoder().encode(secret), { alg: 'HS256' })}`,
            },
          })
        ).statusCode;
      // The upstream is down: 502 says the caller was let through.
      assert.equal(await status({ exp: nowS() + 7 * 86_400 }), 502);
      assert.equal(await status({ exp: nowS() + 9 * 86_400 }), 401);
      assert.equal(await status({ exp: undefined }), 401);
    } finally {
      await other.close();
    }
  });
});

describe('v2 token keys at the gateway', () => {
  test('API-TOKEN with a v2 key; refresh revokes the old token, disable answers 404, deleting the client revokes everything', async () => {
    const { clientId, keyId, token } = await clientWithKey({ auth_type: 'token' });
    assert.equal((await call(undefined, { 'api-token': token })).status, 200);
    const keyPath = `/api/v2/api_clients/${clientId}/api_keys/${keyId}`;
    const fresh = (await t.call('PUT', `${keyPath}/refresh_secret`)).body.data.auth_token as string;
    assert.equal((await call(undefined, { 'api-token': token })).status, 401);
    assert.equal((await call(undefined, { 'api-token': fresh })).status, 200);
    await t.call('PUT', `${keyPath}/disable`);
    assert.equal((await call(undefined, { 'api-token': fresh })).status, 404);
    await t.call('PUT', `${keyPath}/enable`);
    assert.equal((await call(undefined, { 'api-token': fresh })).status, 200);
    // A client's collections changed through v2 apply to its keys at once.
    await t.call('PUT', `/api/v2/api_clients/${clientId}`, {
      body: {
        api_collection_ids: [
          (await t.call('POST', '/api/api_collections', { body: { name: `Other ${Math.random()}` } })).body.id,
        ],
      },
    });
    assert.equal((await call(undefined, { 'api-token': fresh })).status, 403);
    await t.call('DELETE', `/api/v2/api_clients/${clientId}`);
    assert.equal((await call(undefined, { 'api-token': fresh })).status, 401);
  });
});
