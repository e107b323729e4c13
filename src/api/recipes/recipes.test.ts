import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { up as versionsForExistingRecipes } from '../../db/migrations/0011_recipe_versions_current.ts';
import { findRecipeVersionContent } from './recipes.store.ts';
import {
  action,
  createRecipe,
  dp,
  fire,
  log,
  numbered,
  startRecipe,
  webhookRecipe,
  webhookTrigger,
} from '../../../test/recipes.ts';

let t: TestApp;
let readOnly: string;
let noRecipes: string;

before(async () => {
  t = await createTestApp();
  readOnly = await t.tokenFor('Read only');
  noRecipes = await t.tokenWith('Jobs only', ['jobs:read']);
});
after(() => t.close());

const simple = () => webhookTrigger([log('note', 'hello')]);
/** RECIPE_BODY_LIMIT_BYTES by default. */
const RECIPE_LIMIT = 32 * 1024 * 1024;

async function recipeCount(): Promise<number> {
  return (
    await t.ctx.db
      .selectFrom('recipes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n;
}

async function snapshot(id: number) {
  return (await t.call('GET', `/api/recipes/${id}`)).body;
}

const FIXTURES = new URL('../../../test/fixtures/recipes/dewy-resort/orchestrator-recipes', import.meta.url).pathname;
function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${FIXTURES}/${name}.recipe.json`, 'utf8')) as Record<string, unknown>;
}

describe('POST /api/recipes', () => {
  test('creates a stopped recipe, version 1, with the code stored exactly as sent', async () => {
    const code = JSON.stringify(simple(), null, 2);
    const res = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: '  Orders  ', code, description: 'desc' } },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'success']);
    const recipe = await snapshot(res.body.id);
    assert.equal(recipe.code, code);
    assert.equal(recipe.name, 'Orders');
    assert.equal(recipe.running, false);
    assert.equal(recipe.version_no, 1);
    assert.equal(recipe.trigger_application, 'workato_webhooks');
    assert.deepEqual(recipe.action_applications, ['logger']);
    assert.deepEqual(recipe.applications, ['workato_webhooks', 'logger']);
    assert.deepEqual(
      recipe.config.map((c: { provider: string }) => c.provider),
      ['workato_webhooks', 'logger'],
    );
    assert.match(recipe.webhook_url, /\/webhooks\/rest\/[0-9a-f]{24}\/event$/);
  });

  test('accepts the unwrapped form, code as an object and config as an array', async () => {
    const code = simple();
    const res = await t.call('POST', '/api/recipes', {
      body: { name: 'Unwrapped', code, config: [{ keyword: 'application', provider: 'logger', account_id: null }] },
    });
    assert.equal(res.status, 200);
    const recipe = await snapshot(res.body.id);
    assert.deepEqual(JSON.parse(recipe.code), code);
    assert.deepEqual(recipe.config, [
      { keyword: 'application', name: 'logger', provider: 'logger', skip_validation: false, account_id: null },
    ]);
  });

  test('imports an exported recipe unchanged (export form as the body), and the API read form', async () => {
    const doc = fixture('check_in_guest');
    const res = await t.call('POST', '/api/recipes', { body: doc });
    assert.equal(res.status, 200, res.text);
    const recipe = await snapshot(res.body.id);
    assert.equal(recipe.name, doc.name);
    assert.deepEqual(JSON.parse(recipe.code), doc.code);
    assert.equal(recipe.trigger_application, 'workato_api_platform');
    assert.deepEqual(recipe.action_applications, ['workato_recipe_function', 'workato_api_platform', 'logger']);

    const readForm = {
      recipe_id: 99,
      code: JSON.stringify(simple()),
      version: {
        config: JSON.stringify([{ keyword: 'application', provider: 'logger', account_id: null }]),
        worker_concurrency: 2,
        name: 'From read form',
      },
    };
    const again = await t.call('POST', '/api/recipes', { body: readForm });
    assert.equal(again.status, 200, again.text);
    const copied = await snapshot(again.body.id);
    assert.equal(copied.name, 'From read form');
    assert.deepEqual(
      copied.config.map((c: { provider: string }) => c.provider),
      ['logger'],
    );

    const tree = simple();
    const wrapped = await t.call('POST', '/api/recipes', { body: { result: tree, name: 'Result form' } });
    assert.equal(wrapped.status, 200, wrapped.text);
    assert.deepEqual(JSON.parse((await snapshot(wrapped.body.id)).code), tree);
  });

  test('with recipe_id and no code it copies that recipe', async () => {
    const source = await createRecipe(t, simple());
    const res = await t.call('POST', '/api/recipes', { body: { recipe_id: String(source), name: 'Catalog copy' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, res.body.new_flow_id);
    const copy = await snapshot(res.body.id);
    assert.equal(copy.name, 'Catalog copy');
    assert.equal((await snapshot(source)).copy_count, 1);
  });

  test('bad input: a 400 naming the field (or 404 for the folder), and no recipe is created', async () => {
    const before = await recipeCount();
    const cases: Array<[unknown, number, string]> = [
      [{ recipe: { name: 'no code' } }, 400, 'code'],
      [{ recipe: { code: '{"keyword": "trigger",' } }, 400, 'code'],
      [{ recipe: { code: '[1, 2]' } }, 400, 'code'],
      [{ recipe: { code: '{"foo": 1}' } }, 400, 'code'],
      [{ recipe: { code: JSON.stringify(simple()), config: '{bad' } }, 400, 'config'],
      [{ recipe: { code: JSON.stringify(simple()), config: '{"a": 1}' } }, 400, 'config'],
      [{ recipe: { code: JSON.stringify(simple()), config: [{ account_id: 1 }] } }, 400, 'config'],
      [{ recipe: { code: JSON.stringify(simple()), name: '   ' } }, 400, 'name'],
      [{ recipe: { code: JSON.stringify(simple()), name: 'x'.repeat(256) } }, 400, 'name'],
      [{ recipe: { code: JSON.stringify(simple()), name: 42 } }, 400, 'name'],
      [{ recipe: { code: 42 } }, 400, 'code'],
      [{ recipe: { code: JSON.stringify(simple()), concurrency: 0 } }, 400, 'concurrency'],
      [{ recipe: { code: JSON.stringify(simple()), folder_id: 'abc' } }, 400, 'folder_id'],
      [{ recipe: { code: JSON.stringify(simple()), folder_id: 999999 } }, 404, 'folder_id'],
      [{ recipe_id: 999999 }, 404, ''],
    ];
    for (const [body, status, field] of cases) {
      const res = await t.call('POST', '/api/recipes', { body });
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
      if (field) assert.ok(res.body.errors?.[field] || res.body.message.includes(field), `names ${field}: ${res.text}`);
    }
    const malformed = await t.call('POST', '/api/recipes', {
      raw: '{"recipe": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    const form = await t.call('POST', '/api/recipes', {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    const tooBig = await t.call('POST', '/api/recipes', {
      body: { recipe: { code: JSON.stringify({ ...simple(), pad: 'x'.repeat(RECIPE_LIMIT + 1) }) } },
    });
    assert.equal(tooBig.status, 413);
    assert.equal(await recipeCount(), before);
  });

  test('401 without a token, 403 without recipes:write', async () => {
    const before = await recipeCount();
    assert.equal(
      (await t.call('POST', '/api/recipes', { token: null, body: { recipe: { code: JSON.stringify(simple()) } } }))
        .status,
      401,
    );
    const denied = await t.call('POST', '/api/recipes', {
      token: readOnly,
      body: { recipe: { code: JSON.stringify(simple()) } },
    });
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /recipes:write/);
    assert.equal(await recipeCount(), before);
  });
});

describe('GET /api/recipes/:id', () => {
  test('every field a strict client needs, with its type', async () => {
    const id = await createRecipe(t, simple());
    const res = await t.call('GET', `/api/recipes/${id}?includes[]=tags`);
    assert.equal(res.status, 200);
    const r = res.body;
    for (const key of [
      'id',
      'user_id',
      'folder_id',
      'copy_count',
      'job_succeeded_count',
      'job_failed_count',
      'lifetime_task_count',
      'version_no',
    ])
      assert.equal(typeof r[key], 'number', key);
    for (const key of [
      'name',
      'description',
      'code',
      'author_name',
      'version_author_name',
      'version_author_email',
      'created_at',
      'updated_at',
    ])
      assert.equal(typeof r[key], 'string', key);
    for (const key of ['action_applications', 'applications', 'parameters_schema', 'config'])
      assert.ok(Array.isArray(r[key]), key);
    assert.deepEqual(r.parameters, {});
    for (const key of ['webhook_url', 'stop_cause', 'trigger_closure', 'version_comment']) assert.ok(key in r, key);
    assert.deepEqual(r.tags, []);
    assert.match(r.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.tags, undefined);
  });

  test('404 for an unknown id and for a recipe of another workspace or environment; 400 for a non-numeric id', async () => {
    const id = await createRecipe(t, simple());
    assert.equal((await t.call('GET', '/api/recipes/999999')).status, 404);
    const other = await t.newWorkspace('Other recipes');
    assert.equal((await t.call('GET', `/api/recipes/${id}`, { token: other.adminToken })).status, 404);
    const prod = await t.tokenFor('Admin', 'prod');
    assert.equal((await t.call('GET', `/api/recipes/${id}`, { token: prod })).status, 404);
    assert.equal((await t.call('GET', '/api/recipes/abc')).status, 400);
    assert.equal((await t.call('GET', `/api/recipes/${id}`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/recipes/${id}`, { token: noRecipes })).status, 403);
  });

  test('project scope: a client limited to one project sees only its recipes', async () => {
    const p1 = await t.createProject('Recipes P1');
    const p2 = await t.createProject('Recipes P2');
    const inP1 = await createRecipe(t, simple(), { folder_id: p1.folderId });
    const inP2 = await createRecipe(t, simple(), { folder_id: p2.folderId });
    const { token } = await t.scopedClient([p1.folderId]);
    assert.equal((await t.call('GET', `/api/recipes/${inP1}`, { token })).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${inP2}`, { token })).status, 404);
    const list = await t.call('GET', '/api/recipes', { token });
    assert.deepEqual(
      list.body.items.map((r: { id: number }) => r.id),
      [inP1],
    );
    assert.equal((await snapshot(inP1)).project_id, p1.projectId);
    // Without a folder, such a client cannot create (Home is outside every project).
    assert.equal(
      (await t.call('POST', '/api/recipes', { token, body: { recipe: { code: JSON.stringify(simple()) } } })).status,
      400,
    );
  });
});

describe('GET /api/recipes', () => {
  test('newest first in an items envelope; filters; paging', async () => {
    const folder = await t.call('POST', '/api/folders', { body: { name: 'List filters' } });
    const a = await createRecipe(
      t,
      webhookTrigger([action('rest', 'make_request_v2', 'r', { request: { url: 'http://127.0.0.1:1/' } })]),
      { folder_id: folder.body.id },
    );
    const b = await createRecipe(t, simple(), { folder_id: folder.body.id });
    await startRecipe(t, b);
    const inFolder = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}`);
    assert.deepEqual(
      inFolder.body.items.map((r: { id: number }) => r.id),
      [b, a],
    );
    const running = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&running=true`);
    assert.deepEqual(
      running.body.items.map((r: { id: number }) => r.id),
      [b],
    );
    const stopped = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&active=false`);
    assert.deepEqual(
      stopped.body.items.map((r: { id: number }) => r.id),
      [a],
    );
    const any = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&adapter_names_any=rest,nothing`);
    assert.deepEqual(
      any.body.items.map((r: { id: number }) => r.id),
      [a],
    );
    const all = await t.call(
      'GET',
      `/api/recipes?folder_id=${folder.body.id}&adapter_names_all=workato_webhooks,logger`,
    );
    assert.deepEqual(
      all.body.items.map((r: { id: number }) => r.id),
      [b],
    );
    const since = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&since_id=${b}`);
    assert.deepEqual(
      since.body.items.map((r: { id: number }) => r.id),
      [a],
    );
    const noCode = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&exclude_code=true`);
    assert.equal(noCode.body.items[0].code, '');
    const page = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&per_page=1&page=2`);
    assert.deepEqual(
      page.body.items.map((r: { id: number }) => r.id),
      [a],
    );
    const future = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&updated_after=2999-01-01T00:00:00Z`);
    assert.deepEqual(future.body.items, []);
    const cause = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&stop_cause=trial_expired`);
    assert.deepEqual(cause.body.items, []);
    await t.call('PUT', `/api/recipes/${b}/stop`);
    const stoppedBefore = await t.call(
      'GET',
      `/api/recipes?folder_id=${folder.body.id}&stopped_after=2000-01-01T00:00:00Z`,
    );
    assert.deepEqual(
      stoppedBefore.body.items.map((r: { id: number }) => r.id),
      [a],
    );
  });

  test('order=activity puts recently run recipes first', async () => {
    const folder = await t.call('POST', '/api/folders', { body: { name: 'Activity' } });
    const older = await webhookRecipe(t, [log('n', 'x')], { folder_id: folder.body.id });
    await createRecipe(t, simple(), { folder_id: folder.body.id });
    await fire(t, older.path, {});
    const res = await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&order=activity`);
    assert.equal(res.body.items[0].id, older.id);
  });

  test('bad filters are a 400 naming the parameter; 401; 403', async () => {
    const badFilters: Array<[string, string]> = [
      ['order=newest', 'order'],
      ['running=maybe', 'running'],
      ['since_id=abc', 'since_id'],
      ['updated_after=yesterday', 'updated_after'],
      ['stop_cause=bored', 'stop_cause'],
      ['adapter_names_any=a%20b', 'adapter_names_any'],
      ['folder_id=x', 'folder_id'],
    ];
    for (const [query, field] of badFilters) {
      const res = await t.call('GET', `/api/recipes?${query}`);
      assert.equal(res.status, 400, query);
      assert.ok(res.body.errors[field], query);
    }
    assert.equal((await t.call('GET', '/api/recipes', { token: null })).status, 401);
    assert.equal((await t.call('GET', '/api/recipes', { token: noRecipes })).status, 403);
    assert.equal((await t.call('GET', '/api/recipes', { token: readOnly })).status, 200);
  });
});

describe('POST /api/recipes/:id/copy', () => {
  test('copies code, config and folder; new name, version 1, no jobs; the source counts the copy', async () => {
    const { id, path } = await webhookRecipe(t, [log('n', 'x')]);
    await fire(t, path, {});
    const res = await t.call('POST', `/api/recipes/${id}/copy`, { body: {} });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['new_flow_id', 'success']);
    const source = await snapshot(id);
    const copy = await snapshot(res.body.new_flow_id);
    assert.equal(copy.name, `Copy of ${source.name}`);
    assert.equal(copy.code, source.code);
    assert.deepEqual(copy.config, source.config);
    assert.equal(copy.running, false);
    assert.equal(copy.job_succeeded_count, 0);
    assert.equal(copy.copy_count, 0);
    assert.equal(source.copy_count, 1);
    assert.notEqual(copy.webhook_url, source.webhook_url);
    const folder = await t.call('POST', '/api/folders', { body: { name: 'Copies' } });
    const moved = await t.call('POST', `/api/recipes/${id}/copy`, { body: { folder_id: String(folder.body.id) } });
    assert.equal((await snapshot(moved.body.new_flow_id)).folder_id, folder.body.id);
  });

  test('404 for an unknown recipe or folder; 400 for bad input; nothing is created', async () => {
    const id = await createRecipe(t, simple());
    const before = await recipeCount();
    assert.equal((await t.call('POST', '/api/recipes/999999/copy', { body: {} })).status, 404);
    assert.equal((await t.call('POST', `/api/recipes/${id}/copy`, { body: { folder_id: 999999 } })).status, 404);
    assert.equal((await t.call('POST', `/api/recipes/${id}/copy`, { body: { folder_id: 'x' } })).status, 400);
    assert.equal((await t.call('POST', `/api/recipes/${id}/copy`, { body: { name: '' } })).status, 400);
    assert.equal((await t.call('POST', `/api/recipes/${id}/copy`, { token: readOnly, body: {} })).status, 403);
    assert.equal(await recipeCount(), before);
  });
});

describe('PUT /api/recipes/:id', () => {
  test('a change of code, config, name or description makes a new version; a folder move does not', async () => {
    const id = await createRecipe(t, simple());
    const res = await t.call('PUT', `/api/recipes/${id}`, { body: { recipe: { name: 'Renamed' } } });
    assert.deepEqual(res.body, { success: true });
    assert.equal((await snapshot(id)).version_no, 2);
    await t.call('PUT', `/api/recipes/${id}`, { body: { code: webhookTrigger([log('other', 'changed')]) } });
    const after = await snapshot(id);
    assert.equal(after.version_no, 3);
    assert.match(after.code, /changed/);
    const folder = await t.call('POST', '/api/folders', { body: { name: 'Moved here' } });
    await t.call('PUT', `/api/recipes/${id}`, { body: { folder_id: folder.body.id } });
    const moved = await snapshot(id);
    assert.equal(moved.folder_id, folder.body.id);
    assert.equal(moved.version_no, 3);
    const versions = await t.ctx.db
      .selectFrom('recipe_versions')
      .select('version_no')
      .where('recipe_id', '=', id)
      .orderBy('version_no')
      .execute();
    assert.deepEqual(
      versions.map((v) => v.version_no),
      [1, 2, 3],
    );
  });

  test('a running recipe refuses updates with 200 success: false, and stays as it was', async () => {
    const { id } = await webhookRecipe(t, [log('n', 'x')]);
    const before = await snapshot(id);
    const res = await t.call('PUT', `/api/recipes/${id}`, { body: { recipe: { name: 'Nope' } } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: false, errors: { running: ["can't modify running recipe"] } });
    assert.deepEqual(await snapshot(id), before);
  });

  test('bad input: 400 and nothing changed; 404; 401; 403', async () => {
    const id = await createRecipe(t, simple());
    const before = await snapshot(id);
    for (const body of [
      { recipe: { code: '{oops' } },
      { recipe: { config: 'nope' } },
      { name: '' },
      {},
      { recipe: { concurrency: 'x' } },
      { folder_id: 999999 },
    ]) {
      const res = await t.call('PUT', `/api/recipes/${id}`, { body });
      assert.ok(res.status === 400 || res.status === 404, `${JSON.stringify(body)} -> ${res.status}`);
    }
    assert.deepEqual(await snapshot(id), before);
    assert.equal((await t.call('PUT', '/api/recipes/999999', { body: { name: 'x' } })).status, 404);
    assert.equal((await t.call('PUT', `/api/recipes/${id}`, { token: null, body: { name: 'x' } })).status, 401);
    assert.equal((await t.call('PUT', `/api/recipes/${id}`, { token: readOnly, body: { name: 'x' } })).status, 403);
    assert.deepEqual(await snapshot(id), before);
  });
});

describe('DELETE /api/recipes/:id', () => {
  test('deletes a stopped recipe with its versions and jobs', async () => {
    const { id, path } = await webhookRecipe(t, [log('n', 'x')]);
    await fire(t, path, {});
    await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.deepEqual((await t.call('DELETE', `/api/recipes/${id}`)).body, { success: true });
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).status, 404);
    assert.equal((await t.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', id).execute()).length, 0);
    assert.equal(
      (await t.ctx.db.selectFrom('recipe_versions').select('id').where('recipe_id', '=', id).execute()).length,
      0,
    );
  });

  test('a running recipe is refused with 200 success: false; 404; 401; 403', async () => {
    const { id } = await webhookRecipe(t, [log('n', 'x')]);
    const res = await t.call('DELETE', `/api/recipes/${id}`);
    assert.deepEqual(res.body, {
      success: false,
      errors: { running: ["Can't change the recipe state: invalid state running"] },
    });
    assert.equal((await snapshot(id)).running, true);
    assert.equal((await t.call('DELETE', '/api/recipes/999999')).status, 404);
    assert.equal((await t.call('DELETE', `/api/recipes/${id}`, { token: null })).status, 401);
    assert.equal((await t.call('DELETE', `/api/recipes/${id}`, { token: readOnly })).status, 403);
  });
});

describe('PUT /api/recipes/:id/start', () => {
  test('starts a valid recipe: running at once, its webhook answers', async () => {
    const id = await createRecipe(t, simple());
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.deepEqual(res.body, { success: true });
    const recipe = await snapshot(id);
    assert.equal(recipe.running, true);
    const hook = await t.app.inject({ method: 'POST', url: new URL(recipe.webhook_url).pathname, payload: {} });
    assert.equal(hook.statusCode, 200);
    assert.deepEqual(JSON.parse(hook.body), { status: 'ok' });
    const again = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(again.status, 400);
    assert.equal(again.body.message, "Can't change the recipe state: invalid state running");
  });

  test('code errors: unknown keyword, provider and action, a pill to a missing step, formula syntax, a blank required input', async () => {
    const code = numbered({
      keyword: 'trigger',
      provider: 'workato_webhooks',
      name: 'new_event',
      as: 'hook',
      input: {},
      block: [
        { keyword: 'loop_forever', input: {} },
        action('acme_erp', 'search_orders', 'erp', {}),
        action('logger', 'send_invoicez', 'bad_name', {}),
        log('pill', `#{${dp('rest', 'ghost', 'body')}}`),
        log('syntax', "='a' +"),
        action('logger', 'log_message', 'blank', {}),
        log('method', '=now.frobnicate'),
      ],
    });
    const id = await createRecipe(t, code);
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.deepEqual(res.body.config_errors, []);
    const byStep = new Map<number, unknown[][]>(res.body.code_errors);
    assert.deepEqual([...byStep.keys()], [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(byStep.get(1)?.[0]?.slice(0, 3), ['keyword', 'loop_forever', 'is invalid']);
    assert.equal(byStep.get(2)?.[0]?.[0], 'provider');
    assert.deepEqual(byStep.get(3)?.[0]?.slice(0, 2), ['name', 'send_invoicez']);
    assert.match(String(byStep.get(4)?.[0]?.[2]), /ghost/);
    assert.match(String(byStep.get(5)?.[0]?.[2]), /formula syntax error/);
    assert.equal(byStep.get(5)?.[0]?.[3], 'message');
    assert.deepEqual(byStep.get(6)?.[0], ['Message', null, "can't be blank", 'message']);
    assert.match(String(byStep.get(7)?.[0]?.[2]), /unknown formula method "frobnicate"/);
    assert.equal((await snapshot(id)).running, false);
  });

  test('grammar: else outside an if, an action with a block, a repeat without while_condition', async () => {
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'hook',
        input: {},
        block: [
          { keyword: 'else', input: {}, block: [] },
          { ...log('x', 'x'), block: [log('y', 'y')] },
          { keyword: 'repeat', as: 'r', block: [] },
        ],
      }),
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.body.success, false);
    const messages = res.body.code_errors.flatMap(([, details]: [number, unknown[][]]) => details.map((d) => d[2]));
    assert.ok(
      messages.some((m: string) => /not allowed inside a trigger block/.test(m)),
      messages.join('; '),
    );
    assert.ok(messages.some((m: string) => /cannot have a block/.test(m)));
    assert.ok(messages.some((m: string) => m === "can't be blank"));
  });

  test('an input nested thousands of levels deep is a code error, not a crash', async () => {
    const depth = 5000;
    const code =
      '{"number":0,"keyword":"trigger","provider":"workato_webhooks","name":"new_event","as":"hook","block":[],"input":' +
      '{"a":'.repeat(depth) +
      '1' +
      '}'.repeat(depth) +
      '}';
    const created = await t.call('POST', '/api/recipes', {
      raw: JSON.stringify({ recipe: { code } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(created.status, 200);
    const res = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
    assert.equal(res.body.success, false);
    assert.equal(res.body.code_errors[0][1][0][2], 'input is nested too deeply');
    assert.equal((await t.call('GET', `/api/recipes/${created.body.id}`)).status, 200);
  });

  test('a formula chaining 10,000 operators or calls is a code error, not a crash; 400 terms start', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([log('sum', `=1${'+1'.repeat(10_000)}`), log('chain', `='a'${'.upcase'.repeat(5_000)}`)]),
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.deepEqual(
      res.body.code_errors.map(([step]: [number]) => step),
      [1, 2],
    );
    for (const [, details] of res.body.code_errors as Array<[number, unknown[][]]>)
      assert.match(String(details[0]?.[2]), /formula is nested too deeply/);
    assert.equal((await snapshot(id)).running, false);

    const fine = await createRecipe(t, webhookTrigger([log('sum', `=1${'+1'.repeat(399)}`)]));
    assert.equal((await t.call('PUT', `/api/recipes/${fine}/start`)).body.success, true);
  });

  test('blocks nested thousands of levels deep are a code error, not a crash', async () => {
    const depth = 5000;
    // Written as text: JSON.stringify itself would overflow on the object.
    const open = '{"keyword":"if","input":{"type":"compound","operand":"and","conditions":[]},"block":[';
    const block = open.repeat(depth) + JSON.stringify(log('inner', 'deep')) + ']}'.repeat(depth);
    const code = `{"number":0,"keyword":"trigger","provider":"workato_webhooks","name":"new_event","as":"hook","input":{},"block":[${block}]}`;
    const created = await t.call('POST', '/api/recipes', {
      raw: JSON.stringify({ recipe: { code } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(created.status, 200);
    const res = await t.call('PUT', `/api/recipes/${created.body.id}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.deepEqual(res.body.code_errors[0][1][0], ['block', null, 'is nested too deeply']);
    assert.equal((await t.call('GET', `/api/recipes/${created.body.id}`)).status, 200);
  });

  test('config errors: a connection that does not exist, or a relative URL with no connection', async () => {
    const config = [{ keyword: 'application', provider: 'rest', name: 'rest', account_id: 424242 }];
    const id = await createRecipe(
      t,
      webhookTrigger([action('rest', 'make_request_v2', 'r', { request: { url: '/relative' } })]),
      { config: JSON.stringify(config) },
    );
    const res = await t.call('PUT', `/api/recipes/${id}/start`);
    assert.deepEqual(res.body.config_errors, [
      [1, [['account_id', 424242, 'unconnected', { key: 'recipe.validation.config_unconnected' }]]],
    ]);
    const bare = await createRecipe(
      t,
      webhookTrigger([action('rest', 'make_request_v2', 'r', { request: { url: '/relative' } })]),
    );
    assert.equal((await t.call('PUT', `/api/recipes/${bare}/start`)).body.config_errors[0][0], 1);
  });

  test('404; 401; 403', async () => {
    const id = await createRecipe(t, simple());
    assert.equal((await t.call('PUT', '/api/recipes/999999/start')).status, 404);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/start`, { token: null })).status, 401);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/start`, { token: readOnly })).status, 403);
    assert.equal((await snapshot(id)).running, false);
  });
});

describe('PUT /api/recipes/:id/stop', () => {
  test('stops: running false, stopped_at set; its webhook answers 404; queued jobs wait for the next start', async () => {
    const { id, path } = await webhookRecipe(t, [log('n', 'x')]);
    const res = await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.deepEqual(res.body, { success: true });
    const recipe = await snapshot(id);
    assert.equal(recipe.running, false);
    assert.match(recipe.stopped_at, /\+00:00$/);
    assert.equal(recipe.stop_cause, null);
    assert.equal((await t.app.inject({ method: 'POST', url: path, payload: {} })).statusCode, 404);
    const again = await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.equal(again.status, 400);
    assert.equal(again.body.message, "Can't change the recipe state: invalid state stopped");
  });

  test('404; 401; 403', async () => {
    const { id } = await webhookRecipe(t, [log('n', 'x')]);
    assert.equal((await t.call('PUT', '/api/recipes/999999/stop')).status, 404);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`, { token: null })).status, 401);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`, { token: readOnly })).status, 403);
    assert.equal((await snapshot(id)).running, true);
  });
});

interface VersionReply {
  id: number;
  version_no: number;
  comment: string | null;
  author_name: string;
  author_email: string;
  created_at: string;
  updated_at: string;
}

async function versions(recipeId: number, query = ''): Promise<VersionReply[]> {
  const res = await t.call('GET', `/api/recipes/${recipeId}/versions${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** A recipe saved three times: created (v1), renamed (v2), its code changed (v3); a folder move and a concurrency change in between make no version. */
async function recipeWithThreeVersions(): Promise<{ id: number; codes: string[] }> {
  const first = JSON.stringify(simple());
  const id = (
    await t.call('POST', '/api/recipes', { body: { recipe: { name: 'Versioned', description: 'first', code: first } } })
  ).body.id as number;
  assert.deepEqual(
    (await t.call('PUT', `/api/recipes/${id}`, { body: { recipe: { name: 'Versioned, renamed' } } })).body,
    { success: true },
  );
  const folder = await t.call('POST', '/api/folders', { body: { name: `Versions ${id}` } });
  assert.deepEqual(
    (await t.call('PUT', `/api/recipes/${id}`, { body: { folder_id: folder.body.id, concurrency: 2 } })).body,
    { success: true },
  );
  const third = JSON.stringify(webhookTrigger([log('third', 'third version')]), null, 1);
  assert.deepEqual(
    (await t.call('PUT', `/api/recipes/${id}`, { body: { recipe: { code: third, description: 'third' } } })).body,
    { success: true },
  );
  return { id, codes: [first, first, third] };
}

describe('GET /api/recipes/:recipe_id/versions', () => {
  test('every saved change is a version, newest first in a data envelope, without content; the recipe shows the current one', async () => {
    const { id } = await recipeWithThreeVersions();
    const res = await t.call('GET', `/api/recipes/${id}/versions`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['data']);
    const list: VersionReply[] = res.body.data;
    assert.deepEqual(
      list.map((v) => v.version_no),
      [3, 2, 1],
    );
    for (const v of list) {
      assert.deepEqual(Object.keys(v).sort(), [
        'author_email',
        'author_name',
        'comment',
        'created_at',
        'id',
        'updated_at',
        'version_no',
      ]);
      assert.equal(typeof v.id, 'number');
      assert.equal(v.comment, null);
      assert.equal(v.author_email, 'integrations@example.com');
      assert.match(v.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    }
    assert.equal(new Set(list.map((v) => v.id)).size, 3);
    const recipe = await snapshot(id);
    assert.equal(recipe.version_no, 3);
    assert.equal(recipe.version_author_name, list[0]?.author_name);
    assert.equal(recipe.version_author_email, list[0]?.author_email);
    assert.equal(recipe.version_comment, null);
  });

  test('paging: page and per_page (default 100, at most 100); junk values fall back to the defaults (contract 00 §7)', async () => {
    const { id } = await recipeWithThreeVersions();
    assert.deepEqual(
      (await versions(id, '?per_page=1&page=2')).map((v) => v.version_no),
      [2],
    );
    assert.deepEqual(
      (await versions(id, '?per_page=2&page=2')).map((v) => v.version_no),
      [1],
    );
    assert.deepEqual(await versions(id, '?page=5'), []);
    for (const query of [
      '?page=0',
      '?page=-1',
      '?page=abc',
      '?per_page=0',
      '?per_page=-5',
      '?per_page=x',
      '?per_page=1000',
      '?page=99999999999',
      '?page=&per_page=',
    ]) {
      assert.deepEqual(
        (await versions(id, query)).map((v) => v.version_no),
        [3, 2, 1],
        query,
      );
    }
  });

  test('a copy starts with a version 1 of its own; the source keeps its versions', async () => {
    const { id } = await recipeWithThreeVersions();
    const copy = (await t.call('POST', `/api/recipes/${id}/copy`, { body: {} })).body.new_flow_id as number;
    const copied = await versions(copy);
    assert.deepEqual(
      copied.map((v) => v.version_no),
      [1],
    );
    const source = await versions(id);
    assert.deepEqual(
      source.map((v) => v.version_no),
      [3, 2, 1],
    );
    assert.ok(!source.some((v) => v.id === copied[0]?.id));
    const detail = await t.call('GET', `/api/recipes/${copy}/versions/${copied[0]?.id}`);
    assert.equal(detail.body.code, (await snapshot(id)).code);
    assert.equal(detail.body.name, `Copy of Versioned, renamed`);
  });

  test('404 for an unknown recipe, one of another workspace or environment, and after a delete; 400 for a bad id; 401; 403', async () => {
    const id = await createRecipe(t, simple());
    const unknown = await t.call('GET', '/api/recipes/999999/versions');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { message: 'Not found' });
    const other = await t.newWorkspace('Other versions');
    assert.equal((await t.call('GET', `/api/recipes/${id}/versions`, { token: other.adminToken })).status, 404);
    assert.equal(
      (await t.call('GET', `/api/recipes/${id}/versions`, { token: await t.tokenFor('Admin', 'prod') })).status,
      404,
    );
    const bad = await t.call('GET', '/api/recipes/abc/versions');
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.recipe_id, bad.text);
    assert.equal((await t.call('GET', `/api/recipes/${id}/versions`, { token: null })).status, 401);
    const denied = await t.call('GET', `/api/recipes/${id}/versions`, { token: noRecipes });
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /recipes:read/);
    assert.equal((await t.call('GET', `/api/recipes/${id}/versions`, { token: readOnly })).status, 200);
    assert.deepEqual((await t.call('DELETE', `/api/recipes/${id}`)).body, { success: true });
    assert.equal((await t.call('GET', `/api/recipes/${id}/versions`)).status, 404);
  });

  test('project scope: a client limited to some projects reads, and comments, only the versions of recipes it sees', async () => {
    const p1 = await t.createProject('Versions P1');
    const p2 = await t.createProject('Versions P2');
    const inP1 = await createRecipe(t, simple(), { folder_id: p1.folderId });
    const inP2 = await createRecipe(t, simple(), { folder_id: p2.folderId });
    const [v1] = await versions(inP1);
    const [v2] = await versions(inP2);
    const { token } = await t.scopedClient([p1.folderId]);
    assert.equal((await t.call('GET', `/api/recipes/${inP1}/versions`, { token })).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${inP1}/versions/${v1?.id}`, { token })).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${inP2}/versions`, { token })).status, 404);
    assert.equal((await t.call('GET', `/api/recipes/${inP2}/versions/${v2?.id}`, { token })).status, 404);
    assert.equal(
      (await t.call('PATCH', `/api/recipes/${inP2}/versions/${v2?.id}`, { token, body: { comment: 'no' } })).status,
      404,
    );
    // Naming a visible recipe does not reach another recipe's version either.
    assert.equal((await t.call('GET', `/api/recipes/${inP1}/versions/${v2?.id}`, { token })).status, 404);
    assert.equal((await versions(inP2))[0]?.comment, null);
  });
});

describe('GET /api/recipes/:recipe_id/versions/:id', () => {
  test('one version with the name, description, code and config it saved', async () => {
    const { id, codes } = await recipeWithThreeVersions();
    const list = await versions(id);
    const details = await Promise.all(
      list.map(async (v) => (await t.call('GET', `/api/recipes/${id}/versions/${v.id}`)).body),
    );
    assert.deepEqual(
      details.map((d) => d.version_no),
      [3, 2, 1],
    );
    assert.deepEqual(
      details.map((d) => d.name),
      ['Versioned, renamed', 'Versioned, renamed', 'Versioned'],
    );
    assert.deepEqual(
      details.map((d) => d.description),
      ['third', 'first', 'first'],
    );
    assert.deepEqual(
      details.map((d) => d.code),
      [...codes].reverse(),
    );
    for (const [i, d] of details.entries()) {
      assert.deepEqual(Object.keys(d).sort(), [
        'author_email',
        'author_name',
        'code',
        'comment',
        'config',
        'created_at',
        'description',
        'id',
        'name',
        'updated_at',
        'version_no',
      ]);
      const { code: _code, config: _config, name: _name, description: _description, ...summary } = d;
      assert.deepEqual(summary, list[i]);
    }
    assert.deepEqual(
      details[2].config.map((c: { provider: string }) => c.provider),
      ['workato_webhooks', 'logger'],
    );
    const current = await snapshot(id);
    assert.equal(details[0].code, current.code);
    assert.deepEqual(details[0].config, current.config);
  });

  test('404 for an unknown version, a version of another recipe, or an unknown recipe; 400 for a bad id; 401; 403', async () => {
    const a = await createRecipe(t, simple());
    const b = await createRecipe(t, simple());
    const [ofB] = await versions(b);
    const unknown = await t.call('GET', `/api/recipes/${a}/versions/999999`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { message: 'Recipe version not found' });
    const crossed = await t.call('GET', `/api/recipes/${a}/versions/${ofB?.id}`);
    assert.equal(crossed.status, 404);
    assert.deepEqual(crossed.body, { message: 'Recipe version not found' });
    assert.deepEqual((await t.call('GET', `/api/recipes/999999/versions/${ofB?.id}`)).body, { message: 'Not found' });
    for (const path of [
      `/api/recipes/${a}/versions/abc`,
      `/api/recipes/${a}/versions/0`,
      `/api/recipes/${a}/versions/1.5`,
      `/api/recipes/x/versions/${ofB?.id}`,
    ]) {
      const res = await t.call('GET', path);
      assert.equal(res.status, 400, path);
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal((await t.call('GET', `/api/recipes/${b}/versions/${ofB?.id}`, { token: null })).status, 401);
    assert.equal((await t.call('GET', `/api/recipes/${b}/versions/${ofB?.id}`, { token: noRecipes })).status, 403);
    assert.equal((await t.call('GET', `/api/recipes/${b}/versions/${ofB?.id}`, { token: readOnly })).status, 200);
  });
});

for (const method of ['PATCH', 'PUT'] as const) {
  describe(`${method} /api/recipes/:recipe_id/versions/:id`, () => {
    test("sets the comment and answers the version; the recipe shows the current version's comment; null clears it", async () => {
      const { id } = await recipeWithThreeVersions();
      const [v3, v2] = await versions(id);
      const res = await t.call(method, `/api/recipes/${id}/versions/${v3?.id}`, {
        body: { comment: 'Ready for review' },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, v3?.id);
      assert.equal(res.body.version_no, 3);
      assert.equal(res.body.comment, 'Ready for review');
      assert.equal(typeof res.body.code, 'string');
      assert.equal((await snapshot(id)).version_comment, 'Ready for review');
      assert.equal((await t.call('GET', `/api/recipes/${id}/versions/${v3?.id}`)).body.comment, 'Ready for review');

      const older = await t.call(method, `/api/recipes/${id}/versions/${v2?.id}`, {
        body: { comment: 'é'.repeat(255) },
      });
      assert.equal(older.status, 200, older.text);
      assert.equal(older.body.comment, 'é'.repeat(255));
      assert.equal(
        (await snapshot(id)).version_comment,
        'Ready for review',
        "the recipe shows its current version's comment",
      );

      // The next save is a new version, without a comment; the commented ones keep theirs.
      await t.call('PUT', `/api/recipes/${id}`, { body: { name: 'Versioned, fourth' } });
      const after = await snapshot(id);
      assert.equal(after.version_no, 4);
      assert.equal(after.version_comment, null);
      assert.deepEqual(
        (await versions(id)).map((v) => v.comment),
        [null, 'Ready for review', 'é'.repeat(255), null],
      );

      const cleared = await t.call(method, `/api/recipes/${id}/versions/${v3?.id}`, { body: { comment: null } });
      assert.equal(cleared.body.comment, null);
      const empty = await t.call(method, `/api/recipes/${id}/versions/${v3?.id}`, { body: { comment: '' } });
      assert.equal(empty.body.comment, '');
    });

    test('a running recipe takes a comment: it does not change the recipe', async () => {
      const { id } = await webhookRecipe(t, [log('n', 'x')]);
      const [current] = await versions(id);
      const res = await t.call(method, `/api/recipes/${id}/versions/${current?.id}`, { body: { comment: 'Live' } });
      assert.equal(res.status, 200, res.text);
      const recipe = await snapshot(id);
      assert.equal(recipe.running, true);
      assert.equal(recipe.version_no, 1);
      assert.equal(recipe.version_comment, 'Live');
    });

    test('bad input: a 400 naming comment (too long, wrong type, missing), malformed JSON, 415; nothing changes', async () => {
      const id = await createRecipe(t, simple());
      const [v] = await versions(id);
      const url = `/api/recipes/${id}/versions/${v?.id}`;
      const cases: unknown[] = [
        { comment: 'x'.repeat(256) },
        { comment: 42 },
        { comment: ['a'] },
        { comment: { text: 'a' } },
        { comment: true },
        {},
        { note: 'a' },
        [],
        'comment',
      ];
      for (const body of cases) {
        const res = await t.call(method, url, { body });
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)} -> ${res.status} ${res.text}`);
        assert.equal(typeof res.body.message, 'string');
        if (typeof body === 'object' && body !== null && !Array.isArray(body))
          assert.ok(res.body.errors?.comment, `names comment: ${res.text}`);
      }
      const tooLong = await t.call(method, url, { body: { comment: 'x'.repeat(256) } });
      assert.match(tooLong.body.message, /comment .*255/);
      const noBody = await t.call(method, url);
      assert.equal(noBody.status, 400);
      const empty = await t.call(method, url, { raw: '', headers: { 'content-type': 'application/json' } });
      assert.equal(empty.status, 400);
      const malformed = await t.call(method, url, {
        raw: '{"comment": ',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(malformed.status, 400);
      assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
      const form = await t.call(method, url, {
        raw: 'comment=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 415);
      assert.equal(typeof form.body.message, 'string');
      assert.equal((await versions(id))[0]?.comment, null);
    });

    test('404 for an unknown version, a version of another recipe, or an unknown recipe; 400 for a bad id; 401; 403', async () => {
      const a = await createRecipe(t, simple());
      const b = await createRecipe(t, simple());
      const [ofB] = await versions(b);
      const body = { comment: 'x' };
      assert.deepEqual((await t.call(method, `/api/recipes/${a}/versions/999999`, { body })).body, {
        message: 'Recipe version not found',
      });
      const crossed = await t.call(method, `/api/recipes/${a}/versions/${ofB?.id}`, { body });
      assert.equal(crossed.status, 404);
      assert.deepEqual(crossed.body, { message: 'Recipe version not found' });
      assert.deepEqual((await t.call(method, `/api/recipes/999999/versions/${ofB?.id}`, { body })).body, {
        message: 'Not found',
      });
      assert.equal((await t.call(method, `/api/recipes/${a}/versions/abc`, { body })).status, 400);
      assert.equal((await t.call(method, `/api/recipes/${b}/versions/${ofB?.id}`, { token: null, body })).status, 401);
      const denied = await t.call(method, `/api/recipes/${b}/versions/${ofB?.id}`, { token: readOnly, body });
      assert.equal(denied.status, 403);
      assert.match(denied.body.message, /recipes:write/);
      assert.equal((await versions(b))[0]?.comment, null);
    });
  });
}

describe('OpenAPI: the version routes', () => {
  test('are documented from their schemas', async () => {
    const doc = (await t.call('GET', '/api/openapi.json', { token: null })).body;
    const list = doc.paths['/api/recipes/{recipe_id}/versions'];
    assert.ok(list.get.responses['200'].content['application/json'].schema.properties.data);
    assert.ok(list.get.responses['404']);
    const one = doc.paths['/api/recipes/{recipe_id}/versions/{id}'];
    assert.ok(one.get.responses['200'].content['application/json'].schema.properties.code);
    for (const method of ['patch', 'put']) {
      const comment = one[method].requestBody.content['application/json'].schema.properties.comment;
      assert.equal(comment.maxLength, 255, method);
      assert.match(one[method].description, /recipes:write/);
    }
  });
});

describe('findRecipeVersionContent', () => {
  test('the content a version saved, by version number; undefined for a version the recipe does not have', async () => {
    const { id, codes } = await recipeWithThreeVersions();
    const first = await findRecipeVersionContent(t.ctx.db, id, 1);
    assert.equal(first?.name, 'Versioned');
    assert.equal(first?.description, 'first');
    assert.equal(first?.code, codes[0]);
    assert.deepEqual(
      JSON.parse(first?.config ?? '').map((c: { provider: string }) => c.provider),
      ['workato_webhooks', 'logger'],
    );
    const third = await findRecipeVersionContent(t.ctx.db, id, 3);
    assert.equal(third?.code, codes[2]);
    assert.equal(third?.description, 'third');
    assert.equal(await findRecipeVersionContent(t.ctx.db, id, 4), undefined);
    assert.equal(await findRecipeVersionContent(t.ctx.db, 999999, 1), undefined);
  });
});

describe('migration 0011 on recipes saved without a row for their current version', () => {
  test('each such recipe gets a version row holding its current content; the others are left alone; running it again adds nothing', async () => {
    const { id } = await recipeWithThreeVersions();
    const untouched = await createRecipe(t, simple());
    await t.call('PATCH', `/api/recipes/${untouched}/versions/${(await versions(untouched))[0]?.id}`, {
      body: { comment: 'kept' },
    });
    // As a database could hold it: the current version's row missing.
    await t.ctx.db.deleteFrom('recipe_versions').where('recipe_id', '=', id).where('version_no', '=', 3).execute();
    const recipe = await snapshot(id);
    const count = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('recipe_versions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await t.ctx.db
      .transaction()
      .execute((trx) => versionsForExistingRecipes(trx as unknown as Kysely<unknown>, 'sqlite'));
    const after = await count();
    const list = await versions(id);
    assert.deepEqual(
      list.map((v) => v.version_no),
      [3, 2, 1],
    );
    const restored = (await t.call('GET', `/api/recipes/${id}/versions/${list[0]?.id}`)).body;
    assert.equal(restored.code, recipe.code);
    assert.equal(restored.name, recipe.name);
    assert.equal(restored.description, recipe.description);
    assert.deepEqual(restored.config, recipe.config);
    assert.equal(restored.comment, null);
    assert.equal(restored.author_email, recipe.version_author_email);
    assert.equal(restored.created_at, recipe.updated_at);
    assert.deepEqual(await snapshot(id), recipe);
    assert.equal((await versions(untouched))[0]?.comment, 'kept');
    await t.ctx.db
      .transaction()
      .execute((trx) => versionsForExistingRecipes(trx as unknown as Kysely<unknown>, 'sqlite'));
    assert.equal(await count(), after);
  });
});

describe('request body limits: recipes take RECIPE_BODY_LIMIT_BYTES, other routes BODY_LIMIT_BYTES', () => {
  const FIVE_MB = 5 * 1024 * 1024;
  const bigCode = (tag: string) => JSON.stringify(webhookTrigger([log('big', `${tag} ${'x'.repeat(FIVE_MB)}`)]));

  test('a 5 MB recipe is created, updated, copied and read back whole, with its versions', async () => {
    const code = bigCode('first');
    const created = await t.call('POST', '/api/recipes', { body: { recipe: { name: 'Large', code } } });
    assert.equal(created.status, 200, created.text.slice(0, 200));
    const id = created.body.id as number;
    assert.equal((await snapshot(id)).code, code);
    const next = bigCode('second');
    const updated = await t.call('PUT', `/api/recipes/${id}`, { body: { recipe: { code: next } } });
    assert.deepEqual(updated.body, { success: true });
    const recipe = await snapshot(id);
    assert.equal(recipe.code, next);
    assert.equal(recipe.version_no, 2);
    const [v2, v1] = await versions(id);
    assert.equal((await t.call('GET', `/api/recipes/${id}/versions/${v1?.id}`)).body.code, code);
    assert.equal((await t.call('GET', `/api/recipes/${id}/versions/${v2?.id}`)).body.code, next);
    const copy = await t.call('POST', '/api/recipes', { body: { recipe_id: id, name: 'Large copy' } });
    assert.equal((await snapshot(copy.body.id)).code, next);
  });

  test('the larger limit comes after authentication: no token is a 401, no recipes:write a 403', async () => {
    const body = { recipe: { code: bigCode('denied') } };
    assert.equal((await t.call('POST', '/api/recipes', { token: null, body })).status, 401);
    assert.equal((await t.call('POST', '/api/recipes', { token: readOnly, body })).status, 403);
  });

  test('the same size on another route is a readable 413 in the error shape', async () => {
    const { id } = await recipeWithThreeVersions();
    const [v] = await versions(id);
    const big = 'x'.repeat(FIVE_MB);
    for (const [method, url, body] of [
      ['POST', '/api/folders', { name: big }],
      ['PATCH', `/api/recipes/${id}/versions/${v?.id}`, { comment: big }],
      ['POST', `/api/recipes/${id}/copy`, { name: big }],
    ] as const) {
      const res = await t.call(method, url, { body });
      assert.equal(res.status, 413, `${method} ${url}`);
      assert.deepEqual(res.body, { message: 'Request body is too large' });
    }
  });

  test('a recipe over RECIPE_BODY_LIMIT_BYTES is a 413 and is not saved', async () => {
    const before = await recipeCount();
    const raw = JSON.stringify({ recipe: { code: JSON.stringify({ ...simple(), pad: 'x'.repeat(RECIPE_LIMIT) }) } });
    const created = await t.call('POST', '/api/recipes', { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(created.status, 413);
    assert.deepEqual(created.body, { message: 'Request body is too large' });
    const id = await createRecipe(t, simple());
    const updated = await t.call('PUT', `/api/recipes/${id}`, { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(updated.status, 413);
    assert.equal(await recipeCount(), before + 1);
    assert.equal((await snapshot(id)).version_no, 1);
  });

  test('RECIPE_BODY_LIMIT_BYTES sets the recipe limit', async () => {
    const small = await createTestApp({ env: { RECIPE_BODY_LIMIT_BYTES: String(2 * 1024 * 1024) } });
    try {
      const fits = await small.call('POST', '/api/recipes', {
        body: { recipe: { code: JSON.stringify({ ...simple(), pad: 'x'.repeat(1536 * 1024) }) } },
      });
      assert.equal(fits.status, 200, 'over BODY_LIMIT_BYTES, within the recipe limit');
      const over = await small.call('POST', '/api/recipes', {
        body: { recipe: { code: JSON.stringify({ ...simple(), pad: 'x'.repeat(3 * 1024 * 1024) }) } },
      });
      assert.equal(over.status, 413);
    } finally {
      await small.close();
    }
  });
});
