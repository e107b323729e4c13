import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type Reply, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function upsert(
  properties: unknown,
  options: { query?: string; token?: string; extra?: Record<string, unknown> } = {},
): Promise<Reply> {
  return t.call('POST', `/api/properties${options.query ?? ''}`, {
    body: { properties, ...options.extra },
    ...(options.token ? { token: options.token } : {}),
  });
}

async function get(query = '', token?: string): Promise<Reply> {
  return t.call('GET', `/api/properties${query}`, token ? { token } : {});
}

async function project(name: string, token?: string): Promise<{ projectId: number; folderId: number }> {
  const res = await t.call('POST', '/api/folders', { body: { name }, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, res.text);
  return { projectId: res.body.project_id, folderId: res.body.id };
}

/** Every property row of the server: a refused upsert must leave it as it was. */
async function snapshot() {
  return t.ctx.db.selectFrom('properties').selectAll().orderBy('id').execute();
}

describe('GET /api/properties', () => {
  test('environment level: a flat map of full names that start with the prefix (case-sensitive)', async () => {
    const env = await t.newWorkspace('Prefix Co');
    const token = env.adminToken;
    assert.equal(
      (
        await upsert(
          {
            'billing_sync.admin_email': 'ops@example.com',
            'billing_sync.batch_size': '200',
            'Billing_sync.other': 'x',
            'crm.url': 'https://crm',
          },
          { token },
        )
      ).status,
      200,
    );
    const res = await get('?prefix=billing_sync.', token);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { 'billing_sync.admin_email': 'ops@example.com', 'billing_sync.batch_size': '200' });
    assert.deepEqual((await get('?prefix=billing_sync.a', token)).body, {
      'billing_sync.admin_email': 'ops@example.com',
    });
    assert.deepEqual((await get('?prefix=nothing', token)).body, {});
    assert.deepEqual((await get('?prefix=sync', token)).body, {}, 'starts-with, not contains');
  });

  test('a missing or empty prefix returns all; paging parameters are ignored', async () => {
    const env = await t.newWorkspace('All Co');
    const all = { a: '1', b: '2', c: '3' };
    await upsert(all, { token: env.adminToken });
    assert.deepEqual((await get('', env.adminToken)).body, all);
    assert.deepEqual((await get('?prefix=', env.adminToken)).body, all);
    assert.deepEqual((await get('?prefix=&per_page=1&page=2', env.adminToken)).body, all);
  });

  test('project level: names with the prefix stripped; the environment level is separate', async () => {
    const p = await project('Salesforce sync');
    assert.equal(
      (
        await upsert(
          {
            'salesforce_sync.admin_email': 'a@example.com',
            'salesforce_sync.public_url': 'https://x',
            'other.key': 'o',
          },
          { query: `?project_id=${p.projectId}` },
        )
      ).status,
      200,
    );
    assert.deepEqual((await get(`?prefix=salesforce_sync.&project_id=${p.projectId}`)).body, {
      admin_email: 'a@example.com',
      public_url: 'https://x',
    });
    assert.deepEqual((await get(`?project_id=${p.projectId}`)).body, {
      'other.key': 'o',
      'salesforce_sync.admin_email': 'a@example.com',
      'salesforce_sync.public_url': 'https://x',
    });
    assert.deepEqual((await get('?prefix=salesforce_sync.')).body, {}, 'not environment properties');
    const sibling = await project('Sibling project');
    assert.deepEqual((await get(`?project_id=${sibling.projectId}`)).body, {}, 'nor another project’s');
  });

  test('404 for a project that is unknown, in another environment or workspace, or out of scope; 400 for a bad id', async () => {
    const testProject = await project('Props test env', await t.tokenFor('Admin', 'test'));
    const other = await t.newWorkspace('Props foreign Co');
    const foreign = await project('Props foreign', other.adminToken);
    const hidden = await project('Props hidden');
    const visible = await project('Props visible');
    const { token: scopedToken } = await t.scopedClient([visible.folderId]);
    for (const [id, token] of [
      [999_999, undefined],
      [testProject.projectId, undefined],
      [foreign.projectId, undefined],
      [hidden.projectId, scopedToken],
    ] as const) {
      const res = await get(`?project_id=${id}`, token);
      assert.equal(res.status, 404, String(id));
      assert.equal(res.body.message, 'Project not found');
    }
    assert.equal((await get(`?project_id=${visible.projectId}`, scopedToken)).status, 200);
    assert.equal((await get('', scopedToken)).status, 200, 'environment properties belong to no project');
    for (const bad of ['abc', '0', '-1', '1.5']) {
      const res = await get(`?project_id=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.ok(res.body.errors.project_id);
    }
  });

  test('each environment and workspace has its own environment properties', async () => {
    await upsert({ 'iso.key': 'dev' });
    const testToken = await t.tokenFor('Admin', 'test');
    await upsert({ 'iso.key': 'test' }, { token: testToken });
    assert.deepEqual((await get('?prefix=iso.')).body, { 'iso.key': 'dev' });
    assert.deepEqual((await get('?prefix=iso.', testToken)).body, { 'iso.key': 'test' });
    const other = await t.newWorkspace('Iso Co');
    assert.deepEqual((await get('?prefix=iso.', other.adminToken)).body, {});
  });

  test('401 without a token; 403 for a role without environment_properties:read', async () => {
    const anonymous = await t.call('GET', '/api/properties', { token: null });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { message: 'Unauthorized' });
    const res = await get('', await t.tokenWith('Folders only', ['projects_folders:read']));
    assert.equal(res.status, 403);
    assert.match(res.body.message, /environment_properties:read/);
  });
});

describe('POST /api/properties', () => {
  test('creates and overwrites the given names, leaves the others; answers { success: true }', async () => {
    const env = await t.newWorkspace('Upsert Co');
    const token = env.adminToken;
    const first = await upsert({ 'app.a': '1', 'app.b': '2' }, { token });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { success: true });
    assert.deepEqual((await upsert({ 'app.b': 'two', 'app.c': '' }, { token })).body, { success: true });
    assert.deepEqual((await get('', token)).body, { 'app.a': '1', 'app.b': 'two', 'app.c': '' });
    assert.equal((await upsert({}, { token })).status, 200, 'nothing to do is no error');
    assert.deepEqual((await get('', token)).body, { 'app.a': '1', 'app.b': 'two', 'app.c': '' });
  });

  test('numbers and booleans are stored as their text; names are kept exactly as sent', async () => {
    const env = await t.newWorkspace('Coerce Co');
    const token = env.adminToken;
    const names = {
      'Pre77 spaces   ': 'trailing',
      'invisible.key value': 'spaced',
      'ключ.名前': 'unicode',
      ['😀'.repeat(100)]: 'emoji name at the limit',
      Case: 'upper',
      case: 'lower',
      constructor: 'plain key',
    };
    assert.equal(
      (
        await upsert(
          { 'n.int': 3, 'n.float': 1.5, 'n.neg': -0.25, 'n.big': 1e21, 'b.t': true, 'b.f': false, ...names },
          { token },
        )
      ).status,
      200,
    );
    assert.deepEqual((await get('', token)).body, {
      'n.int': '3',
      'n.float': '1.5',
      'n.neg': '-0.25',
      'n.big': '1e+21',
      'b.t': 'true',
      'b.f': 'false',
      ...names,
    });
    const multiline = 'line one\nline two\ttabbed';
    assert.equal(
      (await upsert({ pem: multiline, long: 'v'.repeat(1024) }, { token })).status,
      200,
      'newlines and tabs are fine in values; 1,024 characters fit',
    );
    assert.equal((await get('?prefix=pem', token)).body.pem, multiline);
  });

  test('project_id in the query or in the body (integer or string) selects the project level', async () => {
    const p = await project('Upsert project');
    const ways = [
      { query: `?project_id=${p.projectId}` },
      { extra: { project_id: p.projectId } },
      { extra: { project_id: String(p.projectId) } },
      { query: `?project_id=${p.projectId}`, extra: { project_id: p.projectId } },
    ];
    for (const [i, options] of ways.entries()) {
      const res = await upsert({ [`via.${i}`]: 'x' }, options);
      assert.equal(res.status, 200, JSON.stringify(options));
    }
    assert.deepEqual((await get(`?project_id=${p.projectId}`)).body, {
      'via.0': 'x',
      'via.1': 'x',
      'via.2': 'x',
      'via.3': 'x',
    });
    assert.deepEqual((await get('?prefix=via.')).body, {}, 'nothing reached the environment level');
  });

  test('one bad entry refuses the whole upsert, naming each bad property; nothing changes', async () => {
    await upsert({ 'keep.me': 'original' });
    const before = await snapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ 'keep.me': 'changed', obj: { a: 1 } }, 'obj'],
      [{ 'keep.me': 'changed', arr: ['a'] }, 'arr'],
      [{ 'keep.me': 'changed', nul: null }, 'nul'],
      [{ 'keep.me': 'changed', ['n'.repeat(101)]: 'x' }, 'n'.repeat(101)],
      [{ 'keep.me': 'changed', ['😀'.repeat(101)]: 'x' }, '😀'.repeat(101)],
      [{ 'keep.me': 'changed', 'long.value': 'v'.repeat(1025) }, 'long.value'],
      [{ 'keep.me': 'changed', 'tab\tname': 'x' }, 'tab\tname'],
      [{ 'keep.me': 'changed', 'new\nline': 'x' }, 'new\nline'],
      [{ 'keep.me': 'changed', 'nul\u0000name': 'x' }, 'nul\u0000name'],
      [{ 'keep.me': 'changed', 'del\u007f': 'x' }, 'del\u007f'],
      [{ 'keep.me': 'changed', 'c1\u0085': 'x' }, 'c1\u0085'],
      [{ 'keep.me': 'changed', 'lone\ud800': 'x' }, 'lone\ud800'],
      [{ 'keep.me': 'changed', '': 'blank' }, ''],
      [{ 'keep.me': 'changed', '   ': 'blank' }, '   '],
      [{ 'keep.me': 'changed', 'nul.value': 'a\u0000b' }, 'nul.value'],
      [{ 'keep.me': 'changed', 'lone.value': 'a\udc00' }, 'lone.value'],
    ];
    for (const [properties, bad] of cases) {
      const res = await upsert(properties);
      assert.equal(res.status, 400, JSON.stringify(properties).slice(0, 80));
      assert.deepEqual(Object.keys(res.body.errors), [bad]);
      assert.match(res.body.message, /nothing was saved/);
    }
    const two = await upsert({ a1: {}, a2: 'ok', a3: [] });
    assert.deepEqual(Object.keys(two.body.errors).sort(), ['a1', 'a3']);
    assert.deepEqual(await snapshot(), before);
    assert.deepEqual((await get('?prefix=keep.')).body, { 'keep.me': 'original' });
  });

  test('400 for a missing or wrong properties object, a bad or conflicting project_id, bad JSON; 415; nothing changes', async () => {
    const p = await project('Bad input project');
    const before = await snapshot();
    const bodies: [unknown, string][] = [
      [{}, 'properties'],
      [{ properties: 'a=b' }, 'properties'],
      [{ properties: ['a', 'b'] }, 'properties'],
      [{ properties: null }, 'properties'],
      [{ properties: { a: 'b' }, project_id: 'abc' }, 'project_id'],
      [{ properties: { a: 'b' }, project_id: true }, 'project_id'],
      [{ properties: { a: 'b' }, project_id: 0 }, 'project_id'],
      [[{ a: 'b' }], 'body'],
    ];
    for (const [body, field] of bodies) {
      const res = await t.call('POST', '/api/properties', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.errors?.[field], `${JSON.stringify(body)}: ${res.text}`);
    }
    const conflict = await upsert(
      { a: 'b' },
      { query: `?project_id=${p.projectId}`, extra: { project_id: p.projectId + 1000 } },
    );
    assert.equal(conflict.status, 400);
    assert.ok(conflict.body.errors.project_id);
    assert.equal((await upsert({ a: 'b' }, { query: '?project_id=x' })).status, 400);
    assert.equal(
      (
        await t.call('POST', '/api/properties', {
          raw: '{"properties": {"a": "b"',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    // A "__proto__" key is refused by the JSON parser (prototype poisoning), with nothing stored.
    assert.equal(
      (
        await t.call('POST', '/api/properties', {
          raw: '{"properties": {"__proto__": "x"}}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    const form = await t.call('POST', '/api/properties', {
      raw: 'properties[a]=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.equal((await t.call('POST', '/api/properties')).status, 400, 'no body');
    assert.deepEqual(await snapshot(), before);
  });

  test('at most 1,000 properties per environment and per project; a request past the limit changes nothing', async () => {
    const env = await t.newWorkspace('Quota Co');
    const token = env.adminToken;
    const many = (count: number, from = 0) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`k.${String(from + i).padStart(4, '0')}`, `v${from + i}`]),
      );
    assert.equal((await upsert(many(999), { token })).status, 200);
    const before = await snapshot();
    const over = await upsert({ 'k.0000': 'overwritten', 'new.one': '1', 'new.two': '2' }, { token });
    assert.equal(over.status, 400);
    assert.match(over.body.message, /at most 1000 per environment/);
    assert.ok(over.body.errors.properties);
    assert.deepEqual(await snapshot(), before, 'the overwrite in the same request was rolled back too');
    assert.equal((await upsert(many(1001), {})).status, 400, 'more than 1,000 in one request');
    assert.deepEqual(await snapshot(), before);
    assert.equal((await upsert({ 'k.0000': 'overwritten', 'new.one': '1' }, { token })).status, 200, 'exactly 1,000');
    assert.equal(Object.keys((await get('', token)).body).length, 1000);
    assert.equal((await upsert({ 'k.0001': 'overwrites are fine at the limit' }, { token })).status, 200);
    // The project level has its own quota.
    const p = await project('Quota project', token);
    assert.equal((await upsert(many(1000), { token, query: `?project_id=${p.projectId}` })).status, 200);
    assert.equal((await upsert({ extra: 'x' }, { token, query: `?project_id=${p.projectId}` })).status, 400);
    assert.match(
      (await upsert({ extra: 'x' }, { token, query: `?project_id=${p.projectId}` })).body.message,
      /per project/,
    );
  });

  test('404 for a project that is unknown, in another environment or workspace, or out of scope; nothing changes', async () => {
    const testProject = await project('Upsert test env', await t.tokenFor('Admin', 'test'));
    const other = await t.newWorkspace('Upsert foreign Co');
    const foreign = await project('Upsert foreign', other.adminToken);
    const hidden = await project('Upsert hidden');
    const visible = await project('Upsert visible');
    const { token: scopedToken } = await t.scopedClient([visible.folderId]);
    const before = await snapshot();
    for (const [id, token] of [
      [999_999, undefined],
      [testProject.projectId, undefined],
      [foreign.projectId, undefined],
      [hidden.projectId, scopedToken],
    ] as const) {
      assert.equal(
        (await upsert({ a: 'b' }, { query: `?project_id=${id}`, ...(token ? { token } : {}) })).status,
        404,
        `query ${id}`,
      );
      assert.equal(
        (await upsert({ a: 'b' }, { extra: { project_id: id }, ...(token ? { token } : {}) })).status,
        404,
        `body ${id}`,
      );
    }
    assert.deepEqual(await snapshot(), before);
    assert.equal(
      (await upsert({ a: 'b' }, { query: `?project_id=${visible.projectId}`, token: scopedToken })).status,
      200,
    );
  });

  test('401 without a token; 403 for a role without environment_properties:write; nothing changes', async () => {
    const before = await snapshot();
    assert.equal(
      (await t.call('POST', '/api/properties', { token: null, body: { properties: { a: 'b' } } })).status,
      401,
    );
    const reader = await t.tokenWith('Properties reader', ['environment_properties:read']);
    assert.equal((await get('', reader)).status, 200);
    const res = await upsert({ a: 'b' }, { token: reader });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /environment_properties:write/);
    assert.equal((await upsert({ a: 'b' }, { token: await t.tokenFor('Read only') })).status, 403);
    assert.deepEqual(await snapshot(), before);
  });
});
