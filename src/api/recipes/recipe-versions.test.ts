import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { up as versionsForExistingRecipes } from '../../db/migrations/0011_recipe_versions_current.ts';
import { findRecipeVersionContent } from './recipes.store.ts';
import { createRecipe, log, webhookRecipe, webhookTrigger } from '../../../test/recipes.ts';

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
