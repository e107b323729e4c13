// Custom connectors whose connections authorize (contract 21 §4), through HTTP and recipe jobs
// against a local stand-in of a provider: OAuth 2.0 authorization code (Connect, the provider's
// consent, GET /oauth/callback, the code exchange by the standard request at `token_url` or by the
// connector's `acquire`), the app from the environment's custom OAuth profile or the connection's
// fields, tokens sealed at rest, client credentials through `acquire`, `refresh_on` and
// `detect_on` refreshing once then sending the request again, a refused refresh failing the step
// naming the connection, and `multi`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, waitFor, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { connectThroughConsole } from '../../test/stand-ins/connect.ts';
import {
  startOAuthProvider as startProvider,
  type OAuthProvider as Provider,
} from '../../test/stand-ins/oauth-provider.ts';
import { action, dp, fire, log, numbered, readJob, webhookRecipe, type RanJob } from '../../test/recipes.ts';
import { openAuthState } from './connections.ts';
import {
  MULTI_OAUTH,
  OWN_LAMBDAS,
  refreshCount,
  releasedConnector,
  runListNotes,
  sealedAuth,
  shellConnection,
  until,
} from '../../test/custom-oauth-kit.ts';

const PUBLIC = 'https://switchboard.example.com';

// In the vendor's documented style: the standard code exchange and refresh at token_url.
const STANDARD = `{
  title: 'Notes',
  connection: {
    fields: [{ name: 'api_url', label: 'API URL' }],
    authorization: {
      type: 'oauth2',
      authorization_url: lambda { |connection| "#{connection['api_url']}/oauth/authorize?scope=notes.read" },
      token_url: lambda { |connection| "#{connection['api_url']}/oauth/token" },
      apply: lambda do |_connection, access_token|
        headers('Authorization' => "Bearer #{access_token}")
      end,
      refresh_on: [401]
    },
    base_uri: lambda { |connection| connection['api_url'] }
  },
  test: lambda { |_connection| get('/me') },
  actions: {
    list_notes: {
      title: 'List notes',
      execute: lambda do |_connection, _input|
        { notes: get('/notes')['notes'] }
      end
    }
  }
}
`;

// The vendor's PKCE guide: the app from lambdas over the connection's fields, `pkce` choosing S256,
// the standard exchange at token_url sending the verifier.
const PKCE = STANDARD.replace(
  "type: 'oauth2',",
  `type: 'oauth2',
      client_id: lambda { |connection| connection['client_id'] },
      client_secret: lambda { |connection| connection['client_secret'] },
      pkce: lambda do |verifier, challenge|
        { verifier: verifier, challenge: challenge, challenge_method: 'S256' }
      end,`,
).replace(
  "fields: [{ name: 'api_url', label: 'API URL' }]",
  "fields: [{ name: 'api_url' }, { name: 'client_id' }, { name: 'client_secret' }]",
);

// PKCE with its own acquire, given the verifier after the code and the redirect URI; the plain method.
const PKCE_ACQUIRE = OWN_LAMBDAS.replace(
  "type: 'oauth2',",
  `type: 'oauth2',
      pkce: lambda { |verifier, _challenge| { verifier: verifier, challenge: verifier, challenge_method: 'plain' } },`,
)
  .replace(
    'acquire: lambda do |connection, auth_code, redirect_uri|',
    'acquire: lambda do |connection, auth_code, redirect_uri, verifier|',
  )
  .replace(
    'code: auth_code, redirect_uri: redirect_uri,',
    'code: auth_code, redirect_uri: redirect_uri, code_verifier: verifier,',
  );

// The vendor's client credentials guide: custom_auth whose acquire asks the token endpoint with HTTP Basic.
const CLIENT_CREDENTIALS = `{
  title: 'Notes Service',
  connection: {
    fields: [
      { name: 'api_url' },
      { name: 'client_id', optional: false },
      { name: 'client_secret', control_type: 'password', optional: false }
    ],
    authorization: {
      type: 'custom_auth',
      acquire: lambda do |connection|
        hash = "#{connection['client_id']}:#{connection['client_secret']}".base64.gsub("\\n", '')
        response = post("#{connection['api_url']}/oauth/token")
                     .payload(grant_type: 'client_credentials')
                     .headers(Authorization: "Basic #{hash}")
                     .request_format_www_form_urlencoded
        { access_token: response['access_token'] }
      end,
      refresh_on: [401, 403],
      apply: lambda do |connection|
        headers('Authorization' => "Bearer #{connection['access_token']}")
      end
    },
    base_uri: lambda { |connection| connection['api_url'] }
  },
  test: lambda { |_connection| get('/me') },
  actions: {
    list_notes: { execute: lambda { |_connection, _input| { notes: get('/notes')['notes'] } } }
  }
}
`;

const MULTI = `{
  title: 'Notes Multi',
  connection: {
    fields: [{ name: 'api_url' }, { name: 'auth_type', control_type: 'select', pick_list: [['API key', 'key'], ['Token', 'token']] }],
    authorization: {
      type: 'multi',
      selected: lambda { |connection| connection['auth_type'] },
      options: {
        key: {
          type: 'api_key',
          fields: [{ name: 'api_key', control_type: 'password' }],
          apply: lambda { |connection| headers('X-Api-Key' => connection['api_key']) }
        },
        token: {
          type: 'custom_auth',
          fields: [{ name: 'token', control_type: 'password' }],
          apply: lambda { |connection| headers('Authorization' => "Bearer #{connection['token']}") }
        }
      }
    },
    base_uri: lambda { |connection| connection['api_url'] }
  },
  test: lambda { |_connection| get('/me') },
  actions: {
    list_notes: { execute: lambda { |_connection, _input| { notes: get('/notes')['notes'] } } }
  }
}
`;

let t: TestApp;
let browser: ConsoleBrowser;
let provider: Provider;
let counter = 0;

before(async () => {
  provider = await startProvider();
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true', PUBLIC_BASE_URL: PUBLIC } });
  browser = await consoleSignIn(t, t.adminToken);
});
after(async () => {
  await t.close();
  provider.server.closeAllConnections();
  await new Promise((resolve) => provider.server.close(resolve));
});

/** Creates and releases a custom connector; its provider name. */
const released = (code: string) => releasedConnector(t, code, `Notes ${++counter}`);
const shell = (providerName: string, input: Record<string, string>) =>
  shellConnection(t, providerName, input, `Notes ${++counter}`);
const sealed = (id: number) => sealedAuth(t, id);
const runNotes = (providerName: string, connectionId: number) => runListNotes(t, providerName, connectionId);
const refreshes = () => refreshCount(provider);

describe('connections of custom connectors that authorize: Connect, GET /oauth/callback, tests and recipe jobs', () => {
  test('pkce: the challenge the lambda chose goes to the authorization URL, its verifier to the code exchange (standard or acquire)', async () => {
    const name = await released(PKCE);
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    const connected = await connectThroughConsole(t, browser, id);
    assert.equal(connected.location, `/console/connections/${id}?authorization=success`);
    const q = provider.authorizeQueries.at(-1)!;
    assert.equal(q.get('client_id'), 'field-client');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const exchange = provider.tokenForms.at(-1)!;
    assert.equal(exchange.get('grant_type'), 'authorization_code');
    const verifier = exchange.get('code_verifier') ?? '';
    assert.match(verifier, /^[A-Za-z0-9_-]{43,128}$/);
    assert.equal(createHash('sha256').update(verifier).digest('base64url'), q.get('code_challenge'));
    assert.deepEqual((await runNotes(name, id)).output(1), { notes: [{ id: 1, text: 'hello' }] });

    const own = await released(PKCE_ACQUIRE);
    const ownId = await shell(own, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    const ownConnected = await connectThroughConsole(t, browser, ownId);
    assert.equal(ownConnected.location, `/console/connections/${ownId}?authorization=success`);
    const plain = provider.authorizeQueries.at(-1)!;
    assert.equal(plain.get('code_challenge_method'), 'plain');
    assert.equal(provider.tokenForms.at(-1)!.get('code_verifier'), plain.get('code_challenge'));

    // Without `pkce` the redirect carries no challenge and the exchange no verifier.
    const none = await released(
      STANDARD.replace(
        "fields: [{ name: 'api_url', label: 'API URL' }]",
        "fields: [{ name: 'api_url' }, { name: 'client_id' }, { name: 'client_secret' }]",
      ),
    );
    const noneId = await shell(none, {
      api_url: provider.url,
      client_id: 'field-client',
      client_secret: 'field-secret',
    });
    assert.equal(
      (await connectThroughConsole(t, browser, noneId)).location,
      `/console/connections/${noneId}?authorization=success`,
    );
    assert.equal(provider.authorizeQueries.at(-1)!.get('code_challenge'), null);
    assert.equal(provider.tokenForms.at(-1)!.get('code_verifier'), null);
  });

  test('the custom OAuth profile is the app; the code is exchanged at token_url; tokens sealed; a 401 refreshes once and the request is sent again', async () => {
    const name = await released(STANDARD);
    const profile = await t.call('POST', '/api/custom_oauth_profiles', {
      body: {
        name: `Notes app ${counter}`,
        provider: name,
        data: { client_id: 'profile-client', client_secret: 'profile-secret' },
      },
    });
    assert.equal(profile.status, 200, profile.text);
    const id = await shell(name, { api_url: provider.url });
    const page = await browser.get(`/console/connections/${id}`);
    assert.match(page.body, /Connect/);

    const connected = await connectThroughConsole(t, browser, id);
    assert.equal(connected.location, `/console/connections/${id}?authorization=success`);
    const q = provider.authorizeQueries.at(-1)!;
    assert.equal(q.get('client_id'), 'profile-client');
    assert.equal(q.get('redirect_uri'), `${PUBLIC}/oauth/callback`);
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('scope'), 'notes.read');
    assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const exchange = provider.tokenForms.at(-1)!;
    assert.equal(exchange.get('grant_type'), 'authorization_code');
    assert.equal(exchange.get('client_secret'), 'profile-secret');
    assert.equal(exchange.get('redirect_uri'), `${PUBLIC}/oauth/callback`);
    const first = [...provider.valid].at(-1)!;
    assert.deepEqual(provider.apiCalls.at(-1), { path: '/me', auth: `Bearer ${first}` }, 'the test ran with the token');

    const connection = await t.call('GET', `/api/connections/${id}`);
    assert.equal(connection.body.authorization_status, 'success', connection.text);
    const box = await sealed(id);
    assert.ok(!box.includes(first), 'the access token is sealed, not in clear');
    assert.equal(openAuthState(t.ctx.secretBox, box).accessToken, first);

    const job = await runNotes(name, id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { notes: [{ id: 1, text: 'hello' }] });
    assert.equal(provider.apiCalls.at(-1)!.auth, `Bearer ${first}`);

    // The provider stops taking the token: one refresh, the request again, the new token stored.
    provider.valid.delete(first);
    const before = refreshes();
    const again = await runNotes(name, id);
    assert.equal(again.status, 'succeeded', again.error ?? '');
    assert.equal(refreshes(), before + 1);
    const refresh = provider.tokenForms.at(-1)!;
    assert.equal(refresh.get('client_id'), 'profile-client');
    assert.equal(refresh.get('client_secret'), 'profile-secret');
    const second = [...provider.valid].at(-1)!;
    assert.equal(provider.apiCalls.at(-1)!.auth, `Bearer ${second}`);
    assert.equal(openAuthState(t.ctx.secretBox, await sealed(id)).accessToken, second);
    const third = await runNotes(name, id);
    assert.equal(third.status, 'succeeded', third.error ?? '');
    assert.equal(refreshes(), before + 1, 'the stored token is used by the next job');

    // A refused refresh fails the step naming the connection, once: no second refresh.
    provider.valid.delete(second);
    provider.refuseRefresh = true;
    try {
      const failed = await runNotes(name, id);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.errorType, 'Connection error');
      assert.match(failed.error ?? '', new RegExp(`connection "Notes \\d+" \\(id ${id}\\)`));
      assert.match(failed.error ?? '', /could not get new credentials/);
      assert.match(failed.error ?? '', /invalid_grant/);
      assert.equal(refreshes(), before + 2);
      assert.doesNotMatch(failed.error ?? '', /refresh-\d/);
    } finally {
      provider.refuseRefresh = false;
    }
  });

  test("two jobs that meet a 401 together: one refresh through the connector's lambda (the refresh token rotates), both succeed; a refused refresh marks the connection lost", async () => {
    const name = await released(OWN_LAMBDAS);
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    assert.equal(
      (await connectThroughConsole(t, browser, id)).location,
      `/console/connections/${id}?authorization=success`,
    );
    const config = JSON.stringify([
      { keyword: 'application', provider: 'workato_webhooks', account_id: null },
      { keyword: 'application', provider: name, account_id: id },
    ]);
    const paths: string[] = [];
    for (let i = 0; i < 2; i++)
      paths.push((await webhookRecipe(t, [action(name, 'list_notes', 'notes', {})], { config })).path);
    /** Both recipes' jobs at once; the provider holds a refresh until both met their 401 (or 10 s). */
    const together = async (): Promise<RanJob[]> => {
      const seen = provider.unauthorized;
      provider.beforeRefresh = () => until(() => provider.unauthorized >= seen + 2, 10_000);
      try {
        const fired = await Promise.all(paths.map((url) => t.app.inject({ method: 'POST', url, payload: {} })));
        for (const res of fired) assert.equal(res.statusCode, 200, res.body);
        await t.engine.idle();
      } finally {
        provider.beforeRefresh = null;
      }
      const jobs = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').limit(2).execute();
      return Promise.all(jobs.map((j) => readJob(t, j.id)));
    };

    const first = openAuthState(t.ctx.secretBox, await sealed(id));
    provider.valid.delete(first.accessToken!);
    const before = refreshes();
    const jobs = await together();
    for (const job of jobs) {
      assert.equal(job.status, 'succeeded', job.error ?? '');
      assert.deepEqual(job.output(1), { notes: [{ id: 1, text: 'hello' }], workspace: 'ws-7' });
    }
    assert.equal(refreshes(), before + 1, 'one refresh for both jobs');
    assert.equal(provider.tokenForms.at(-1)!.get('refresh_token'), first.refreshToken);
    const second = openAuthState(t.ctx.secretBox, await sealed(id));
    assert.notEqual(second.refreshToken, first.refreshToken, 'the rotated refresh token is stored');
    assert.ok(provider.refreshTokens.has(second.refreshToken!));
    assert.ok(provider.valid.has(second.accessToken!));
    const lease = await t.ctx.db.selectFrom('leases').select('name').where('name', '=', `connection-refresh:${id}`);
    assert.equal((await lease.execute()).length, 0, 'the refresh lease is given up');

    // The service refuses the refresh: one attempt, both jobs fail saying the connection is lost.
    provider.valid.delete(second.accessToken!);
    provider.refuseRefresh = true;
    try {
      const failed = await together();
      assert.equal(refreshes(), before + 2, 'one refused refresh');
      for (const job of failed) {
        assert.equal(job.status, 'failed');
        assert.equal(job.errorType, 'Connection error');
        assert.match(job.error ?? '', new RegExp(`connection "Notes \\d+" \\(id ${id}\\)`));
        assert.match(job.error ?? '', /invalid_grant/);
        assert.match(job.error ?? '', /the connection is marked lost: connect it again/);
        assert.doesNotMatch(job.error ?? '', /refresh-\d/);
      }
      const connection = await t.call('GET', `/api/connections/${id}`);
      assert.equal(connection.status, 200, connection.text);
      assert.equal(connection.body.authorization_status, 'failed');
      assert.match(String(connection.body.connection_lost_at), /^\d{4}-\d{2}-\d{2}T/);
      assert.match(String(connection.body.connection_lost_reason), /could not get new credentials: .*invalid_grant/);
      assert.doesNotMatch(String(connection.body.connection_lost_reason), /refresh-\d|field-secret/);

      // A lost connection is not used (nor refreshed) until it is connected again.
      const later = await fire(t, paths[0]!, {});
      assert.equal(later.status, 'failed');
      assert.match(later.error ?? '', /connection of this recipe is missing or not authorized/);
      assert.equal(refreshes(), before + 2);
    } finally {
      provider.refuseRefresh = false;
    }
    assert.equal(
      (await connectThroughConsole(t, browser, id)).location,
      `/console/connections/${id}?authorization=success`,
    );
    const back = await t.call('GET', `/api/connections/${id}`);
    assert.equal(back.body.connection_lost_at, null);
    assert.equal((await runNotes(name, id)).status, 'succeeded');
  });

  test("the connector's acquire and refresh with the app in the connection's fields; detect_on finds an error in a 200", async () => {
    const name = await released(OWN_LAMBDAS);
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    const connected = await connectThroughConsole(t, browser, id);
    assert.equal(connected.location, `/console/connections/${id}?authorization=success`);
    assert.equal(provider.authorizeQueries.at(-1)!.get('client_id'), 'field-client');
    const auth = openAuthState(t.ctx.secretBox, await sealed(id));
    assert.equal(auth.extra.workspace, 'ws-7', 'what acquire returned beside the tokens is kept');
    const token = auth.accessToken!;

    provider.expiredInBody.add(token);
    const before = refreshes();
    const job = await runNotes(name, id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { notes: [{ id: 1, text: 'hello' }], workspace: 'ws-7' });
    assert.equal(refreshes(), before + 1);
    assert.notEqual(provider.apiCalls.at(-1)!.auth, `Bearer ${token}`);
  });

  test('a code exchange the provider refuses leaves the connection failed with its reason; a create with input is not connected yet', async () => {
    const name = await released(OWN_LAMBDAS);
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'wrong-secret' });
    const connected = await connectThroughConsole(t, browser, id);
    assert.equal(connected.status, 200);
    const connection = await t.call('GET', `/api/connections/${id}`);
    assert.equal(connection.body.authorization_status, 'failed');
    assert.match(connection.body.authorization_error, /code exchange failed/);
    assert.match(connection.body.authorization_error, /401/);
    assert.doesNotMatch(connection.body.authorization_error, /wrong-secret/);

    const created = await t.call('POST', '/api/connections', {
      body: {
        name: `Notes ${++counter}`,
        provider: name,
        input: { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' },
      },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.authorization_status, 'failed');
    assert.match(created.body.authorization_error, /not connected yet/);
  });

  test("an authorization_url that raises: Connect answers 422 with the connector's message, nothing connects", async () => {
    const name = await released(
      STANDARD.replace(
        `authorization_url: lambda { |connection| "#{connection['api_url']}/oauth/authorize?scope=notes.read" }`,
        "authorization_url: lambda { |_connection| error('the tenant is not set') }",
      ),
    );
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    const page = await browser.post(`/console/connections/${id}/connect`);
    assert.equal(page.statusCode, 422, page.body);
    assert.match(page.body, /did not give an authorization URL/);
    assert.match(page.body, /the tenant is not set/);
    assert.ok(![page.headers['set-cookie']].flat().some((c) => String(c).startsWith('sb_oauth=')));
    const connection = await t.call('GET', `/api/connections/${id}`);
    assert.equal(connection.body.authorization_status, null);
  });

  test('client credentials (custom_auth acquire): a token at connect, sealed; a 401 in a job acquires a new one and sends the request again', async () => {
    const name = await released(CLIENT_CREDENTIALS);
    const grants = () => provider.tokenForms.filter((f) => f.get('grant_type') === 'client_credentials').length;
    const before = grants();
    const created = await t.call('POST', '/api/connections', {
      body: {
        name: `Notes ${++counter}`,
        provider: name,
        input: { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' },
      },
    });
    assert.equal(created.body.authorization_status, 'success', created.text);
    assert.equal(grants(), before + 1);
    const id = created.body.id as number;
    const token = openAuthState(t.ctx.secretBox, await sealed(id)).accessToken!;
    assert.ok(!(await sealed(id)).includes(token));
    const job = await runNotes(name, id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal(grants(), before + 1, 'the stored token is used');
    provider.valid.delete(token);
    const again = await runNotes(name, id);
    assert.equal(again.status, 'succeeded', again.error ?? '');
    assert.equal(grants(), before + 2);
    assert.notEqual(openAuthState(t.ctx.secretBox, await sealed(id)).accessToken, token);
  });

  test('multi: the option `selected` picks authenticates the test and the job', async () => {
    const name = await released(MULTI);
    const created = await t.call('POST', '/api/connections', {
      body: {
        name: `Notes ${++counter}`,
        provider: name,
        input: { api_url: provider.url, auth_type: 'key', api_key: 'key-1' },
      },
    });
    assert.equal(created.body.authorization_status, 'success', created.text);
    const job = await runNotes(name, created.body.id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const page = await browser.get(`/console/connections/${created.body.id}`);
    assert.doesNotMatch(page.body, /id="continue"/);

    const wrong = await t.call('POST', '/api/connections', {
      body: {
        name: `Notes ${++counter}`,
        provider: name,
        input: { api_url: provider.url, auth_type: 'token', token: 'nope' },
      },
    });
    assert.equal(wrong.body.authorization_status, 'failed');
    assert.match(wrong.body.authorization_error, /401/);
  });
});

// A static webhook whose recipe key is made from what the authorization gave (here the access
// token itself, so each authorization gives another key).
const KEYED_BY_TOKEN = OWN_LAMBDAS.replace(
  '  test: lambda',
  `  webhook_keys: lambda { |_params, _headers, payload| payload['token'] },
  triggers: {
    new_note: {
      title: 'New note',
      webhook_key: lambda { |connection, _input| connection['access_token'] },
      webhook_notification: lambda { |_input, payload| payload['notes'] },
      output_fields: lambda { |_| [{ name: 'id' }] }
    }
  },
  test: lambda`,
);

describe('a static webhook key made from the authorization, when GET /oauth/callback authorizes the connection again', () => {
  test("the running recipe's key becomes the new authorization's", async () => {
    const name = await released(KEYED_BY_TOKEN);
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    assert.equal(
      (await connectThroughConsole(t, browser, id)).location,
      `/console/connections/${id}?authorization=success`,
    );
    const token = async () => openAuthState(t.ctx.secretBox, await sealed(id)).accessToken ?? '';
    const first = await token();
    assert.ok(first.startsWith('access-'), first);
    const code = numbered({
      keyword: 'trigger',
      provider: name,
      name: 'new_note',
      as: 'ev',
      input: {},
      block: [log('seen', `#{${dp(name, 'ev', 'id')}}`)],
    });
    const made = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Notes by token',
          code: JSON.stringify(code),
          config: JSON.stringify([{ keyword: 'application', provider: name, account_id: id }]),
        },
      },
    });
    assert.equal(made.status, 200, made.text);
    const recipeId = made.body.id as number;
    const started = await t.call('PUT', `/api/recipes/${recipeId}/start`);
    assert.deepEqual(started.body, { success: true }, started.text);
    const keyOf = async () =>
      (
        await t.ctx.db
          .selectFrom('static_webhook_keys')
          .select('key_hash')
          .where('recipe_id', '=', recipeId)
          .executeTakeFirst()
      )?.key_hash ?? null;
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    assert.equal(await keyOf(), sha256(first), 'the key of the first authorization');

    // Connect again: the provider issues another token; the callback stores it and the key follows.
    assert.equal(
      (await connectThroughConsole(t, browser, id)).location,
      `/console/connections/${id}?authorization=success`,
    );
    const second = await token();
    assert.notEqual(second, first);
    await waitFor(keyOf, (hash) => hash === sha256(second), "the running recipe's key is the new authorization's");
  });
});

describe('PKCE of a multi authorization whose redirect options differ', () => {
  test('the selected option without a pkce lambda connects without a challenge; the one with it sends one', async () => {
    const code = MULTI_OAUTH.replace(
      "pick_list: [['API key', 'key'], ['OAuth 2.0', 'oauth']]",
      "pick_list: [['API key', 'key'], ['OAuth 2.0', 'oauth'], ['OAuth 2.0 without PKCE', 'plain']]",
    ).replace(
      '        oauth: {',
      `        plain: {
          type: 'oauth2',
          client_id: lambda { |connection| connection['client_id'] },
          client_secret: lambda { |connection| connection['client_secret'] },
          authorization_url: lambda { |connection| "#{connection['api_url']}/oauth/authorize" },
          token_url: lambda { |connection| "#{connection['api_url']}/oauth/token" },
          apply: lambda { |_connection, access_token| headers('Authorization' => "Bearer #{access_token}") }
        },
        oauth: {`,
    );
    const name = await released(code);
    const app = { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' };
    const plain = await shell(name, { ...app, auth_type: 'plain' });
    assert.equal(
      (await connectThroughConsole(t, browser, plain)).location,
      `/console/connections/${plain}?authorization=success`,
    );
    assert.equal(provider.authorizeQueries.at(-1)!.get('code_challenge'), null);
    assert.equal(provider.tokenForms.at(-1)!.get('code_verifier'), null);
    assert.deepEqual((await runNotes(name, plain)).output(1), { notes: [{ id: 1, text: 'hello' }] });

    const withPkce = await shell(name, { ...app, auth_type: 'oauth' });
    assert.equal(
      (await connectThroughConsole(t, browser, withPkce)).location,
      `/console/connections/${withPkce}?authorization=success`,
    );
    assert.equal(provider.authorizeQueries.at(-1)!.get('code_challenge_method'), 'S256');
    assert.match(provider.tokenForms.at(-1)!.get('code_verifier') ?? '', /^[A-Za-z0-9_-]{43,128}$/);
  });
});
