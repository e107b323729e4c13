// Workflow apps through HTTP and recipe runs: the apps API with its bad input; new requests (records
// of the app's table) starting jobs of new_requests_realtime; change_workflow_stage and
// update_request moving and changing them; app functions called as a page's drop-down does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, createRecipe, numbered, pill, readJob, startRecipe, type StepDoc } from '../../../test/recipes.ts';

let t: TestApp;
let tableId = 0;
const TITLE = '0a6f3c52-7d1e-4b8a-9c2d-3e4f5a6b7c81';
const AMOUNT = '1b7e4d63-8e2f-4c9b-8d3e-4f5a6b7c8d92';

before(async () => {
  t = await createTestApp();
  const table = await t.call('POST', '/api/data_tables', {
    body: {
      name: 'Laptop requests',
      schema: [
        { name: 'title', field_id: TITLE, type: 'string' },
        { name: 'amount', field_id: AMOUNT, type: 'decimal' },
      ],
    },
  });
  assert.equal(table.status, 200, table.text);
  tableId = table.body.data.id;
});
after(() => t.close());

async function newApp(name: string, stages: unknown = ['New', 'In progress', 'Done']) {
  const res = await t.call('POST', '/api/workflow_apps', { body: { name, data_table_id: tableId, stages } });
  assert.equal(res.status, 200, res.text);
  return res.body as { id: number; stages: Array<{ id: string; name: string }> };
}

async function addRecord(title: string, amount: number): Promise<string> {
  const res = await t.call('POST', `/api/data_tables/${tableId}/records`, { body: { data: { title, amount } } });
  assert.equal(res.status, 200, res.text);
  return res.body.data.record_id as string;
}

async function latestJob(recipeId: number) {
  await t.engine.idle();
  const row = await t.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('recipe_id', '=', recipeId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row ? readJob(t, row.id) : undefined;
}

const request = (...path: string[]) => pill('workato_workflow_task', 'req', 'request', ...path);

function requestRecipe(app: unknown, block: StepDoc[]): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'workato_workflow_task',
    name: 'new_requests_realtime',
    as: 'req',
    input: { app_id: app },
    block,
  });
}

describe('/api/workflow_apps', () => {
  test('create, read, list, rename, change stages, delete', async () => {
    const app = await newApp('Purchases', ['New', { id: 'review', name: 'Under review' }, 'Done']);
    assert.deepEqual(app.stages, [
      { id: 'new', name: 'New' },
      { id: 'review', name: 'Under review' },
      { id: 'done', name: 'Done' },
    ]);
    const one = await t.call('GET', `/api/workflow_apps/${app.id}`);
    assert.equal(one.body.data_table_id, tableId);
    const list = await t.call('GET', '/api/workflow_apps');
    assert.ok((list.body.items as Array<{ id: number }>).some((a) => a.id === app.id));
    const renamed = await t.call('PUT', `/api/workflow_apps/${app.id}`, {
      body: { name: 'Buying', stages: ['New', 'Done'] },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Buying');
    assert.equal(renamed.body.stages.length, 2);
    assert.deepEqual((await t.call('DELETE', `/api/workflow_apps/${app.id}`)).body, { success: true });
    assert.equal((await t.call('GET', `/api/workflow_apps/${app.id}`)).status, 404);
  });

  test('bad input: no stages, a stage twice, an unknown table, a taken name, wrong types, unknown ids', async () => {
    const noStages = await t.call('POST', '/api/workflow_apps', {
      body: { name: 'X', data_table_id: tableId, stages: [] },
    });
    assert.equal(noStages.status, 400);
    const twice = await t.call('POST', '/api/workflow_apps', {
      body: { name: 'X', data_table_id: tableId, stages: ['New', 'new'] },
    });
    assert.equal(twice.status, 400);
    assert.match(JSON.stringify(twice.body.errors), /names the stage/);
    const table = await t.call('POST', '/api/workflow_apps', {
      body: { name: 'X', data_table_id: 999999, stages: ['A'] },
    });
    assert.equal(table.status, 400);
    assert.deepEqual(table.body.errors, { data_table_id: ['does not name a data table of this environment'] });
    await newApp('Taken');
    const taken = await t.call('POST', '/api/workflow_apps', {
      body: { name: 'taken', data_table_id: tableId, stages: ['A'] },
    });
    assert.equal(taken.status, 422);
    const types = await t.call('POST', '/api/workflow_apps', {
      body: { name: 5, data_table_id: tableId, stages: 'A' },
    });
    assert.equal(types.status, 400);
    assert.equal((await t.call('PUT', '/api/workflow_apps/999999', { body: { name: 'Y' } })).status, 404);
    assert.equal((await t.call('GET', '/api/workflow_apps/abc')).status, 400);
    const before = await t.ctx.db.selectFrom('workflow_apps').select('id').execute();
    const change = await t.call('PUT', `/api/workflow_apps/${before[0]?.id}`, { body: { data_table_id: 3 } });
    assert.equal(change.status, 400);
  });
});

describe('workato_workflow_task requests and stages', () => {
  test('a new record of the app is a new request: new_requests_realtime starts a job at the first stage', async () => {
    const app = await newApp('Laptops');
    const id = await createRecipe(
      t,
      requestRecipe({ zip_name: 'laptops.lcap_app.json', name: 'Laptops', folder: '' }, [
        action('logger', 'log_message', 'seen', { message: `${request('title')} at ${request('stage', 'name')}` }),
        action('workato_workflow_task', 'change_workflow_stage', 'move', {
          project_id: { zip_name: 'laptops.lcap_app.json', name: 'Laptops', folder: '' },
          record_id: request('record_id'),
          workflow_stage_id: { name: 'In progress' },
        }),
      ]),
    );
    await startRecipe(t, id);
    const recordId = await addRecord('MacBook for Ada', 2400);
    const job = await latestJob(id);
    assert.equal(job?.status, 'succeeded', job?.error ?? '');
    const trigger = job?.output(0) as { record_id: string; stage: unknown; request: Record<string, unknown> };
    assert.equal(trigger.record_id, recordId);
    assert.deepEqual(trigger.stage, { id: 'new', name: 'New' });
    assert.equal(trigger.request.title, 'MacBook for Ada');
    assert.equal(trigger.request.amount, 2400);
    assert.deepEqual(job?.output(1), { message: 'MacBook for Ada at New' });
    assert.deepEqual(job?.output(2), { record_id: recordId, stage: { id: 'in_progress', name: 'In progress' } });
    const seen = await t.call('GET', `/api/workflow_apps/${app.id}/requests/${recordId}`);
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(seen.body.stage, { id: 'in_progress', name: 'In progress' });
    assert.equal(seen.body.record.data.title, 'MacBook for Ada');
    assert.equal((await t.call('GET', `/api/workflow_apps/${app.id}/requests/nope`)).status, 404);
    await t.call('PUT', `/api/recipes/${id}/stop`);
  });

  test('update_request changes fields and the stage; a stage that does not exist fails the step and changes nothing', async () => {
    const app = await newApp('Monitors');
    const recordId = await addRecord('Monitor', 300);
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'hook',
        input: {},
        block: [
          action('workato_workflow_task', 'update_request', 'upd', {
            app_id: String(app.id),
            record_id: pill('workato_webhooks', 'hook', 'payload', 'id'),
            workflow_stage_id: 'done',
            parameters: { [AMOUNT.replaceAll('-', '_')]: pill('workato_webhooks', 'hook', 'payload', 'amount') },
          }),
          action('workato_workflow_task', 'change_workflow_stage', 'bad', {
            app_id: 'Monitors',
            record_id: pill('workato_webhooks', 'hook', 'payload', 'id'),
            workflow_stage_id: { name: 'Archived' },
          }),
        ],
      }),
    );
    await startRecipe(t, id);
    const hook = new URL((await t.call('GET', `/api/recipes/${id}`)).body.webhook_url as string).pathname;
    await t.app.inject({ method: 'POST', url: hook, payload: { id: recordId, amount: 350 } });
    const job = await latestJob(id);
    const upd = job?.output(1) as { request: Record<string, unknown> };
    assert.equal(upd.request.amount, 350);
    assert.deepEqual(upd.request.stage, { id: 'done', name: 'Done' });
    assert.equal(job?.status, 'failed');
    assert.equal(job?.errorType, 'Bad request');
    assert.match(
      job?.error ?? '',
      /workflow stage "Archived" does not exist in Monitors \(stages: New, In progress, Done\)/,
    );
    const seen = await t.call('GET', `/api/workflow_apps/${app.id}/requests/${recordId}`);
    assert.deepEqual(seen.body.stage, { id: 'done', name: 'Done' });
    assert.equal(seen.body.record.data.amount, 350);

    await t.app.inject({ method: 'POST', url: hook, payload: { id: 'no-such-record', amount: 1 } });
    const missing = await latestJob(id);
    assert.equal(missing?.errorType, 'Not found');
    await t.app.inject({ method: 'POST', url: hook, payload: { id: recordId, amount: 'lots' } });
    const wrongType = await latestJob(id);
    assert.equal(wrongType?.errorType, 'Bad request');
    assert.match(wrongType?.error ?? '', /amount/);
    assert.equal(
      (await t.call('GET', `/api/workflow_apps/${app.id}/requests/${recordId}`)).body.record.data.amount,
      350,
    );
  });

  test('missing fields are code errors at start: change_workflow_stage without a stage, update_request without a record', async () => {
    await newApp('Chairs');
    const id = await createRecipe(
      t,
      requestRecipe('Chairs', [
        action('workato_workflow_task', 'change_workflow_stage', 'move', {
          app_id: 'Chairs',
          record_id: request('record_id'),
        }),
        action('workato_workflow_task', 'update_request', 'upd', { app_id: 'Chairs' }),
      ]),
    );
    const start = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(start.body.success, false);
    assert.deepEqual(start.body.code_errors, [
      [1, [['Workflow stage', null, "can't be blank", 'workflow_stage_id']]],
      [2, [['Record ID', null, "can't be blank", 'record_id']]],
    ]);
  });

  test('a trigger naming no Workflow app is a code error at start', async () => {
    const id = await createRecipe(t, requestRecipe({ name: 'Nowhere' }, []));
    const start = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(start.body.success, false);
    assert.match(JSON.stringify(start.body.code_errors), /does not name a Workflow app of this environment/);
  });
});

function dropdownRecipe(block: StepDoc[], mark = true): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'workato_workflow_task',
    name: 'app_function_load_dropdown_request',
    as: 'dd',
    input: mark ? { _app_function_load_dropdown_request_trigger_mark: true, parameters_schema_json: '[]' } : {},
    block,
  });
}

describe('POST /api/workflow_apps/app_functions/:recipe_id', () => {
  test('a drop-down app function: parameters, search text and user in; its items out', async () => {
    const id = await createRecipe(
      t,
      dropdownRecipe([
        action('workato_workflow_task', 'app_function_return', 'ret', {
          items: {
            ____source: pill('workato_workflow_task', 'dd', 'parameters', 'options'),
            value: `#{_dp('{"pill_type":"output","provider":"workato_workflow_task","line":"dd","path":["parameters","options",{"path_element_type":"current_item"},"code"]}')}`,
            label: `=_dp('{"pill_type":"output","provider":"workato_workflow_task","line":"dd","path":["parameters","options",{"path_element_type":"current_item"},"code"]}').upcase + ' / ' + _dp('{"pill_type":"output","provider":"workato_workflow_task","line":"dd","path":["search_query"]}')`,
          },
        }),
      ]),
    );
    await startRecipe(t, id);
    const res = await t.call('POST', `/api/workflow_apps/app_functions/${id}`, {
      body: {
        parameters: { options: [{ code: 'mac' }, { code: 'pc' }] },
        search_query: 'la',
        user: { email: 'ada@example.com', name: 'Ada' },
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {
      items: [
        { value: 'mac', label: 'MAC / la' },
        { value: 'pc', label: 'PC / la' },
      ],
    });
    const job = await latestJob(id);
    assert.equal(job?.status, 'succeeded');
    assert.equal((job?.output(0) as { context: { user: { email: string } } }).context.user.email, 'ada@example.com');
  });

  test('without its trigger mark the recipe does not start; not running, not an app function, failing: clear errors', async () => {
    const unmarked = await createRecipe(t, dropdownRecipe([], false));
    const start = await t.call('PUT', `/api/recipes/${unmarked}/start`);
    assert.match(JSON.stringify(start.body.code_errors), /Trigger mark.*is not set in input field/);
    assert.equal((await t.call('POST', `/api/workflow_apps/app_functions/${unmarked}`, { body: {} })).status, 404);
    assert.equal((await t.call('POST', '/api/workflow_apps/app_functions/999999', { body: {} })).status, 404);
    const failing = await createRecipe(
      t,
      dropdownRecipe([action('workato_workflow_task', 'app_function_return', 'ret', { items: 'not a list' })]),
    );
    await startRecipe(t, failing);
    const res = await t.call('POST', `/api/workflow_apps/app_functions/${failing}`, { body: {} });
    assert.equal(res.status, 422);
    assert.equal(res.body.message, 'The app function failed: Bad request: items must be a list');
    const badBody = await t.call('POST', `/api/workflow_apps/app_functions/${failing}`, { body: { parameters: 'x' } });
    assert.equal(badBody.status, 400);
  });
});
