import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { appendJobCounts, foldJobCounts } from './job-counts.store.ts';
import { action, createRecipe, fire, log, startRecipe, webhookRecipe, webhookTrigger } from '../../../test/recipes.ts';

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

  test('code nested deeper than 256 levels is refused with a 400 naming code, on create and update; nothing changes', async () => {
    const before = await recipeCount();
    const deepBlock = (depth: number) =>
      '{"keyword":"if","input":{},"block":['.repeat(depth) + '{"keyword":"stop","input":{}}' + ']}'.repeat(depth);
    const deep = `{"number":0,"keyword":"trigger","provider":"workato_webhooks","name":"new_event","input":{},"block":[${deepBlock(20_000)}]}`;
    const wrapped = JSON.stringify({ name: 'wrapped', code: deep });
    for (const code of [deep, wrapped, `{"result":${'{"result":'.repeat(20_000)}{}${'}'.repeat(20_000)}}`]) {
      const res = await t.call('POST', '/api/recipes', {
        raw: JSON.stringify({ recipe: { code } }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400, res.text.slice(0, 200));
      assert.deepEqual(res.body.errors, { code: ['is nested too deeply (maximum is 256 levels)'] });
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal(await recipeCount(), before);

    const id = await createRecipe(t, simple());
    const stored = (await t.call('GET', `/api/recipes/${id}`)).body.code;
    const update = await t.call('PUT', `/api/recipes/${id}`, {
      raw: JSON.stringify({ recipe: { code: deep } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(update.status, 400);
    assert.deepEqual(update.body.errors, { code: ['is nested too deeply (maximum is 256 levels)'] });
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.code, stored);

    // 100 nested blocks (the engine's own bound, about 200 levels here) are still stored.
    const atBound = `{"number":0,"keyword":"trigger","provider":"workato_webhooks","name":"new_event","input":{},"block":[${deepBlock(100)}]}`;
    const ok = await t.call('POST', '/api/recipes', {
      raw: JSON.stringify({ recipe: { code: atBound } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(ok.status, 200, ok.text.slice(0, 200));
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

  test('counts that job ends appended and no fold has added yet count in the recipe, the list and its order by activity; a fold changes nothing users see', async () => {
    const folder = await t.call('POST', '/api/folders', { body: { name: 'Pending counts' } });
    const [a, b, c] = [
      await createRecipe(t, simple(), { folder_id: folder.body.id }),
      await createRecipe(t, simple(), { folder_id: folder.body.id }),
      await createRecipe(t, simple(), { folder_id: folder.body.id }),
    ];
    // a: run long ago by its row, and since by counts not yet folded; b: run in between, folded.
    await t.ctx.db
      .updateTable('recipes')
      .set({ job_succeeded_count: 2, lifetime_task_count: 4, last_run_at: '2026-01-01T00:00:00.000Z' })
      .where('id', '=', a!)
      .execute();
    await t.ctx.db
      .updateTable('recipes')
      .set({ job_failed_count: 1, last_run_at: '2026-02-01T00:00:00.000Z' })
      .where('id', '=', b!)
      .execute();
    await appendJobCounts(t.ctx.db, [
      { recipeId: a!, succeeded: 3, failed: 1, tasks: 7, lastRunAt: '2026-03-01T00:00:00.000Z' },
    ]);
    await appendJobCounts(t.ctx.db, [
      { recipeId: a!, succeeded: 1, failed: 0, tasks: 1, lastRunAt: '2026-02-15T00:00:00.000Z' },
    ]);
    const seen = async () => {
      const one = (await t.call('GET', `/api/recipes/${a}`)).body;
      const list = (await t.call('GET', `/api/recipes?folder_id=${folder.body.id}&order=activity`)).body.items;
      const jobs = (await t.call('GET', `/api/recipes/${a}/jobs`)).body;
      return {
        one: [one.job_succeeded_count, one.job_failed_count, one.lifetime_task_count, one.last_run_at],
        list: list.map((r: Record<string, unknown>) => [
          r.id,
          r.job_succeeded_count,
          r.job_failed_count,
          r.last_run_at ?? null,
        ]),
        jobs: [jobs.job_succeeded_count, jobs.job_failed_count],
      };
    };
    const expected = {
      one: [6, 1, 12, '2026-03-01T00:00:00.000+00:00'],
      list: [
        [a, 6, 1, '2026-03-01T00:00:00.000+00:00'],
        [b, 0, 1, '2026-02-01T00:00:00.000+00:00'],
        [c, 0, 0, null],
      ],
      jobs: [6, 1],
    };
    assert.deepEqual(await seen(), expected);
    while ((await foldJobCounts(t.ctx.db, 1)) > 0);
    assert.deepEqual(await seen(), expected);
    assert.deepEqual(
      await t.ctx.db.selectFrom('recipe_job_counts').select('id').where('recipe_id', '=', a!).execute(),
      [],
    );
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
