// A test case written and edited in the console, through HTTP: *New test case* (as the API's POST),
// its page, the form saved as the API's PUT saves (bad JSON or an unknown step refused on its row,
// nothing saved), an expectation's path offered from the step's outputs, deleted, run; roles and CSRF.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, waitFor, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { createRecipe, dp, log, webhookRecipe, webhookTrigger } from '../../test/recipes.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;
let recipe: { id: number; path: string };

const DOC = {
  name: 'Greets Ada',
  description: 'the greeting names the customer',
  trigger_output: { payload: { name: 'Ada', coupon: 'spring' } },
  mocks: [{ step: 'coupon', output: { message: 'SPRING' } }],
  expectations: [{ step: 'greet', output_path: ['message'], equals: 'Hello Ada' }],
};

async function newCase(doc: Record<string, unknown> = DOC): Promise<{ id: string; url: string }> {
  const res = await t.call('POST', `/api/recipes/${recipe.id}/test_cases`, { body: doc });
  assert.equal(res.status, 200, res.text);
  return { id: res.body.data.id, url: `/console/recipes/${recipe.id}/test-cases/${res.body.data.id}` };
}
const stored = async (id: string) => (await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${id}`)).body.data;

/** The form as the page has it: every input, select and textarea's name and value (selected option). */
function formOf(body: string): Record<string, string> {
  const form = body.slice(body.indexOf('<form method="post" action="/console/recipes/'));
  const out: Record<string, string> = {};
  const unescape = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  for (const m of form.matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]+)"/.exec(m[1] as string)?.[1];
    const value = /value="([^"]*)"/.exec(m[1] as string)?.[1] ?? '';
    if (!name || name === '_csrf') continue;
    if (/type="checkbox"/.test(m[1] as string) && !/ checked/.test(m[1] as string)) continue;
    out[name] = unescape(value);
  }
  for (const m of form.matchAll(/<textarea [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1] as string] = unescape(m[2] as string);
  for (const m of form.matchAll(/<select [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
    out[m[1] as string] = unescape(/<option value="([^"]*)" selected>/.exec(m[2] as string)?.[1] ?? '');
  return out;
}

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
  recipe = await webhookRecipe(
    t,
    [
      log('greet', `="Hello " + ${dp('workato_webhooks', 'hook', 'payload', 'name')}`),
      log('coupon', `=${dp('workato_webhooks', 'hook', 'payload', 'coupon')}.upcase`),
    ],
    { name: 'Orders' },
  );
});
after(async () => t.close());

describe('GET /console/recipes/:id/test-cases/:case_id', () => {
  test('the recipe page links each test case; its page holds the form with what it stores', async () => {
    const { id, url } = await newCase({ ...DOC, name: 'Shown' });
    const recipePage = await admin.get(`/console/recipes/${recipe.id}`);
    assert.match(recipePage.body, new RegExp(`<td><a href="${url}">Shown</a></td>`));
    const page = await admin.get(url);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Shown<\/h1>/);
    const form = formOf(page.body);
    assert.equal(form.name, 'Shown');
    assert.equal(form.description, DOC.description);
    assert.deepEqual(JSON.parse(form.trigger_output as string), DOC.trigger_output);
    assert.equal(form['mock:0:step'], 'coupon');
    assert.equal(form['mock:0:kind'], 'output');
    assert.deepEqual(JSON.parse(form['mock:0:value'] as string), { message: 'SPRING' });
    assert.equal(form['mock:1:step'], '', 'an empty row to add a mock');
    assert.equal(form['exp:0:kind'], 'equals');
    assert.equal(form['exp:0:step'], 'greet');
    assert.equal(form['exp:0:path'], 'message');
    assert.equal(form['exp:0:value'], '"Hello Ada"');
    assert.equal(form['exp:1:kind'], '', 'an empty row to add an expectation');
    // Steps are offered in a person's words, named as the test case names them.
    assert.match(page.body, /<option value="coupon" selected>2 · Log message \(coupon\)<\/option>/);
    assert.match(page.body, /<button type="submit">Run this test case<\/button>/);
    assert.match(page.body, /data-confirm="Delete the test case Shown\?">Delete test case<\/button>/);
    // Every input has its label.
    for (const m of page.body.matchAll(/<(?:input|select|textarea) [^>]*id="([^"]+)"/g))
      assert.match(page.body, new RegExp(`<label for="${m[1]}">`), `label of ${m[1]}`);
    await t.call('DELETE', `/api/recipes/${recipe.id}/test_cases/${id}`);
  });

  test('a read-only role sees the test case without a form, and its POSTs are refused (403)', async () => {
    const { id, url } = await newCase({ ...DOC, name: 'Read' });
    const page = await reader.get(url);
    assert.equal(page.statusCode, 200, page.body);
    assert.doesNotMatch(page.body, /<form method="post" action="\/console\/recipes/);
    assert.doesNotMatch(page.body, /Run this test case|Delete test case/);
    assert.match(page.body, /<h2>Trigger output<\/h2><pre class="value">\{\n {2}&quot;payload&quot;/);
    assert.match(page.body, /2 · Log message \(coupon\): gives/);
    assert.match(page.body, /Output at the path equals \(JSON\) · 1 · Log message \(greet\) · <code>message<\/code>/);
    assert.equal((await reader.post(url, { name: 'Changed' })).statusCode, 403);
    assert.equal((await reader.post(`${url}/delete`)).statusCode, 403);
    assert.equal((await stored(id)).name, 'Read', 'nothing changed');
    const unknown = await admin.get(`/console/recipes/${recipe.id}/test-cases/citc-nope`);
    assert.equal(unknown.statusCode, 404);
    assert.equal((await admin.get(`/console/recipes/999999/test-cases/${id}`)).statusCode, 404);
  });
});

describe('POST /console/recipes/:id/test-cases/:case_id', () => {
  test('saves name, description, trigger output, mocks (changed, added, removed) and expectations', async () => {
    const { id, url } = await newCase({ ...DOC, name: 'To edit' });
    const form = formOf((await admin.get(url)).body);
    const saved = await admin.post(url, {
      ...form,
      name: 'Edited',
      description: 'now with Grace',
      trigger_output: '{"payload": {"name": "Grace", "coupon": "fall"}}',
      // The coupon mock removed, the greeting mocked instead (the new row).
      'mock:0:remove': '1',
      'mock:1:step': 'greet',
      'mock:1:kind': 'error',
      'mock:1:value': 'greeting service down',
      'exp:0:value': '"Hello Grace"',
      'exp:1:kind': 'failed',
      'exp:1:step': 'greet',
      'exp:1:value': 'down',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `${url}?done=test_case_saved`);
    const after = await stored(id);
    assert.equal(after.name, 'Edited');
    assert.equal(after.description, 'now with Grace');
    assert.deepEqual(after.trigger_output, { payload: { name: 'Grace', coupon: 'fall' } });
    assert.deepEqual(after.mocks, [{ step: 'greet', error: { type: 'Error', message: 'greeting service down' } }]);
    assert.deepEqual(after.expectations, [
      { step: 'greet', output_path: ['message'], equals: 'Hello Grace' },
      { step: 'greet', failed: true, error_contains: 'down' },
    ]);
    const page = await admin.get(saved.headers.location as string);
    assert.match(page.body, /Test case saved\./);
    const activity = await t.call('GET', '/api/activity_logs?event_type=test_case_updated');
    assert.match(activity.text, new RegExp(`"resource_id":"${id}"`));

    // Every kind of expectation the model has, and a mock's output changed.
    const second = formOf((await admin.get(url)).body);
    const kinds = await admin.post(url, {
      ...second,
      'mock:0:kind': 'output',
      'mock:0:value': '{"message": "Hi"}',
      'exp:0:remove': '1',
      'exp:1:remove': '1',
      'exp:2:kind': 'job_succeeded',
      'exp:3:kind': 'not_ran',
      'exp:3:step': 'coupon',
      'exp:4:kind': 'contains',
      'exp:4:step': 'greet',
      'exp:4:path': 'message',
      'exp:4:value': '"Hi"',
      'exp:5:kind': 'absent',
      'exp:5:step': 'greet',
      'exp:5:path': 'body.name',
      'exp:6:kind': '',
    });
    assert.equal(kinds.statusCode, 303, kinds.body);
    const third = await stored(id);
    assert.deepEqual(third.mocks, [{ step: 'greet', output: { message: 'Hi' } }]);
    assert.deepEqual(third.expectations, [
      { job_status: 'succeeded' },
      { step: 'coupon', ran: false },
      { step: 'greet', output_path: ['message'], contains: 'Hi' },
      { step: 'greet', output_path: ['body', 'name'], present: false },
    ]);
    // And shown again as stored.
    const shown = formOf((await admin.get(url)).body);
    assert.equal(shown['exp:1:kind'], 'not_ran');
    assert.equal(shown['exp:3:kind'], 'absent');
    assert.equal(shown['exp:3:path'], 'body.name');
  });

  test('bad JSON, an unknown step, a blank name: the problem on its field, what was typed kept, nothing saved', async () => {
    const { id, url } = await newCase({ ...DOC, name: 'Kept' });
    const form = formOf((await admin.get(url)).body);
    const before = await stored(id);

    const badTrigger = await admin.post(url, { ...form, name: 'Not saved', trigger_output: '{"payload": ' });
    assert.equal(badTrigger.statusCode, 400, badTrigger.body);
    assert.match(
      badTrigger.body,
      /id="tc-trigger" name="trigger_output"[^>]* aria-describedby="tc-trigger-hint tc-trigger-error" aria-invalid="true"/,
    );
    assert.match(badTrigger.body, /<p class="error-text small" id="tc-trigger-error">Trigger output is not JSON/);
    assert.match(badTrigger.body, />\{&quot;payload&quot;: <\/textarea>/, 'the text typed is kept');
    assert.match(badTrigger.body, /name="name"[^>]*value="Not saved"/);
    assert.match(badTrigger.body, /role="alert">The test case was not saved: each problem is shown on its field\.</);

    const notObject = await admin.post(url, { ...form, trigger_output: '[1, 2]' });
    assert.equal(notObject.statusCode, 400);
    assert.match(notObject.body, /Trigger output must be an object/);

    const badMock = await admin.post(url, { ...form, 'mock:0:value': '{nope}' });
    assert.equal(badMock.statusCode, 400);
    assert.match(
      badMock.body,
      /id="mock-0-value" name="mock:0:value"[^>]* aria-invalid="true" aria-describedby="mock-0-error"/,
    );
    assert.match(badMock.body, /<p class="error-text small" id="mock-0-error">Mock 1: output is not JSON/);

    // A step the recipe does not have (a forged or stale choice): the service's problem on the row it came from.
    const unknownStep = await admin.post(url, {
      ...form,
      'mock:0:remove': '1',
      'mock:1:step': 'nowhere',
      'mock:1:value': '{}',
    });
    assert.equal(unknownStep.statusCode, 400, unknownStep.body);
    assert.match(unknownStep.body, /id="mock-1-error">Mock 2: step names no step of the recipe: nowhere/);
    assert.match(unknownStep.body, /<option value="nowhere" selected>nowhere \(not a step of the recipe\)<\/option>/);
    assert.match(unknownStep.body, /id="mock-0-remove" name="mock:0:remove" value="1" checked/);

    const mockNoStep = await admin.post(url, { ...form, 'mock:1:value': '{"a": 1}' });
    assert.equal(mockNoStep.statusCode, 400);
    assert.match(mockNoStep.body, /step must name a step: choose one/);

    const badExpectation = await admin.post(url, { ...form, 'exp:0:value': 'Hello Ada' });
    assert.equal(badExpectation.statusCode, 400);
    assert.match(badExpectation.body, /id="exp-0-error">Expectation 1: equals is not JSON/);
    const unknownKind = await admin.post(url, { ...form, 'exp:1:kind': 'sometimes' });
    assert.equal(unknownKind.statusCode, 400);
    assert.match(unknownKind.body, /is not a kind of expectation/);
    const expUnknownStep = await admin.post(url, { ...form, 'exp:1:kind': 'ran', 'exp:1:step': '#99' });
    assert.equal(expUnknownStep.statusCode, 400);
    assert.match(expUnknownStep.body, /id="exp-1-error">Expectation 2: step names no step of the recipe: #99/);

    const blank = await admin.post(url, { ...form, name: ' ' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /Name can&#39;t be blank/);
    await newCase({ ...DOC, name: 'Other' });
    const taken = await admin.post(url, { ...form, name: 'Other' });
    assert.equal(taken.statusCode, 422);
    assert.match(taken.body, /has already been taken/);

    assert.equal((await admin.post(url, { ...form, name: 'x'.repeat(1001) })).statusCode, 400);
    const tooMany = { ...form } as Record<string, string>;
    for (let i = 0; i <= 201; i += 1) tooMany[`mock:${i}:step`] = 'greet';
    const many = await admin.post(url, tooMany);
    assert.equal(many.statusCode, 400);
    assert.match(many.body, /Mocks must be a list of at most 200 mocks/);
    assert.equal((await admin.post(`/console/recipes/${recipe.id}/test-cases/citc-nope`, form)).statusCode, 404);
    assert.equal((await admin.post(`/console/recipes/999999/test-cases/${id}`, form)).statusCode, 404);

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
    const huge = await admin.post(url, { ...form, trigger_output: `{"a": "${'x'.repeat(1_100_000)}"}` });
    assert.equal(huge.statusCode, 413);
    assert.deepEqual(await stored(id), before, 'nothing was saved');
  });
});

describe('POST /console/recipes/:id/test-cases/:case_id/delete', () => {
  test('deletes the test case and goes to the recipe; an unknown one is a 404', async () => {
    const { id, url } = await newCase({ ...DOC, name: 'Doomed' });
    const deleted = await admin.post(`${url}/delete`);
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal(deleted.headers.location, `/console/recipes/${recipe.id}?done=test_case_deleted`);
    const page = await admin.get(deleted.headers.location as string);
    assert.match(page.body, /Test case deleted\./);
    assert.doesNotMatch(page.body, />Doomed</);
    assert.equal((await t.call('GET', `/api/recipes/${recipe.id}/test_cases/${id}`)).status, 404);
    assert.equal((await admin.post(`${url}/delete`)).statusCode, 404);
    const activity = await t.call('GET', '/api/activity_logs?event_type=test_case_deleted');
    assert.match(activity.text, new RegExp(`"resource_id":"${id}"`));
  });
});

describe('Run from the test case page', () => {
  test('runs the test case as edited and shows its result', async () => {
    const { url } = await newCase({ ...DOC, name: 'Runs' });
    const form = formOf((await admin.get(url)).body);
    // Edited to expect what the job does not give: the run fails and says why.
    assert.equal((await admin.post(url, { ...form, 'exp:0:value': '"Hello Bob"' })).statusCode, 303);
    const page = await admin.get(url);
    const run = /<form method="post" action="\/console\/test-runs" class="inline">[\s\S]*?<\/form>/.exec(
      page.body,
    )?.[0];
    assert.ok(run);
    const fields = Object.fromEntries(
      [...run.matchAll(/name="(recipe_id|test_case_id)" value="([^"]+)"/g)].map((m) => [m[1], m[2]]),
    );
    const started = await admin.post('/console/test-runs', fields as Record<string, string>);
    assert.equal(started.statusCode, 303, started.body);
    const done = await waitFor(
      () => admin.get(started.headers.location as string),
      (res) => />completed: /.test(res.body),
      'the test run',
    );
    assert.match(done.body, /<td>Runs<\/td><td><span class="badge (?:bad|error|failed)">failed<\/span>/);
    assert.match(done.body, /Hello Bob/);
  });
});

describe('GET /console/recipes/:id/test-cases/new', () => {
  test('the recipe page offers New test case; the form starts from the trigger output schema as an example', async () => {
    const recipePage = await admin.get(`/console/recipes/${recipe.id}`);
    assert.match(
      recipePage.body,
      new RegExp(`<a class="button" href="/console/recipes/${recipe.id}/test-cases/new">New test case</a>`),
    );
    const schemaed = await createRecipe(
      t,
      webhookTrigger([log('say', 'hi')], {
        extended_output_schema: [
          {
            name: 'payload',
            type: 'object',
            properties: [
              { name: 'order_id', type: 'string' },
              { name: 'total', type: 'number' },
              { name: 'paid', type: 'boolean' },
              { name: 'items', type: 'array', of: 'object', properties: [{ name: 'sku', type: 'string' }] },
            ],
          },
        ],
      }),
      { name: 'Schemaed' },
    );
    const page = await admin.get(`/console/recipes/${schemaed}/test-cases/new`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>New test case<\/h1>/);
    const form = formOf(page.body);
    assert.equal(form.name, '');
    assert.deepEqual(JSON.parse(form.trigger_output as string), {
      payload: { order_id: '', total: 0, paid: false, items: [{ sku: '' }] },
    });
    assert.match(page.body, /Filled in from the trigger’s output schema/);
    assert.equal(form['mock:0:step'], '', 'an empty row to add a mock');
    assert.equal(form['exp:0:kind'], '', 'an empty row to add an expectation');
    // The trigger's fields and the logger's output, offered for a path; the step choice says which list.
    assert.match(
      page.body,
      /<datalist id="tc-paths-0"><option value="payload"><\/option><option value="headers"><\/option>/,
    );
    assert.match(page.body, /<option value="payload.items.sku"><\/option>/);
    assert.match(
      page.body,
      /<option value="hook" data-paths="tc-paths-0">0 · New event via webhook \(hook\)<\/option>/,
    );
    // The logger describes no output fields (the editor offers no datapill of it either): no list.
    assert.match(page.body, /<option value="say">1 · Log message \(say\)<\/option>/);
    for (const m of page.body.matchAll(/<(?:input|select|textarea) [^>]*id="([^"]+)"/g))
      assert.match(page.body, new RegExp(`<label for="${m[1]}">`), `label of ${m[1]}`);
    // A trigger without a schema starts from an empty object.
    const plain = formOf((await admin.get(`/console/recipes/${recipe.id}/test-cases/new`)).body);
    assert.match(plain.trigger_output as string, /^\{/);
  });

  test('a read-only role is refused (403); an unknown recipe is a 404', async () => {
    assert.equal((await reader.get(`/console/recipes/${recipe.id}/test-cases/new`)).statusCode, 403);
    assert.doesNotMatch((await reader.get(`/console/recipes/${recipe.id}`)).body, /New test case/);
    assert.equal((await admin.get('/console/recipes/999999/test-cases/new')).statusCode, 404);
    assert.equal((await admin.get('/console/recipes/abc/test-cases/new')).statusCode, 400);
  });
});

describe('POST /console/recipes/:id/test-cases/new', () => {
  const url = () => `/console/recipes/${recipe.id}/test-cases/new`;
  const count = async () => (await t.call('GET', `/api/recipes/${recipe.id}/test_cases`)).body.data.length as number;

  test('creates the test case as the API does and goes to its page', async () => {
    const form = formOf((await admin.get(url())).body);
    const created = await admin.post(url(), {
      ...form,
      name: 'Written',
      description: 'from nothing',
      trigger_output: '{"payload": {"name": "Lin", "coupon": "x"}}',
      'mock:0:step': 'coupon',
      'mock:0:kind': 'output',
      'mock:0:value': '{"message": "X"}',
      'exp:0:kind': 'equals',
      'exp:0:step': 'greet',
      'exp:0:path': 'message',
      'exp:0:value': '"Hello Lin"',
      'exp:1:kind': 'present',
      'exp:1:step': 'hook',
      'exp:1:path': 'payload.name',
    });
    assert.equal(created.statusCode, 303, created.body);
    const location = created.headers.location as string;
    const id = /test-cases\/([^?]+)\?done=test_case_written$/.exec(location)?.[1];
    assert.ok(id, location);
    const saved = await stored(decodeURIComponent(id));
    assert.equal(saved.name, 'Written');
    assert.equal(saved.description, 'from nothing');
    assert.deepEqual(saved.trigger_output, { payload: { name: 'Lin', coupon: 'x' } });
    assert.deepEqual(saved.mocks, [{ step: 'coupon', output: { message: 'X' } }]);
    assert.deepEqual(saved.expectations, [
      { step: 'greet', output_path: ['message'], equals: 'Hello Lin' },
      { step: 'hook', output_path: ['payload', 'name'], present: true },
    ]);
    const page = await admin.get(location);
    assert.match(page.body, /Test case created: run it from here\./);
    // A saved path on the trigger is offered with the trigger's output fields.
    assert.match(page.body, /id="exp-1-path" name="exp:1:path" value="payload.name" list="tc-paths-0"/);
    assert.match(page.body, /id="exp-0-path" name="exp:0:path" value="message" data-paths-of="exp-0-step"/);
    const activity = await t.call('GET', '/api/activity_logs?event_type=test_case_created');
    assert.match(activity.text, new RegExp(`"resource_id":"${decodeURIComponent(id)}"`));
    assert.match(activity.text, /"via":"console"/);
  });

  test('refusals show the form again with what was typed; nothing is created', async () => {
    const form = formOf((await admin.get(url())).body);
    const before = await count();
    const badJson = await admin.post(url(), { ...form, name: 'Bad', trigger_output: '{"payload": ' });
    assert.equal(badJson.statusCode, 400, badJson.body);
    assert.match(badJson.body, /role="alert">The test case was not created: each problem is shown on its field\.</);
    assert.match(badJson.body, /<p class="error-text small" id="tc-trigger-error">Trigger output is not JSON/);
    assert.match(badJson.body, /name="name"[^>]*value="Bad"/);
    const blank = await admin.post(url(), { ...form, name: '' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /Name can&#39;t be blank/);
    const unknownStep = await admin.post(url(), {
      ...form,
      name: 'Unknown step',
      'exp:0:kind': 'ran',
      'exp:0:step': '#42',
    });
    assert.equal(unknownStep.statusCode, 400);
    assert.match(unknownStep.body, /id="exp-0-error">Expectation 1: step names no step of the recipe: #42/);
    await newCase({ ...DOC, name: 'Taken name' });
    const taken = await admin.post(url(), { ...form, name: 'Taken name' });
    assert.equal(taken.statusCode, 422);
    assert.match(taken.body, /has already been taken/);
    assert.equal(await count(), before + 1, 'only the one made through the API');

    const noCsrf = await t.app.inject({
      method: 'POST',
      url: url(),
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=NoCsrf',
    });
    assert.equal(noCsrf.statusCode, 403);
    const json = await t.app.inject({
      method: 'POST',
      url: url(),
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ _csrf: admin.csrf, name: 'Json' }),
    });
    assert.equal(json.statusCode, 415);
    const huge = await admin.post(url(), {
      ...form,
      name: 'Huge',
      trigger_output: `{"a": "${'x'.repeat(1_100_000)}"}`,
    });
    assert.equal(huge.statusCode, 413);
    assert.equal((await reader.post(url(), { ...form, name: 'Reader' })).statusCode, 403);
    assert.equal(
      (await admin.post('/console/recipes/999999/test-cases/new', { ...form, name: 'Nowhere' })).statusCode,
      404,
    );
    assert.equal(await count(), before + 1, 'nothing was created');
  });
});
