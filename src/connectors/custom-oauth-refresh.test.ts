// Custom connectors' connections that authorize, beyond the basic flows of custom-oauth.test.ts:
// a stored connection's test refreshing through the connection's refresh gate (one refresh of a
// rotating refresh token when a test and a job meet a 401 together), and a `multi` authorization
// whose selected option is OAuth 2.0 authorization code connecting through the redirect. Through
// HTTP and recipe jobs against the local OAuth provider stand-in.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { connectThroughConsole } from '../../test/stand-ins/connect.ts';
import { startOAuthProvider, type OAuthProvider } from '../../test/stand-ins/oauth-provider.ts';
import { action, readJob, webhookRecipe } from '../../test/recipes.ts';
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
import { openAuthState } from './connections.ts';

const PUBLIC = 'https://switchboard.example.com';

let t: TestApp;
let browser: ConsoleBrowser;
let provider: OAuthProvider;
let counter = 0;

before(async () => {
  provider = await startOAuthProvider();
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true', PUBLIC_BASE_URL: PUBLIC } });
  browser = await consoleSignIn(t, t.adminToken);
});
after(async () => {
  await t.close();
  provider.server.closeAllConnections();
  await new Promise((resolve) => provider.server.close(resolve));
});

const released = (code: string) => releasedConnector(t, code, `Notes ${++counter}`);
const shell = (providerName: string, input: Record<string, string>) =>
  shellConnection(t, providerName, input, `Notes ${++counter}`);
const sealed = (id: number) => sealedAuth(t, id);
const runNotes = (providerName: string, connectionId: number) => runListNotes(t, providerName, connectionId);
const refreshes = () => refreshCount(provider);

describe('connections of custom connectors: tests sharing the refresh, multi with OAuth 2.0 code', () => {
  test('PUT /api/connections/:id (the test) and a job that meet a 401 together: one refresh of the rotating token; a refused one fails the test', async () => {
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
    const { path } = await webhookRecipe(t, [action(name, 'list_notes', 'notes', {})], { config });
    const retest = () => t.call('PUT', `/api/connections/${id}`, { body: { shell_connection: false } });
    /** The test and a job at once; the provider holds a refresh until both met their 401 (or 10 s). */
    const together = async () => {
      const seen = provider.unauthorized;
      provider.beforeRefresh = () => until(() => provider.unauthorized >= seen + 2, 10_000);
      try {
        const [tested, fired] = await Promise.all([retest(), t.app.inject({ method: 'POST', url: path, payload: {} })]);
        assert.equal(fired.statusCode, 200, fired.body);
        await t.engine.idle();
        const [job] = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').limit(1).execute();
        return { tested, job: await readJob(t, job!.id) };
      } finally {
        provider.beforeRefresh = null;
      }
    };

    const first = openAuthState(t.ctx.secretBox, await sealed(id));
    provider.valid.delete(first.accessToken!);
    const before = refreshes();
    const { tested, job } = await together();
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.authorization_status, 'success', tested.text);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal(refreshes(), before + 1, 'one refresh for the test and the job');
    const second = openAuthState(t.ctx.secretBox, await sealed(id));
    assert.notEqual(second.refreshToken, first.refreshToken, 'the rotated refresh token is stored');
    assert.ok(provider.refreshTokens.has(second.refreshToken!), 'the stored refresh token is the unspent one');
    assert.ok(provider.valid.has(second.accessToken!));
    const lease = t.ctx.db.selectFrom('leases').select('name').where('name', '=', `connection-refresh:${id}`);
    assert.equal((await lease.execute()).length, 0, 'the refresh lease is given up');

    // The test alone after the token expired again: one refresh, stored, the next job uses it.
    provider.valid.delete(second.accessToken!);
    const alone = await retest();
    assert.equal(alone.body.authorization_status, 'success', alone.text);
    assert.equal(refreshes(), before + 2);
    const third = openAuthState(t.ctx.secretBox, await sealed(id));
    assert.ok(provider.valid.has(third.accessToken!));
    assert.equal((await runNotes(name, id)).status, 'succeeded');
    assert.equal(refreshes(), before + 2, 'the job uses what the test stored');

    // The service refuses the refresh: the test fails naming it (a 200 with the status, no 500).
    provider.valid.delete(third.accessToken!);
    provider.refuseRefresh = true;
    try {
      const refused = await retest();
      assert.equal(refused.status, 200, refused.text);
      assert.equal(refused.body.authorization_status, 'failed');
      assert.match(refused.body.authorization_error, /could not get new credentials: .*invalid_grant/);
      assert.doesNotMatch(refused.body.authorization_error, /refresh-\d|field-secret/);
      assert.equal(refreshes(), before + 3);
    } finally {
      provider.refuseRefresh = false;
    }
    // Unknown ids and malformed bodies: the contract's 4xx, nothing tested.
    const unknown = await t.call('PUT', '/api/connections/999999', { body: { shell_connection: false } });
    assert.equal(unknown.status, 404, unknown.text);
    const wrongType = await t.call('PUT', `/api/connections/${id}`, { body: { shell_connection: 'yes' } });
    assert.equal(wrongType.status, 400, wrongType.text);
    assert.equal(refreshes(), before + 3);
  });

  test('multi whose selected option is OAuth 2.0 authorization code: Connect, GET /oauth/callback, tokens sealed, a job, a refresh; the API key option is tested', async () => {
    const name = await released(MULTI_OAUTH);
    const id = await shell(name, {
      api_url: provider.url,
      auth_type: 'oauth',
      client_id: 'field-client',
      client_secret: 'field-secret',
    });
    const page = await browser.get(`/console/connections/${id}`);
    assert.match(page.body, />Connect</);
    // Before Connect, a test says it is not connected yet.
    const early = await t.call('PUT', `/api/connections/${id}`, { body: { shell_connection: false } });
    assert.equal(early.body.authorization_status, 'failed', early.text);
    assert.match(early.body.authorization_error, /not connected yet/);

    const connected = await connectThroughConsole(t, browser, id);
    assert.equal(connected.location, `/console/connections/${id}?authorization=success`);
    const q = provider.authorizeQueries.at(-1)!;
    assert.equal(q.get('client_id'), 'field-client');
    assert.equal(q.get('redirect_uri'), `${PUBLIC}/oauth/callback`);
    assert.equal(q.get('scope'), 'notes.read');
    assert.equal(q.get('code_challenge_method'), 'S256');
    const exchange = provider.tokenForms.at(-1)!;
    assert.equal(exchange.get('grant_type'), 'authorization_code');
    assert.equal(
      createHash('sha256')
        .update(exchange.get('code_verifier') ?? '')
        .digest('base64url'),
      q.get('code_challenge'),
    );
    const connection = await t.call('GET', `/api/connections/${id}`);
    assert.equal(connection.body.authorization_status, 'success', connection.text);
    const box = await sealed(id);
    const first = openAuthState(t.ctx.secretBox, box);
    assert.ok(first.accessToken && !box.includes(first.accessToken), 'the access token is sealed');
    assert.equal(provider.apiCalls.at(-1)!.auth, `Bearer ${first.accessToken}`, 'the test ran with the token');

    const job = await runNotes(name, id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { notes: [{ id: 1, text: 'hello' }] });
    // The token stops working: one refresh with the rotating refresh token, the new one stored.
    provider.valid.delete(first.accessToken!);
    const before = refreshes();
    const again = await runNotes(name, id);
    assert.equal(again.status, 'succeeded', again.error ?? '');
    assert.equal(refreshes(), before + 1);
    assert.equal(provider.tokenForms.at(-1)!.get('client_secret'), 'field-secret');
    const second = openAuthState(t.ctx.secretBox, await sealed(id));
    assert.notEqual(second.refreshToken, first.refreshToken);
    assert.ok(provider.valid.has(second.accessToken!));

    // A callback with a wrong state changes nothing (400).
    const wrong = await t.app.inject({ method: 'GET', url: '/oauth/callback?code=code-1&state=not-a-state' });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.equal(await sealed(id), await sealed(id));
    assert.equal((await t.call('GET', `/api/connections/${id}`)).body.authorization_status, 'success');

    // The API key option of the same connector: tested with its fields, no Connect.
    const keyed = await t.call('POST', '/api/connections', {
      body: {
        name: `Notes ${++counter}`,
        provider: name,
        input: { api_url: provider.url, auth_type: 'key', api_key: 'key-1' },
      },
    });
    assert.equal(keyed.body.authorization_status, 'success', keyed.text);
    const keyPage = await browser.get(`/console/connections/${keyed.body.id}`);
    assert.doesNotMatch(keyPage.body, />Connect</);
    const refused = await browser.post(`/console/connections/${keyed.body.id}/connect`);
    // The console tests it instead of starting a redirect to the provider.
    assert.equal(refused.statusCode, 303, refused.body);
    assert.equal(refused.headers.location, `/console/connections/${keyed.body.id}?done=tested`);
    assert.ok(![refused.headers['set-cookie']].flat().some((c) => String(c).startsWith('sb_oauth=')));
    assert.equal((await runNotes(name, keyed.body.id)).status, 'succeeded');
  });
  test('POST /api/connections/:id/pick_list with an expired token: refreshed once, the new tokens stored, the list answered', async () => {
    const code = OWN_LAMBDAS.replace(
      '  actions: {',
      "  pick_lists: {\n    notes: lambda { |_connection| get('/notes')['notes'].map { |n| [n['text'], n['id']] } }\n  },\n  actions: {",
    );
    const name = await released(code);
    const id = await shell(name, { api_url: provider.url, client_id: 'field-client', client_secret: 'field-secret' });
    const notConnected = await t.call('POST', `/api/connections/${id}/pick_list`, {
      body: { pick_list_name: 'notes' },
    });
    assert.equal(notConnected.status, 422, notConnected.text);
    assert.match(notConnected.body.message, /not connected yet/);
    assert.equal(
      (await connectThroughConsole(t, browser, id)).location,
      `/console/connections/${id}?authorization=success`,
    );
    const first = openAuthState(t.ctx.secretBox, await sealed(id));
    provider.valid.delete(first.accessToken!);
    const before = refreshes();
    const listed = await t.call('POST', `/api/connections/${id}/pick_list`, { body: { pick_list_name: 'notes' } });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body, { data: [['hello', 1]] });
    assert.equal(refreshes(), before + 1, 'one refresh');
    const second = openAuthState(t.ctx.secretBox, await sealed(id));
    assert.notEqual(second.accessToken, first.accessToken, 'the new access token is stored');
    assert.ok(provider.valid.has(second.accessToken!));
    assert.ok(provider.refreshTokens.has(second.refreshToken!), 'the rotated refresh token is stored');
    assert.deepEqual(
      ((await runNotes(name, id)).output(1) as { notes: unknown }).notes,
      [{ id: 1, text: 'hello' }],
      'a job uses it without a refresh',
    );
    assert.equal(refreshes(), before + 1);
  });
});
