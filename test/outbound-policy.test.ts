// One outbound policy for every request made on a user's behalf (docs/adr/0019): addresses are
// classed as addresses, not as text; a name is resolved once and the connection goes to the address
// that was checked; and each path that reaches outside (the HTTP connector, its polling trigger, a
// SaaS connection, a proxy collection's upstream, JWKS and OIDC discovery) is refused a loopback
// server when loopback is not allowed, a link-local (metadata) address always, and this server's
// own ports and public URL.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createTestApp, type TestApp } from './helpers.ts';
import { action, createRecipe, fire, numbered, startRecipe, webhookRecipe } from './recipes.ts';
import { classify } from '../src/outbound/addresses.ts';
import { createOutboundPolicy, OutboundRefusedError } from '../src/outbound/policy.ts';
import { loadConfig, ConfigError } from '../src/config.ts';

const hits: string[] = [];
let server: http.Server;
let base: string;
let port: number;
let jwksKey: Record<string, unknown>;
let closed: TestApp;
let open: TestApp;

before(async () => {
  const pair = await generateKeyPair('RS256');
  jwksKey = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url?.endsWith('/.well-known/openid-configuration'))
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ issuer: base, jwks_uri: `${base}/keys` }));
    if (req.url === '/keys')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwksKey] }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ id: 1, ok: true }]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  // Loopback refused (the default); the other app allows it, as tests do.
  closed = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'false' }, engine: { triggerPollMs: 3_600_000 } });
  open = await createTestApp();
});
after(async () => {
  await closed.close();
  await open.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('address classes', () => {
  test('every spelling of an address is the same address', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['127.8.9.10', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['[::ffff:7f00:1]', 'loopback'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['169.254.169.254', 'link_local'],
      ['::ffff:169.254.169.254', 'link_local'],
      ['64:ff9b::a9fe:a9fe', 'link_local'],
      ['fe80::1%eth0', 'link_local'],
      ['fd00:ec2::254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['10.1.2.3', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.10', 'private'],
      ['100.64.0.1', 'private'],
      ['fd12:3456::1', 'private'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['8.8.8.8', 'public'],
      ['2606:4700::1111', 'public'],
    ];
    for (const [address, expected] of cases) assert.equal(classify(address), expected, address);
    // URL text is parsed before anything is checked: these name loopback too.
    assert.equal(new URL('http://0x7f.1/').hostname, '127.0.0.1');
    assert.equal(new URL('http://2130706433/').hostname, '127.0.0.1');
  });

  test('settings: loopback and private ranges by setting, listed ranges allowed, link-local and own ports never by default', () => {
    const policy = createOutboundPolicy({
      allowLoopback: false,
      allowPrivate: false,
      allowAddresses: ['10.9.0.0/16', '169.254.10.0/24'],
      ownPorts: [3000],
      ownUrls: [],
    });
    assert.match(policy.refusal('127.0.0.1', 80) ?? '', /loopback address \(OUTBOUND_ALLOW_LOOPBACK allows it\)/);
    assert.match(policy.refusal('10.1.0.1', 80) ?? '', /private address \(OUTBOUND_ALLOW_PRIVATE allows it\)/);
    assert.equal(policy.refusal('10.9.4.4', 80), null, 'a listed range');
    assert.equal(policy.refusal('169.254.10.7', 80), null, 'a listed link-local range');
    assert.match(policy.refusal('169.254.169.254', 80) ?? '', /link-local address \(cloud metadata lives there\)/);
    assert.equal(policy.refusal('93.184.216.34', 443), null);
    const permissive = createOutboundPolicy({
      allowLoopback: true,
      allowPrivate: true,
      allowAddresses: ['127.0.0.0/8'],
      ownPorts: [3000],
      ownUrls: [],
    });
    assert.equal(permissive.refusal('127.0.0.1', 8080), null);
    assert.match(permissive.refusal('127.0.0.1', 3000) ?? '', /port 3000 is this server itself/);
    assert.match(permissive.refusal('0.0.0.0', 3000) ?? '', /this server itself/);
    permissive.addOwnPort(4567);
    assert.match(permissive.refusal('::1', 4567) ?? '', /this server itself/);
    assert.throws(() => loadConfig({ OUTBOUND_ALLOW_ADDRESSES: '10.0.0.0/99' }), ConfigError);
    assert.throws(
      () => loadConfig({ OUTBOUND_ALLOW_LOOPBACK: 'yes' }),
      /OUTBOUND_ALLOW_LOOPBACK must be true or false/,
    );
    assert.throws(() => loadConfig({ CONNECTOR_ORIGINS: '{"https://api.stripe.com": "ftp://x"}' }), ConfigError);
    const config = loadConfig({});
    assert.equal(config.outboundAllowLoopback, false, 'loopback is refused unless allowed');
    assert.equal(config.outboundAllowPrivate, true);
  });
});

describe('the dispatcher', () => {
  test('a name is resolved once per connection and the connection goes to the address that was checked', async () => {
    const lookups: string[] = [];
    const policy = createOutboundPolicy(
      { allowLoopback: true, allowPrivate: true, allowAddresses: [], ownPorts: [], ownUrls: [] },
      {
        lookup: async (hostname) => {
          lookups.push(hostname);
          return [{ address: '127.0.0.1', family: 4 }];
        },
      },
    );
    const before = hits.length;
    const res = await request(`http://orders.internal.example:${port}/by-name`, { dispatcher: policy.dispatcher });
    assert.equal(res.statusCode, 200);
    await res.body.text();
    assert.deepEqual(lookups, ['orders.internal.example']);
    assert.equal(hits.at(-1), '/by-name');
    assert.equal(hits.length, before + 1);
    await policy.close();
  });

  test('a name that resolves only to refused addresses is refused before any connection', async () => {
    const policy = createOutboundPolicy(
      { allowLoopback: false, allowPrivate: true, allowAddresses: [], ownPorts: [], ownUrls: [] },
      { lookup: async () => [{ address: '127.0.0.1', family: 4 }] },
    );
    const before = hits.length;
    await assert.rejects(
      request(`http://rebinding.example:${port}/x`, { dispatcher: policy.dispatcher }),
      (error: unknown) =>
        error instanceof OutboundRefusedError &&
        error.message ===
          `the request to rebinding.example:${port} is refused: rebinding.example resolves to 127.0.0.1 is a loopback address (OUTBOUND_ALLOW_LOOPBACK allows it)`,
    );
    assert.equal(hits.length, before, 'nothing reached the server');
    await policy.close();
  });

  test("this server's public URL is refused by name", async () => {
    const policy = createOutboundPolicy({
      allowLoopback: true,
      allowPrivate: true,
      allowAddresses: [],
      ownPorts: [],
      ownUrls: [`http://localhost:${port}`],
    });
    await assert.rejects(
      request(`http://localhost:${port}/api/users/me`, { dispatcher: policy.dispatcher }),
      /it is this server's own address/,
    );
    assert.throws(() => policy.checkUrl(new URL(`http://LOCALHOST:${port}/x`)), OutboundRefusedError);
    await policy.close();
  });
});

describe('every path that reaches outside', () => {
  test('the HTTP connector: loopback refused by default, link-local always, nothing sent', async () => {
    const before = hits.length;
    const { path } = await webhookRecipe(closed, [
      action('rest', 'make_request_v2', 'call', { request: { method: 'GET', url: `${base}/items` } }),
    ]);
    const job = await fire(closed, path, {});
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Connection error');
    assert.equal(
      job.lines[1]?.error,
      `the request to 127.0.0.1:${port} is refused: 127.0.0.1 is a loopback address (OUTBOUND_ALLOW_LOOPBACK allows it)`,
    );
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/',
    ]) {
      const meta = await webhookRecipe(open, [
        action('rest', 'make_request_v2', 'call', { request: { method: 'GET', url } }),
      ]);
      const refused = await fire(open, meta.path, {});
      assert.equal(refused.status, 'failed', url);
      assert.match(
        refused.lines[1]?.error ?? '',
        /(link-local address \(cloud metadata lives there\)|cloud metadata address)/,
        url,
      );
    }
    assert.equal(hits.length, before);
    const allowed = await webhookRecipe(open, [
      action('rest', 'make_request_v2', 'call', { request: { method: 'GET', url: `${base}/items` } }),
    ]);
    assert.equal((await fire(open, allowed.path, {})).status, 'succeeded', 'loopback allowed by the setting');
  });

  test("a custom connector's request (made by the Ruby runtime's request thread): a name resolving to loopback refused, link-local always, nothing sent", async () => {
    const code = `{
  title: 'Fetcher',
  actions: {
    fetch: {
      title: 'Fetch',
      input_fields: lambda { |_| [{ name: 'url' }] },
      execute: lambda { |_connection, input| get(input['url']) }
    }
  }
}`;
    const created = await closed.call('POST', '/api/custom_connectors', { body: { title: 'Fetcher', code } });
    assert.equal(created.status, 200, created.text);
    const released = await closed.call('POST', `/api/custom_connectors/${created.body.data.id}/release`);
    assert.equal(released.status, 200, released.text);
    const provider = created.body.data.name as string;
    const before = hits.length;
    for (const [url, refusal] of [
      [
        `http://localhost:${port}/items`,
        /localhost:\d+ is refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/,
      ],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
    ] as const) {
      const { path } = await webhookRecipe(closed, [action(provider, 'fetch', 'call', { url })]);
      const job = await fire(closed, path, {});
      assert.equal(job.status, 'failed', url);
      assert.match(job.lines[1]?.error ?? '', refusal, url);
    }
    assert.equal(hits.length, before);
  });

  test('the polling trigger: a poll of a refused address is a poll error, nothing sent', async () => {
    const before = hits.length;
    const id = await createRecipe(
      closed,
      numbered({
        keyword: 'trigger',
        provider: 'rest',
        name: 'new_poll_event',
        as: 'poll',
        input: { request: { method: 'GET', url: `${base}/records` }, cursor_field: 'id' },
        block: [action('logger', 'log_message', 'seen', { message: 'x' })],
      }),
    );
    await startRecipe(closed, id);
    await closed.engine.idle();
    const job = await closed.ctx.db
      .selectFrom('jobs')
      .selectAll()
      .where('recipe_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(job.is_poll_error, 1);
    assert.match(job.error ?? '', /127\.0\.0\.1 is a loopback address/);
    assert.equal(hits.length, before);
  });

  test("a SaaS connection's test: refused, with the reason as its authorization error", async () => {
    const app = await createTestApp({
      env: { OUTBOUND_ALLOW_LOOPBACK: 'false', CONNECTOR_ORIGINS: JSON.stringify({ 'https://api.stripe.com': base }) },
    });
    try {
      const before = hits.length;
      const res = await app.call('POST', '/api/connections', {
        body: { name: 'Stripe', provider: 'stripe', input: { api_key: 'sk_test_0123456789' } },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.authorization_status, 'failed');
      assert.equal(
        res.body.authorization_error,
        `the request to 127.0.0.1:${port} is refused: 127.0.0.1 is a loopback address (OUTBOUND_ALLOW_LOOPBACK allows it)`,
      );
      assert.equal(hits.length, before);
      const okta = await app.call('POST', '/api/connections', {
        body: { name: 'Okta', provider: 'okta', input: { domain: '169.254.169.254', api_token: 'x0123456789' } },
      });
      assert.match(okta.body.authorization_error, /169\.254\.169\.254 is a link-local address/);
    } finally {
      await app.close();
    }
  });

  test("a proxy collection's upstream on a refused address: 502, nothing sent", async () => {
    const before = hits.length;
    const project = await closed.createProject('Proxy');
    const connection = await closed.call('POST', '/api/connections', {
      body: { name: 'Upstream', provider: 'rest', input: { base_url: base } },
    });
    const collection = await closed.call('POST', '/api/api_collections', {
      body: { name: 'Proxied', project_id: project.projectId, proxy_connection_id: connection.body.id },
    });
    const endpoint = await closed.call('POST', `/api/api_collections/${collection.body.id}/api_endpoints`, {
      body: { name: 'items', method: 'GET', path: 'items' },
    });
    assert.equal((await closed.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`)).status, 200);
    const client = await closed.call('POST', '/api/api_clients', {
      body: { name: 'Consumer', project_id: project.projectId },
    });
    const profile = await closed.call('POST', '/api/api_access_profiles', {
      body: { name: 'p', api_client_id: client.body.id, api_collection_ids: [collection.body.id], auth_type: 'token' },
    });
    const res = await closed.app.inject({
      method: 'GET',
      url: new URL(endpoint.body.url).pathname,
      headers: { 'api-token': profile.body.secret },
    });
    assert.equal(res.statusCode, 502, res.body);
    assert.equal(hits.length, before);
  });

  test('JWKS and OIDC discovery on a refused address: the token is not verified (401), nothing fetched', async () => {
    const before = hits.length;
    const project = await closed.createProject('JWT');
    const connection = await closed.call('POST', '/api/connections', {
      body: { name: 'Upstream 2', provider: 'rest', input: { base_url: 'https://api.example.com' } },
    });
    const collection = await closed.call('POST', '/api/api_collections', {
      body: { name: 'Signed', project_id: project.projectId, proxy_connection_id: connection.body.id },
    });
    const endpoint = await closed.call('POST', `/api/api_collections/${collection.body.id}/api_endpoints`, {
      body: { name: 'x', method: 'GET', path: 'x' },
    });
    assert.equal((await closed.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`)).status, 200);
    const pair = await generateKeyPair('RS256');
    jwksKey = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
    for (const settings of [{ oidc_jwks_uri: `${base}/keys` }, { auth_type: 'oidc', oidc_issuer: base }]) {
      const c = await closed.call('POST', '/api/v2/api_clients', {
        body: {
          name: `c${Math.random()}`,
          api_collection_ids: [collection.body.id],
          auth_type: 'jwt',
          jwt_method: 'rsa',
          ...settings,
        },
      });
      assert.equal(c.status, 200, c.text);
      const key = await closed.call('POST', `/api/v2/api_clients/${c.body.data.id}/api_keys`, {
        body: { name: 'k', active: true },
      });
      const now = Math.floor(Date.now() / 1000);
      const jwt = await new SignJWT({ sub: key.body.data.auth_token, iss: base, iat: now, exp: now + 300 })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .sign(pair.privateKey);
      const res = await closed.app.inject({
        method: 'GET',
        url: new URL(endpoint.body.url).pathname,
        headers: { authorization: `Bearer ${jwt}` },
      });
      assert.equal(res.statusCode, 401, `${JSON.stringify(settings)}: ${res.body}`);
    }
    assert.equal(hits.length, before, 'neither the discovery document nor the key set was fetched');
  });
});
