// The Ruby SDK runtime against a local stand-in API: connectors written in the vendor's documented
// style, each path run as a recipe's step or a connection test would run it.
import assert from 'node:assert/strict';
import { createHash, createHmac, generateKeyPairSync, verify } from 'node:crypto';
import { describe, test } from 'node:test';
import { sqliteOnly } from '../../../test/test-database.ts';
import { sdkRuntimeKit } from '../../../test/sdk-runtime-kit.ts';
import { DEMO } from '../../../test/stand-ins/sdk-demo-connector.ts';

// The Ruby runtime uses no database: its tests run once, in the SQLite suite.
const NO_DATABASE = sqliteOnly('the Ruby runtime uses no database');

const kit = sdkRuntimeKit();
const { updates, settings, run, value } = kit;

describe('connection and test', { skip: NO_DATABASE }, () => {
  test('basic_auth: apply sets user and password; test passes with the right ones and fails naming the connector otherwise', async () => {
    assert.deepEqual(value(await run('test')), { user: 'ada' });
    assert.equal(
      kit.api.requests.at(-1)!.headers.authorization,
      `Basic ${Buffer.from('ada:lovelace').toString('base64')}`,
    );
    const failed = await run('test', { settings: { ...settings(), password: 'wrong' } });
    assert.equal(failed.ok, false);
    if (!failed.ok) {
      assert.equal(failed.error.kind, 'http');
      assert.equal(failed.error.status, 401);
      assert.match(failed.error.message, /^Acme \(test\): 401 Unauthorized: \{"message":"bad credentials"\}/);
    }
  });

  test('api_key: headers and params added by apply', async () => {
    const source = DEMO.replace(
      /authorization: \{\n      type: 'basic_auth',[\s\S]*?\n    \},\n    base_uri/,
      `authorization: {
      type: 'api_key',
      apply: lambda do |connection|
        headers('X-Api-Key': connection['key'])
        params(api_key: connection['key']) if connection['in_query']
      end
    },
    base_uri`,
    ).replace("get('/basic/me')", "get('/key/me')");
    assert.deepEqual(value(await run('test', { settings: { base: kit.api.url, key: 'k-123' } }, source)), {
      user: 'key-holder',
    });
    assert.equal(kit.api.requests.at(-1)!.headers['x-api-key'], 'k-123');
    value(await run('test', { settings: { base: kit.api.url, key: 'k-123', in_query: true } }, source));
    assert.equal(kit.api.requests.at(-1)!.url, '/key/me?api_key=k-123');
  });

  test('custom_auth: acquire on connect, then a 401 matched by refresh_on acquires again, retries once and tells the host the new token', async () => {
    const source = String.raw`{
      title: 'Acme tokens',
      connection: {
        fields: [{ name: 'client_id' }, { name: 'client_secret', control_type: 'password' }],
        authorization: {
          type: 'custom_auth',
          acquire: lambda do |connection|
            response = post("#{connection['base']}/auth/token").
              payload(client_id: connection['client_id'], client_secret: connection['client_secret']).
              request_format_www_form_urlencoded
            { access_token: response['access_token'] }
          end,
          refresh_on: [401],
          apply: lambda do |connection|
            headers(Authorization: "Bearer #{connection['access_token']}")
          end
        },
        base_uri: lambda { |connection| connection['base'] }
      },
      test: lambda { |connection| get('/bearer/me') }
    }`;
    const base = { base: kit.api.url, client_id: 'cid', client_secret: 'cs' };
    updates.length = 0;
    const connected = await run('connection.authorize', { settings: base }, source);
    assert.deepEqual(value(connected), { authorized: true });
    const token = kit.api.tokens.at(-1)!;
    assert.deepEqual(connected.settings, { ...base, access_token: token });
    assert.deepEqual(updates.at(-1), { ...base, access_token: token });

    kit.api.expireTokens();
    const before = kit.api.tokens.length;
    const outcome = await run('test', { settings: { ...base, access_token: token } }, source);
    assert.equal(value(outcome).user, 'bearer');
    assert.equal(kit.api.tokens.length, before + 1, 'acquire ran once');
    assert.equal(value(outcome).token, kit.api.tokens.at(-1));
    assert.equal(outcome.settings?.access_token, kit.api.tokens.at(-1));
    assert.equal(updates.at(-1)?.access_token, kit.api.tokens.at(-1));

    const badClient = await run('connection.authorize', { settings: { ...base, client_secret: 'nope' } }, source);
    assert.equal(badClient.ok, false);
    if (!badClient.ok)
      assert.match(badClient.error.message, /^Acme \(connection\.authorize, line 11\): 401 Unauthorized/);
  });

  test('oauth2: the code is exchanged at token_url, the refresh token renews an expired access token, detect_on finds an error in a 200', async () => {
    const source = String.raw`{
      title: 'Acme OAuth',
      connection: {
        fields: [{ name: 'client_id' }, { name: 'client_secret' }],
        authorization: {
          type: 'oauth2',
          authorization_url: lambda { |connection| "#{connection['base']}/oauth/authorize?scope=read" },
          token_url: lambda { |connection| "#{connection['base']}/oauth/token" },
          detect_on: [/invalid_token/],
          refresh_on: [401, /invalid_token/],
          apply: lambda do |connection, access_token|
            headers(Authorization: "Bearer #{access_token}")
          end
        },
        base_uri: lambda { |connection| connection['base'] }
      },
      test: lambda { |connection| get('/soft/me') }
    }`;
    const base = { base: kit.api.url, client_id: 'cid', client_secret: 'cs' };
    assert.equal(
      value(await run('connection.authorization.authorization_url', { settings: base }, source)),
      `${kit.api.url}/oauth/authorize?scope=read`,
    );
    const acquired = await run(
      'connection.authorization.acquire',
      { settings: base, oauth2_code: 'code-1', redirect_url: 'http://sb/oauth/callback' },
      source,
    );
    assert.equal(value(acquired).refresh_token, 'refresh-1');
    const exchange = kit.api.requests.at(-1)!;
    assert.equal(new URLSearchParams(exchange.body).get('redirect_uri'), 'http://sb/oauth/callback');
    assert.equal(new URLSearchParams(exchange.body).get('client_secret'), 'cs');

    kit.api.expireTokens();
    const outcome = await run(
      'test',
      { settings: { ...base, access_token: 'stale', refresh_token: 'refresh-1' } },
      source,
    );
    assert.equal(value(outcome).user, 'soft');
    assert.equal(outcome.settings?.access_token, kit.api.tokens.at(-1));
    assert.equal(outcome.settings?.refresh_token, 'refresh-1');

    const noRefresh = await run('test', { settings: { ...base, access_token: 'stale' } }, source);
    assert.equal(noRefresh.ok, false);
    if (!noRefresh.ok) assert.match(noRefresh.error.message, /no refresh token/);
  });

  test('multi: `selected` picks one of the options', async () => {
    const source = String.raw`{
      title: 'Acme multi',
      connection: {
        authorization: {
          type: 'multi',
          selected: lambda { |connection| connection['auth_type'] },
          options: {
            basic: { type: 'basic_auth', apply: lambda { |connection| user('ada'); password('lovelace') } },
            key: { type: 'api_key', apply: lambda { |connection| headers('X-Api-Key' => 'k-123') } }
          }
        },
        base_uri: lambda { |connection| connection['base'] }
      },
      test: lambda { |connection| get(connection['auth_type'] == 'key' ? '/key/me' : '/basic/me') }
    }`;
    assert.equal(
      value(await run('test', { settings: { base: kit.api.url, auth_type: 'key' } }, source)).user,
      'key-holder',
    );
    assert.equal(value(await run('test', { settings: { base: kit.api.url, auth_type: 'basic' } }, source)).user, 'ada');
    const unknown = await run('test', { settings: { base: kit.api.url, auth_type: 'oauth' } }, source);
    assert.equal(unknown.ok, false);
    if (!unknown.ok) assert.match(unknown.error.message, /"oauth" is not one of the options/);
  });
});

describe('actions', { skip: NO_DATABASE }, () => {
  test('execute: a method called, the request sent lazily as JSON, after_response given code, body and headers', async () => {
    const out = value(await run('actions.create_record.execute', { input: { name: '  new_thing ' } }));
    assert.equal(out.name, 'New thing!');
    assert.equal(out.status, 201);
    assert.equal(out.had_content_type, 'application/json');
    const sent = kit.api.requests.at(-1)!;
    assert.equal(sent.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(sent.body), { name: 'New thing!' });
  });

  test('input_fields and output_fields from object definitions (nested, with ignored/required)', async () => {
    assert.deepEqual(value(await run('actions.create_record.input_fields')), [{ name: 'name', optional: false }]);
    assert.deepEqual(value(await run('actions.create_record.output_fields')), [
      { name: 'id', type: 'integer' },
      { name: 'name' },
      { name: 'owner', type: 'object', properties: [{ name: 'email' }] },
    ]);
    assert.deepEqual(value(await run('actions.create_record.config_fields')), [
      { name: 'kind', control_type: 'select', pick_list: 'colors' },
    ]);
  });

  test('the whole action (`actions.NAME`): a required input field missing fails, present it runs', async () => {
    const missing = await run('actions.create_record', { input: {} });
    assert.equal(missing.ok, false);
    if (!missing.ok) {
      assert.equal(missing.error.kind, 'input');
      assert.match(missing.error.message, /Name is required/);
    }
    assert.equal(value(await run('actions.create_record', { input: { name: 'x' } })).name, 'X!');
  });

  test('request URLs join base_uri as RFC 3986 merges them (dot segments, other hosts, relative paths, params)', async () => {
    // `current_url` beside what Ruby's URI merge gives for the same base, path and params.
    const source = String.raw`{
      title: 'Joins',
      connection: { base_uri: lambda { |connection| connection['base'] } },
      methods: {
        joined: lambda do |base, path, params|
          merged = URI.parse(base).merge(path)
          query = [merged.query, params.to_query].reject(&:blank?).join('&')
          merged.query = query.presence
          [get(path, params).current_url, merged.to_s]
        end
      }
    }`;
    const paths = [
      '/items/1',
      '/items/1?a=b',
      '/a/./b',
      '/a/../b',
      '/a/b/..',
      '/.well-known/x',
      '/v1.0/x.json',
      '/caf%C3%A9',
      '/x#frag',
      '//evil.example/x',
      'users.list',
      '../up',
      'http://other.example/x?y=1',
    ];
    for (const base of ['http://127.0.0.1:8080', 'http://h.example:80/api/v1/', 'https://u:p@h.example/root'])
      for (const path of paths)
        for (const params of [{}, { z: 2 }]) {
          const outcome = await run('methods.joined', { settings: { base }, args: [base, path, params] }, source);
          const [joined, merged] = value(outcome) as [string, string];
          assert.equal(joined, merged, `${base} + ${path} ${JSON.stringify(params)}`);
        }
    const base = 'http://h.example/v1/';
    const plain = await run('methods.joined', { settings: { base }, args: [base, '/items/7', { q: 'a b' }] }, source);
    assert.equal(value(plain)[0], 'http://h.example/items/7?q=a+b');
  });

  test('params, PUT with a payload, symbols and strings alike in input', async () => {
    const out = value(await run('actions.search_records.execute', { input: { since: 3 } }));
    assert.deepEqual(out, {
      records: [
        { id: 4, name: 'record 4' },
        { id: 5, name: 'record 5' },
      ],
      count: 2,
      more: true,
    });
    assert.equal(kit.api.requests.at(-1)!.url, '/records?since=3');
    assert.deepEqual(value(await run('actions.update_record.execute', { input: { id: 4, name: 'n' } })), {
      id: 4,
      method: 'PUT',
      name: 'n',
    });
  });

  test('core extensions, workato helpers, account properties and lookup tables', async () => {
    const out = value(await run('actions.helpers.execute', { input: { name: 'Ada' } }));
    assert.deepEqual(out, {
      present: false,
      blank: true,
      presence: null,
      try: null,
      label: 'First name',
      param: 'a=x+y&b%5B%5D=1&b%5B%5D=2',
      b64: 'aGVsbG8=',
      unb64: 'hello',
      url: 'a+b%26c',
      sha: createHash('sha256').update('abc').digest('hex'),
      md5: createHash('md5').update('abc').digest('hex'),
      hmac: createHmac('sha256', 'key').update('data').digest('hex'),
      month_later: '2024-02-29T10:30:00Z',
      days_ago: '2024-01-29',
      beginning: '2024-01-01T00:00:00Z',
      end_of_day: '23:59:59',
      date_plus: '2024-02-29',
      parsed: Date.UTC(2024, 1, 3, 4, 5, 6) / 1000,
      pluck: [1, 2],
      smart_join: 'a-b',
      ordinal: '22nd',
      currency: '$1,234.50',
      is_true: true,
      deep: { a: { b: 1, c: 2 } },
      indifferent: 'Ada',
      except: { b: 2 },
      uuid: 36,
      parsed_json: [1],
      property: 'eu-west',
      country: 'France',
      pluralize: 'companies',
      titled: 'Hello World',
      strip_tags: 'bold',
      csv: [{ a: '1', b: 'x,y' }],
      yaml: ['x'],
      yaml_out: '---\nk: v\n',
      zone: -5 * 3600,
      now_class: 'Time',
    });
  });

  test('request formats: form, XML both ways, multipart, raw', async () => {
    const out = value(await run('actions.formats.execute'));
    assert.deepEqual(out.form, {
      contentType: 'application/x-www-form-urlencoded',
      form: { a: '1', b: 'two words' },
    });
    assert.equal(out.xml_kind, 'xml');
    assert.deepEqual(out.xml_items, ['one', 'two']);
    assert.equal(
      out.xml_sent,
      "<?xml version='1.0' encoding='UTF-8'?><order xmlns='urn:acme'><id>7</id><lines><sku>a</sku></lines><lines><sku>b</sku></lines></order>",
    );
    assert.deepEqual(out.upload, [
      { name: 'note', filename: null, type: null, value: 'hi' },
      { name: 'file', filename: 'a.txt', type: 'text/plain', value: 'file body' },
    ]);
    assert.equal(out.raw, '{"message":"status 202"}');
  });

  test('after_error_response handles a matching status; redirects followed or kept; an unhandled error raises', async () => {
    const out = value(await run('actions.errors.execute'));
    assert.deepEqual(out.handled, { handled: 404, body: { message: 'status 404' }, message: '404 Not Found' });
    assert.deepEqual(out.redirect_kept, { code: 302, location: '/records?since=0' });
    assert.equal(out.followed, 2);
    assert.equal(out.unhandled, '500 Internal Server Error: {"message":"status 500"}');
  });

  test('digest_auth answers the challenge', async () => {
    assert.deepEqual(value(await run('actions.digest.execute')), { user: 'digest' });
  });

  test('workato.jwt_encode (HS256, RS256 with header fields), jwt_decode, AES, RSA signatures', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const out = value(await run('actions.jwt.execute', { input: { key: pem } }));
    const [h, p, s] = (out.hs as string).split('.');
    assert.deepEqual(JSON.parse(Buffer.from(h!, 'base64url').toString()), { typ: 'JWT', alg: 'HS256' });
    assert.deepEqual(JSON.parse(Buffer.from(p!, 'base64url').toString()), { sub: '42' });
    assert.equal(s, createHmac('sha256', 'secret').update(`${h}.${p}`).digest('base64url'));
    const [rh, rp, rs] = (out.rs as string).split('.');
    assert.deepEqual(JSON.parse(Buffer.from(rh!, 'base64url').toString()), { kid: 'k1', typ: 'JWT', alg: 'RS256' });
    assert.ok(verify('sha256', Buffer.from(`${rh}.${rp}`), publicKey, Buffer.from(rs!, 'base64url')));
    assert.deepEqual(out.decoded, { sub: '7' });
    assert.equal(out.aes, 'plain text');
    assert.ok(verify('sha256', Buffer.from('payload'), publicKey, Buffer.from(out.rsa_sig as string, 'base64')));
  });

  test("puts goes to the call's log, not its output", async () => {
    const outcome = await run('actions.log.execute', { input: { id: 7 } });
    assert.deepEqual(value(outcome), { ok: true });
    assert.equal(outcome.logs, 'working on 7\n');
  });
});
