// Connections that authorize through the provider's OAuth 2.0 redirect: Connect in the console,
// GET /oauth/callback, and everything that must not connect: an unknown, reused, expired state; a
// browser without the cookie; a client whose token changed; the provider's refusal; a code the
// provider does not know. Plus the rules of creating such connections through the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { connectThroughConsole } from '../../test/stand-ins/connect.ts';
import { fixture as salesforceFixture } from '../../test/stand-ins/salesforce.ts';
import { quickbooks as quickbooksFixture, REALM } from '../../test/stand-ins/quickbooks.ts';
import { spec as jiraSpec, CLOUD_ID } from '../../test/stand-ins/jira.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from '../../test/stand-ins/stand-in.ts';
import { openAuthState } from '../connectors/connections.ts';
import { buildApp } from '../app.ts';
import { postgresOnly } from '../../test/test-database.ts';

let t: TestApp;
let browser: ConsoleBrowser;
let salesforce: StandIn;
let quickbooks: StandIn;
let jira: StandIn;

before(async () => {
  salesforce = await startStandIn(salesforceFixture.spec);
  quickbooks = await startStandIn(quickbooksFixture.spec);
  jira = await startStandIn(jiraSpec);
  t = await createTestApp({
    env: {
      CONNECTOR_ORIGINS: JSON.stringify({ ...salesforce.origins(), ...quickbooks.origins(), ...jira.origins() }),
      PUBLIC_BASE_URL: 'https://switchboard.example.com',
    },
  });
  browser = await consoleSignIn(t, t.adminToken);
});
after(async () => {
  await t.close();
  await salesforce.close();
  await quickbooks.close();
  await jira.close();
});

let counter = 0;
async function shell(
  provider: string,
  input: Record<string, string> = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
) {
  counter += 1;
  const res = await t.call('POST', '/api/connections', { body: { name: `${provider} ${counter}`, provider, input } });
  assert.equal(res.status, 200, res.text);
  return res.body.id as number;
}

/** Connect, follow the provider's consent, and hand back the callback URL and the browser cookie. */
async function startConnect(id: number): Promise<{ callback: string; cookie: string; authorizeUrl: URL }> {
  const page = await browser.post(`/console/connections/${id}/connect`);
  assert.equal(page.statusCode, 200, page.body);
  assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);
  const cookie = String([page.headers['set-cookie']].flat().find((c) => String(c).startsWith('sb_oauth='))).split(
    ';',
  )[0] as string;
  const href = (/id="continue" href="([^"]+)"/.exec(page.body)?.[1] ?? '').replace(/&amp;/g, '&');
  const consent = await fetch(href, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location') as string);
  return { callback: `${back.pathname}${back.search}`, cookie, authorizeUrl: new URL(href) };
}

const nextOf = (page: string) => /id="continue" href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');

const callback = (url: string, cookie?: string) =>
  t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

describe('POST /console/connections/:id/connect and GET /oauth/callback', () => {
  test('the provider gets the redirect URI on PUBLIC_BASE_URL, the state, PKCE S256 and the scopes; tokens are stored sealed', async () => {
    const id = await shell('salesforce');
    const { callback: url, cookie, authorizeUrl } = await startConnect(id);
    const q = authorizeUrl.searchParams;
    assert.equal(authorizeUrl.pathname, '/services/oauth2/authorize');
    assert.equal(q.get('redirect_uri'), 'https://switchboard.example.com/oauth/callback');
    assert.equal(q.get('client_id'), CLIENT_ID);
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(q.get('scope'), 'api refresh_token');
    const res = await callback(url, cookie);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(nextOf(res.body), `/console/connections/${id}?authorization=success`);
    assert.match(
      res.body,
      /<meta http-equiv="refresh" content="0;url=\/console\/connections\/\d+\?authorization=success">/,
    );
    assert.match(String(res.headers['set-cookie']), /^sb_oauth=; Path=\/oauth\/callback; .*Max-Age=0/);
    const token = salesforce.requests.filter((r) => r.path === '/services/oauth2/token').at(-1);
    const form = new URLSearchParams(token?.body);
    assert.equal(form.get('grant_type'), 'authorization_code');
    assert.equal(form.get('redirect_uri'), 'https://switchboard.example.com/oauth/callback');
    assert.match(form.get('code_verifier') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const stored = await t.ctx.db
      .selectFrom('connections')
      .select('auth_sealed')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(stored.auth_sealed !== null);
    for (const access of salesforce.accessTokens)
      assert.ok(!stored.auth_sealed.includes(access), 'sealed, not in clear');
    const auth = openAuthState(t.ctx.secretBox, stored.auth_sealed);
    assert.equal(auth.extra.instance_url, 'https://acme.my.salesforce.com');
    assert.ok(auth.refreshToken && salesforce.refreshTokens.has(auth.refreshToken));
    const page = await browser.get(`/console/connections/${id}?authorization=success`);
    assert.match(page.body, /Connected\./);
    assert.match(page.body, /<span class="badge ok">success<\/span>/);
  });

  test("QuickBooks' realm id comes from the callback, Jira's cloud id from accessible-resources", async () => {
    const qb = await shell('quickbooks');
    assert.equal(
      (await connectThroughConsole(t, browser, qb)).location,
      `/console/connections/${qb}?authorization=success`,
    );
    const qbRow = await t.ctx.db
      .selectFrom('connections')
      .select('auth_sealed')
      .where('id', '=', qb)
      .executeTakeFirstOrThrow();
    assert.equal(openAuthState(t.ctx.secretBox, qbRow.auth_sealed).extra.realmId, REALM);
    const tokenCall = quickbooks.requests.filter((r) => r.path === '/oauth2/v1/tokens/bearer').at(-1);
    assert.match(
      String(tokenCall?.headers.authorization),
      /^Basic /,
      'Intuit takes the client by basic authentication',
    );

    const jr = await shell('jira', {
      auth_type: 'oauth2',
      host_name: 'acme.atlassian.net',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    assert.equal(
      (await connectThroughConsole(t, browser, jr)).location,
      `/console/connections/${jr}?authorization=success`,
    );
    const jrRow = await t.ctx.db
      .selectFrom('connections')
      .select('auth_sealed')
      .where('id', '=', jr)
      .executeTakeFirstOrThrow();
    assert.equal(openAuthState(t.ctx.secretBox, jrRow.auth_sealed).extra.cloud_id, CLOUD_ID);
    assert.ok(
      jira.requests.some((r) => r.path === `/ex/jira/${CLOUD_ID}/rest/api/3/myself`),
      'tested through the cloud id',
    );
  });

  test('a state is used once; a reused, unknown or empty state changes nothing (400)', async () => {
    const id = await shell('salesforce');
    const { callback: url, cookie } = await startConnect(id);
    assert.equal((await callback(url, cookie)).statusCode, 200);
    const again = await callback(url, cookie);
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /was already used/);
    assert.match(String(again.headers['content-type']), /text\/html/);
    assert.match(String(again.headers['content-security-policy']), /default-src 'none'/);
    assert.equal((await callback('/oauth/callback?code=x&state=unknown', cookie)).statusCode, 400);
    assert.equal((await callback('/oauth/callback?code=x', cookie)).statusCode, 400);
    assert.equal((await callback(`/oauth/callback?state=${'a'.repeat(5000)}`, cookie)).statusCode, 400);
  });

  test('a callback from a browser without the cookie is refused, and the state is spent', async () => {
    const id = await shell('salesforce');
    const { callback: url, cookie } = await startConnect(id);
    const stranger = await callback(url);
    assert.equal(stranger.statusCode, 400);
    const wrong = await callback(url, 'sb_oauth=someone-else');
    assert.equal(wrong.statusCode, 400);
    assert.equal((await callback(url, cookie)).statusCode, 400, 'a state tried by another browser is gone');
    const conn = await t.call('GET', `/api/connections/${id}`);
    assert.equal(conn.body.authorization_status, null, 'nothing changed');
  });

  test('a state older than ten minutes has expired', async () => {
    const id = await shell('salesforce');
    const { callback: url, cookie } = await startConnect(id);
    await t.ctx.db
      .updateTable('oauth_states')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('connection_id', '=', id)
      .execute();
    const res = await callback(url, cookie);
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /expired/);
  });

  test('the client that started must still hold connections:write with the same token', async () => {
    const token = await t.tokenWith(`Connector ${++counter}`, ['connections:read', 'connections:write']);
    const own = await consoleSignIn(t, token);
    const id = await shell('salesforce');
    const page = await own.post(`/console/connections/${id}/connect`);
    const cookie = String([page.headers['set-cookie']].flat().find((c) => String(c).startsWith('sb_oauth='))).split(
      ';',
    )[0] as string;
    const href = (/id="continue" href="([^"]+)"/.exec(page.body)?.[1] ?? '').replace(/&amp;/g, '&');
    const back = new URL((await fetch(href, { redirect: 'manual' })).headers.get('location') as string);
    const clients = await t.call('GET', '/api/developer_api_clients');
    const client = (clients.body.result.items as Array<{ id: number; name: string }>).find((c) =>
      c.name.startsWith('test-Connector'),
    );
    assert.ok(client);
    const regenerated = await t.call('POST', `/api/developer_api_clients/${client.id}/regenerate`);
    assert.equal(regenerated.status, 200, regenerated.text);
    const res = await callback(`${back.pathname}${back.search}`, cookie);
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /can no longer change connections/);
  });

  test("the provider's refusal and a code it does not know become the connection's authorization error", async () => {
    const id = await shell('salesforce');
    const { callback: url, cookie } = await startConnect(id);
    const state = new URL(url, 'http://x').searchParams.get('state') as string;
    const denied = await callback(
      `/oauth/callback?state=${state}&error=access_denied&error_description=end-user+denied`,
      cookie,
    );
    assert.equal(denied.statusCode, 200);
    assert.equal(nextOf(denied.body), `/console/connections/${id}?authorization=failed`);
    const conn = await t.call('GET', `/api/connections/${id}`);
    assert.equal(conn.body.authorization_status, 'failed');
    assert.equal(
      conn.body.authorization_error,
      'the provider refused the authorization: access_denied (end-user denied)',
    );

    const second = await startConnect(id);
    const forged = new URL(second.callback, 'http://x');
    forged.searchParams.set('code', 'code-never-issued');
    const bad = await callback(`${forged.pathname}${forged.search}`, second.cookie);
    assert.equal(nextOf(bad.body), `/console/connections/${id}?authorization=failed`);
    const after = await t.call('GET', `/api/connections/${id}`);
    assert.match(
      after.body.authorization_error,
      /^the code exchange failed: the token endpoint answered 400: invalid_grant/,
    );
    const page = await browser.get(`/console/connections/${id}?authorization=failed`);
    assert.match(page.body, /was not authorized/);
  });

  test('Connect without an OAuth app, or on a connection tested by its fields', async () => {
    const id = await shell('salesforce', {});
    const page = await browser.post(`/console/connections/${id}/connect`);
    assert.equal(page.statusCode, 422);
    assert.match(
      page.body,
      /No OAuth app for salesforce: create a custom OAuth profile for it, or give the connection client_id and client_secret/,
    );
    const rest = await t.call('POST', '/api/connections', {
      body: { name: 'Plain HTTP', provider: 'rest', input: { base_url: 'https://api.example.com' } },
    });
    const tested = await browser.post(`/console/connections/${rest.body.id}/connect`);
    assert.equal(tested.statusCode, 303);
    assert.equal(tested.headers.location, `/console/connections/${rest.body.id}?done=tested`);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/console/connections/${id}/connect`,
      headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(noCsrf.statusCode, 403);
    const reader = await consoleSignIn(t, await t.tokenFor('Read only'));
    assert.equal((await reader.post(`/console/connections/${id}/connect`)).statusCode, 403);
    const readerPage = await reader.get(`/console/connections/${id}`);
    assert.equal(readerPage.statusCode, 200);
    assert.doesNotMatch(readerPage.body, /\/connect"/, 'no Connect button without connections:write');
    assert.equal((await browser.get('/console/connections/999999')).statusCode, 404);
  });
});

describe('POST /api/connections for catalog connectors', () => {
  test('missing fields of a connection to test are a 400 naming each; a shell takes none', async () => {
    const res = await t.call('POST', '/api/connections', {
      body: { name: 'Zendesk', provider: 'zendesk', input: { subdomain: 'acme' } },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, { 'input.email': ["can't be blank"], 'input.api_token': ["can't be blank"] });
    const okta = await t.call('POST', '/api/connections', { body: { name: 'Okta', provider: 'okta', input: {} } });
    assert.deepEqual(okta.body.errors, { 'input.domain': ["can't be blank"], 'input.api_token': ["can't be blank"] });
    const shellRes = await t.call('POST', '/api/connections', {
      body: { name: 'Zendesk shell', provider: 'zendesk', shell_connection: true },
    });
    assert.equal(shellRes.status, 200);
    assert.equal(shellRes.body.authorization_status, null);
    const count = await t.ctx.db
      .selectFrom('connections')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', '=', 'Zendesk')
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0, 'a refused create stores nothing');
  });

  test('an OAuth connector is created as a shell: a test at create is a 400, the test of an update says it is not connected yet', async () => {
    const res = await t.call('POST', '/api/connections', {
      body: { name: 'SF', provider: 'salesforce', shell_connection: false },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'OAuth connections can only be created as shell connections');
    const wk = await t.call('POST', '/api/connections', { body: { name: 'SF shell', provider: 'salesforce' } });
    assert.equal(wk.status, 200);
    assert.equal(wk.body.authorization_status, null);
    // An update may test it: with no authorization yet, the test says so.
    const retest = await t.call('PUT', `/api/connections/${wk.body.id}`, { body: { shell_connection: false } });
    assert.equal(retest.status, 200);
    assert.equal(retest.body.authorization_status, 'failed');
    assert.equal(retest.body.authorization_error, 'not connected yet: connect it through the provider (Connect)');
  });

  test('a failed test is stored with its error, which never holds the credential', async () => {
    const res = await t.call('POST', '/api/connections', {
      body: { name: 'Okta bad', provider: 'okta', input: { domain: 'acme.okta.com', api_token: 'wrong' } },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.authorization_status, 'failed');
    // No stand-in answers for acme.okta.com here: the error says why it could not be reached.
    assert.match(res.body.authorization_error, /acme\.okta\.com/);
    assert.doesNotMatch(res.body.authorization_error, /wrong/);
  });
});

describe('GET /oauth/callback on another node', { skip: postgresOnly('nodes sharing one database') }, () => {
  test('Connect on one node, the callback on another: the state is in the database, used once across both', async () => {
    // Another node over the same database, notifier and key.
    const other = await buildApp({
      config: t.ctx.config,
      database: { db: t.ctx.db, dialect: 'postgres', location: 'test' },
      secretBox: t.ctx.secretBox,
      notifier: t.ctx.notifier,
      logger: t.ctx.log,
    });
    try {
      await other.ready();
      const id = await shell('salesforce');
      const { callback: url, cookie } = await startConnect(id);
      const there = await other.inject({ method: 'GET', url, headers: { cookie } });
      assert.equal(there.statusCode, 200, there.body);
      const here = await callback(url, cookie);
      assert.equal(here.statusCode, 400, 'used on the other node');
      assert.equal((await t.call('GET', `/api/connections/${id}`)).body.authorization_status, 'success');
    } finally {
      await other.close();
    }
  });
});
