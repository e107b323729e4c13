// The web console through HTTP (inject): sign-in, sessions, CSRF, roles, and bad input; every
// refusal is a page that says what happened, never a stack trace or another workspace's data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleRequests, createTestApp, type ConsoleSession, type TestApp } from '../../test/helpers.ts';
import { action, condition, createRecipe, dp, log, webhookRecipe, webhookTrigger, fire } from '../../test/recipes.ts';

/** A clock the test moves forward (session lifetime). */
const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

let t: TestApp;
before(async () => {
  t = await createTestApp({ clock });
});
after(async () => t.close());

type Browser = ConsoleSession;
const { get, post, signIn } = consoleRequests(() => t);

describe('GET /console/recipes and jobs', () => {
  let recipe: { id: number; path: string };
  let admin: Browser;
  before(async () => {
    recipe = await webhookRecipe(t, [log('greet', 'Hello <b>there</b>')], {
      name: 'Greeter <script>alert(1)</script>',
    });
    admin = await signIn(t.adminToken);
  });

  test('the application filter finds recipes by the words a person types, not only internal ids', async () => {
    for (const typed of ['webhooks', 'Webhooks', 'workato_webhooks', 'logger']) {
      const res = await get(`/console/recipes?application=${encodeURIComponent(typed)}`, admin.cookie);
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /Greeter &lt;script&gt;/, typed);
    }
    const none = await get('/console/recipes?application=salesforce', admin.cookie);
    assert.equal(none.statusCode, 200);
    assert.ok(!none.body.includes('Greeter &lt;script&gt;'));
  });

  test('the list finds recipes by name, escaped', async () => {
    const res = await get('/console/recipes?q=greeter&running=true', admin.cookie);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Greeter &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.ok(!res.body.includes('<script>alert(1)'));
    const none = await get('/console/recipes?q=zzz-nothing', admin.cookie);
    assert.match(none.body, /No recipe matches/);
    const badFilter = await get('/console/recipes?running=maybe', admin.cookie);
    assert.equal(badFilter.statusCode, 400);
  });

  test('a recipe page draws its steps as a tree', async () => {
    const res = await get(`/console/recipes/${recipe.id}`, admin.cookie);
    assert.match(res.body, /<ol class="tree">/);
    // Each step with its connector's icon (this origin).
    assert.match(
      res.body,
      /Trigger<\/span> <img class="icon" src="\/console\/assets\/icons\/workato_webhooks\.svg" alt="" width="20" height="20"><span class="operation">New event via webhook<\/span>/,
    );
    assert.match(
      res.body,
      /Action<\/span> <img class="icon" src="\/console\/assets\/icons\/logger\.svg" alt="" width="20" height="20"><span class="operation">Log message<\/span>/,
    );
  });

  test('a recipe page reads each step as the vendor writes it, conditions and loops included', async () => {
    const total = dp('workato_webhooks', 'hook', 'payload', 'total');
    const code = webhookTrigger([
      {
        keyword: 'if',
        input: condition('greater_than', total, '1000'),
        block: [
          action('salesforce', 'search_sobjects', 'found', { sobject_name: 'Account' }),
          action('salesforce', 'create_sobject', 'made', { sobject_name: 'Account' }),
        ],
      },
      { keyword: 'elsif', input: condition('blank', dp('workato_webhooks', 'hook', 'payload', 'email')), block: [] },
      {
        keyword: 'foreach',
        source: dp('workato_webhooks', 'hook', 'payload', 'items'),
        as: 'each',
        block: [log('each_log', 'item')],
      },
      action('rest', 'make_request_v2', 'call', { request: { url: 'http://127.0.0.1:9/x' } }),
      action('acme_unknown', 'do_thing', 'odd', {}),
    ]);
    const id = await createRecipe(t, code, { name: 'Words recipe' });
    const res = await get(`/console/recipes/${id}`, admin.cookie);
    assert.equal(res.statusCode, 200);
    const text = res.body.replace(/<[^>]+>/g, '').replace(/&gt;/g, '>');
    for (const words of [
      'Trigger New event via webhook',
      'IF total > 1000',
      'Action Search records in Salesforce',
      'Action Create record in Salesforce',
      'ELSE IF email is blank',
      'Repeat for each item in items',
      'Action Log message',
      'Action Call HTTP endpoint',
      'Action acme_unknown · do_thing',
    ])
      assert.ok(text.includes(words), `${words} in ${text}`);
    // The editor's step headings use the same words.
    const edit = await get(`/console/recipes/${id}/edit`, admin.cookie);
    assert.equal(edit.statusCode, 200);
    const legends = [...edit.body.matchAll(/<legend>([\s\S]*?)<\/legend>/g)].map((m) =>
      (m[1] as string)
        .replace(/<[^>]+>/g, '')
        .replace(/&gt;/g, '>')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    for (const words of [
      '1 IF total > 1000',
      '2 Action Search records in Salesforce',
      '5 Repeat for each item in items',
      '7 Action Call HTTP endpoint',
    ])
      assert.ok(legends.includes(words), `${words} in ${legends.join(' | ')}`);
  });

  test("a job page shows each step's input and output", async () => {
    await fire(t, recipe.path, { name: 'Ada' });
    const list = await get(`/console/recipes/${recipe.id}/jobs`, admin.cookie);
    assert.equal(list.statusCode, 200);
    const handle = /href="\/console\/recipes\/\d+\/jobs\/(j-[^"]+)"/.exec(list.body)?.[1];
    assert.ok(handle, list.body);
    const job = await get(`/console/recipes/${recipe.id}/jobs/${handle}`, admin.cookie);
    assert.equal(job.statusCode, 200);
    assert.match(job.body, /succeeded/);
    assert.match(job.body, /&quot;name&quot;: &quot;Ada&quot;/, 'the trigger output');
    assert.match(
      job.body,
      /<span class="step-no">1<\/span> <img class="icon" src="\/console\/assets\/icons\/logger\.svg" alt="" width="20" height="20"> Log message</,
    );
    assert.match(job.body, /Hello &lt;b&gt;there&lt;\/b&gt;/, 'the logger input, escaped');
    const failed = await get(`/console/recipes/${recipe.id}/jobs?status=failed`, admin.cookie);
    assert.match(failed.body, /No job here/);
    const badStatus = await get(`/console/recipes/${recipe.id}/jobs?status=weird`, admin.cookie);
    assert.equal(badStatus.statusCode, 400);
    const unknownJob = await get(`/console/recipes/${recipe.id}/jobs/j-nope`, admin.cookie);
    assert.equal(unknownJob.statusCode, 404);
    const unknownCursor = await get(`/console/recipes/${recipe.id}/jobs?after=j-nope`, admin.cookie);
    assert.equal(unknownCursor.statusCode, 404);
  });

  test('a webhook body larger than a line keeps: its size said as such, the whole event downloadable', async () => {
    const big = { notes: 'x'.repeat(150_000), order: 'A-9' };
    await fire(t, recipe.path, big);
    const { handle } = await t.ctx.db
      .selectFrom('jobs')
      .select('handle')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const job = await get(`/console/recipes/${recipe.id}/jobs/${handle}`, admin.cookie);
    assert.equal(job.statusCode, 200);
    assert.doesNotMatch(job.body, /&quot;truncated&quot;/, 'the marker is not shown as if it were the data');
    assert.match(job.body, /[\d,]+ bytes, more than a step line keeps \(100,000\)\./);
    const link = `/console/recipes/${recipe.id}/jobs/${handle}/trigger-output`;
    assert.match(job.body, new RegExp(`<a href="${link}" download>Download the full value</a>`));
    const full = await get(link, admin.cookie);
    assert.equal(full.statusCode, 200);
    assert.match(String(full.headers['content-type']), /^application\/json/);
    assert.match(
      String(full.headers['content-disposition']),
      new RegExp(`^attachment; filename="${handle}-trigger.json"$`),
    );
    assert.equal(JSON.stringify(JSON.parse(full.body)).includes(big.notes), true, 'the whole body');
    assert.equal(JSON.parse(full.body).payload?.order ?? JSON.parse(full.body).order, 'A-9');
    assert.equal((await get(`/console/recipes/${recipe.id}/jobs/j-nope/trigger-output`, admin.cookie)).statusCode, 404);
    assert.notEqual((await get(link)).statusCode, 200, 'signed out: nothing');
  });

  test("a recipe's jobs page keeps test-case jobs apart, under their own tab", async () => {
    const id = await createRecipe(t, webhookTrigger([log('say', 'checked')]), { name: 'With a test case' });
    const tc = await t.call('POST', `/api/recipes/${id}/test_cases`, {
      body: { name: 'Logs', trigger_output: { payload: {} }, expectations: [{ job_status: 'succeeded' }] },
    });
    assert.equal(tc.status, 200, tc.text);
    const run = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: id } });
    assert.equal(run.status, 200, run.text);
    for (let i = 0; ; i += 1) {
      const state = await t.call('GET', `/api/test_cases/run_requests/${run.body.data.id}`);
      if (state.body.data.status === 'completed') break;
      assert.ok(i < 400, 'the run request completes');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const handles = (body: string) => [...body.matchAll(/href="\/console\/recipes\/\d+\/jobs\/(j-[^"]+)"/g)].length;
    const own = await get(`/console/recipes/${id}/jobs`, admin.cookie);
    assert.equal(own.statusCode, 200);
    assert.equal(handles(own.body), 0, 'no test-case job among the recipe jobs');
    assert.match(own.body, /0 in all/);
    const tests = await get(`/console/recipes/${id}/jobs?tests=true`, admin.cookie);
    assert.equal(tests.statusCode, 200);
    assert.equal(handles(tests.body), 1, 'the test-case job, under its own tab');
    assert.match(tests.body, /aria-current="page">Test-case jobs/);
  });

  test('re-run a job from its page; a read-only role may not', async () => {
    const list = await get(`/console/recipes/${recipe.id}/jobs`, admin.cookie);
    const handle = /href="\/console\/recipes\/\d+\/jobs\/(j-[^"]+)"/.exec(list.body)?.[1] as string;
    const reader = await signIn(await t.tokenFor('Read only'));
    const refused = await post(
      `/console/recipes/${recipe.id}/jobs/${handle}/repeat`,
      { _csrf: reader.csrf },
      reader.cookie,
    );
    assert.equal(refused.statusCode, 403);
    const before = await t.ctx.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await post(`/console/recipes/${recipe.id}/jobs/${handle}/repeat`, { _csrf: admin.csrf }, admin.cookie);
    assert.equal(res.statusCode, 303, res.body);
    assert.match(res.headers.location as string, /\/jobs\/j-/);
    const afterCount = await t.ctx.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(afterCount.n), Number(before.n) + 1);
  });

  test('keyset paging: older and newer pages never repeat or skip a job', async () => {
    for (let i = 0; i < 55; i++) await t.app.inject({ method: 'POST', url: recipe.path, payload: { n: i } });
    await t.engine.idle();
    const first = await get(`/console/recipes/${recipe.id}/jobs`, admin.cookie);
    const handles = (body: string) => [...body.matchAll(/<div class="muted small">(j-[^<]+)<\/div>/g)].map((m) => m[1]);
    const page1 = handles(first.body);
    assert.equal(page1.length, 50);
    const older = /href="([^"]+after=[^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(older);
    const second = await get(older, admin.cookie);
    const page2 = handles(second.body);
    assert.ok(page2.length >= 7);
    assert.equal(new Set([...page1, ...page2]).size, page1.length + page2.length);
    const newer = /href="([^"]+before=[^"]+)"/.exec(second.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(newer);
    assert.deepEqual(handles((await get(newer, admin.cookie)).body), page1);
  });

  test('the dashboard: the chart, running recipes, recent failures', async () => {
    const failing = await webhookRecipe(
      t,
      [{ keyword: 'stop', input: { stop_with_error: 'true', stop_reason: 'Broken on purpose' } }],
      { name: 'Always fails' },
    );
    await fire(t, failing.path, {});
    const res = await get('/console/', admin.cookie);
    assert.equal(res.statusCode, 200);
    assert.match(
      res.body,
      /<svg viewBox="0 0 720 180" role="img" aria-label="Jobs per minute over the last 3 hours: \d+ succeeded, [1-9]\d* failed/,
    );
    assert.match(res.body, /<rect class="ok"/);
    // The axes: the most jobs in a minute at the top, 0 at the base; the hours below.
    const most = /at most (\d+) in a minute/.exec(res.body)?.[1];
    assert.match(
      res.body,
      new RegExp(`<div class="y-axis" aria-hidden="true"><span>${most}</span><span>0</span></div>`),
    );
    assert.match(
      res.body,
      /<div class="x-axis" aria-hidden="true"><span>3 h ago<\/span><span>2 h ago<\/span><span>1 h ago<\/span><span>now<\/span><\/div>/,
    );
    assert.match(res.body, /Always fails/);
    assert.match(res.body, /Running recipes/);
  });
});

describe('lookup tables, API platform and other pages', () => {
  let admin: Browser;
  let tableId: number;
  before(async () => {
    admin = await signIn(t.adminToken);
    const table = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'Countries', schema: [{ label: 'code' }, { label: 'name' }] },
    });
    assert.equal(table.status, 200, table.text);
    tableId = table.body.id;
    const row = await t.call('POST', `/api/lookup_tables/${tableId}/rows`, {
      body: { data: { code: 'FR', name: 'France' } },
    });
    assert.equal(row.status, 200, row.text);
  });

  test('add, search, edit and delete rows', async () => {
    const added = await post(
      `/console/lookup-tables/${tableId}/rows`,
      { _csrf: admin.csrf, col_0: 'DE', col_1: 'Germany' },
      admin.cookie,
    );
    assert.equal(added.statusCode, 303, added.body);
    const found = await get(`/console/lookup-tables/${tableId}?column=code&value=DE`, admin.cookie);
    assert.match(found.body, /Germany/);
    assert.doesNotMatch(found.body, /France/);
    const rowId = /\/rows\/(\d+)"/.exec(found.body)?.[1];
    assert.ok(rowId);
    const edit = await get(`/console/lookup-tables/${tableId}/rows/${rowId}`, admin.cookie);
    assert.match(edit.body, /value="Germany"/);
    const saved = await post(
      `/console/lookup-tables/${tableId}/rows/${rowId}`,
      { _csrf: admin.csrf, col_0: 'DE', col_1: 'Deutschland' },
      admin.cookie,
    );
    assert.equal(saved.statusCode, 303);
    const api = await t.call('GET', `/api/lookup_tables/${tableId}/rows/${rowId}`);
    assert.equal(api.body.data.name, 'Deutschland');
    const reader = await signIn(await t.tokenFor('Read only'));
    const refused = await post(
      `/console/lookup-tables/${tableId}/rows/${rowId}/delete`,
      { _csrf: reader.csrf },
      reader.cookie,
    );
    assert.equal(refused.statusCode, 403);
    const deleted = await post(
      `/console/lookup-tables/${tableId}/rows/${rowId}/delete`,
      { _csrf: admin.csrf },
      admin.cookie,
    );
    assert.equal(deleted.statusCode, 303);
    assert.equal((await t.call('GET', `/api/lookup_tables/${tableId}/rows/${rowId}`)).status, 404);
    const tooBig = await post(
      `/console/lookup-tables/${tableId}/rows`,
      { _csrf: admin.csrf, col_0: 'x'.repeat(20_000) },
      admin.cookie,
    );
    assert.equal(tooBig.statusCode, 400);
  });

  test("another workspace's table is not found, and shows nothing of it", async () => {
    const other = await t.newWorkspace('Other Co');
    const table = await t.call('POST', '/api/lookup_tables', {
      token: other.adminToken,
      body: { name: 'Secret plans', schema: [{ label: 'k' }] },
    });
    assert.equal(table.status, 200, table.text);
    const res = await get(`/console/lookup-tables/${table.body.id}`, admin.cookie);
    assert.equal(res.statusCode, 404);
    assert.doesNotMatch(res.body, /Secret plans/);
    const list = await get('/console/lookup-tables', admin.cookie);
    assert.doesNotMatch(list.body, /Secret plans/);
  });

  test('refresh an access profile secret: a new one, shown once', async () => {
    const collection = await t.call('POST', '/api/api_collections', { body: { name: 'Orders' } });
    assert.equal(collection.status, 200, collection.text);
    const client = await t.call('POST', '/api/api_clients', { body: { name: 'Partner' } });
    assert.equal(client.status, 200, client.text);
    const profile = await t.call('POST', '/api/api_access_profiles', {
      body: {
        name: 'Partner token',
        api_client_id: client.body.id,
        api_collection_ids: [collection.body.id],
        auth_type: 'token',
      },
    });
    assert.equal(profile.status, 200, profile.text);
    const page = await get('/console/api-platform', admin.cookie);
    assert.match(page.body, /Partner token/);
    assert.ok(!page.body.includes(profile.body.secret), 'no secret on the list');
    const res = await post(
      `/console/api-platform/access-profiles/${profile.body.id}/refresh-secret`,
      { _csrf: admin.csrf },
      admin.cookie,
    );
    assert.equal(res.statusCode, 200, res.body);
    const secret = /<output class="secret" id="issued-secret">([^<]+)<\/output>/.exec(res.body)?.[1];
    assert.ok(secret && secret !== profile.body.secret);
    const again = await get('/console/api-platform', admin.cookie);
    assert.ok(!again.body.includes(secret), 'shown once');
    const reader = await signIn(await t.tokenFor('Read only'));
    const refused = await post(
      `/console/api-platform/access-profiles/${profile.body.id}/refresh-secret`,
      { _csrf: reader.csrf },
      reader.cookie,
    );
    assert.equal(refused.statusCode, 403);
    assert.doesNotMatch(refused.body, /issued-secret/);
  });

  test('connections show their status and never a credential', async () => {
    const conn = await t.call('POST', '/api/connections', {
      body: {
        name: 'Orders backend',
        provider: 'rest',
        input: { base_url: 'http://127.0.0.1:1', auth_type: 'basic', username: 'u', password: 'p4ssw0rd-very-secret' },
      },
    });
    assert.equal(conn.status, 200, conn.text);
    const res = await get('/console/connections', admin.cookie);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Orders backend/);
    assert.doesNotMatch(res.body, /p4ssw0rd-very-secret/);
  });

  test('properties page', async () => {
    await t.call('POST', '/api/properties', { body: { properties: { region: 'eu-west' } } });
    assert.match((await get('/console/properties', admin.cookie)).body, /eu-west/);
  });

  test('a topic: publish a test message and see it among the latest', async () => {
    const topic = await t.call('POST', '/api/event_streams/topics', { body: { name: 'orders' } });
    assert.equal(topic.status, 200, topic.text);
    const id = topic.body.id ?? topic.body.data?.id;
    const list = await get('/console/topics', admin.cookie);
    assert.match(list.body, new RegExp(`href="/console/topics/${id}">orders<`));
    const published = await post(
      `/console/topics/${id}/publish`,
      { _csrf: admin.csrf, payload: '{"order_id": "A-77"}' },
      admin.cookie,
    );
    assert.equal(published.statusCode, 303, published.body);
    const page = await get(published.headers.location as string, admin.cookie);
    assert.match(page.body, /Message published\./);
    assert.match(page.body, /&quot;order_id&quot;: &quot;A-77&quot;/);
    const notJson = await post(`/console/topics/${id}/publish`, { _csrf: admin.csrf, payload: '{oops' }, admin.cookie);
    assert.equal(notJson.statusCode, 400);
    assert.match(notJson.body, /The message is not JSON\./);
    assert.match(notJson.body, />\{oops<\/textarea>/, 'the draft is kept');
    const notObject = await post(
      `/console/topics/${id}/publish`,
      { _csrf: admin.csrf, payload: '[1,2]' },
      admin.cookie,
    );
    assert.equal(notObject.statusCode, 400);
    assert.match(notObject.body, /Payload must be a JSON object/);
    const reader = await signIn(await t.tokenFor('Read only'));
    const readerPage = await get(`/console/topics/${id}`, reader.cookie);
    assert.doesNotMatch(readerPage.body, /Publish a test message/);
    const refused = await post(
      `/console/topics/${id}/publish`,
      { _csrf: reader.csrf, payload: '{"x":1}' },
      reader.cookie,
    );
    assert.equal(refused.statusCode, 403);
    const messages = await t.ctx.db.selectFrom('event_messages').selectAll().execute();
    assert.equal(messages.length, 1, 'only the one valid message was stored');
    assert.equal((await get('/console/topics/999999', admin.cookie)).statusCode, 404);
  });

  test('deployments and test runs pages', async () => {
    const deployments = await get('/console/deployments', admin.cookie);
    assert.equal(deployments.statusCode, 200);
    assert.match(deployments.body, /<h1>Deployments<\/h1>/);
    const recipeId = await createRecipe(t, webhookTrigger([log('a', 'b')]), { name: 'Tested recipe' });
    const run = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: recipeId } });
    assert.equal(run.status, 200, run.text);
    const runs = await get('/console/test-runs', admin.cookie);
    assert.equal(runs.statusCode, 200);
    assert.match(runs.body, new RegExp(run.body.data.id));
  });

  test('a role without a privilege: the section is not in the navigation and its page says so', async () => {
    const token = await t.tokenWith('Recipes only', ['recipes:read']);
    const browser = await signIn(token);
    const home = await get('/console/recipes', browser.cookie);
    assert.doesNotMatch(home.body, /href="\/console\/lookup-tables"/);
    const dashboard = await get('/console/', browser.cookie);
    assert.equal(dashboard.statusCode, 200);
    assert.match(dashboard.body, /Running recipes/);
    assert.doesNotMatch(dashboard.body, /Jobs per minute|Recent failures/, 'no job data without jobs:read');
    const res = await get('/console/lookup-tables', browser.cookie);
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /lookup_tables:read/);
  });
});
