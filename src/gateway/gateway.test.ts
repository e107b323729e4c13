// The gateway end to end: a proxy collection in front of a real upstream on loopback.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { startGatewayFixture, type GatewayFixture } from '../../test/gateway-fixture.ts';
import type { TestApp } from '../../test/helpers.ts';
import { manualClock } from '../time.ts';

const clock = manualClock('2026-06-01T09:00:00.000Z');
let g: GatewayFixture;
let t: TestApp;
let upstreamUrl: string;
let base: string;
let collectionId: number;
let connectionId: number;
let otherCollectionId: number;
let endpointIds: Record<string, number>;

before(async () => {
  // The timeouts tested here meet upstream answers that take seconds; an ordinary call stays far
  // within a second even on a loaded machine.
  g = await startGatewayFixture(clock, { timeoutMs: 1000 });
  ({ t, upstreamUrl, base, collectionId, connectionId, otherCollectionId, endpointIds } = g);
});
after(() => g.close());

const profile = (body: Record<string, unknown>) => g.profile(body);
const oauthToken = (clientId: string, secret: string) => g.oauthToken(clientId, secret);
const gw: GatewayFixture['gw'] = (...args) => g.gw(...args);

describe('the gateway with OAuth 2.0', () => {
  test('a token from /oauth2/token calls a proxy endpoint; the upstream sees the connection credentials, never the caller', async () => {
    const p = await profile({ auth_type: 'oauth2' });
    const token = await oauthToken(p.oauth_client_id, p.oauth_client_secret);
    const res = await gw('GET', `${base}/orders/42?expand=lines&api_token=nope`, {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      cookie: 'session=1',
      'x-custom': 'dropped',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.method, 'GET');
    assert.equal(res.body.url, '/base/orders/42?expand=lines');
    assert.equal(res.body.headers.authorization, 'Bearer upstream-secret-token');
    assert.equal(res.body.headers.cookie, undefined);
    assert.equal(res.body.headers['x-custom'], undefined);
    assert.equal(res.body.headers.accept, 'application/json');
    assert.equal(res.headers.etag, '"v1"');
    assert.equal(res.headers['set-cookie'], undefined, 'upstream cookies are not relayed');
    assert.ok(!JSON.stringify(res.body).includes(token));
  });

  test('literal segments win over parameters; bodies and statuses pass through', async () => {
    const p = await profile({ auth_type: 'oauth2' });
    const auth = { authorization: `Bearer ${await oauthToken(p.oauth_client_id, p.oauth_client_secret)}` };
    assert.equal((await gw('GET', `${base}/orders/recent`, auth)).body.url, '/base/orders/recent');
    const posted = await gw(
      'POST',
      `${base}/orders`,
      { ...auth, 'content-type': 'application/json' },
      '{"sku":"A-1","qty":2}',
    );
    assert.equal(posted.body.body, '{"sku":"A-1","qty":2}');
    assert.equal(posted.body.headers['content-type'], 'application/json');
    const text = await gw('POST', `${base}/orders`, { ...auth, 'content-type': 'text/csv' }, 'a,b\n1,2');
    assert.equal(text.body.body, 'a,b\n1,2');
    assert.equal((await gw('PUT', `${base}/created/7`, auth)).status, 201);
  });

  test('expired after 3600 s, by the injected clock', async () => {
    const p = await profile({ auth_type: 'oauth2' });
    const token = await oauthToken(p.oauth_client_id, p.oauth_client_secret);
    clock.advance(3599_000);
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${token}` })).status, 200);
    clock.advance(1000);
    const expired = await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${token}` });
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.body, { error: 'Unauthorized' });
  });

  test('refresh_secret revokes every earlier token at once; new tokens work', async () => {
    const p = await profile({ auth_type: 'oauth2' });
    const early = await oauthToken(p.oauth_client_id, p.oauth_client_secret);
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${early}` })).status, 200);
    const refreshed = await t.call('PUT', `/api/api_access_profiles/${p.id}/refresh_secret`);
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${early}` })).status, 401);
    const late = await oauthToken(p.oauth_client_id, refreshed.body.oauth_client_secret);
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${late}` })).status, 200);
  });

  test('disable answers 404 at once, enable restores; grants, IP lists and endpoint state are checked', async () => {
    const p = await profile({ auth_type: 'oauth2' });
    const auth = { authorization: `Bearer ${await oauthToken(p.oauth_client_id, p.oauth_client_secret)}` };
    await t.call('PUT', `/api/api_access_profiles/${p.id}/disable`);
    assert.deepEqual((await gw('GET', `${base}/orders/1`, auth)).body, { error: 'Not found' });
    await t.call('PUT', `/api/api_access_profiles/${p.id}/enable`);
    assert.equal((await gw('GET', `${base}/orders/1`, auth)).status, 200);

    await t.call('PUT', `/api/api_access_profiles/${p.id}`, { body: { api_collection_ids: [otherCollectionId] } });
    const denied = await gw('GET', `${base}/orders/1`, auth);
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { error: 'Access to this API has been disallowed' });
    await t.call('PUT', `/api/api_access_profiles/${p.id}`, {
      body: { api_collection_ids: [collectionId], ip_allow_list: ['10.0.0.0/8'] },
    });
    assert.deepEqual((await gw('GET', `${base}/orders/1`, auth)).body, {
      error: 'Access from this IP address is not allowed',
    });
    await t.call('PUT', `/api/api_access_profiles/${p.id}`, {
      body: { ip_allow_list: [], ip_deny_list: ['127.0.0.1'] },
    });
    assert.equal((await gw('GET', `${base}/orders/1`, auth)).status, 403);
    await t.call('PUT', `/api/api_access_profiles/${p.id}`, { body: { ip_deny_list: [] } });
    assert.equal((await gw('GET', `${base}/orders/1`, auth)).status, 200);

    assert.equal((await gw('GET', `${base}/off`, auth)).status, 404, 'an inactive endpoint');
    await t.call('PUT', `/api/api_endpoints/${endpointIds.get}/disable`);
    assert.equal((await gw('GET', `${base}/orders/1`, auth)).status, 404);
    await t.call('PUT', `/api/api_endpoints/${endpointIds.get}/enable`);
    assert.equal((await gw('GET', `${base}/orders/1`, auth)).status, 200);
  });
});

describe('the gateway and connection changes', () => {
  test('a changed connection takes effect on the next call; its credentials never reach the caller', async () => {
    const p = await profile({ auth_type: 'token' });
    assert.equal((await gw('GET', `${base}/orders/5`, { 'api-token': p.secret })).body.url, '/base/orders/5');
    const moved = await t.call('PUT', `/api/connections/${connectionId}`, {
      body: { input: { base_url: `${upstreamUrl}/other` } },
    });
    assert.equal(moved.status, 200, moved.text);
    const res = await gw('GET', `${base}/orders/5`, { 'api-token': p.secret });
    assert.deepEqual(res.body, { other: true, url: '/other/orders/5' });
    await t.call('PUT', `/api/connections/${connectionId}`, { body: { input: { base_url: `${upstreamUrl}/base` } } });
    assert.equal((await gw('GET', `${base}/orders/5`, { 'api-token': p.secret })).body.url, '/base/orders/5');
  });
});

describe('the gateway with auth tokens and JWTs', () => {
  test('auth token: API-TOKEN header, Basic api-token, ?api_token= (stripped); not as Bearer', async () => {
    const p = await profile({ auth_type: 'token' });
    assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': p.secret })).status, 200);
    assert.equal(
      (
        await gw('GET', `${base}/orders/1`, {
          authorization: `Basic ${Buffer.from(`api-token:${p.secret}`).toString('base64')}`,
        })
      ).status,
      200,
    );
    const viaQuery = await gw('GET', `${base}/orders/1?api_token=${p.secret}&x=1`);
    assert.equal(viaQuery.status, 200);
    assert.equal(viaQuery.body.url, '/base/orders/1?x=1');
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${p.secret}` })).status, 401);
    await t.call('PUT', `/api/api_access_profiles/${p.id}/refresh_secret`);
    assert.equal(
      (await gw('GET', `${base}/orders/1`, { 'api-token': p.secret })).status,
      401,
      'the old token is refused at once',
    );
  });

  test('jwt: a JWT signed with the profile secret and carrying the profile key; forged or expired ones are refused', async () => {
    const secret = 'hmac-secret-hmac-secret-hmac-secret-42';
    const p = await profile({
      auth_type: 'jwt',
      jwt_method: 'hmac',
      jwt_secret: secret,
      allowed_issuers: ['https://idp.example'],
      required_claims: ['exp'],
    });
    const now = Math.floor(clock.now().getTime() / 1000);
    const sign = (claims: Record<string, unknown>, key = secret) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
    const good = await sign({ sub: p.secret, iss: 'https://idp.example', exp: now + 60 });
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${good}` })).status, 200);
    const workatoClaim = await sign({
      'https://www.workato.com/sub': p.secret,
      sub: 'user-1',
      iss: 'https://idp.example',
      exp: now + 60,
    });
    assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${workatoClaim}` })).status, 200);
    for (const bad of [
      await sign(
        { sub: p.secret, iss: 'https://idp.example', exp: now + 60 },
        'another-secret-another-secret-another-s',
      ),
      await sign({ sub: p.secret, iss: 'https://evil.example', exp: now + 60 }),
      await sign({ sub: p.secret, iss: 'https://idp.example', exp: now - 1 }),
      await sign({ sub: p.secret, iss: 'https://idp.example' }),
      await sign({ sub: 'not-a-profile-key', iss: 'https://idp.example', exp: now + 60 }),
      `${good.slice(0, -3)}`,
      'not.a.jwt',
    ]) {
      assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${bad}` })).status, 401);
    }
  });
});

describe('gateway refusals', () => {
  test('404 for unknown prefixes, collections and paths; 401 without or with a bad credential', async () => {
    assert.deepEqual((await gw('GET', '/no-such-prefix/x/y')).body, { error: 'Not found' });
    assert.equal((await gw('GET', `${base.split('/').slice(0, 2).join('/')}/no-collection/orders/1`)).status, 404);
    assert.equal((await gw('GET', `${base}/orders`)).status, 404, 'GET orders is not an endpoint');
    assert.equal((await gw('DELETE', `${base}/orders/1`)).status, 404);
    const none = await gw('GET', `${base}/orders/1`);
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Basic realm="api"');
    const attempts: Array<Record<string, string>> = [
      { 'api-token': 'x' },
      { authorization: 'Bearer x.y.z' },
      { authorization: 'Digest abc' },
      { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` },
    ];
    for (const headers of attempts) {
      assert.equal((await gw('GET', `${base}/orders/1`, headers)).status, 401, JSON.stringify(headers));
    }
  });

  test('forged, truncated and re-signed OAuth tokens are refused', async () => {
    const p = await profile({ auth_type: 'oauth2' });
    const token = await oauthToken(p.oauth_client_id, p.oauth_client_secret);
    const [h, payload, sig] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 })).toString('base64url');
    for (const bad of [
      `${h}.${forged}.${sig}`,
      `${h}.${payload}.${sig.slice(0, 10)}`,
      `${h}.${payload}.`,
      `${h}.${payload}`,
      `${h}.${payload}.${Buffer.alloc(32).toString('base64url')}`,
    ]) {
      assert.equal((await gw('GET', `${base}/orders/1`, { authorization: `Bearer ${bad}` })).status, 401);
    }
  });

  test('a token of another environment does not open this one', async () => {
    const prodAdmin = await t.tokenFor('Admin', 'prod');
    const project = await t.createProject('Prod APIs', 'prod');
    const col = await t.call('POST', '/api/api_collections', {
      token: prodAdmin,
      body: { name: 'Prod', project_id: project.projectId },
    });
    const client = await t.call('POST', '/api/api_clients', {
      token: prodAdmin,
      body: { name: 'Prod consumer', project_id: project.projectId },
    });
    const p = await t.call('POST', '/api/api_access_profiles', {
      token: prodAdmin,
      body: { name: 'prod', api_client_id: client.body.id, api_collection_ids: [col.body.id], auth_type: 'token' },
    });
    assert.equal((await gw('GET', `${base}/orders/1`, { 'api-token': p.body.secret })).status, 401);
  });

  test('public collections need no credential', async () => {
    await t.call('PUT', `/api/api_collections/${collectionId}`, { body: { public_access: true } });
    try {
      assert.equal((await gw('GET', `${base}/orders/1`)).status, 200);
    } finally {
      await t.call('PUT', `/api/api_collections/${collectionId}`, { body: { public_access: false } });
    }
    assert.equal((await gw('GET', `${base}/orders/1`)).status, 401);
  });

  test('an empty answer stays empty, a body in pieces comes whole, and HEAD gets the headers of GET without a body', async () => {
    const p = await profile({ auth_type: 'token' });
    const auth = { 'api-token': p.secret };
    const empty = await gw('DELETE', `${base}/empty`, auth);
    assert.equal(empty.status, 204);
    assert.equal(empty.body, '');
    const chunks = await gw('GET', `${base}/chunks`, auth);
    assert.equal(chunks.status, 200);
    assert.deepEqual(chunks.body, { pieces: [1, 2, 3] });
    const head = await t.app.inject({ method: 'HEAD', url: `${base}/orders/7`, headers: auth });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers.etag, '"v1"');
    assert.equal(head.body, '');
  });

  test('calls that finish leave the deadlines of slower calls around them intact', async () => {
    const p = await profile({ auth_type: 'token' });
    const auth = { 'api-token': p.secret };
    // Started in this order, the quick ones finish first and leave the deadlines' list from its middle and its end.
    const paths = ['slow', 'orders/1', 'orders/2', 'slow', 'orders/3', 'drip', 'orders/4'];
    const answers = await Promise.all(paths.map((path) => gw('GET', `${base}/${path}`, auth)));
    assert.deepEqual(
      answers.map((a) => a.status),
      [504, 200, 200, 504, 200, 504, 200],
    );
    // And the list is still sound for the calls after them (a dripping body is cut off by the deadline alone).
    assert.equal((await gw('GET', `${base}/drip`, auth)).status, 504);
    assert.equal((await gw('GET', `${base}/orders/5`, auth)).status, 200);
  });

  test('upstream slow or stalled mid-body: 504; upstream too large: 502; request too large: 413; a dot-dot segment: 400', async () => {
    const p = await profile({ auth_type: 'token' });
    const auth = { 'api-token': p.secret };
    // All three at once: each waits out the timeout.
    const started = performance.now();
    const [slow, stalled, drip] = await Promise.all([
      gw('GET', `${base}/slow`, auth),
      gw('GET', `${base}/stalled`, auth),
      gw('GET', `${base}/drip`, auth),
    ]);
    assert.deepEqual([slow.status, slow.body], [504, { error: 'Gateway timeout' }]);
    assert.equal(stalled.status, 504, 'a body that stops coming is a timeout too');
    assert.deepEqual(stalled.body, { error: 'Gateway timeout' });
    // The drip is never quiet for a tenth of the timeout and ends only after 10 s: a 504 well
    // before then is the deadline counted from the start of the call, not from the last byte.
    assert.equal(drip.status, 504, 'a body that keeps coming, slowly, is cut off at the deadline');
    assert.deepEqual(drip.body, { error: 'Gateway timeout' });
    assert.ok(performance.now() - started < 5_000, 'cut off long before the drip would have ended');
    assert.deepEqual((await gw('GET', `${base}/huge`, auth)).body, { error: 'Response too large' });
    const big = await gw(
      'POST',
      `${base}/orders`,
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ x: 'y'.repeat(4000) }),
    );
    assert.equal(big.status, 413);
    assert.deepEqual(big.body, { error: 'Payload too large' });
    assert.equal((await gw('GET', `${base}/orders/a%2Fb`, auth)).status, 400, 'an encoded slash in a parameter');
    // inject normalises dot segments away, as a browser would; a raw socket sends them as they are.
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: new URL(address).port, path: `${base}/orders/%2E%2E`, headers: auth },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 400, 'a dot-dot segment never reaches the upstream');
  });

  test('an upstream that does not answer: 502', async () => {
    const dead = await t.call('POST', '/api/connections', {
      body: { name: 'Dead', provider: 'rest', input: { base_url: 'http://127.0.0.1:9', auth_type: 'none' } },
    });
    const project = await t.createProject('Dead APIs');
    const col = await t.call('POST', '/api/api_collections', {
      body: { name: 'Dead', project_id: project.projectId, proxy_connection_id: dead.body.id },
    });
    const e = await t.call('POST', `/api/api_collections/${col.body.id}/api_endpoints`, {
      body: { name: 'x', method: 'GET', path: 'x' },
    });
    await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`);
    const p = await profile({ auth_type: 'token', api_collection_ids: [col.body.id] });
    const res = await gw('GET', `${new URL(col.body.url).pathname}/x`, { 'api-token': p.secret });
    assert.equal(res.status, 502);
    assert.deepEqual(res.body, { error: 'Bad gateway' });
  });
});
