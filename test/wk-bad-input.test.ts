// Bad input on every route the vendor's CLI uses to change something (contract 23 §3-§7):
// malformed JSON, a body of the wrong shape, fields of the wrong type, unknown ids, another
// workspace's assets, the wrong Content-Type. Each gets a 4xx with a message, never a 500 or a
// stack, and the workspace is exactly as it was (tags, connections, the recipe and its versions,
// its jobs, the activity log).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { fire, log, webhookRecipe } from './recipes.ts';

let t: TestApp;
let recipeId: number;
let jobId: string;
let versionId: number;
let connectionId: number;
let handle: string;
let foreign: { recipeId: number; connectionId: number; tag: string; versionId: number };
before(async () => {
  t = await createTestApp();
  const recipe = await webhookRecipe(t, [log('say', 'x')]);
  recipeId = recipe.id;
  await fire(t, recipe.path, { n: 1 });
  jobId = (await t.call('GET', `/api/recipes/${recipeId}/jobs`)).body.items[0].id;
  versionId = (await t.call('GET', `/api/recipes/${recipeId}/versions`)).body.data[0].id;
  connectionId = (await t.call('POST', '/api/connections', { body: { name: 'Mine', provider: 'jira' } })).body.id;
  handle = (await t.call('POST', '/api/tags', { body: { title: 'Mine' } })).body.handle;
  const other = await t.newWorkspace('Bad Input Elsewhere');
  const as = { token: other.adminToken };
  const r = await t.call('POST', '/api/recipes', {
    ...as,
    body: {
      recipe: {
        name: 'Theirs',
        code: JSON.stringify({ keyword: 'trigger', provider: 'clock', name: 'scheduled_event', input: {}, block: [] }),
      },
    },
  });
  assert.equal(r.status, 200, r.text);
  foreign = {
    recipeId: r.body.id,
    connectionId: (await t.call('POST', '/api/connections', { ...as, body: { name: 'Theirs', provider: 'jira' } })).body
      .id,
    tag: (await t.call('POST', '/api/tags', { ...as, body: { title: 'Theirs' } })).body.handle,
    versionId: (await t.call('GET', `/api/recipes/${r.body.id}/versions`, as)).body.data[0].id,
  };
});
after(() => t.close());

async function state(): Promise<string> {
  const parts = await Promise.all([
    t.call('GET', '/api/tags'),
    t.call('GET', '/api/connections'),
    t.call('GET', `/api/recipes/${recipeId}?includes[]=tags`),
    t.call('GET', `/api/recipes/${recipeId}/versions`),
    t.call('GET', `/api/recipes/${recipeId}/jobs`),
    t.call('GET', '/api/activity_logs'),
  ]);
  return JSON.stringify(parts.map((p) => p.body));
}

interface Case {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: () => string;
  /** Made when the test runs: it may name what `before` created. */
  body?: () => unknown;
  raw?: string;
  type?: string;
  status: number;
}

const json = 'application/json';
/** A JSON body over BODY_LIMIT_BYTES (1 MiB by default): 413 before anything is read. */
const oversized = JSON.stringify({
  title: 'x',
  name: 'x',
  provider: 'jira',
  comment: 'x',
  pad: 'p'.repeat(1024 * 1024),
});
const cases: Array<[string, Case]> = [
  // Tags
  ['tag create, malformed JSON', { method: 'POST', url: () => '/api/tags', raw: '{"title":', status: 400 }],
  ['tag create, an array', { method: 'POST', url: () => '/api/tags', body: () => ['x'], status: 400 }],
  ['tag create, a number title', { method: 'POST', url: () => '/api/tags', body: () => ({ title: 1 }), status: 400 }],
  [
    'tag create, a taken title',
    { method: 'POST', url: () => '/api/tags', body: () => ({ title: 'MINE' }), status: 422 },
  ],
  [
    'tag create, a form',
    { method: 'POST', url: () => '/api/tags', raw: 'title=x', type: 'application/x-www-form-urlencoded', status: 415 },
  ],
  [
    'tag update, unknown handle',
    { method: 'PUT', url: () => '/api/tags/tag-nothere-000000', body: () => ({ title: 'x' }), status: 404 },
  ],
  [
    "tag update, another workspace's",
    { method: 'PUT', url: () => `/api/tags/${foreign.tag}`, body: () => ({ title: 'x' }), status: 404 },
  ],
  [
    'tag update, wrong type',
    { method: 'PUT', url: () => `/api/tags/${handle}`, body: () => ({ color: 7 }), status: 400 },
  ],
  ["tag delete, another workspace's", { method: 'DELETE', url: () => `/api/tags/${foreign.tag}`, status: 404 }],
  // Assignments
  ['assign, malformed JSON', { method: 'POST', url: () => '/api/tags_assignments', raw: '{', status: 400 }],
  [
    'assign, ids of the wrong type',
    {
      method: 'POST',
      url: () => '/api/tags_assignments',
      body: () => ({ add_tags: ['x'], recipe_ids: 'abc' }),
      status: 400,
    },
  ],
  [
    'assign, unknown tag',
    {
      method: 'POST',
      url: () => '/api/tags_assignments',
      body: () => ({ add_tags: ['tag-nothere-000000'], recipe_ids: [1] }),
      status: 404,
    },
  ],
  [
    "assign, another workspace's recipe",
    {
      method: 'POST',
      url: () => '/api/tags_assignments',
      body: () => ({ add_tags: [handle], recipe_ids: [foreign.recipeId] }),
      status: 404,
    },
  ],
  [
    "assign, another workspace's connection",
    {
      method: 'POST',
      url: () => '/api/tags_assignments',
      body: () => ({ add_tags: [handle], connection_ids: [foreign.connectionId] }),
      status: 404,
    },
  ],
  [
    "assign, another workspace's tag",
    {
      method: 'POST',
      url: () => '/api/tags_assignments',
      body: () => ({ add_tags: [foreign.tag], recipe_ids: [recipeId] }),
      status: 404,
    },
  ],
  // Connections
  ['connection create, malformed JSON', { method: 'POST', url: () => '/api/connections', raw: '{"name"', status: 400 }],
  [
    'connection create, a number name',
    { method: 'POST', url: () => '/api/connections', body: () => ({ name: 5, provider: 'jira' }), status: 400 },
  ],
  [
    'connection create, no provider',
    { method: 'POST', url: () => '/api/connections', body: () => ({ name: 'x' }), status: 400 },
  ],
  [
    'connection create, folder of nobody',
    {
      method: 'POST',
      url: () => '/api/connections',
      body: () => ({ name: 'x', provider: 'jira', folder_id: 999999 }),
      status: 400,
    },
  ],
  [
    'connection update, a number name',
    { method: 'PUT', url: () => `/api/connections/${connectionId}`, body: () => ({ name: 5 }), status: 400 },
  ],
  [
    "connection update, another workspace's",
    { method: 'PUT', url: () => `/api/connections/${foreign.connectionId}`, body: () => ({ name: 'x' }), status: 404 },
  ],
  [
    "connection disconnect, another workspace's",
    { method: 'POST', url: () => `/api/connections/${foreign.connectionId}/disconnect`, status: 404 },
  ],
  [
    "connection delete, another workspace's",
    { method: 'DELETE', url: () => `/api/connections/${foreign.connectionId}`, status: 404 },
  ],
  ['connection delete, not a number', { method: 'DELETE', url: () => '/api/connections/abc', status: 404 }],
  // Recipe connect (the recipe runs: a stopped one is needed for a change, so each of these is refused before)
  ['connect, malformed JSON', { method: 'PUT', url: () => `/api/recipes/${recipeId}/connect`, raw: '{', status: 400 }],
  [
    'connect, an object connection id',
    {
      method: 'PUT',
      url: () => `/api/recipes/${recipeId}/connect`,
      body: () => ({ adapter_name: 'logger', connection_id: {} }),
      status: 400,
    },
  ],
  [
    "connect, another workspace's recipe",
    {
      method: 'PUT',
      url: () => `/api/recipes/${foreign.recipeId}/connect`,
      body: () => ({ adapter_name: 'clock', connection_id: null }),
      status: 404,
    },
  ],
  [
    "connect, another workspace's connection",
    {
      method: 'PUT',
      url: () => `/api/recipes/${recipeId}/connect`,
      body: () => ({ adapter_name: 'logger', connection_id: foreign.connectionId }),
      status: 400,
    },
  ],
  // Versions
  [
    'version comment, malformed JSON',
    { method: 'PATCH', url: () => `/api/recipes/${recipeId}/versions/${versionId}`, raw: '{', status: 400 },
  ],
  [
    'version comment, a number',
    {
      method: 'PATCH',
      url: () => `/api/recipes/${recipeId}/versions/${versionId}`,
      body: () => ({ comment: 5 }),
      status: 400,
    },
  ],
  [
    'version comment, too long',
    {
      method: 'PATCH',
      url: () => `/api/recipes/${recipeId}/versions/${versionId}`,
      body: () => ({ comment: 'x'.repeat(256) }),
      status: 400,
    },
  ],
  [
    "version comment, another recipe's version",
    {
      method: 'PATCH',
      url: () => `/api/recipes/${recipeId}/versions/${foreign.versionId}`,
      body: () => ({ comment: 'x' }),
      status: 404,
    },
  ],
  [
    'version comment, a version number for an id',
    {
      method: 'PATCH',
      url: () => `/api/recipes/${recipeId}/versions/${versionId + 100000}`,
      body: () => ({ comment: 'x' }),
      status: 404,
    },
  ],
  // Jobs
  [
    'repeat, malformed JSON',
    { method: 'POST', url: () => `/api/recipes/${recipeId}/repeat_jobs`, raw: '{', status: 400 },
  ],
  [
    'repeat, ids of the wrong type',
    { method: 'POST', url: () => `/api/recipes/${recipeId}/repeat_jobs`, body: () => ({ job_ids: [1] }), status: 400 },
  ],
  [
    'repeat, no ids',
    { method: 'POST', url: () => `/api/recipes/${recipeId}/repeat_jobs`, body: () => ({ job_ids: [] }), status: 400 },
  ],
  [
    "repeat, another workspace's recipe",
    {
      method: 'POST',
      url: () => `/api/recipes/${foreign.recipeId}/repeat_jobs`,
      body: () => ({ job_ids: [jobId] }),
      status: 404,
    },
  ],
  // Bodies over the limit, on each kind of route that changes something
  ['tag create, body over the limit', { method: 'POST', url: () => '/api/tags', raw: oversized, status: 413 }],
  ['tag update, body over the limit', { method: 'PUT', url: () => `/api/tags/${handle}`, raw: oversized, status: 413 }],
  ['assign, body over the limit', { method: 'POST', url: () => '/api/tags_assignments', raw: oversized, status: 413 }],
  [
    'connection create, body over the limit',
    { method: 'POST', url: () => '/api/connections', raw: oversized, status: 413 },
  ],
  [
    'connect, body over the limit',
    { method: 'PUT', url: () => `/api/recipes/${recipeId}/connect`, raw: oversized, status: 413 },
  ],
  [
    'version comment, body over the limit',
    { method: 'PATCH', url: () => `/api/recipes/${recipeId}/versions/${versionId}`, raw: oversized, status: 413 },
  ],
  [
    'repeat_jobs, body over the limit',
    { method: 'POST', url: () => `/api/recipes/${recipeId}/repeat_jobs`, raw: oversized, status: 413 },
  ],
];

describe("bad input on the vendor CLI's routes", () => {
  for (const [name, c] of cases) {
    test(`${name}: ${c.status}, nothing changes`, async () => {
      const before = await state();
      const res = await t.call(c.method, c.url(), {
        ...(c.raw !== undefined ? { raw: c.raw, headers: { 'content-type': c.type ?? json } } : {}),
        ...(c.body !== undefined ? { body: c.body() } : {}),
      });
      assert.equal(res.status, c.status, res.text);
      assert.equal(typeof res.body?.message, 'string', res.text);
      assert.doesNotMatch(res.text, /at .*\.ts:\d+|node_modules/);
      assert.equal(await state(), before);
    });
  }
});
