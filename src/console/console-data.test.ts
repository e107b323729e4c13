// The console's data tables and workflow tasks through HTTP (inject): records paged, searched,
// added, edited and deleted; open tasks approved, rejected or filled in; the API's privileges,
// and bad input answered with a clear page, nothing changed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { action, dp, log, readJob, webhookRecipe, webhookTrigger, type StepDoc } from '../../test/recipes.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
});
after(async () => t.close());

function assertNoStack(body: string): void {
  assert.doesNotMatch(body, /at .*\.ts:\d+|Error: |node_modules/);
}

const COLUMNS = [
  { name: 'email', type: 'string', optional: false },
  { name: 'age', type: 'integer' },
  { name: 'active', type: 'boolean' },
];

async function newTable(name: string, token?: string): Promise<number> {
  const res = await t.call('POST', '/api/data_tables', {
    body: { name, schema: COLUMNS },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

async function records(id: number): Promise<Array<{ record_id: string; data: Record<string, unknown> }>> {
  const res = await t.call('GET', `/api/data_tables/${id}/records?per_page=1000`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

describe('GET /console/data-tables and records', () => {
  let tableId: number;
  before(async () => {
    tableId = await newTable('Customers');
  });

  test('the list and a table: add a record, search it, edit it, delete it', async () => {
    const list = await admin.get('/console/data-tables');
    assert.equal(list.statusCode, 200);
    assert.match(
      list.body,
      new RegExp(
        `<a href="/console/data-tables/${tableId}">Customers</a></td><td>email, age, active</td><td class="num">0</td>`,
      ),
    );
    assert.match(list.body, /<a href="\/console\/data-tables" aria-current="page">Data tables<\/a>/);

    const added = await admin.post(`/console/data-tables/${tableId}/records`, {
      col_0: 'ada@example.com',
      col_1: '36',
      col_2: 'true',
    });
    assert.equal(added.statusCode, 303, added.body);
    assert.equal(added.headers.location, `/console/data-tables/${tableId}?done=record_added`);
    await admin.post(`/console/data-tables/${tableId}/records`, {
      col_0: '<b>bob</b>@example.com',
      col_1: '',
      col_2: 'false',
    });
    const stored = await records(tableId);
    assert.deepEqual(
      stored.map((r) => r.data),
      [
        { email: 'ada@example.com', age: 36, active: true },
        { email: '<b>bob</b>@example.com', age: null, active: false },
      ],
      'typed by the columns',
    );

    const page = await admin.get(`/console/data-tables/${tableId}?done=record_added`);
    assert.match(page.body, /Record added\./);
    assert.match(page.body, /<td>ada@example.com<\/td><td>36<\/td><td>true<\/td>/);
    assert.match(page.body, /<td>&lt;b&gt;bob&lt;\/b&gt;@example.com<\/td>/, 'escaped');

    const search = await admin.get(`/console/data-tables/${tableId}?column=age&value=36`);
    assert.equal(search.statusCode, 200);
    assert.match(search.body, /ada@example.com/);
    assert.doesNotMatch(search.body, /bob/);
    const badSearch = await admin.get(`/console/data-tables/${tableId}?column=age&value=old`);
    assert.equal(badSearch.statusCode, 400);
    assert.match(badSearch.body, /Not searched: age must be an integer/);

    const ada = stored[0]?.record_id as string;
    const edit = await admin.get(`/console/data-tables/${tableId}/records/${ada}`);
    assert.equal(edit.statusCode, 200);
    assert.match(edit.body, /value="ada@example.com"/);
    const saved = await admin.post(`/console/data-tables/${tableId}/records/${ada}`, {
      col_0: 'ada@example.org',
      col_1: '37',
      col_2: 'true',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.deepEqual((await records(tableId))[0]?.data, { email: 'ada@example.org', age: 37, active: true });

    const deleted = await admin.post(`/console/data-tables/${tableId}/records/${ada}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.deepEqual(
      (await records(tableId)).map((r) => r.data.email),
      ['<b>bob</b>@example.com'],
    );
  });

  test('pages of 50 records', async () => {
    const id = await newTable('Many');
    const batch = await t.call('POST', `/api/data_tables/${id}/records/batch`, {
      body: { records: Array.from({ length: 120 }, (_, i) => ({ email: `u${i}@example.com`, age: i })) },
    });
    assert.equal(batch.status, 200, batch.text);
    const first = await admin.get(`/console/data-tables/${id}`);
    assert.equal((first.body.match(/<td>u\d+@example.com<\/td>/g) ?? []).length, 50);
    assert.match(first.body, /<td>u0@example.com<\/td>/);
    assert.match(first.body, new RegExp(`<a href="/console/data-tables/${id}\\?page=2">Next page</a>`));
    const third = await admin.get(`/console/data-tables/${id}?page=3`);
    assert.equal((third.body.match(/<td>u\d+@example.com<\/td>/g) ?? []).length, 20);
    assert.match(third.body, /<td>u100@example.com<\/td>/);
    assert.doesNotMatch(third.body, /Next page/);
  });

  test('a refused record: the page again with the problem and the values typed, nothing stored', async () => {
    const before = (await records(tableId)).length;
    const missing = await admin.post(`/console/data-tables/${tableId}/records`, { col_0: '', col_1: '5' });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /Not added: .*email/i);
    const wrongType = await admin.post(`/console/data-tables/${tableId}/records`, {
      col_0: 'x@example.com',
      col_1: 'five',
    });
    assert.equal(wrongType.statusCode, 400);
    assert.match(wrongType.body, /must be an integer/);
    assert.match(wrongType.body, /value="five"/, 'what was typed is shown again');
    assert.equal((await records(tableId)).length, before);
    const bob = (await records(tableId))[0]?.record_id as string;
    const badEdit = await admin.post(`/console/data-tables/${tableId}/records/${bob}`, {
      col_0: 'b@example.com',
      col_1: 'x',
      col_2: 'maybe',
    });
    assert.equal(badEdit.statusCode, 400);
    assert.match(badEdit.body, /Not saved:/);
    assert.equal((await records(tableId))[0]?.data.email, '<b>bob</b>@example.com');
    assertNoStack(badEdit.body);
  });

  test('a read-only token reads records but may not change them: no forms, 403, nothing changed', async () => {
    const page = await reader.get(`/console/data-tables/${tableId}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Add a record|Delete/);
    const bob = (await records(tableId))[0]?.record_id as string;
    assert.equal(
      (await reader.post(`/console/data-tables/${tableId}/records`, { col_0: 'r@example.com' })).statusCode,
      403,
    );
    assert.equal(
      (await reader.post(`/console/data-tables/${tableId}/records/${bob}`, { col_0: 'r@example.com' })).statusCode,
      403,
    );
    assert.equal((await reader.post(`/console/data-tables/${tableId}/records/${bob}/delete`)).statusCode, 403);
    assert.equal((await reader.get(`/console/data-tables/${tableId}/records/${bob}`)).statusCode, 403);
    assert.deepEqual(
      (await records(tableId)).map((r) => r.data.email),
      ['<b>bob</b>@example.com'],
    );
    const none = await consoleSignIn(t, await t.tokenWith('No tables', ['recipes:read']));
    assert.doesNotMatch((await none.get('/console/recipes')).body, /href="\/console\/data-tables"/);
    assert.equal((await none.get('/console/data-tables')).statusCode, 403);
  });

  test('unknown or foreign ids, bad ids, a bad page, a missing CSRF token', async () => {
    assert.equal((await admin.get('/console/data-tables/999999')).statusCode, 404);
    assert.equal((await admin.get('/console/data-tables/abc')).statusCode, 400);
    assert.equal((await admin.get(`/console/data-tables/${tableId}?page=0`)).statusCode, 400);
    assert.equal(
      (await admin.get(`/console/data-tables/${tableId}/records/00000000-0000-0000-0000-000000000000`)).statusCode,
      404,
    );
    assert.equal((await admin.get(`/console/data-tables/${tableId}/records/<x>`)).statusCode, 400);
    assert.equal(
      (await admin.post(`/console/data-tables/${tableId}/records/00000000-0000-0000-0000-000000000000/delete`))
        .statusCode,
      404,
    );
    const other = await t.newWorkspace('Other data');
    const foreignId = await newTable('Their secret table', other.adminToken);
    const foreign = await admin.get(`/console/data-tables/${foreignId}`);
    assert.equal(foreign.statusCode, 404);
    assert.doesNotMatch(foreign.body, /Their secret table/);
    assert.equal(
      (await admin.post(`/console/data-tables/${foreignId}/records`, { col_0: 'x@example.com' })).statusCode,
      404,
    );
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/console/data-tables/${tableId}/records`,
      payload: 'col_0=x%40example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin.cookie },
    });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await records(tableId)).length, 1);
  });
});

describe('GET /console/workflow-tasks and POST /console/workflow-tasks/:id/complete', () => {
  const task = (as: string, input: StepDoc) =>
    action('workato_workflow_task', 'human_review_on_existing_record', as, input);

  async function fire(path: string, payload: unknown): Promise<number> {
    const res = await t.app.inject({ method: 'POST', url: path, payload: payload as Record<string, unknown> });
    assert.equal(res.statusCode, 200, res.body);
    await t.engine.idle();
    const job = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    return job.id;
  }

  async function openTask(recipeId: number): Promise<number> {
    const list = await t.call('GET', `/api/workflow_tasks?recipe_id=${recipeId}&status=open`);
    assert.equal(list.body.items.length, 1, list.text);
    return list.body.items[0].id;
  }

  test('approve a task from its page: the job goes on with the decision', async () => {
    const { id, path } = await webhookRecipe(t, [
      task('review', {
        name: 'Approve order #{' + dp('workato_webhooks', 'hook', 'payload', 'order') + '}',
        email: 'ana@example.com',
      }),
      log(
        'after',
        `#{${dp('workato_workflow_task', 'review', 'status')}}: #{${dp('workato_workflow_task', 'review', 'comments')}}`,
      ),
    ]);
    const jobId = await fire(path, { order: '<A7>' });
    const waiting = await t.ctx.db
      .selectFrom('jobs')
      .select(['handle', 'started_at'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    while (Date.now() < Date.parse(waiting.started_at) + 20) await new Promise((resolve) => setImmediate(resolve));
    const taskId = await openTask(id);

    const list = await admin.get('/console/workflow-tasks');
    assert.equal(list.statusCode, 200);
    assert.match(
      list.body,
      new RegExp(
        `<a href="/console/workflow-tasks/${taskId}">Approve order &lt;A7&gt;</a></td><td class="wide-only">approval</td><td>ana@example.com</td><td class="wide-only"><span class="badge ">open</span>`,
      ),
    );
    const page = await admin.get(`/console/workflow-tasks/${taskId}`);
    assert.match(page.body, /<button type="submit" name="decision" value="approved">Approve<\/button>/);
    assert.match(page.body, /value="rejected" class="danger">Reject<\/button>/);

    const done = await admin.post(`/console/workflow-tasks/${taskId}/complete`, {
      decision: 'approved',
      comments: 'looks right',
    });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, `/console/workflow-tasks/${taskId}?done=task_completed`);
    await t.engine.idle();
    const job = await readJob(t, jobId);
    assert.equal(job.status, 'succeeded');
    assert.equal((job.lines.at(-1)?.output as { message?: string })?.message, 'approved: looks right');
    const ended = await admin.get(`/console/workflow-tasks/${taskId}?done=task_completed`);
    assert.match(ended.body, /Task completed: its job goes on\./);
    assert.match(ended.body, /<span class="badge ok">completed<\/span>/);
    // Recorded as completed by whoever signed in, not by its assignee.
    const clients = await t.call('GET', '/api/developer_api_clients');
    const me = (clients.body.result.items as Array<{ name: string; id: number }>)[0];
    assert.ok(me);
    const stored = await t.call('GET', `/api/workflow_tasks/${taskId}`);
    assert.equal(stored.body.completed_by, me.name);
    assert.notEqual(me.name, 'ana@example.com');
    assert.match(ended.body, new RegExp(`</time> by ${me.name}</dd>`));
    // A time is its date and its clock, each kept whole (a phone wraps between them only).
    assert.match(
      ended.body,
      /<time datetime="[^"]+"><span>\d{4}-\d{2}-\d{2}<\/span> <span>\d{2}:\d{2}:\d{2}Z<\/span><\/time> by/,
    );
    // The job page: started when it was triggered, its duration includes the wait for the task.
    const jobPage = await admin.get(`/console/recipes/${id}/jobs/${waiting.handle}`);
    const started = /<dt>Started<\/dt><dd><time datetime="([^"]+)">/.exec(jobPage.body)?.[1];
    assert.equal(started && Date.parse(started), Date.parse(waiting.started_at));
    const seconds = Number(/<dt>Duration<\/dt><dd>([\d.]+) s<\/dd>/.exec(jobPage.body)?.[1]);
    assert.ok(seconds >= 0.02, jobPage.body.slice(0, 3000));
    assert.doesNotMatch(ended.body, /name="decision"/);
    assert.doesNotMatch((await admin.get('/console/workflow-tasks')).body, /Approve order/, 'no longer open');
    assert.match((await admin.get('/console/workflow-tasks?status=completed')).body, /Approve order/);

    const again = await admin.post(`/console/workflow-tasks/${taskId}/complete`, { decision: 'rejected' });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /already ended/);
  });

  test('a form task: fields typed by the form, a refused value shown again, then completed', async () => {
    const { id, path } = await webhookRecipe(t, [
      task('form', {
        name: 'Fill in',
        form_fields: [
          { name: 'amount', type: 'integer' },
          { name: 'note', type: 'string', optional: true },
          { name: 'ok', type: 'boolean' },
        ],
      }),
      log(
        'after',
        `#{${dp('workato_workflow_task', 'form', 'fields', 'amount')}}/#{${dp('workato_workflow_task', 'form', 'fields', 'ok')}}`,
      ),
    ]);
    const jobId = await fire(path, {});
    const taskId = await openTask(id);
    const page = await admin.get(`/console/workflow-tasks/${taskId}`);
    assert.match(page.body, /<input id="field-0" name="field_0" type="number"/);
    assert.match(page.body, /<select id="field-2" name="field_2">/);
    assert.match(page.body, /value="completed">Complete task<\/button>/);

    const refused = await admin.post(`/console/workflow-tasks/${taskId}/complete`, {
      decision: 'completed',
      field_0: 'lots',
      field_1: 'a note',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Not completed: .*(amount|ok)/i);
    assert.match(refused.body, /value="a note"/);
    assert.equal((await readJob(t, jobId)).status, 'waiting', 'the job still waits');

    const done = await admin.post(`/console/workflow-tasks/${taskId}/complete`, {
      decision: 'completed',
      field_0: '120',
      field_2: 'true',
    });
    assert.equal(done.statusCode, 303, done.body);
    await t.engine.idle();
    const job = await readJob(t, jobId);
    assert.equal(job.status, 'succeeded');
    assert.equal((job.lines.at(-1)?.output as { message?: string })?.message, '120/true');
  });

  test('a read-only token lists tasks but may not complete one: 403, the task stays open', async () => {
    const { id, path } = await webhookRecipe(t, [task('review', { name: 'Read-only check' })]);
    await fire(path, {});
    const taskId = await openTask(id);
    const page = await reader.get(`/console/workflow-tasks/${taskId}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /name="decision"/);
    const refused = await reader.post(`/console/workflow-tasks/${taskId}/complete`, { decision: 'approved' });
    assert.equal(refused.statusCode, 403);
    assert.equal((await t.call('GET', `/api/workflow_tasks/${taskId}`)).body.status, 'open');
  });

  test('bad input: unknown or foreign task, a bad decision or status, a missing CSRF token', async () => {
    const { id, path } = await webhookRecipe(t, [task('review', { name: 'Bad input check' })]);
    await fire(path, {});
    const taskId = await openTask(id);
    assert.equal((await admin.get('/console/workflow-tasks/999999')).statusCode, 404);
    assert.equal((await admin.get('/console/workflow-tasks/abc')).statusCode, 400);
    assert.equal((await admin.get('/console/workflow-tasks?status=done')).statusCode, 400);
    assert.equal(
      (await admin.post('/console/workflow-tasks/999999/complete', { decision: 'approved' })).statusCode,
      404,
    );
    const badDecision = await admin.post(`/console/workflow-tasks/${taskId}/complete`, { decision: 'maybe' });
    assert.equal(badDecision.statusCode, 400);
    assert.match(badDecision.body, /decision/);
    const formOnApproval = await admin.post(`/console/workflow-tasks/${taskId}/complete`, { decision: 'completed' });
    assert.equal(formOnApproval.statusCode, 400);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/console/workflow-tasks/${taskId}/complete`,
      payload: 'decision=approved',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin.cookie },
    });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await t.call('GET', `/api/workflow_tasks/${taskId}`)).body.status, 'open', 'nothing changed');

    const other = await t.newWorkspace('Other tasks');
    const theirs = await t.call('POST', '/api/recipes', {
      token: other.adminToken,
      body: {
        recipe: {
          name: 'Theirs',
          code: JSON.stringify(webhookTrigger([task('review', { name: 'Their secret task' })])),
        },
      },
    });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(
      (await t.call('PUT', `/api/recipes/${theirs.body.id}/start`, { token: other.adminToken })).status,
      200,
    );
    await fire(
      new URL(
        theirs.body.webhook_url ??
          (await t.call('GET', `/api/recipes/${theirs.body.id}`, { token: other.adminToken })).body.webhook_url,
      ).pathname,
      {},
    );
    const foreignTask = (await t.call('GET', '/api/workflow_tasks?status=open', { token: other.adminToken })).body
      .items[0];
    assert.equal(foreignTask.name, 'Their secret task');
    const foreign = await admin.get(`/console/workflow-tasks/${foreignTask.id}`);
    assert.equal(foreign.statusCode, 404);
    assert.doesNotMatch(foreign.body, /Their secret task/);
    assert.equal(
      (await admin.post(`/console/workflow-tasks/${foreignTask.id}/complete`, { decision: 'approved' })).statusCode,
      404,
    );
    assert.doesNotMatch((await admin.get('/console/workflow-tasks')).body, /Their secret task/);
  });
});

describe('data table authoring: /console/data-tables/new, /:id/schema, /:id/delete', () => {
  test('create a table with typed columns, rename it and a column, add and remove columns, add a row, delete it', async () => {
    const list = await admin.get('/console/data-tables');
    assert.match(list.body, /<a class="button" href="\/console\/data-tables\/new">New data table<\/a>/);
    assert.doesNotMatch((await reader.get('/console/data-tables')).body, /New data table/);
    const form = await admin.get('/console/data-tables/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="col-name-0">New column 1: name<\/label>/);
    assert.match(form.body, /<option value="date_time">Date and time<\/option>/);

    const created = await admin.post('/console/data-tables/new', {
      name: 'Authored leads',
      folder_id: '',
      col_name_0: 'email',
      col_type_0: 'string',
      col_req_0: '1',
      col_name_1: 'score',
      col_type_1: 'integer',
      col_name_2: '',
      col_type_2: 'boolean',
    });
    assert.equal(created.statusCode, 303, created.body);
    const id = Number(
      /^\/console\/data-tables\/(\d+)\?done=data_table_created$/.exec(created.headers.location as string)?.[1],
    );
    assert.ok(id > 0, created.headers.location as string);
    let table = (await t.call('GET', `/api/data_tables/${id}`)).body.data;
    assert.deepEqual(
      table.schema.map((c: { name: string; type: string; optional: boolean }) => [c.name, c.type, c.optional]),
      [
        ['email', 'string', false],
        ['score', 'integer', true],
      ],
    );
    const page = await admin.get(created.headers.location as string);
    assert.match(page.body, /Data table created: add its records\./);
    assert.match(page.body, new RegExp(`<a href="/console/data-tables/${id}/schema">Table and columns</a>`));
    // A row through the existing form.
    assert.equal(
      (await admin.post(`/console/data-tables/${id}/records`, { col_0: 'ada@example.com', col_1: '7' })).statusCode,
      303,
    );

    const schema = await admin.get(`/console/data-tables/${id}/schema`);
    assert.equal(schema.statusCode, 200);
    assert.match(schema.body, /<label for="ex-name-1">Column 2 <span class="muted small">\(Integer\)<\/span><\/label>/);
    const emailId = table.schema[0].field_id;
    const scoreId = table.schema[1].field_id;
    const saved = await admin.post(`/console/data-tables/${id}/schema`, {
      name: 'Leads (authored)',
      ex_id_0: emailId,
      ex_name_0: 'e_mail',
      ex_id_1: scoreId,
      ex_name_1: 'score',
      ex_drop_1: '1',
      col_name_0: 'vip',
      col_type_0: 'boolean',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/data-tables/${id}?done=data_table_saved`);
    table = (await t.call('GET', `/api/data_tables/${id}`)).body.data;
    assert.equal(table.name, 'Leads (authored)');
    assert.deepEqual(
      table.schema.map((c: { name: string; type: string; field_id: string }) => [c.name, c.type]),
      [
        ['e_mail', 'string'],
        ['vip', 'boolean'],
      ],
    );
    assert.equal(table.schema[0].field_id, emailId, 'a renamed column keeps its id');
    const records = (await t.call('GET', `/api/data_tables/${id}/records`)).body.data;
    assert.deepEqual(
      records[0].data,
      { e_mail: 'ada@example.com', vip: null },
      'renamed keeps values; removed is gone',
    );
    const activity = await t.call('GET', '/api/activity_logs?event_type=data_table_updated');
    assert.match(activity.text, new RegExp(`"resource_id":"${id}"`));

    const deleted = await admin.post(`/console/data-tables/${id}/delete`);
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, '/console/data-tables?done=data_table_deleted');
    assert.equal((await t.call('GET', `/api/data_tables/${id}`)).status, 404);
    assert.match((await admin.get(deleted.headers.location as string)).body, /Data table deleted\./);
  });

  test('refusals on the field they are about, what was typed kept; roles, CSRF, unknown ids', async () => {
    const count = async () => (await t.call('GET', '/api/data_tables')).body.data.length;
    const before = await count();
    const noColumns = await admin.post('/console/data-tables/new', { name: 'Empty' });
    assert.equal(noColumns.statusCode, 400);
    assert.match(noColumns.body, /Columns is required/);
    const twice = await admin.post('/console/data-tables/new', {
      name: 'Twice',
      col_name_0: 'a',
      col_name_1: '',
      col_name_2: 'A',
    });
    assert.equal(twice.statusCode, 400);
    assert.match(
      twice.body,
      /<input id="col-name-2" name="col_name_2" value="A" maxlength="255" autocomplete="off" aria-invalid="true" aria-describedby="col-name-2-error">/,
    );
    assert.match(twice.body, /id="col-name-2-error">Column 3 name is given twice/);
    const blank = await admin.post('/console/data-tables/new', { name: ' ', col_name_0: 'a' });
    assert.equal(blank.statusCode, 400);
    assert.match(
      blank.body,
      /<input id="dt-name" name="name" required maxlength="255" aria-describedby="dt-name-error" aria-invalid="true"/,
    );
    const badFolder = await admin.post('/console/data-tables/new', { name: 'F', folder_id: 'x', col_name_0: 'a' });
    assert.equal(badFolder.statusCode, 400);
    assert.match(badFolder.body, /Folder id must be a whole number/);
    const unknownFolder = await admin.post('/console/data-tables/new', {
      name: 'F',
      folder_id: '999999',
      col_name_0: 'a',
    });
    assert.ok(unknownFolder.statusCode === 404 || unknownFolder.statusCode === 400, String(unknownFolder.statusCode));
    assert.equal(await count(), before, 'nothing was created');

    const made = await t.call('POST', '/api/data_tables', {
      body: { name: 'Typed', schema: [{ name: 'n', type: 'integer' }] },
    });
    const id = made.body.data.id;
    const taken = await t.call('POST', '/api/data_tables', {
      body: { name: 'Taken', schema: [{ name: 'x', type: 'string' }] },
    });
    assert.equal(taken.status, 200);
    const renamedToTaken = await admin.post(`/console/data-tables/${id}/schema`, {
      name: 'Taken',
      ex_id_0: made.body.data.schema[0].field_id,
      ex_name_0: 'n',
    });
    assert.equal(renamedToTaken.statusCode, 422);
    assert.match(renamedToTaken.body, /value="Taken"/);
    const allRemoved = await admin.post(`/console/data-tables/${id}/schema`, {
      name: 'Typed',
      ex_id_0: made.body.data.schema[0].field_id,
      ex_name_0: 'n',
      ex_drop_0: '1',
    });
    assert.equal(allRemoved.statusCode, 400, 'a table keeps at least one column');
    assert.equal((await t.call('GET', `/api/data_tables/${id}`)).body.data.schema.length, 1);

    assert.equal((await admin.get('/console/data-tables/999999/schema')).statusCode, 404);
    assert.equal((await admin.post('/console/data-tables/999999/delete')).statusCode, 404);
    assert.equal((await reader.get('/console/data-tables/new')).statusCode, 403);
    assert.equal((await reader.post('/console/data-tables/new', { name: 'R', col_name_0: 'a' })).statusCode, 403);
    assert.equal((await reader.get(`/console/data-tables/${id}/schema`)).statusCode, 403);
    assert.equal((await reader.post(`/console/data-tables/${id}/delete`)).statusCode, 403);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/console/data-tables/${id}/delete`,
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await t.call('GET', `/api/data_tables/${id}`)).status, 200, 'still there');
  });
});
