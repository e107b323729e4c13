// The shared HTTP layer of connectors (contract 22 §4) through recipe jobs against stand-ins: a
// token refreshed once on 401 and stored, then a 401 that fails the step naming the connection; a
// refused refresh that marks the connection lost; the service's message in 4xx errors; 429 and
// 503 waited out as Retry-After says within the step's budget, and not beyond it; 5xx, timeouts,
// answers that are not JSON; a debug log of every request that holds no secret.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from './helpers.ts';
import { action, fire, webhookRecipe, type RanJob } from './recipes.ts';
import { fixture as salesforceFixture, INSTANCE } from './stand-ins/salesforce.ts';
import { SECRET_KEY, stripe as stripeFixture } from './stand-ins/stripe.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';

let t: TestApp;
let browser: ConsoleBrowser;
let salesforce: StandIn;
let stripe: StandIn;
const logLines: string[] = [];
const TIMEOUT_MS = 300;
const STEP_BUDGET_MS = 4000;

before(async () => {
  salesforce = await startStandIn(salesforceFixture.spec);
  stripe = await startStandIn(stripeFixture.spec);
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  t = await createTestApp({
    env: { CONNECTOR_ORIGINS: JSON.stringify({ ...salesforce.origins(), ...stripe.origins() }) },
    logger,
    engine: { limits: { httpTimeoutMs: TIMEOUT_MS, connectorStepMs: STEP_BUDGET_MS } },
  });
  browser = await consoleSignIn(t, t.adminToken);
});
after(async () => {
  await t.close();
  await salesforce.close();
  await stripe.close();
});

let counter = 0;

async function salesforceConnection(): Promise<number> {
  counter += 1;
  const created = await t.call('POST', '/api/connections', {
    body: {
      name: `Salesforce ${counter}`,
      provider: 'salesforce',
      input: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
    },
  });
  assert.equal(created.status, 200, created.text);
  const connected = await connectThroughConsole(t, browser, created.body.id);
  assert.equal(connected.location, `/console/connections/${created.body.id}?authorization=success`);
  return created.body.id as number;
}

async function stripeConnection(): Promise<number> {
  counter += 1;
  const created = await t.call('POST', '/api/connections', {
    body: { name: `Stripe ${counter}`, provider: 'stripe', input: { api_key: SECRET_KEY } },
  });
  assert.equal(created.body.authorization_status, 'success', created.text);
  return created.body.id as number;
}

async function runCustomAction(
  provider: string,
  connectionId: number,
  input: Record<string, unknown>,
): Promise<RanJob> {
  const config = [
    { keyword: 'application', provider: 'workato_webhooks', account_id: null },
    { keyword: 'application', provider, account_id: connectionId },
  ];
  const { path } = await webhookRecipe(t, [action(provider, '__adhoc_http_action', 'custom', input)], {
    config: JSON.stringify(config),
  });
  return fire(t, path, {});
}

const query = { verb: 'get', path: 'query', input: { data: { q: 'SELECT Id, Name FROM Account' } } };
const balance = { verb: 'get', path: 'balance' };

function tokenRequests(): number {
  return salesforce.requests.filter((r) => r.path === '/services/oauth2/token').length;
}

describe('the connectors HTTP layer through recipe jobs', () => {
  test('an expired access token is refreshed once and stored: the next job uses the new one without refreshing', async () => {
    const id = await salesforceConnection();
    salesforce.expireAccessTokens();
    const before = tokenRequests();
    const job = await runCustomAction('salesforce', id, query);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal(tokenRequests(), before + 1, 'one refresh');
    const refresh = salesforce.requests.filter((r) => r.path === '/services/oauth2/token').at(-1);
    assert.equal(new URLSearchParams(refresh?.body).get('grant_type'), 'refresh_token');
    const again = await runCustomAction('salesforce', id, query);
    assert.equal(again.status, 'succeeded', again.error ?? '');
    assert.equal(tokenRequests(), before + 1, 'the refreshed token was stored and used');
  });

  test('a 401 after the refresh fails the step, naming the connection and the service message', async () => {
    const id = await salesforceConnection();
    const unauthorized = {
      status: 401,
      json: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }],
    };
    salesforce.enqueue(unauthorized, unauthorized);
    const before = tokenRequests();
    const job = await runCustomAction('salesforce', id, query);
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Unauthorized');
    assert.equal(
      job.lines[1]?.error,
      `401 Unauthorized: the salesforce connection "Salesforce ${counter}" (id ${id}) was refused after its token was refreshed: Session expired or invalid`,
    );
    assert.equal(tokenRequests(), before + 1, 'refreshed once, not again');
  });

  test('a refused refresh fails the step and marks the connection lost until it connects again', async () => {
    const id = await salesforceConnection();
    salesforce.expireAccessTokens();
    salesforce.revokeRefreshTokens();
    const job = await runCustomAction('salesforce', id, query);
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Connection error');
    assert.match(
      job.lines[1]?.error ?? '',
      /^the salesforce connection "Salesforce \d+" \(id \d+\) could not get a new access token: the token endpoint answered 400: invalid_grant/,
    );
    const connection = await t.call('GET', `/api/connections/${id}`);
    assert.equal(connection.body.authorization_status, 'failed');
    assert.match(connection.body.connection_lost_reason, /invalid_grant/);
    assert.ok(connection.body.connection_lost_at);
    // Connecting again through the provider brings it back.
    const connected = await connectThroughConsole(t, browser, id);
    assert.equal(connected.location, `/console/connections/${id}?authorization=success`);
    const back = await t.call('GET', `/api/connections/${id}`);
    assert.equal(back.body.authorization_status, 'success');
    assert.equal(back.body.connection_lost_at, null);
    assert.equal((await runCustomAction('salesforce', id, query)).status, 'succeeded');
  });

  test("a 4xx carries the service's own message into the step's error", async () => {
    const id = await stripeConnection();
    const job = await runCustomAction('stripe', id, {
      verb: 'post',
      path: 'customers',
      input: { data: { email: 'not-an-address' } },
    });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Bad request');
    assert.equal(job.lines[1]?.error, '400 Bad request: Invalid email address: not-an-address');
    const sf = await salesforceConnection();
    const malformed = await runCustomAction('salesforce', sf, {
      verb: 'get',
      path: 'query',
      input: { data: { q: 'DELETE Account' } },
    });
    assert.equal(malformed.lines[1]?.error, "400 Bad request: unexpected token: 'DELETE'");
  });

  test('429 and 503 are retried after Retry-After within the step budget', async () => {
    const id = await stripeConnection();
    const before = stripe.apiRequests().length;
    stripe.enqueue(
      {
        status: 429,
        headers: { 'retry-after': '1' },
        json: { error: { type: 'rate_limit_error', message: 'Too many requests' } },
      },
      { status: 503, headers: { 'retry-after': '0' }, text: 'Service Unavailable' },
    );
    const started = Date.now();
    const job = await runCustomAction('stripe', id, balance);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.equal(stripe.apiRequests().length - before, 3, 'two retries, then the answer');
    assert.ok(Date.now() - started >= 1000, 'it waited the second the 429 asked for');
  });

  test('a Retry-After longer than what is left of the step fails at once with the 429', async () => {
    const id = await stripeConnection();
    stripe.enqueue({
      status: 429,
      headers: { 'retry-after': '3600' },
      json: { error: { type: 'rate_limit_error', message: 'Too many requests' } },
    });
    const started = Date.now();
    const job = await runCustomAction('stripe', id, balance);
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Too many requests');
    assert.equal(job.lines[1]?.error, '429 Too many requests: Too many requests');
    assert.ok(Date.now() - started < STEP_BUDGET_MS, 'no wait past the budget');
  });

  test('a 5xx fails the step as a server error', async () => {
    const id = await stripeConnection();
    stripe.enqueue({ status: 500, json: { error: { type: 'api_error', message: 'Something went wrong on our end' } } });
    const job = await runCustomAction('stripe', id, {
      verb: 'post',
      path: 'customers',
      input: { data: { email: 'a@b.example' } },
    });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Server error');
    assert.equal(job.lines[1]?.error, '500 Server error: Something went wrong on our end');
  });

  test('no answer within the timeout fails the step (a GET is tried twice)', async () => {
    const id = await stripeConnection();
    const before = stripe.apiRequests().length;
    stripe.enqueue({ delayMs: TIMEOUT_MS * 3, json: {} }, { delayMs: TIMEOUT_MS * 3, json: {} });
    const job = await runCustomAction('stripe', id, balance);
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Timeout');
    assert.match(job.lines[1]?.error ?? '', /^no answer from api\.stripe\.com within \d+ ms$/);
    assert.equal(stripe.apiRequests().length - before, 2);
  });

  test('an answer that is not JSON fails the step; response_type raw gives it as text', async () => {
    const id = await stripeConnection();
    stripe.enqueue({ headers: { 'content-type': 'text/html' }, text: '<html>maintenance</html>' });
    const job = await runCustomAction('stripe', id, balance);
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Bad response');
    assert.equal(job.lines[1]?.error, '200 answer is not JSON (text/html): <html>maintenance</html>');
    stripe.enqueue({ headers: { 'content-type': 'text/html' }, text: '<html>maintenance</html>' });
    const raw = await runCustomAction('stripe', id, { ...balance, response_type: 'raw' });
    assert.equal(raw.status, 'succeeded', raw.error ?? '');
    assert.deepEqual(raw.output(1), { body: '<html>maintenance</html>' });
  });

  test('a path outside the service is refused; a path to another of its hosts is not', async () => {
    const id = await stripeConnection();
    const job = await runCustomAction('stripe', id, { verb: 'get', path: 'https://evil.example/v1/balance' });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'Bad request');
    assert.match(
      job.lines[1]?.error ?? '',
      /^https:\/\/evil\.example is outside the stripe connection's hosts \(api\.stripe\.com, files\.stripe\.com\)$/,
    );
    const sf = await salesforceConnection();
    const absolute = await runCustomAction('salesforce', sf, {
      ...query,
      path: `${INSTANCE}/services/data/v58.0/query`,
    });
    assert.equal(absolute.status, 'succeeded', absolute.error ?? '');
  });

  test('every request is logged at debug, with no key, token or secret in the log', async () => {
    const sf = await salesforceConnection();
    salesforce.expireAccessTokens();
    logLines.length = 0;
    assert.equal((await runCustomAction('salesforce', sf, query)).status, 'succeeded');
    const st = await stripeConnection();
    assert.equal(
      (await runCustomAction('stripe', st, { ...balance, input: { data: { api_key: 'shown-as-redacted' } } })).status,
      'succeeded',
    );
    const requests = logLines.filter((l) => l.includes('"connector request"'));
    assert.ok(requests.some((l) => l.includes('"url":"https://acme.my.salesforce.com/services/data/v60.0/query?q=')));
    assert.ok(requests.some((l) => l.includes('"url":"https://login.salesforce.com/services/oauth2/token"')));
    assert.ok(requests.some((l) => l.includes('api_key=%5Bredacted%5D')));
    const everything = logLines.join('\n');
    for (const secret of [
      SECRET_KEY,
      CLIENT_SECRET,
      'shown-as-redacted',
      ...salesforce.accessTokens,
      ...salesforce.refreshTokens,
    ])
      assert.ok(!everything.includes(secret), `the log holds no secret (${secret.slice(0, 6)}...)`);
  });
});
