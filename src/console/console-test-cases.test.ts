// "Create test case" from a past job, through HTTP: the job's trigger output becomes the test
// case's input, each step is run again or mocked with what it gave in that job (its output or its
// error), and the test case then passes when run; roles, CSRF and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, waitFor, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { dp, log, webhookRecipe } from '../../test/recipes.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;
let recipe: { id: number; path: string };
let handle: string;

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
  recipe = await webhookRecipe(
    t,
    [
      log('greet', `=“Hello ” + ${dp('workato_webhooks', 'hook', 'payload', 'name')}`.replace(/[“”]/g, '"')),
      // Fails when the order has no coupon: nil has no upcase.
      log('coupon', `=${dp('workato_webhooks', 'hook', 'payload', 'coupon')}.upcase`),
    ],
    { name: 'Orders' },
  );
  const fired = await t.app.inject({ method: 'POST', url: recipe.path, payload: { name: 'Ada', total: 42 } });
  assert.equal(fired.statusCode, 200, fired.body);
  await t.engine.idle();
  const jobs = await t.call('GET', `/api/recipes/${recipe.id}/jobs`);
  handle = jobs.body.items[0].id;
  assert.equal(jobs.body.items[0].status, 'failed');
});
after(async () => t.close());

describe('GET and POST /console/recipes/:id/jobs/:handle/test-case', () => {
  test("the job's page offers it; the form starts from the job, with each step's choices", async () => {
    const job = await admin.get(`/console/recipes/${recipe.id}/jobs/${handle}`);
    assert.match(
      job.body,
      new RegExp(
        `<a class="button" href="/console/recipes/${recipe.id}/jobs/${handle}/test-case">Create test case</a>`,
      ),
    );
    assert.doesNotMatch((await reader.get(`/console/recipes/${recipe.id}/jobs/${handle}`)).body, /Create test case/);
    const form = await admin.get(`/console/recipes/${recipe.id}/jobs/${handle}/test-case`);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /<h1>New test case from a job<\/h1>/);
    assert.match(form.body, new RegExp(`name="name"[^>]*value="From job ${handle}"`));
    // The first step gave an output and no error; the second failed (no output to give).
    assert.match(
      form.body,
      /<select id="mock-1" name="mock:1">\s*<option value="run" selected>Run it<\/option>\s*<option value="output">Mock: give its output in this job<\/option>\s*<\/select>/,
    );
    assert.match(
      form.body,
      /<select id="mock-2" name="mock:2">[\s\S]*?<option value="error">Mock: fail with its error in this job<\/option>/,
    );
    assert.match(form.body, /<span class="muted">\(greet\)<\/span>/);
    // Each step in a person's words, as the job page names it.
    assert.match(
      form.body,
      /<label for="mock-1"><span class="step-no">1<\/span> <img [^>]+> Log message <span class="muted">\(greet\)<\/span>/,
    );
    assert.match(
      form.body,
      /<input type="checkbox" id="tc-status" name="expect_status" value="1" checked><label for="tc-status">Expect the job to end as this one did \(failed\)<\/label>/,
    );
  });

  test('created from the job: trigger output, mocks picked per step, the status expected; it passes when run', async () => {
    const url = `/console/recipes/${recipe.id}/jobs/${handle}/test-case`;
    const created = await admin.post(url, {
      name: 'No coupon',
      description: 'an order without a coupon fails at the coupon step',
      'mock:1': 'output',
      'mock:2': 'run',
      expect_status: '1',
    });
    assert.equal(created.statusCode, 303, created.body);
    assert.equal(created.headers.location, `/console/recipes/${recipe.id}?done=test_case_created`);
    const list = await t.call('GET', `/api/recipes/${recipe.id}/test_cases`);
    const summary = list.body.data.find((c: { name: string }) => c.name === 'No coupon');
    assert.ok(summary, list.text);
    const stored = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${summary.id}`)).body.data;
    assert.deepEqual(stored.trigger_output.payload, { name: 'Ada', total: 42 });
    assert.deepEqual(stored.mocks, [{ step: 'greet', output: { message: 'Hello Ada' } }]);
    assert.deepEqual(stored.expectations, [{ job_status: 'failed' }]);
    assert.equal(stored.allow_external, false);
    const page = await admin.get(created.headers.location as string);
    assert.match(page.body, /Test case created: run it from the list below\./);
    assert.match(page.body, /<td><a href="\/console\/recipes\/\d+\/test-cases\/citc-[^"]+">No coupon<\/a><\/td>/);
    const activity = await t.call('GET', '/api/activity_logs?event_type=test_case_created');
    assert.match(activity.text, new RegExp(`"resource_id":"${summary.id}"`));

    const started = await admin.post('/console/test-runs', { recipe_id: String(recipe.id), test_case_id: summary.id });
    assert.equal(started.statusCode, 303, started.body);
    const done = await waitFor(
      () => admin.get(started.headers.location as string),
      (res) => />completed: /.test(res.body),
      'the test run',
    );
    assert.match(done.body, /<td>No coupon<\/td><td><span class="badge ok">passed<\/span>/);

    // A failing step mocked with its error, the other run again.
    const second = await admin.post(url, { name: 'Coupon error mocked', 'mock:1': 'run', 'mock:2': 'error' });
    assert.equal(second.statusCode, 303, second.body);
    const cases = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases`)).body.data;
    const mocked = cases.find((c: { name: string }) => c.name === 'Coupon error mocked');
    const body = (await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${mocked.id}`)).body.data;
    assert.equal(body.mocks.length, 1);
    assert.equal(body.mocks[0].step, 'coupon');
    assert.match(body.mocks[0].error.message, /upcase/);
    assert.deepEqual(body.expectations, [], 'the box unticked: no expectation');
  });

  test('refusals: a name taken or blank shows the form again with what was typed; bad input, roles, CSRF', async () => {
    const url = `/console/recipes/${recipe.id}/jobs/${handle}/test-case`;
    const count = async () => (await t.call('GET', `/api/recipes/${recipe.id}/test_cases`)).body.data.length;
    const before = await count();
    const taken = await admin.post(url, { name: 'No coupon', 'mock:1': 'output', description: 'typed' });
    assert.ok(taken.statusCode >= 400 && taken.statusCode < 500, String(taken.statusCode));
    assert.match(taken.body, /aria-invalid="true"/);
    assert.match(taken.body, /has already been taken/);
    assert.match(taken.body, /<option value="output" selected>/, 'the choice typed is kept');
    assert.match(taken.body, />typed<\/textarea>/);
    const blank = await admin.post(url, { name: '  ' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /can&#39;t be blank|can't be blank/);
    // A mock the step cannot have (the first step did not fail).
    assert.equal((await admin.post(url, { name: 'Forged', 'mock:1': 'error' })).statusCode, 400);
    assert.equal((await admin.post(url, { name: 'Forged', 'mock:2': 'bogus' })).statusCode, 400);
    assert.equal((await admin.post(url, { name: 'x'.repeat(1001) })).statusCode, 400);
    assert.equal(
      (await admin.post(`/console/recipes/${recipe.id}/jobs/j-nope/test-case`, { name: 'A' })).statusCode,
      404,
    );
    assert.equal((await admin.get(`/console/recipes/999999/jobs/${handle}/test-case`)).statusCode, 404);
    assert.equal((await reader.get(url)).statusCode, 403);
    assert.equal((await reader.post(url, { name: 'Reader' })).statusCode, 403);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=NoCsrf',
    });
    assert.equal(noCsrf.statusCode, 403);
    const json = await t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ _csrf: admin.csrf, name: 'Json' }),
    });
    assert.equal(json.statusCode, 415);
    assert.equal(await count(), before, 'nothing was created');
  });
});
