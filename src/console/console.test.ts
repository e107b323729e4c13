// The web console through HTTP (inject): sign-in, sessions, CSRF, roles, and bad input; every
// refusal is a page that says what happened, never a stack trace or another workspace's data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleRequests, createTestApp, type ConsoleSession, type TestApp } from '../../test/helpers.ts';
import { createRecipe, log, webhookTrigger } from '../../test/recipes.ts';
import { Writable } from 'node:stream';
import { hashToken } from '../auth/credentials.ts';
import { createLogger } from '../logger.ts';

/** A clock the test moves forward (session lifetime). */
const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

let t: TestApp;
before(async () => {
  t = await createTestApp({ clock });
});
after(async () => t.close());

type Browser = ConsoleSession;
const { get, post, signIn, cookieFrom, csrfIn } = consoleRequests(() => t);

function assertNoStack(body: string): void {
  assert.doesNotMatch(body, /at .*\.ts:\d+|Error: |node_modules/);
}

async function recipeRunning(id: number): Promise<boolean> {
  const res = await t.call('GET', `/api/recipes/${id}`);
  return res.body.running as boolean;
}

describe('GET / and sign-in', () => {
  test('/ sends the browser to the console, which asks for a token first', async () => {
    const root = await get('/');
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/console/');
    const home = await get('/console/');
    assert.equal(home.statusCode, 303);
    assert.equal(home.headers.location, `/console/sign-in?next=${encodeURIComponent('/console/')}`);
    const form = await get('/console/sign-in');
    assert.equal(form.statusCode, 200);
    assert.match(form.headers['content-type'] as string, /^text\/html/);
    assert.match(form.body, /<label for="token">Developer API token<\/label>/);
  });

  test('every page has a strict Content-Security-Policy and no caching', async () => {
    const res = await get('/console/sign-in');
    const csp = res.headers['content-security-policy'] as string;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.doesNotMatch(res.body, /<script>|style="/, 'no inline script or style');
  });

  test('a token exchanged for an HttpOnly, SameSite=Strict cookie; the token is nowhere in the reply and only hashes are stored', async () => {
    const res = await post('/console/sign-in', { token: t.adminToken, next: '/console/recipes' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/console/recipes');
    const setCookie = String(res.headers['set-cookie']);
    assert.match(setCookie, /^sb_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    assert.doesNotMatch(setCookie, /Secure/, 'not Secure over plain HTTP');
    const cookie = cookieFrom(res.headers['set-cookie']);
    const page = await get('/console/recipes', cookie);
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes(t.adminToken));
    const rows = await t.ctx.db.selectFrom('console_sessions').selectAll().execute();
    const value = cookie.split('=')[1] as string;
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.notEqual(row.session_hash, value);
      assert.match(row.session_hash, /^[0-9a-f]{64}$/);
      assert.equal(row.token_hash.length, 64);
    }
    assert.ok(rows.some((r) => r.token_hash === hashToken(t.adminToken)));
  });

  test('the cookie is Secure when the console is served over TLS (behind a proxy that says so)', async () => {
    const proxied = await createTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const res = await proxied.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        payload: `token=${proxied.adminToken}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
      });
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers['set-cookie']), /; Secure$/);
    } finally {
      await proxied.close();
    }
  });

  test('a next= outside the console is ignored (no open redirect)', async () => {
    for (const next of ['https://evil.example/', '//evil.example/', '/api/users/me', '/console/../api']) {
      const res = await post('/console/sign-in', { token: t.adminToken, next });
      assert.equal(res.headers.location, '/console/', next);
    }
  });

  test('a wrong token: 401 with the sign-in form and a clear message, no cookie', async () => {
    for (const token of ['', 'nope', 'wrkdev-' + '0'.repeat(64), 'x'.repeat(4000)]) {
      const res = await post('/console/sign-in', { token });
      assert.equal(res.statusCode, 401, token.slice(0, 20));
      assert.equal(res.headers['set-cookie'], undefined);
      assert.match(res.body, /not a developer API token of this server, or it was revoked/);
      assertNoStack(res.body);
    }
  });

  test('wrong tokens are throttled per address like the token endpoint: the 21st within a minute is a 429 page, even with the right token', async () => {
    const from = (remoteAddress: string, token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        remoteAddress,
        payload: new URLSearchParams({ token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    for (let i = 0; i < 20; i += 1) assert.equal((await from('203.0.113.7', `wrong-${i}`)).statusCode, 401);
    for (const token of ['wrong-again', t.adminToken]) {
      const res = await from('203.0.113.7', token);
      assert.equal(res.statusCode, 429, token.slice(0, 12));
      assert.equal(res.headers['set-cookie'], undefined);
      const wait = Number(res.headers['retry-after']);
      assert.ok(wait >= 1 && wait <= 60, `Retry-After ${res.headers['retry-after']}`);
      assert.match(res.body, new RegExp(`Too many wrong tokens from this address: try again in ${wait} seconds`));
      assert.match(res.body, /name="token"/, 'the sign-in form is still there');
      assertNoStack(res.body);
    }
    // Another address is not held up, and the right token never counts.
    assert.equal((await from('203.0.113.8', t.adminToken)).statusCode, 303);
    for (let i = 0; i < 25; i += 1) assert.equal((await from('203.0.113.9', t.adminToken)).statusCode, 303);
    // A minute later the address may try again.
    clock.offsetMs += 61_000;
    try {
      assert.equal((await from('203.0.113.7', t.adminToken)).statusCode, 303);
    } finally {
      clock.offsetMs -= 61_000;
    }
  });

  test('a revoked token cannot sign in, and ends the sessions it opened', async () => {
    const client = await t.scopedClient([(await t.createProject('Revoked')).folderId]);
    const browser = await signIn(client.token);
    const deleted = await t.call('DELETE', `/api/developer_api_clients/${client.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    const res = await post('/console/sign-in', { token: client.token });
    assert.equal(res.statusCode, 401);
    const page = await get('/console/', browser.cookie);
    assert.equal(page.statusCode, 303, 'the old session is gone');
  });

  test('a regenerated token ends the session opened with the old one', async () => {
    const client = await t.scopedClient([(await t.createProject('Regenerated')).folderId]);
    const browser = await signIn(client.token);
    const regenerated = await t.call('POST', `/api/developer_api_clients/${client.id}/regenerate`);
    assert.equal(regenerated.status, 200, regenerated.text);
    assert.equal((await get('/console/', browser.cookie)).statusCode, 303);
  });

  test('a form that is not URL-encoded: 415 page; an oversized one: 413 page', async () => {
    const text = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      payload: JSON.stringify({ token: t.adminToken }),
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.statusCode, 415);
    assert.match(text.body, /Console forms are sent as application\/x-www-form-urlencoded/);
    const json = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      payload: JSON.stringify({ token: t.adminToken }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(json.statusCode, 415, 'JSON is not a console form');
    assert.equal(json.headers['set-cookie'], undefined);
    const big = await post('/console/sign-in', { token: 'a'.repeat(1_100_000) });
    assert.equal(big.statusCode, 413);
    assertNoStack(big.body);
  });
});

describe('POST /console/sign-in and the logs', () => {
  test('neither the token nor the session id nor the CSRF token is ever logged, even at trace level', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await createTestApp({ logger: createLogger('trace', sink) });
    try {
      const ok = await logged.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        payload: `token=${logged.adminToken}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(ok.statusCode, 303);
      const cookie = cookieFrom(ok.headers['set-cookie']);
      const page = await logged.app.inject({ method: 'GET', url: '/console/recipes', headers: { cookie } });
      const csrf = csrfIn(page.body);
      await logged.app.inject({
        method: 'POST',
        url: '/console/sign-out',
        payload: `_csrf=${csrf}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      });
      await logged.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        payload: `token=${logged.adminToken}x`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      const text = lines.join('');
      assert.ok(text.includes('/console/sign-in'), 'requests are logged');
      for (const secret of [logged.adminToken, cookie.split('=')[1] as string, csrf])
        assert.ok(!text.includes(secret), 'a secret in the log');
    } finally {
      await logged.close();
    }
  });
});

describe('sessions', () => {
  test('sign-out ends the session in the database; the old cookie no longer opens a page', async () => {
    const browser = await signIn(t.adminToken);
    const res = await post('/console/sign-out', { _csrf: browser.csrf }, browser.cookie);
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await get('/console/recipes', browser.cookie)).statusCode, 303);
    const form = await post('/console/sign-out', { _csrf: browser.csrf }, browser.cookie);
    assert.equal(form.statusCode, 401);
    assert.match(form.body, /Your console session has ended: sign in again/);
  });

  test('a session ends CONSOLE_SESSION_HOURS after sign-in (12 by default)', async () => {
    const browser = await signIn(t.adminToken);
    clock.offsetMs = 11 * 3600_000;
    assert.equal((await get('/console/', browser.cookie)).statusCode, 200);
    clock.offsetMs = 12 * 3600_000 + 1000;
    try {
      const page = await get('/console/recipes', browser.cookie);
      assert.equal(page.statusCode, 303);
      assert.match(page.headers.location as string, /^\/console\/sign-in/);
      const change = await post('/console/sign-out', { _csrf: browser.csrf }, browser.cookie);
      assert.equal(change.statusCode, 401);
    } finally {
      clock.offsetMs = 0;
    }
  });

  test('a made-up or malformed cookie is no session', async () => {
    for (const cookie of [
      'sb_console=abc',
      `sb_console=${'A'.repeat(43)}`,
      `sb_console=${'x'.repeat(5000)}`,
      'other=1',
    ]) {
      assert.equal((await get('/console/', cookie)).statusCode, 303, cookie.slice(0, 30));
    }
  });
});

describe('POST /console/recipes/:id/start and /stop', () => {
  let recipeId: number;
  let admin: Browser;
  before(async () => {
    recipeId = await createRecipe(t, webhookTrigger([log('say', 'hello')]));
    admin = await signIn(t.adminToken);
  });

  test('a missing or forged CSRF token: 403, nothing changed', async () => {
    const missing = await post(`/console/recipes/${recipeId}/start`, {}, admin.cookie);
    assert.equal(missing.statusCode, 403);
    assert.match(missing.body, /not sent by this console page/);
    const forged = await post(`/console/recipes/${recipeId}/start`, { _csrf: 'A'.repeat(43) }, admin.cookie);
    assert.equal(forged.statusCode, 403);
    const other = await signIn(t.adminToken);
    const crossed = await post(`/console/recipes/${recipeId}/start`, { _csrf: other.csrf }, admin.cookie);
    assert.equal(crossed.statusCode, 403, "another session's token is refused");
    const asJson = await t.app.inject({
      method: 'POST',
      url: `/console/recipes/${recipeId}/start`,
      payload: JSON.stringify({ _csrf: admin.csrf }),
      headers: { 'content-type': 'application/json', cookie: admin.cookie },
    });
    assert.equal(asJson.statusCode, 415);
    const foreignOrigin = await post(`/console/recipes/${recipeId}/start`, { _csrf: admin.csrf }, admin.cookie, {
      origin: 'https://evil.example',
    });
    assert.equal(foreignOrigin.statusCode, 403);
    const malformedOrigin = await post(`/console/recipes/${recipeId}/start`, { _csrf: admin.csrf }, admin.cookie, {
      origin: 'not a url',
    });
    assert.equal(malformedOrigin.statusCode, 403);
    assert.equal(await recipeRunning(recipeId), false);
  });

  test("start and stop with the page's form", async () => {
    const started = await post(`/console/recipes/${recipeId}/start`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(started.statusCode, 303, started.body);
    assert.equal(started.headers.location, `/console/recipes/${recipeId}?done=started`);
    assert.equal(await recipeRunning(recipeId), true);
    const page = await get(started.headers.location as string, admin.cookie);
    assert.match(page.body, /The recipe is running\./);
    assert.match(page.body, /Stop recipe/);
    const again = await post(`/console/recipes/${recipeId}/start`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /invalid state running/);
    const stopped = await post(`/console/recipes/${recipeId}/stop`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(stopped.statusCode, 303);
    assert.equal(await recipeRunning(recipeId), false);
  });

  test('a recipe that cannot start says why, and stays stopped', async () => {
    const broken = await createRecipe(
      t,
      webhookTrigger([{ keyword: 'action', provider: 'no_such_connector', name: 'x', as: 'x', input: {} }]),
    );
    const res = await post(`/console/recipes/${broken}/start`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /The recipe cannot start/);
    assert.match(res.body, /Step 1/);
    assert.equal(await recipeRunning(broken), false);
  });

  test('a refused start: one box, a line per problem, the input field named apart from the sentence', async () => {
    const broken = await createRecipe(
      t,
      webhookTrigger([
        {
          keyword: 'action',
          provider: 'workato_recipe_function',
          name: 'call_recipe',
          as: 'call',
          input: { flow_id: 987654 },
        },
      ]),
    );
    const res = await post(`/console/recipes/${broken}/start`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(res.statusCode, 422);
    assert.equal(res.body.match(/class="notice /g)?.length, 1, 'the message and its problems in one box');
    assert.match(
      res.body,
      /<div class="notice error" role="alert"><p>The recipe cannot start:<\/p><ul class="problems"><li><strong>Step 1<\/strong> · Recipe “987654”: does not name a recipe of this environment <span class="muted small">\(input field <code>flow_id<\/code>\)<\/span><\/li><\/ul><\/div>/,
    );
    assert.doesNotMatch(res.body, /environment flow_id/);
  });

  test('a read-only token sees no start button, and a forged start or stop is refused: 403, nothing changed', async () => {
    const reader = await signIn(await t.tokenFor('Read only'));
    const page = await get(`/console/recipes/${recipeId}`, reader.cookie);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Start recipe|Stop recipe/);
    const start = await post(`/console/recipes/${recipeId}/start`, { _csrf: reader.csrf }, reader.cookie);
    assert.equal(start.statusCode, 403);
    assert.match(start.body, /your role lacks the recipes:write privilege/);
    assert.equal(await recipeRunning(recipeId), false);
    await post(`/console/recipes/${recipeId}/start`, { _csrf: admin.csrf }, admin.cookie);
    const stop = await post(`/console/recipes/${recipeId}/stop`, { _csrf: reader.csrf }, reader.cookie);
    assert.equal(stop.statusCode, 403);
    assert.equal(await recipeRunning(recipeId), true);
    await post(`/console/recipes/${recipeId}/stop`, { _csrf: admin.csrf }, admin.cookie);
  });

  test("unknown ids, bad ids, and another environment's recipe: a clear page", async () => {
    const unknown = await get('/console/recipes/999999', admin.cookie);
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /<h1>Not found<\/h1>/);
    assert.equal(unknown.body.match(/Not found/g)?.length, 2, 'the title and the h1, not the notice as well');
    assert.match(unknown.body, /Nothing is at this address in this environment/);
    const bad = await get('/console/recipes/abc', admin.cookie);
    assert.equal(bad.statusCode, 400);
    assertNoStack(bad.body);
    const testToken = await t.tokenFor('Admin', 'test');
    const elsewhere = await t.call('POST', '/api/recipes', {
      token: testToken,
      body: { recipe: { name: 'Test env recipe', code: JSON.stringify(webhookTrigger([log('a', 'b')])) } },
    });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    const cross = await get(`/console/recipes/${elsewhere.body.id}`, admin.cookie);
    assert.equal(cross.statusCode, 404);
    assert.doesNotMatch(cross.body, /Test env recipe/);
    const forgedStart = await post(`/console/recipes/${elsewhere.body.id}/start`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(forgedStart.statusCode, 404);
    const unknownPath = await get('/console/no/such/page', admin.cookie);
    assert.equal(unknownPath.statusCode, 404);
    assert.match(unknownPath.headers['content-type'] as string, /^text\/html/);
  });
});
