// The console's recipe editor through HTTP (inject), as a browser without script uses it: each
// button sends the whole form, the page comes back with the change. A recipe built from nothing
// (webhook → IF → a Salesforce action with a datapill → logger), saved, started; a version with a
// comment; a step the editor cannot draw edited as JSON; moves, indents and deletes; bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { createRecipe, log, webhookTrigger } from '../../test/recipes.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from '../../test/stand-ins/stand-in.ts';
import { connectThroughConsole } from '../../test/stand-ins/connect.ts';
import { records, spec as salesforceSpec } from '../../test/stand-ins/salesforce.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;
let salesforce: StandIn;
let salesOrg: number;

before(async () => {
  salesforce = await startStandIn(salesforceSpec);
  t = await createTestApp({ env: { CONNECTOR_ORIGINS: JSON.stringify(salesforce.origins()) } });
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
  const profile = await t.call('POST', '/api/custom_oauth_profiles', {
    body: {
      name: 'Salesforce app',
      provider: 'salesforce',
      data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
    },
  });
  assert.equal(profile.status, 200, profile.text);
  const created = await t.call('POST', '/api/connections', {
    body: { name: 'Sales org', provider: 'salesforce', input: {} },
  });
  assert.equal(created.status, 200, created.text);
  salesOrg = created.body.id;
  assert.equal(
    (await connectThroughConsole(t, admin, salesOrg)).location,
    `/console/connections/${salesOrg}?authorization=success`,
  );
});
after(async () => {
  await t.close();
  await salesforce.close();
});

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The values the editor's form would send: inputs, selected options, textareas (not the buttons). */
function formOf(page: string): Record<string, string> {
  const form = /<form method="post" action="[^"]*" class="editor"[\s\S]*?<\/form>/.exec(page)?.[0];
  assert.ok(form, 'the editor form');
  const values: Record<string, string> = {};
  for (const m of form.matchAll(/<input ([^>]*)>/g)) {
    // An unticked checkbox is not sent.
    if (/type="checkbox"/.test(m[1] as string) && !/ checked/.test(m[1] as string)) continue;
    const name = /name="([^"]*)"/.exec(m[1] as string)?.[1];
    const value = /value="([^"]*)"/.exec(m[1] as string)?.[1] ?? '';
    if (name) values[unescape(name)] = unescape(value);
  }
  for (const m of form.matchAll(/<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const options = [...(m[2] as string).matchAll(/<option value="([^"]*)"( selected)?>/g)];
    const chosen = options.find((o) => o[2]) ?? options[0];
    values[unescape(m[1] as string)] = unescape(chosen?.[1] ?? '');
  }
  for (const m of form.matchAll(/<textarea [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g))
    values[unescape(m[1] as string)] = unescape(m[2] as string);
  return values;
}

/** Press a button of the editor with some fields changed: the next page. */
async function press(url: string, page: string, op: string, changes: Record<string, string> = {}) {
  const { _csrf: _ignored, ...values } = formOf(page);
  return admin.post(url, { ...values, ...changes, op });
}

const codeOf = (page: string) => JSON.parse(formOf(page).code as string);

describe('GET /console/recipes/new and POST /console/recipes/new', () => {
  test('build a recipe from nothing: webhook → IF → Salesforce action with a datapill → logger; save, start, run', async () => {
    const url = '/console/recipes/new';
    let page = (await admin.get(url)).body;
    assert.match(page, /<h1>New recipe<\/h1>/);
    assert.match(page, /<script src="\/console\/assets\/editor\.js" defer><\/script>/);
    assert.match(
      page,
      /<legend><span class="step-no">0<\/span> <span class="keyword">Trigger<\/span> <img class="icon" src="\/console\/assets\/icons\/workato_webhooks\.svg" alt="" width="20" height="20"> New event via webhook<\/legend>/,
    );
    // The catalog once a page: a step that has its application lists that one (console-catalog.test.ts).
    assert.match(
      page,
      /<select id="pick-" name="pick:" data-catalog="\/console\/recipes\/catalog\?v=[A-Za-z0-9_-]{16}"><option value="workato_webhooks" selected>HTTP<\/option><\/select>/,
    );

    let res = await press(url, page, 'check', { 'schema:': 'order_id, total' });
    assert.equal(res.statusCode, 200, res.body);
    page = res.body;
    res = await press(url, page, 'add::if');
    page = res.body;
    assert.match(page, /<span class="keyword">IF<\/span>/);
    // The trigger's payload fields are datapills of the steps after it.
    const totalPill = `#{_dp('{"pill_type":"output","provider":"workato_webhooks","line":"${codeOf(page).as}","path":["payload","total"]}')}`;
    assert.ok(
      page.includes(`data-pill="${totalPill.replace(/"/g, '&quot;').replace(/'/g, '&#39;')}"`),
      'the total datapill',
    );
    page = (
      await press(url, page, 'add:0:action', {
        'c:0:0:lhs': totalPill,
        'c:0:0:operand': 'greater_than',
        'c:0:0:rhs': '1000',
      })
    ).body;
    page = (await press(url, page, 'choose:0.0', { 'pick:0.0': 'salesforce' })).body;
    assert.match(page, /<option value="create_sobject">Create record<\/option>/);
    page = (await press(url, page, 'choose:0.0', { 'pickop:0.0': 'create_sobject' })).body;
    assert.match(page, /Create record in Salesforce/);
    assert.match(page, /<label for="fld-f-0-0-sobject_name">Object \(required\)<\/label>/);
    page = (await press(url, page, 'check', { 'f:0.0:sobject_name': 'Opportunity', 'fadd:0.0': 'Amount' })).body;
    page = (await press(url, page, 'add::action', { 'f:0.0:Amount': totalPill })).body;
    page = (await press(url, page, 'choose:1', { 'pick:1': 'logger' })).body;
    page = (await press(url, page, 'choose:1', { 'pickop:1': 'log_message' })).body;
    // What a start would say, on the step: Salesforce has no connection yet.
    assert.match(page, /problems? would stop it from starting/);
    assert.match(page, /<ul class="step-errors" role="list">/);

    // A datapill naming no step: the error is on the step, while editing.
    page = (await press(url, page, 'check', { 'f:1:message': totalPill.replace(/"line":"[^"]+"/, '"line":"gone"') }))
      .body;
    assert.match(
      page,
      /<li class="edit-step kw-action" id="step-3">[\s\S]*?refers to step &quot;gone&quot;, which is not in the recipe/,
    );
    const orderPill = totalPill.replace('"total"', '"order_id"');
    page = (await press(url, page, 'check', { 'f:1:message': `Order ${orderPill}` })).body;
    assert.doesNotMatch(page, /gone/);
    assert.match(page, new RegExp(`<option value="${salesOrg}">Sales org</option>`));
    const saved = await press(url, page, 'save', { name: 'Big orders', [`conn:salesforce`]: String(salesOrg) });
    assert.equal(saved.statusCode, 303, saved.body);
    const id = Number(/^\/console\/recipes\/(\d+)\?done=saved$/.exec(saved.headers.location as string)?.[1]);
    assert.ok(id > 0, saved.headers.location as string);

    const stored = await t.call('GET', `/api/recipes/${id}`);
    assert.equal(stored.body.name, 'Big orders');
    const code = JSON.parse(stored.body.code);
    assert.equal(code.keyword, 'trigger');
    assert.equal(code.provider, 'workato_webhooks');
    assert.deepEqual(
      code.block.map((s: { keyword: string; number: number }) => [s.keyword, s.number]),
      [
        ['if', 1],
        ['action', 3],
      ],
    );
    assert.deepEqual(code.block[0].input.conditions[0], {
      ...code.block[0].input.conditions[0],
      operand: 'greater_than',
      lhs: totalPill,
      rhs: '1000',
    });
    assert.equal(code.block[0].block[0].provider, 'salesforce');
    assert.equal(code.block[0].block[0].name, 'create_sobject');
    assert.deepEqual(code.block[0].block[0].input, { sobject_name: 'Opportunity', Amount: totalPill });
    assert.equal(code.block[1].provider, 'logger');
    assert.equal(
      stored.body.config.find((c: { provider: string }) => c.provider === 'salesforce')?.account_id,
      salesOrg,
    );
    // The recipe's page: saved, with the editor's link.
    const recipePage = await admin.get(saved.headers.location as string);
    assert.match(recipePage.body, /Recipe saved\./);
    assert.match(recipePage.body, new RegExp(`<a class="button" href="/console/recipes/${id}/edit">Edit recipe</a>`));
    const started = await admin.post(`/console/recipes/${id}/start`);
    assert.equal(started.statusCode, 303, started.body);
    const hook = await t.app.inject({
      method: 'POST',
      url: new URL((await t.call('GET', `/api/recipes/${id}`)).body.webhook_url).pathname,
      payload: { order_id: 'A-1', total: 2000 },
    });
    assert.equal(hook.statusCode, 200, hook.body);
    await t.engine.idle();
    const jobs = await admin.get(`/console/recipes/${id}/jobs`);
    const handle = /href="\/console\/recipes\/\d+\/jobs\/(j-[^"]+)"/.exec(jobs.body)?.[1];
    assert.ok(handle, jobs.body);
    const job = await admin.get(`/console/recipes/${id}/jobs/${handle}`);
    assert.match(job.body, /<span class="badge ok">succeeded<\/span>/);
    assert.match(job.body, /Order A-1/, 'the logger step ran with the datapill filled');
    assert.deepEqual(
      records(salesforce, 'Opportunity').map((r) => r.Amount),
      [2000],
      'the IF held: Salesforce got the record with the total from the datapill',
    );
  });

  test('a version with a comment; a step the editor cannot draw is kept and edited as JSON in place', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([
        log('greet', 'hello'),
        {
          keyword: 'action',
          provider: 'mystery_app',
          name: 'do_it',
          as: 'odd',
          input: { deep: { a: [1, 2] } },
          extra_key: 7,
        },
      ]),
      { name: 'Mixed' },
    );
    const url = `/console/recipes/${id}/edit`;
    let page = (await admin.get(url)).body;
    assert.match(page, /<h1>Edit Mixed<\/h1>/);
    assert.match(page, /editing version 1: saving makes version 2/);
    assert.match(page, /The editor cannot draw this step/);
    const json = formOf(page)['json:1'] as string;
    assert.deepEqual(JSON.parse(json).input, { deep: { a: [1, 2] } });
    assert.equal(JSON.parse(json).extra_key, 7);
    const edited = JSON.stringify({ ...JSON.parse(json), input: { deep: { a: [3] } } });
    const saved = await press(url, page, 'save', {
      'f:0:message': 'hello again',
      'json:1': edited,
      comment: 'Warmer greeting',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const stored = JSON.parse((await t.call('GET', `/api/recipes/${id}`)).body.code);
    assert.equal(stored.block[0].input.message, 'hello again');
    assert.deepEqual(stored.block[1].input, { deep: { a: [3] } });
    assert.equal(stored.block[1].extra_key, 7, 'what the editor does not know is kept');
    const activity = await t.call('GET', '/api/activity_logs?event_type=recipe_updated');
    assert.equal(activity.status, 200, activity.text);
    const entries = (activity.body.data ?? activity.body.items ?? activity.body) as Array<{
      resource_id: string;
      details: { via: string };
    }>;
    assert.ok(
      entries.some((e) => e.resource_id === String(id) && e.details.via === 'console'),
      `the new version is in the activity log: ${activity.text}`,
    );
    const versions = await t.call('GET', `/api/recipes/${id}/versions`);
    assert.equal(versions.status, 200, versions.text);
    const latest = versions.body.data?.[0] ?? versions.body.items?.[0] ?? versions.body[0];
    assert.equal(latest.version_no, 2);
    assert.equal(latest.comment, 'Warmer greeting');

    // The two versions compared: what changed, and nothing else.
    const recipePage = await admin.get(`/console/recipes/${id}`);
    assert.match(
      recipePage.body,
      new RegExp(`<a href="/console/recipes/${id}/versions/diff">Compare the latest two versions</a>`),
    );
    const diff = await admin.get(`/console/recipes/${id}/versions/diff`);
    assert.equal(diff.statusCode, 200, diff.body);
    assert.match(diff.body, /<h1>Mixed: version 1 → 2<\/h1>/);
    assert.match(diff.body, /<del>-\s+&quot;message&quot;: &quot;hello&quot;<\/del>/);
    assert.match(diff.body, /<ins>\+\s+&quot;message&quot;: &quot;hello again&quot;<\/ins>/);
    assert.match(diff.body, /Warmer greeting/);
    assert.equal((diff.body.match(/<ins>/g) ?? []).length, 2, /<pre class="diff">[\s\S]*<\/pre>/.exec(diff.body)?.[0]);
    assert.doesNotMatch(diff.body, /<del>[^<]*extra_key/, 'unchanged lines are not marked');
    const same = await admin.get(`/console/recipes/${id}/versions/diff?from=${latest.id}&to=${latest.id}`);
    assert.match(same.body, /No difference\./);
    const unknownVersion = await admin.get(`/console/recipes/${id}/versions/diff?from=999999`);
    assert.equal(unknownVersion.statusCode, 404);
    const badVersion = await admin.get(`/console/recipes/${id}/versions/diff?from=abc`);
    assert.equal(badVersion.statusCode, 400);

    // Broken JSON: said, nothing saved.
    page = (await admin.get(url)).body;
    const broken = await press(url, page, 'save', { 'json:1': '{"keyword": ' });
    assert.equal(broken.statusCode, 400);
    assert.match(broken.body, /Step 2: its JSON does not parse/);
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.version_no, 2);
  });

  test('reorder, indent, outdent and delete steps', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([
        { keyword: 'if', input: { type: 'compound', operand: 'and', conditions: [] }, block: [] },
        log('a', 'A'),
        log('b', 'B'),
      ]),
      { name: 'Moves' },
    );
    const url = `/console/recipes/${id}/edit`;
    const shape = (page: string) =>
      (codeOf(page).block as Array<{ keyword: string; as?: string; block?: Array<{ as?: string }> }>).map((s) =>
        s.block ? `${s.keyword}[${s.block.map((c) => c.as).join(',')}]` : (s.as as string),
      );
    let page = (await admin.get(url)).body;
    page = (await press(url, page, 'down:1')).body;
    assert.deepEqual(shape(page), ['if[]', 'b', 'a']);
    page = (await press(url, page, 'up:1')).body;
    assert.deepEqual(shape(page), ['b', 'if[]', 'a']);
    page = (await press(url, page, 'indent:2')).body;
    assert.deepEqual(shape(page), ['b', 'if[a]']);
    page = (await press(url, page, 'outdent:1.0')).body;
    assert.deepEqual(shape(page), ['b', 'if[]', 'a']);
    page = (await press(url, page, 'delete:0')).body;
    assert.deepEqual(shape(page), ['if[]', 'a']);
    assert.deepEqual(
      (codeOf(page).block as Array<{ number: number }>).map((s) => s.number),
      [1, 2],
      'renumbered',
    );
    const refused = await press(url, page, 'up:0');
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /It is first already\./);
    const noStep = await press(url, page, 'delete:9');
    assert.equal(noStep.statusCode, 400);
    assert.match(noStep.body, /That step is not in the recipe any more\./);
  });

  test('ELSE IF, ELSE, repeat, try/catch and stop are added where they belong', async () => {
    const url = '/console/recipes/new';
    let page = (await admin.get(url)).body;
    for (const op of ['add::if', 'add:0:elsif', 'add:0:else', 'add::repeat', 'add::try', 'add::foreach', 'add::stop'])
      page = (await press(url, page, op)).body;
    const code = codeOf(page);
    assert.deepEqual(
      code.block.map((s: { keyword: string }) => s.keyword),
      ['if', 'repeat', 'try', 'foreach', 'stop'],
    );
    assert.deepEqual(
      code.block[0].block.map((s: { keyword: string }) => s.keyword),
      ['elsif', 'else'],
    );
    assert.equal(code.block[1].block[0].keyword, 'while_condition');
    assert.equal(code.block[2].block[0].keyword, 'catch');
    const twice = await press(url, page, 'add:0:else');
    assert.equal(twice.statusCode, 400);
    assert.match(twice.body, /This IF has its ELSE already\./);
    // A step added inside the IF goes before its branches.
    page = (await press(url, page, 'add:0:action')).body;
    assert.deepEqual(
      codeOf(page).block[0].block.map((s: { keyword: string }) => s.keyword),
      ['action', 'elsif', 'else'],
    );
  });

  test('bad input: no name, a running recipe, malformed draft, unknown recipe, no CSRF, a read-only role', async () => {
    const url = '/console/recipes/new';
    const page = (await admin.get(url)).body;
    const before = (await t.call('GET', '/api/recipes')).body.items.length;
    const unnamed = await press(url, page, 'save', { name: ' ' });
    assert.equal(unnamed.statusCode, 400);
    assert.match(unnamed.body, /Give the recipe a name to save it\./);
    const malformed = await press(url, page, 'check', { code: '[1,2' });
    assert.equal(malformed.statusCode, 400);
    assert.doesNotMatch(malformed.body, /at .*\.ts:\d+/);
    const unknown = await admin.get('/console/recipes/999999/edit');
    assert.equal(unknown.statusCode, 404);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url,
      payload: new URLSearchParams({ code: '{}', op: 'save', name: 'x' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin.cookie },
    });
    assert.equal(noCsrf.statusCode, 403);
    const readOnly = await reader.get(url);
    assert.equal(readOnly.statusCode, 403);
    assert.doesNotMatch((await reader.get('/console/recipes')).body, /New recipe/);
    assert.equal((await t.call('GET', '/api/recipes')).body.items.length, before, 'nothing created');

    const id = await createRecipe(t, webhookTrigger([log('a', 'A')]), { name: 'Busy' });
    assert.equal((await t.call('PUT', `/api/recipes/${id}/start`)).status, 200);
    const editUrl = `/console/recipes/${id}/edit`;
    const running = await press(editUrl, (await admin.get(editUrl)).body, 'save', { 'f:0:message': 'B' });
    assert.equal(running.statusCode, 409);
    assert.match(running.body, /Stop the recipe to save a new version\./);
    assert.equal(JSON.parse((await t.call('GET', `/api/recipes/${id}`)).body.code).block[0].input.message, 'A');
  });
});

describe('formula mode: POST /console/recipes/:id/edit and POST /console/recipes/formula/check', () => {
  test('a field switched to formula mode is kept in the vendor form (=…), checked on the field, and runs', async () => {
    const id = await createRecipe(t, webhookTrigger([log('note', 'hello')]), { name: 'Formulas' });
    const url = `/console/recipes/${id}/edit`;
    let page = (await admin.get(url)).body;
    // Every text field has its mode: text by default.
    assert.match(
      page,
      /<input id="fld-f-0-message" name="f:0:message" value="hello" class="pill-target" autocomplete="off" spellcheck="false" data-formula="0" aria-describedby="fld-f-0-message-status">/,
    );
    assert.match(
      page,
      /<input type="checkbox" name="fm:0:message" value="1" aria-label="Message \(required\): formula mode">/,
    );
    assert.match(page, /data-formula-check="\/console\/recipes\/formula\/check"/);
    const trigger = codeOf(page).as as string;
    const pill = `_dp('{"pill_type":"output","provider":"workato_webhooks","line":"${trigger}","path":["payload","total"]}')`;

    // A field holding one datapill, switched to formula mode: the datapill is the formula.
    page = (await press(url, page, 'check', { 'f:0:message': `#{${pill}}`, 'fm:0:message': '1' })).body;
    assert.equal(codeOf(page).block[0].input.message, `=${pill}`);
    assert.match(page, /<div class="field value-field formula">/);
    assert.match(page, /data-formula="1"/);
    assert.match(page, /<input type="checkbox" name="fm:0:message" value="1" checked/);
    assert.match(
      page,
      /<span id="fld-f-0-message-status" class="formula-status small" aria-live="polite">Formula OK\.<\/span>/,
    );

    // A formula the engine's parser refuses: the problem on the field, and as a start problem on the step.
    page = (await press(url, page, 'check', { 'f:0:message': `${pill}.nosuch`, 'fm:0:message': '1' })).body;
    assert.match(page, /aria-invalid="true"/);
    assert.match(
      page,
      /<span id="fld-f-0-message-status" class="formula-status small bad" aria-live="polite">unknown formula method &quot;nosuch&quot; \(at character \d+\)<\/span>/,
    );
    assert.match(page, /<ul class="step-errors" role="list">[\s\S]*?unknown formula method/);
    page = (await press(url, page, 'check', { 'f:0:message': '(1 + ', 'fm:0:message': '1' })).body;
    assert.match(
      page,
      /class="formula-status small bad" aria-live="polite">formula ends too early \(at character 6\)<\/span>/,
    );

    // Back to text: the value is the text typed; a leading "=" typed by habit is not doubled.
    // (An unticked box is not sent: '' stands for it here, over the ticked one formOf read.)
    page = (await press(url, page, 'check', { 'f:0:message': 'plain', 'fm:0:message': '' })).body;
    assert.equal(codeOf(page).block[0].input.message, 'plain');
    assert.match(page, /<div class="field value-field">/);
    page = (await press(url, page, 'check', { 'f:0:message': '=2 * 21', 'fm:0:message': '1' })).body;
    assert.equal(codeOf(page).block[0].input.message, '=2 * 21');
    assert.match(page, /Formula OK: gives 42/);

    const saved = await press(url, page, 'save', {
      'f:0:message': `"Total: " + (${pill} * 2).to_s`,
      'fm:0:message': '1',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const stored = await t.call('GET', `/api/recipes/${id}`);
    assert.equal(JSON.parse(stored.body.code).block[0].input.message, `="Total: " + (${pill} * 2).to_s`);
    assert.equal((await admin.post(`/console/recipes/${id}/start`)).statusCode, 303);
    const hook = await t.app.inject({
      method: 'POST',
      url: new URL(stored.body.webhook_url).pathname,
      payload: { total: 21 },
    });
    assert.equal(hook.statusCode, 200, hook.body);
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    const job = await admin.get(`/console/recipes/${id}/jobs/${jobs.body.items[0].id}`);
    assert.equal(job.statusCode, 200, job.body);
    assert.match(job.body, /<span class="badge ok">succeeded<\/span>/);
    assert.match(job.body, /Total: 42/, 'the engine ran the formula the editor wrote');
    assert.equal((await admin.post(`/console/recipes/${id}/stop`)).statusCode, 303);
  });

  test('the check the editor script calls: the engine parser and evaluator, bad input, CSRF and roles', async () => {
    const check = (formula: string) => admin.post('/console/recipes/formula/check', { formula });
    const res = await check('1 + 2');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(res.body), { ok: true, value: '3', text: 'Formula OK: gives 3' });
    assert.deepEqual(JSON.parse((await check('=" a ".strip.upcase')).body), {
      ok: true,
      value: '"A"',
      text: 'Formula OK: gives "A"',
    });
    const unknown = JSON.parse((await check('"a".nosuch')).body);
    assert.equal(unknown.ok, false);
    assert.equal(unknown.position, 4);
    assert.match(unknown.text, /^unknown formula method "nosuch" \(at character 5\)$/);
    const runtime = JSON.parse((await check('nil.upcase')).body);
    assert.equal(runtime.ok, false, 'what a job would fail with is said too');
    assert.match(runtime.text, /upcase/);
    // A formula reading a datapill is checked, not evaluated (the value comes from a job).
    const withPill = JSON.parse(
      (await check(`_dp('{"pill_type":"output","provider":"x","line":"a","path":["b"]}').upcase`)).body,
    );
    assert.deepEqual(withPill, { ok: true, text: 'Formula OK.' });
    assert.deepEqual(JSON.parse((await check('   ')).body), { ok: true, text: '' });
    // A formula that would run away is cut by the check's budget, not by the server.
    const runaway = JSON.parse((await check('"x" * 100000000')).body);
    assert.equal(runaway.ok, false);

    assert.equal((await check('1'.repeat(100_001))).statusCode, 400);
    assert.equal((await admin.post('/console/recipes/formula/check', {})).statusCode, 400);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/console/recipes/formula/check',
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'formula=1',
    });
    assert.equal(noCsrf.statusCode, 403);
    const asJson = await t.app.inject({
      method: 'POST',
      url: '/console/recipes/formula/check',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ _csrf: admin.csrf, formula: '1' }),
    });
    assert.equal(asJson.statusCode, 415);
    assert.equal((await reader.post('/console/recipes/formula/check', { formula: '1' })).statusCode, 403);
  });
});

describe('connector icons: GET /console/assets/icons/:file, the catalog picker and the steps', () => {
  test('each built-in and SaaS connector has its icon, custom connectors a generic one; served to anyone, cached by etag', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/assets/icons/salesforce.svg' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/svg+xml');
    assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="24" height="24"/);
    assert.match(res.body, />Sa<\/text><\/svg>$/);
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/console/assets/icons/salesforce.svg',
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    const sheets = await t.app.inject({ method: 'GET', url: '/console/assets/icons/google_sheets.svg' });
    assert.match(sheets.body, />GS<\/text>/);
    assert.notEqual(sheets.body, res.body);
    const logger = await t.app.inject({ method: 'GET', url: '/console/assets/icons/logger.svg' });
    assert.equal(logger.statusCode, 200);
    const custom = await t.app.inject({ method: 'GET', url: '/console/assets/icons/custom.svg' });
    assert.equal(custom.statusCode, 200);
    assert.match(custom.body, /<path d=/);
    assert.equal((await t.app.inject({ method: 'GET', url: '/console/assets/icons/no_such_app.svg' })).statusCode, 404);
    for (const bad of ['Salesforce.svg', 'salesforce.png', '..%2Fconsole.css', `${'a'.repeat(65)}.svg`])
      assert.equal((await t.app.inject({ method: 'GET', url: `/console/assets/icons/${bad}` })).statusCode, 400, bad);
  });

  test('a new step picks its application from the catalog as icons; steps show theirs', async () => {
    const url = '/console/recipes/new';
    let page = (await admin.get(url)).body;
    page = (await press(url, page, 'add::action')).body;
    assert.match(
      page,
      /<details class="catalog"><summary>Browse the applications<\/summary><div class="catalog-search"><label for="appq-0">Filter by name<\/label><input id="appq-0" type="search" name="appq:0" value=""[^>]*> <button type="submit" name="op" value="findapp:0" class="small">Search<\/button><\/div><h4>Built-in<\/h4>/,
    );
    assert.match(
      page,
      /<button type="submit" name="op" value="pickapp:0:salesforce" class="app"><img class="icon" src="\/console\/assets\/icons\/salesforce\.svg" alt="" width="20" height="20"><span>Salesforce<\/span><\/button>/,
    );
    page = (await press(url, page, 'pickapp:0:logger')).body;
    assert.equal(codeOf(page).block[0].provider, 'logger');
    assert.match(
      page,
      /<span class="keyword">Action<\/span> <img class="icon" src="\/console\/assets\/icons\/logger\.svg"/,
    );
    assert.doesNotMatch(page, /value="pickapp:0:/, 'the grid is for a step with no application yet');
    // An IF has no application.
    page = (await press(url, page, 'add::if')).body;
    const refused = await press(url, page, 'pickapp:1:logger');
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Only a trigger or an action has an application\./);

    // A provider this server does not have (a custom connector of another workspace, say): the generic icon.
    const id = await createRecipe(
      t,
      webhookTrigger([{ keyword: 'action', provider: 'acme_crm', name: 'sync', as: 'sync', input: {} }]),
      { name: 'Unknown app' },
    );
    const edit = (await admin.get(`/console/recipes/${id}/edit`)).body;
    assert.match(
      edit,
      /<span class="keyword">Action<\/span> <img class="icon" src="\/console\/assets\/icons\/custom\.svg"/,
    );
    const view = (await admin.get(`/console/recipes/${id}`)).body;
    assert.match(
      view,
      /<img class="icon" src="\/console\/assets\/icons\/custom\.svg" alt="" width="20" height="20"><span class="operation">acme_crm · sync<\/span>/,
    );
  });
});
