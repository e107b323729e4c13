import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { manualClock } from '../time.ts';
import { createAccessTokenSigner } from './access-token.ts';
import { formParams, repeatedMember, tokenJson } from './token.routes.ts';

let t: TestApp;
let clientId: string;
let clientSecret: string;
let profileId: number;
let apiClientId: number;
let tokenProfileSecret: string;
const clock = manualClock('2026-05-01T12:00:00.000Z');

before(async () => {
  t = await createTestApp({ clock });
  const project = await t.createProject('Public APIs');
  const collection = await t.call('POST', '/api/api_collections', {
    body: { name: 'Orders', project_id: project.projectId },
  });
  apiClientId = (
    await t.call('POST', '/api/api_clients', { body: { name: 'Consumer', project_id: project.projectId } })
  ).body.id;
  const profile = await t.call('POST', '/api/api_access_profiles', {
    body: { name: 'OAuth', api_client_id: apiClientId, api_collection_ids: [collection.body.id], auth_type: 'oauth2' },
  });
  ({ oauth_client_id: clientId, oauth_client_secret: clientSecret, id: profileId } = profile.body);
  tokenProfileSecret = (
    await t.call('POST', '/api/api_access_profiles', {
      body: { name: 'Token', api_client_id: apiClientId, api_collection_ids: [collection.body.id], auth_type: 'token' },
    })
  ).body.secret;
});
after(() => t.close());

type Res = { status: number; body: any; headers: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function token(
  payload: string | Buffer,
  headers: Record<string, string>,
  url = '/oauth2/token',
  method: 'POST' | 'GET' | 'PUT' = 'POST',
): Promise<Res> {
  const res = await t.app.inject({ method, url, headers, payload });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers };
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

function multipart(fields: Array<[string, string]>): { payload: Buffer; type: string } {
  const boundary = `----sb${randomBytes(8).toString('hex')}`;
  const parts = fields
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  return { payload: Buffer.from(`${parts}--${boundary}--\r\n`), type: `multipart/form-data; boundary=${boundary}` };
}

function assertToken(res: Res) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'token_type']);
  assert.equal(res.body.token_type, 'bearer');
  assert.equal(res.body.expires_in, 3600);
  assert.match(
    res.body.access_token,
    /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
    'JWT-style: three base64url parts',
  );
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers.pragma, 'no-cache');
  assert.equal(
    res.headers['content-type'],
    'application/json; charset=utf-8',
    'RFC 6749 §5.1: the token comes as application/json',
  );
}

function assertOAuthError(res: Res, error: string, status = 400, label = '') {
  assert.equal(res.status, status, `${label}: ${JSON.stringify(res.body)}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'error_description']);
  assert.equal(res.body.error, error, label);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.ok(!JSON.stringify(res.body).includes(clientSecret), 'the secret is never echoed');
}

describe('POST /oauth2/token: the four formats of the specification', () => {
  test('Basic header with a form body', async () => {
    assertToken(
      await token('grant_type=client_credentials', {
        authorization: basic(clientId, clientSecret),
        'content-type': FORM,
      }),
    );
  });

  test('JSON body', async () => {
    assertToken(
      await token(
        JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
        { 'content-type': 'application/json' },
      ),
    );
  });

  test('URL-encoded body with all three fields', async () => {
    assertToken(
      await token(`client_secret=${clientSecret}&client_id=${clientId}&grant_type=client_credentials`, {
        'content-type': `${FORM}; charset=utf-8`,
      }),
    );
  });

  test('multipart/form-data with three parts', async () => {
    const { payload, type } = multipart([
      ['grant_type', 'client_credentials'],
      ['client_id', clientId],
      ['client_secret', clientSecret],
    ]);
    assertToken(await token(payload, { 'content-type': type }));
  });

  test('also accepted: Basic with a JSON body, and identical credentials in both places', async () => {
    assertToken(
      await token('{"grant_type":"client_credentials"}', {
        authorization: basic(clientId, clientSecret),
        'content-type': 'application/json',
      }),
    );
    assertToken(
      await token(`grant_type=client_credentials&client_id=${clientId}`, {
        authorization: basic(clientId, clientSecret),
        'content-type': FORM,
      }),
    );
  });

  test('every request issues a new token with its own expiry', async () => {
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    const a = await token(body, { 'content-type': 'application/json' });
    clock.advance(1000);
    const b = await token(body, { 'content-type': 'application/json' });
    assert.notEqual(a.body.access_token, b.body.access_token);
    const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
    assert.equal(claims(b.body.access_token).exp - claims(a.body.access_token).exp, 1);
    assert.equal(claims(a.body.access_token).exp - claims(a.body.access_token).iat, 3600);
    assert.equal(claims(a.body.access_token).apid, profileId);
  });
});

describe('POST /oauth2/token: RFC 6749 errors', () => {
  test('invalid_request: missing, repeated, empty or mismatched input', async () => {
    const cases: Array<[string | Buffer, Record<string, string>, string]> = [
      ['', { authorization: basic(clientId, clientSecret), 'content-type': FORM }, 'no grant_type'],
      [`client_id=${clientId}&client_secret=${clientSecret}`, { 'content-type': FORM }, 'no grant_type (form)'],
      [
        'grant_type=client_credentials&grant_type=client_credentials',
        { authorization: basic(clientId, clientSecret), 'content-type': FORM },
        'repeated grant_type',
      ],
      [
        `grant_type=client_credentials&client_id=${clientId}&client_id=${clientId}&client_secret=${clientSecret}`,
        { 'content-type': FORM },
        'repeated client_id',
      ],
      ['grant_type=client_credentials', { 'content-type': FORM }, 'no credentials'],
      [`grant_type=client_credentials&client_id=${clientId}`, { 'content-type': FORM }, 'no secret'],
      [`grant_type=client_credentials&client_id=${clientId}&client_secret=`, { 'content-type': FORM }, 'empty secret'],
      [`grant_type=client_credentials&client_id=&client_secret=x`, { 'content-type': FORM }, 'empty id'],
      [
        `grant_type=client_credentials&client_id=${'x'.repeat(5000)}&client_secret=y`,
        { 'content-type': FORM },
        'oversized id',
      ],
      [
        'grant_type=client_credentials&client_id=other',
        { authorization: basic(clientId, clientSecret), 'content-type': FORM },
        'Basic and body differ',
      ],
      [
        JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
        { 'content-type': FORM },
        'JSON body sent as form',
      ],
      [
        `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`,
        { 'content-type': 'application/json' },
        'form body sent as JSON',
      ],
      [
        '{"grant_type":"client_credentials","client_id":5,"client_secret":"x"}',
        { 'content-type': 'application/json' },
        'non-string JSON member',
      ],
      ['["client_credentials"]', { 'content-type': 'application/json' }, 'JSON array'],
      [`grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`, {}, 'no Content-Type'],
      [
        `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`,
        { 'content-type': 'text/plain' },
        'text/plain',
      ],
      ['grant_type=client_credentials', { authorization: 'Basic !!!notbase64', 'content-type': FORM }, 'bad Base64'],
      [
        'grant_type=client_credentials',
        { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}`, 'content-type': FORM },
        'no colon',
      ],
      [
        'grant_type=client_credentials',
        { authorization: `Basic ${Buffer.from('%zz:secret').toString('base64')}`, 'content-type': FORM },
        'bad percent-encoding',
      ],
      [
        'grant_type=client_credentials',
        { authorization: `Bearer ${clientSecret}`, 'content-type': FORM },
        'Bearer scheme',
      ],
      ['grant_type=client_credentials', { 'content-type': 'multipart/form-data' }, 'multipart without boundary'],
    ];
    for (const [payload, headers, label] of cases)
      assertOAuthError(await token(payload, headers), 'invalid_request', 400, label);
    const m = multipart([
      ['grant_type', 'client_credentials'],
      ['grant_type', 'client_credentials'],
      ['client_id', clientId],
      ['client_secret', clientSecret],
    ]);
    assertOAuthError(await token(m.payload, { 'content-type': m.type }), 'invalid_request');
  });

  test('credentials in the query string are refused', async () => {
    assertOAuthError(
      await token(
        'grant_type=client_credentials',
        { 'content-type': FORM },
        `/oauth2/token?client_id=${clientId}&client_secret=${clientSecret}`,
      ),
      'invalid_request',
    );
  });

  test('unsupported_grant_type', async () => {
    for (const grant of ['password', 'authorization_code', 'refresh_token', 'CLIENT_CREDENTIALS']) {
      assertOAuthError(
        await token(`grant_type=${grant}`, { authorization: basic(clientId, clientSecret), 'content-type': FORM }),
        'unsupported_grant_type',
      );
    }
  });

  test('invalid_client: 401, with WWW-Authenticate when Basic was used', async () => {
    const viaBasic = await token('grant_type=client_credentials', {
      authorization: basic(clientId, 'wrong-secret'),
      'content-type': FORM,
    });
    assertOAuthError(viaBasic, 'invalid_client', 401);
    assert.equal(viaBasic.headers['www-authenticate'], 'Basic realm="oauth2", error="invalid_client"');
    const viaBody = await token(
      JSON.stringify({ grant_type: 'client_credentials', client_id: 'oauth-unknown', client_secret: clientSecret }),
      { 'content-type': 'application/json' },
    );
    assertOAuthError(viaBody, 'invalid_client', 401);
    assert.equal(viaBody.headers['www-authenticate'], undefined);
    // Split on the first colon: a secret containing colons is read whole, and is simply wrong here.
    assertOAuthError(
      await token('grant_type=client_credentials', {
        authorization: `Basic ${Buffer.from(`${clientId}:a:b:c`).toString('base64')}`,
        'content-type': FORM,
      }),
      'invalid_client',
      401,
    );
  });

  test('unauthorized_client: a token profile, a disabled profile, a disabled client', async () => {
    // A token profile has no oauth client id; its secret is not an OAuth credential.
    assertOAuthError(
      await token('grant_type=client_credentials', {
        authorization: basic(clientId, tokenProfileSecret),
        'content-type': FORM,
      }),
      'invalid_client',
      401,
    );
    await t.call('PUT', `/api/api_access_profiles/${profileId}/disable`);
    assertOAuthError(
      await token('grant_type=client_credentials', {
        authorization: basic(clientId, clientSecret),
        'content-type': FORM,
      }),
      'unauthorized_client',
    );
    await t.call('PUT', `/api/api_access_profiles/${profileId}/enable`);
    assertToken(
      await token('grant_type=client_credentials', {
        authorization: basic(clientId, clientSecret),
        'content-type': FORM,
      }),
    );
    const toToken = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Was oauth',
        api_client_id: apiClientId,
        api_collection_ids: [(await t.call('GET', '/api/api_collections')).body[0].id],
        auth_type: 'oauth2',
      },
    });
    await t.call('PUT', `/api/api_access_profiles/${toToken.body.id}`, { body: { auth_type: 'token' } });
    assertOAuthError(
      await token('grant_type=client_credentials', {
        authorization: basic(toToken.body.oauth_client_id, toToken.body.oauth_client_secret),
        'content-type': FORM,
      }),
      'invalid_client',
      401,
    );
  });

  test('the old secret stops working at once after refresh_secret', async () => {
    const refreshed = await t.call('PUT', `/api/api_access_profiles/${profileId}/refresh_secret`);
    assertOAuthError(
      await token('grant_type=client_credentials', {
        authorization: basic(clientId, clientSecret),
        'content-type': FORM,
      }),
      'invalid_client',
      401,
    );
    clientSecret = refreshed.body.oauth_client_secret;
    assertToken(
      await token('grant_type=client_credentials', {
        authorization: basic(clientId, clientSecret),
        'content-type': FORM,
      }),
    );
  });

  test('other methods: 405 with Allow: POST; an oversized body: 413', async () => {
    const get = await token('', {}, '/oauth2/token', 'GET');
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    assert.deepEqual(get.body, { error: 'invalid_request', error_description: 'Use POST.' });
    assertOAuthError(
      await token(`grant_type=client_credentials&x=${'a'.repeat(20_000)}`, { 'content-type': FORM }),
      'invalid_request',
      413,
    );
  });

  test('failed authentications are limited per client id and per address: 429 with Retry-After', async () => {
    const other = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Guessed',
        api_client_id: apiClientId,
        api_collection_ids: [(await t.call('GET', '/api/api_collections')).body[0].id],
        auth_type: 'oauth2',
      },
    });
    const guess = () =>
      token('grant_type=client_credentials', {
        authorization: basic(other.body.oauth_client_id, 'guess'),
        'content-type': FORM,
      });
    for (let i = 0; i < 10; i++) assert.equal((await guess()).status, 401);
    const limited = await guess();
    assertOAuthError(limited, 'invalid_request', 429);
    assert.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60);
    // Even the right secret waits until the window ends...
    assert.equal(
      (
        await token('grant_type=client_credentials', {
          authorization: basic(other.body.oauth_client_id, other.body.oauth_client_secret),
          'content-type': FORM,
        })
      ).status,
      429,
    );
    clock.advance(61_000);
    // ...and then works.
    assertToken(
      await token('grant_type=client_credentials', {
        authorization: basic(other.body.oauth_client_id, other.body.oauth_client_secret),
        'content-type': FORM,
      }),
    );
  });

  test('the management API refuses an OAuth access token', async () => {
    const issued = await token('grant_type=client_credentials', {
      authorization: basic(clientId, clientSecret),
      'content-type': FORM,
    });
    assertToken(issued);
    assert.equal((await t.call('GET', '/api/users/me', { token: issued.body.access_token })).status, 401);
  });
});

describe('access token signer', () => {
  test('verifies its own tokens until they expire, and nothing forged', () => {
    const signer = createAccessTokenSigner(randomBytes(32));
    const now = new Date('2026-01-01T00:00:00Z');
    const jwt = signer.sign({ profileId: 9, generation: 3, issuer: 'http://x', now });
    assert.equal(signer.verify(jwt, now)?.apid, 9);
    assert.equal(signer.verify(jwt, new Date(now.getTime() + 3599_000))?.gen, 3);
    assert.equal(signer.verify(jwt, new Date(now.getTime() + 3600_000)), null, 'expired');
    const [h, p, s] = jwt.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), apid: 1 }),
    ).toString('base64url');
    assert.equal(signer.verify(`${h}.${forgedPayload}.${s}`, now), null, 're-signed payload');
    assert.equal(signer.verify(`${h}.${p}.${s.slice(0, -2)}`, now), null, 'truncated signature');
    assert.equal(signer.verify(`${h}.${p}`, now), null);
    assert.equal(createAccessTokenSigner(randomBytes(32)).verify(jwt, now), null, 'another key');
  });

  test('the 200 body written as text is what JSON.stringify writes', () => {
    const signer = createAccessTokenSigner(randomBytes(32));
    for (const issuer of ['http://x', 'https://auth.example.com/"odd"\\path', 'http://ünïcode.test']) {
      const issued = {
        access_token: signer.sign({ profileId: 9, generation: 3, issuer, now: new Date() }),
        token_type: 'bearer' as const,
        expires_in: 3600,
      };
      assert.equal(tokenJson(issued), JSON.stringify(issued), issuer);
    }
  });
});

describe('form bodies', () => {
  test('are read exactly as URLSearchParams reads them, with or without encoded characters', () => {
    const bodies = [
      '',
      '&&',
      'a',
      'a=',
      '=b',
      'a=1&a=2',
      'a==b',
      'a=b=c&&c',
      'x=%41%42',
      'x=a+b',
      '%zz=1&y=%',
      'grant_type=client_credentials&scope=',
      'k=v&k&k=',
      'ümlaut=ö',
    ];
    for (const body of bodies) {
      const expected = new Map<string, string[]>();
      for (const [k, v] of new URLSearchParams(body)) expected.set(k, [...(expected.get(k) ?? []), v]);
      assert.deepEqual(formParams(body), expected, body);
    }
  });
});

describe('POST /oauth2/token: a JSON body with a parameter twice', () => {
  test('is refused as invalid_request naming the parameter, even when both values are the right ones', async () => {
    const twice = `{"grant_type":"client_credentials","client_id":"${clientId}","client_secret":"wrong","client_secret":"${clientSecret}"}`;
    const res = await token(twice, { 'content-type': 'application/json' });
    assertOAuthError(res, 'invalid_request');
    assert.equal(res.body.error_description, 'The client_secret parameter is repeated.');
    const same = `{"grant_type":"client_credentials","grant_type":"client_credentials","client_id":"${clientId}","client_secret":"${clientSecret}"}`;
    assert.equal(
      (await token(same, { 'content-type': 'application/json' })).body.error_description,
      'The grant_type parameter is repeated.',
    );
    const escaped = `{"grant_type":"client_credentials","client_id":"${clientId}","client_secret":"${clientSecret}","client\\u005fsecret":"${clientSecret}"}`;
    assert.equal(
      (await token(escaped, { 'content-type': 'application/json' })).body.error_description,
      'The client_secret parameter is repeated.',
      'an escaped spelling of the same name',
    );
    assertToken(
      await token(
        `{"grant_type":"client_credentials","client_id":"${clientId}","client_secret":"${clientSecret}","nested":{"client_id":"x","client_id":"y"}}`,
        { 'content-type': 'application/json' },
      ),
    );
  });
});

describe('repeatedMember', () => {
  test('finds a repeated top-level name; names inside strings, nested objects and arrays do not count', () => {
    assert.equal(repeatedMember('{"a":1,"b":2,"a":3}'), 'a');
    assert.equal(repeatedMember('{"a":"\\",\\"a\\":","b":{"a":1,"a":2},"c":[{"b":1}],"d":"{\\"b\\":1}"}'), undefined);
    assert.equal(repeatedMember('{"x\\"y":1, "x\\"y" :2}'), 'x"y');
    assert.equal(repeatedMember(' { "a" : [ 1 , { "a" : 2 } ] , "a" : 3 } '), 'a');
    assert.equal(repeatedMember('{}'), undefined);
    const wide = `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":1`).join(',')},"k49999":2}`;
    assert.equal(repeatedMember(wide), 'k49999');
  });
});
