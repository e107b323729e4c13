import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, webhookTrigger } from '../../../test/recipes.ts';
import { goDecode, slice, struct } from '../../../test/go-decode.ts';
import { WK } from '../../../test/wk.ts';

let t: TestApp;
let readOnly: string;
let recipeId: number;
let connectionId: number;
before(async () => {
  t = await createTestApp();
  readOnly = await t.tokenFor('Read only');
  recipeId = await createRecipe(t, webhookTrigger([log('say', 'hi')]));
  const conn = await t.call('POST', '/api/connections', {
    body: { name: 'Ledger', provider: 'jira', shell_connection: true },
  });
  assert.equal(conn.status, 200, conn.text);
  connectionId = conn.body.id;
});
after(() => t.close());

const TagList = struct({ data: struct({ tags: slice(WK.Tag) }) });
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

interface TagBody {
  handle: string;
  title: string;
  description: string | null;
  color: string | null;
}

async function tag(title: string, extra: Record<string, unknown> = {}): Promise<TagBody> {
  const res = await t.call('POST', '/api/tags', { body: { title, ...extra } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}
const allTags = async (query = '') =>
  (await t.call('GET', `/api/tags${query}`)).body.data.tags as Array<{ handle: string; title: string }>;
const activity = async (eventType: string) =>
  (await t.call('GET', `/api/activity_logs?event_type=${eventType}`)).body.data as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
const recipeTags = async (id = recipeId) => (await t.call('GET', `/api/recipes/${id}?includes[]=tags`)).body.tags;
const connectionTags = async (id = connectionId) =>
  ((await t.call('GET', '/api/connections')).body as Array<{ id: number; tags: string[] }>).find((c) => c.id === id)
    ?.tags;

describe('POST /api/tags', () => {
  test('creates a tag of the environment and answers it bare, with a tag- handle', async () => {
    const res = await t.call('POST', '/api/tags', {
      body: { title: ' Production ', description: 'Live', color: 'green' },
    });
    assert.equal(res.status, 200, res.text);
    goDecode(res.body, WK.Tag);
    assert.match(res.body.handle, /^tag-[A-Za-z0-9]{8}-[A-Za-z0-9]{6}$/);
    assert.equal(res.body.title, 'Production');
    assert.equal(res.body.description, 'Live');
    assert.equal(res.body.color, 'green');
    assert.match(res.body.created_at, RFC3339);
    const entries = await activity('tag_created');
    assert.equal(entries.filter((e) => e.resource_id === res.body.handle).length, 1);
  });

  test('a title that exists, in any case, is a 422 naming title, and nothing is created', async () => {
    await tag('Finance');
    const before = (await allTags()).length;
    const res = await t.call('POST', '/api/tags', { body: { title: 'FINANCE' } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.errors, { title: ['has already been taken'] });
    assert.equal((await allTags()).length, before);
  });

  test('bad input is a 400 naming the field, and changes nothing', async () => {
    const before = (await allTags()).length;
    const cases: Array<[unknown, string]> = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 42 }, 'title'],
      [{ title: 'x'.repeat(101) }, 'title'],
      [{ title: 'bell\u0007' }, 'title'],
      [{ title: 'Ok', description: 5 }, 'description'],
      [{ title: 'Ok', description: 'd'.repeat(1001) }, 'description'],
      [{ title: 'Ok', color: 'red; drop' }, 'color'],
      [{ title: 'Ok', color: true }, 'color'],
      [[{ title: 'Ok' }], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/tags', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
      if (field !== 'body') assert.match(JSON.stringify(res.body), new RegExp(field), JSON.stringify(body));
    }
    const malformed = await t.call('POST', '/api/tags', {
      raw: '{"title": "x"',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.message, 'Malformed JSON in request body');
    const form = await t.call('POST', '/api/tags', {
      raw: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.equal((await allTags()).length, before);
  });

  test('401 without a token, 403 for a role without tags:write', async () => {
    assert.equal((await t.call('POST', '/api/tags', { body: { title: 'A' }, token: null })).status, 401);
    const res = await t.call('POST', '/api/tags', { body: { title: 'A' }, token: readOnly });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /tags:write/);
  });
});

describe('GET /api/tags', () => {
  test('{"data": {"tags": [...]}} by title; q searches titles in any case; page and per_page', async () => {
    await tag('Search 100%');
    await tag('search_under');
    const res = await t.call('GET', '/api/tags', { token: readOnly });
    assert.equal(res.status, 200);
    const decoded = goDecode(res.body, TagList) as { data: { tags: Array<{ title: string }> } };
    const titles = decoded.data.tags.map((x) => x.title);
    assert.deepEqual(
      titles,
      [...titles].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
    );
    assert.deepEqual(
      (await allTags('?q=SEARCH')).map((x) => x.title),
      ['Search 100%', 'search_under'],
    );
    assert.deepEqual(
      (await allTags('?q=0%25')).map((x) => x.title),
      ['Search 100%'],
    );
    assert.deepEqual(
      (await allTags('?q=h_u')).map((x) => x.title),
      ['search_under'],
    );
    const first = await allTags('?per_page=1');
    const second = await allTags('?per_page=1&page=2');
    assert.equal(first.length, 1);
    assert.equal(second.length, 1);
    assert.notEqual(first[0]?.handle, second[0]?.handle);
    assert.deepEqual(await allTags('?page=999'), []);
    assert.equal((await allTags('?page=junk&per_page=-1')).length, (await allTags()).length);
  });

  test("another workspace's and another environment's tags are not listed", async () => {
    const other = await t.newWorkspace('Tags Elsewhere');
    const made = await t.call('POST', '/api/tags', { body: { title: 'Elsewhere only' }, token: other.adminToken });
    assert.equal(made.status, 200, made.text);
    const prod = await t.tokenFor('Admin', 'prod');
    assert.equal((await t.call('POST', '/api/tags', { body: { title: 'Prod only' }, token: prod })).status, 200);
    const titles = (await allTags()).map((x) => x.title);
    assert.ok(!titles.includes('Elsewhere only'));
    assert.ok(!titles.includes('Prod only'));
    // The same title is free in another environment.
    assert.equal((await t.call('POST', '/api/tags', { body: { title: 'Finance' }, token: prod })).status, 200);
  });
});

describe('PUT /api/tags/:handle', () => {
  test('changes only what is sent and answers the bare tag', async () => {
    const made = await tag('Staging', { description: 'Pre-prod', color: 'blue' });
    const res = await t.call('PUT', `/api/tags/${made.handle}`, { body: { color: '#ff8800' } });
    assert.equal(res.status, 200, res.text);
    goDecode(res.body, WK.Tag);
    assert.equal(res.body.title, 'Staging');
    assert.equal(res.body.description, 'Pre-prod');
    assert.equal(res.body.color, '#ff8800');
    const cleared = await t.call('PUT', `/api/tags/${made.handle}`, { body: { description: null, title: 'Stage' } });
    assert.equal(cleared.body.description, null);
    assert.equal(cleared.body.title, 'Stage');
    assert.equal((await activity('tag_updated')).filter((e) => e.resource_id === made.handle).length, 2);
  });

  test('404 for an unknown handle or one of another workspace; 422 for a taken title; 400 for nothing or wrong types', async () => {
    const made = await tag('Unique one');
    await tag('Unique two');
    assert.equal((await t.call('PUT', '/api/tags/tag-nothere-000000', { body: { title: 'x' } })).status, 404);
    const other = await t.newWorkspace('Tags Other Put');
    const foreign = await t.call('POST', '/api/tags', { body: { title: 'Foreign' }, token: other.adminToken });
    const res = await t.call('PUT', `/api/tags/${foreign.body.handle}`, { body: { title: 'Mine now' } });
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'Tag not found');
    const taken = await t.call('PUT', `/api/tags/${made.handle}`, { body: { title: 'unique TWO' } });
    assert.equal(taken.status, 422);
    assert.equal((await allTags('?q=unique')).map((x) => x.title).join(), 'Unique one,Unique two');
    assert.equal((await t.call('PUT', `/api/tags/${made.handle}`, { body: {} })).status, 400);
    assert.equal((await t.call('PUT', `/api/tags/${made.handle}`, { body: { title: ['x'] } })).status, 400);
    assert.equal(
      (await t.call('PUT', `/api/tags/${made.handle}`, { raw: '{', headers: { 'content-type': 'application/json' } }))
        .status,
      400,
    );
    assert.equal((await t.call('PUT', `/api/tags/${'x'.repeat(101)}`, { body: { title: 'x' } })).status, 400);
  });
});

describe('DELETE /api/tags/:handle', () => {
  test('deletes the tag; the recipes and connections that carried it lose it; 404 after', async () => {
    const made = await tag('Doomed');
    const assign = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [made.handle], recipe_ids: [recipeId], connection_ids: [connectionId] },
    });
    assert.equal(assign.status, 200, assign.text);
    assert.ok((await recipeTags()).includes(made.handle));
    const res = await t.call('DELETE', `/api/tags/${made.handle}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.ok(!(await recipeTags()).includes(made.handle));
    assert.ok(!(await connectionTags())?.includes(made.handle));
    assert.equal((await t.call('DELETE', `/api/tags/${made.handle}`)).status, 404);
    const deleted = (await activity('tag_deleted')).filter((e) => e.resource_id === made.handle);
    assert.equal(deleted.length, 1);
    assert.deepEqual(deleted[0]?.details.detached_from, { recipes: 1, connections: 1 });
  });
});

describe('POST /api/tags_assignments', () => {
  test('attaches and detaches tags on recipes and connections; the recipe and connection replies show them', async () => {
    const a = await tag('Assign A');
    const b = await tag('Assign B');
    const res = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [a.handle, b.handle], recipe_ids: [recipeId], connection_ids: [String(connectionId)] },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { success: true, added: 4, removed: 0 });
    assert.deepEqual(
      (await recipeTags()).filter((h: string) => h === a.handle || h === b.handle).sort(),
      [a.handle, b.handle].sort(),
    );
    assert.ok((await connectionTags())?.includes(a.handle));
    const list = await t.call('GET', '/api/recipes?includes[]=tags');
    assert.ok(list.body.items.find((r: { id: number }) => r.id === recipeId).tags.includes(b.handle));
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}`)).body.tags, undefined, 'tags only when asked for');
    // Again: nothing new, no entry.
    const again = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [a.handle], recipe_ids: [recipeId] },
    });
    assert.deepEqual(again.body, { success: true, added: 0, removed: 0 });
    const removed = await t.call('POST', '/api/tags_assignments', {
      body: { remove_tags: [a.handle], recipe_ids: [recipeId] },
    });
    assert.deepEqual(removed.body, { success: true, added: 0, removed: 1 });
    assert.ok(!(await recipeTags()).includes(a.handle));
    assert.ok((await connectionTags())?.includes(a.handle));
    assert.equal((await activity('tags_assigned')).filter((e) => e.details.add_tags.includes(a.handle)).length, 1);
    assert.equal((await activity('tags_removed')).filter((e) => e.resource_id === a.handle).length, 1);
  });

  test('an unknown handle, or an asset of another workspace, environment or project is a 404 and nothing changes', async () => {
    const c = await tag('Assign C');
    const other = await t.newWorkspace('Tags Other Assets');
    const foreignRecipe = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Theirs', code: JSON.stringify(webhookTrigger([])) } },
      token: other.adminToken,
    });
    assert.equal(foreignRecipe.status, 200, foreignRecipe.text);
    const prod = await t.tokenFor('Admin', 'prod');
    const prodConnection = await t.call('POST', '/api/connections', {
      body: { name: 'Prod conn', provider: 'jira', shell_connection: true },
      token: prod,
    });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ add_tags: [c.handle, 'tag-nothere-000000'], recipe_ids: [recipeId] }, /Tags not found: tag-nothere-000000/],
      [{ add_tags: [c.handle], recipe_ids: [recipeId, foreignRecipe.body.id] }, /Recipes not found/],
      [{ add_tags: [c.handle], connection_ids: [connectionId, prodConnection.body.id] }, /Connections not found/],
      [{ add_tags: [c.handle], recipe_ids: [recipeId, 999_999_999] }, /Recipes not found: 999999999/],
    ];
    for (const [body, message] of cases) {
      const res = await t.call('POST', '/api/tags_assignments', { body });
      assert.equal(res.status, 404, JSON.stringify(body));
      assert.match(res.body.message, message);
      assert.match(res.body.message, /nothing was changed/);
    }
    assert.ok(!(await recipeTags()).includes(c.handle));
    assert.ok(!(await connectionTags())?.includes(c.handle));
    // A tag of another workspace cannot be put on this one's recipe either.
    const foreignTag = await t.call('POST', '/api/tags', { body: { title: 'Theirs' }, token: other.adminToken });
    const res = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [foreignTag.body.handle], recipe_ids: [recipeId] },
    });
    assert.equal(res.status, 404);
    // Nor can the other workspace tag this one's recipe.
    const reverse = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [foreignTag.body.handle], recipe_ids: [recipeId] },
      token: other.adminToken,
    });
    assert.equal(reverse.status, 404);
    assert.ok(!(await recipeTags()).includes(foreignTag.body.handle));
  });

  test('a client limited to a project cannot tag a recipe outside it', async () => {
    const d = await tag('Assign D');
    const project = await t.createProject('Tagged project');
    const inside = await createRecipe(t, webhookTrigger([]), { folder_id: project.folderId });
    const scoped = await t.scopedClient([project.folderId]);
    const outside = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [d.handle], recipe_ids: [recipeId] },
      token: scoped.token,
    });
    assert.equal(outside.status, 404);
    const ok = await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [d.handle], recipe_ids: [inside] },
      token: scoped.token,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.ok((await recipeTags(inside)).includes(d.handle));
  });

  test('bad input is a 400 naming the field, and changes nothing', async () => {
    const e = await tag('Assign E');
    const cases: Array<[unknown, string]> = [
      [{ recipe_ids: [recipeId] }, 'add_tags'],
      [{ add_tags: [], recipe_ids: [recipeId] }, 'add_tags'],
      [{ add_tags: [e.handle] }, 'recipe_ids'],
      [{ add_tags: [e.handle], recipe_ids: [] }, 'recipe_ids'],
      [{ add_tags: e.handle, recipe_ids: [recipeId] }, 'add_tags'],
      [{ add_tags: [e.handle], recipe_ids: ['abc'] }, 'recipe_ids'],
      [{ add_tags: [e.handle], recipe_ids: [1.5] }, 'recipe_ids'],
      [{ add_tags: [e.handle], connection_ids: [{ id: 1 }] }, 'connection_ids'],
      [{ add_tags: [e.handle], remove_tags: [e.handle], recipe_ids: [recipeId] }, 'remove_tags'],
      [{ add_tags: [e.handle], recipe_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, 'recipe_ids'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/tags_assignments', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.match(JSON.stringify(res.body), new RegExp(field), JSON.stringify(body).slice(0, 80));
    }
    assert.equal(
      (
        await t.call('POST', '/api/tags_assignments', {
          raw: 'not json',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.ok(!(await recipeTags()).includes(e.handle));
    assert.equal(
      (
        await t.call('POST', '/api/tags_assignments', {
          body: { add_tags: [e.handle], recipe_ids: [recipeId] },
          token: readOnly,
        })
      ).status,
      403,
    );
  });
});
