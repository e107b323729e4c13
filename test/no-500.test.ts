// Nothing a caller sends to the public surfaces (token endpoint, gateway) produces a 500: a
// bounded burst of random, malformed requests, each of which must get a 4xx in its area's shape.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
let gatewayBase: string;
before(async () => {
  t = await createTestApp();
  const connection = await t.call('POST', '/api/connections', {
    body: { name: 'Up', provider: 'rest', input: { base_url: 'http://127.0.0.1:9', auth_type: 'none' } },
  });
  const collection = await t.call('POST', '/api/api_collections', {
    body: { name: 'Fuzz', proxy_connection_id: connection.body.id },
  });
  const endpoint = await t.call('POST', `/api/api_collections/${collection.body.id}/api_endpoints`, {
    body: { name: 'x', method: 'POST', path: 'things/{id}' },
  });
  await t.call('PUT', `/api/api_endpoints/${endpoint.body.id}/enable`);
  gatewayBase = new URL(collection.body.url).pathname;
});
after(() => t.close());

// A small deterministic generator, so a failure can be replayed.
function generator(seed: number) {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x;
  };
  return { int: (n: number) => next() % n, pick: <T>(items: readonly T[]) => items[next() % items.length] as T };
}

const CONTENT_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'text/plain',
  '',
  'application/json; charset=latin1',
  'application/octet-stream',
];
const AUTHS = [
  '',
  'Basic',
  'Basic %%%',
  `Basic ${Buffer.from(':').toString('base64')}`,
  'Bearer',
  'Bearer a.b.c',
  'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InNiMSJ9.e30.x',
  'Digest x',
];
const BODIES = [
  '',
  '{',
  '{}',
  '[]',
  'null',
  '"x"',
  'grant_type=client_credentials&grant_type=x',
  'client_id=%zz&client_secret=%',
  '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--\r\n',
  '{"grant_type":["client_credentials"]}',
  '{"__proto__":{"a":1}}',
];

test('random malformed token requests and gateway calls never get a 500', async () => {
  const g = generator(20261122);
  for (let i = 0; i < 300; i++) {
    const toToken = g.int(2) === 0;
    const headers: Record<string, string> = {};
    const type = g.pick(CONTENT_TYPES);
    if (type) headers['content-type'] = type;
    const auth = g.pick(AUTHS);
    if (auth) headers.authorization = auth;
    if (g.int(3) === 0) headers['api-token'] = randomBytes(g.int(40)).toString('hex');
    const body = g.int(4) === 0 ? randomBytes(g.int(300)) : g.pick(BODIES);
    const url = toToken
      ? `/oauth2/token${g.int(4) === 0 ? '?client_id=x' : ''}`
      : `${gatewayBase}/things/${encodeURIComponent(randomBytes(g.int(8)).toString('latin1'))}?api_token=${g.int(100)}`;
    const res = await t.app.inject({ method: g.pick(['POST', 'GET', 'PUT'] as const), url, headers, payload: body });
    assert.ok(
      res.statusCode >= 400 && res.statusCode < 500,
      `${i}: ${res.statusCode} ${res.body.slice(0, 200)} for ${url} ${JSON.stringify(headers)}`,
    );
    const parsed = JSON.parse(res.body);
    assert.equal(typeof (parsed.error ?? parsed.message), 'string', `${i}: error shape`);
  }
});
