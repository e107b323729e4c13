import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { action, log, numbered, webhookTrigger } from '../../../test/recipes.ts';

const pill = (line: string, ...path: string[]) =>
  `#{_dp('${JSON.stringify({ pill_type: 'output', provider: line === 'hook' ? 'workato_webhooks' : 'rest', line, path })}')}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function waitRun(t: TestApp, id: string, token?: string): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i += 1) {
    const res = await t.call('GET', `/api/test_cases/run_requests/${id}`, token ? { token } : {});
    assert.equal(res.status, 200, res.text);
    if (res.body.data.status === 'completed') return res.body.data;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`run request ${id} did not complete`);
}

describe('test automation', () => {
  let t: TestApp;
  let project: { folderId: number; projectId: number };
  let recipeId: number;

  before(async () => {
    t = await createTestApp();
    project = await t.createProject('Orders');
    // hook -> look up the customer over HTTP -> log "<name> paid <total>"
    const code = numbered(
      webhookTrigger([
        action('rest', 'make_request_v2', 'customer', {
          request: { method: 'GET', url: 'http://127.0.0.1:9/customers/1' },
          response: {},
        }),
        log('say', `${pill('customer', 'body', 'name')} paid ${pill('hook', 'payload', 'total')}`),
      ]),
    );
    const created = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Paid orders', folder_id: project.folderId, code: JSON.stringify(code) } },
    });
    assert.equal(created.status, 200, created.text);
    recipeId = created.body.id;
  });
  after(() => t.close());

  const passing = () => ({
    name: 'Paid order is logged',
    trigger_output: { payload: { total: 42 } },
    mocks: [{ step: 'customer', output: { status: 200, body: { name: 'Ada' } } }],
    expectations: [{ step: 'say', output_path: ['message'], equals: 'Ada paid 42' }, { job_status: 'succeeded' }],
  });

  test('POST/GET/PUT/DELETE /api/recipes/:recipe_id/test_cases: stored with the recipe, checked against its steps', async () => {
    const created = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
      body: { ...passing(), name: 'Temporary' },
    });
    assert.equal(created.status, 200, created.text);
    const tc = created.body.data;
    assert.match(tc.id, /^citc-[A-Za-z0-9]{8}-[A-Za-z0-9]{6}$/);
    assert.equal(tc.recipe_id, recipeId);
    assert.deepEqual(tc.mocks, [{ step: 'customer', output: { status: 200, body: { name: 'Ada' } } }]);
    const list = await t.call('GET', `/api/recipes/${recipeId}/test_cases`);
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), [
      'created_at',
      'description',
      'id',
      'name',
      'recipe_id',
      'updated_at',
    ]);
    const put = await t.call('PUT', `/api/recipes/${recipeId}/test_cases/${tc.id}`, {
      body: { description: 'now described' },
    });
    assert.equal(put.body.data.description, 'now described');
    assert.deepEqual(put.body.data.expectations, tc.expectations, 'what was not sent stays');
    assert.equal((await t.call('DELETE', `/api/recipes/${recipeId}/test_cases/${tc.id}`)).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/test_cases/${tc.id}`)).status, 404);

    const bad: Array<[unknown, string]> = [
      [{ trigger_output: {} }, 'name'],
      [{ name: 'x', mocks: [{ step: 'nope', output: {} }] }, 'mocks[0].step'],
      [{ name: 'x', mocks: [{ step: '#0', output: {} }] }, 'mocks[0].step'],
      [{ name: 'x', mocks: [{ step: 'say', error: 'boom' }] }, 'mocks[0].error'],
      [{ name: 'x', expectations: [{ step: 'ghost', ran: true }] }, 'expectations[0].step'],
      [{ name: 'x', expectations: [{ job_status: 'done' }] }, 'expectations[0].job_status'],
      [{ name: 'x', expectations: [{ step: 'say', equals: 1, contains: 2 }] }, 'expectations[0]'],
      [{ name: 'x', trigger_output: [1, 2] }, 'trigger_output'],
      [{ name: 'x', allow_external: 'yes' }, 'allow_external'],
    ];
    for (const [body, field] of bad) {
      const res = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.body.errors[field], `${field} in ${res.text}`);
    }
    assert.equal((await t.call('POST', '/api/recipes/999999/test_cases', { body: passing() })).status, 404);
    assert.equal((await t.call('GET', '/api/recipes/999999/test_cases')).status, 404);
    assert.equal(
      (
        await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal((await t.call('GET', `/api/recipes/${recipeId}/test_cases`, { token: null })).status, 401);
    assert.deepEqual((await t.call('GET', `/api/recipes/${recipeId}/test_cases`)).body, { data: [] });
  });

  test('POST /api/recipes/:recipe_id/test_cases: a trigger output or a mock nested deeper than an event is a 400 naming it', async () => {
    const nest = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const bodies: Array<[string, string, string]> = [
      [`{"name":"Deep trigger","trigger_output":${nest(101)}}`, 'trigger_output', '100'],
      [`{"name":"Deep mock","mocks":[{"step":"customer","output":${nest(120)}}]}`, 'mocks', '102'],
      [`{"name":"Deep check","expectations":[{"step":"say","equals":${nest(120)}}]}`, 'expectations', '102'],
    ];
    for (const [raw, field, max] of bodies) {
      const res = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.errors, { [field]: [`nests objects and arrays more than ${max} levels deep`] });
    }
    // A whole event's depth is fine.
    const fine = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
      raw: `{"name":"Deep but fine","trigger_output":${nest(100)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(fine.status, 200, fine.text);
    assert.equal((await t.call('DELETE', `/api/recipes/${recipeId}/test_cases/${fine.body.data.id}`)).status, 200);
  });

  test('a run request runs the real recipe with its mocks, checks expectations, and reports each result, the failing expectation and coverage', async () => {
    const ok = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, { body: passing() });
    const wrong = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
      body: { ...passing(), name: 'Wrong total', trigger_output: { payload: { total: 7 } } },
    });
    const unmocked = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
      body: { name: 'Forgot the mock', trigger_output: { payload: { total: 1 } } },
    });
    const expectedFailure = await t.call('POST', `/api/recipes/${recipeId}/test_cases`, {
      body: {
        name: 'Customer service down',
        trigger_output: { payload: {} },
        mocks: [{ step: 'customer', error: { type: 'Server error', message: '503 from customers' } }],
        expectations: [
          { step: 'customer', failed: true, error_contains: '503' },
          { step: 'say', ran: false },
        ],
      },
    });
    for (const r of [ok, wrong, unmocked, expectedFailure]) assert.equal(r.status, 200, r.text);
    const before = await t.call('GET', `/api/recipes/${recipeId}`);

    const started = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: String(recipeId) } });
    assert.equal(started.status, 200, started.text);
    assert.match(started.body.data.id, /^cirr-[A-Za-z0-9]{8}-[A-Za-z0-9]{6}$/);
    assert.equal(started.body.data.status, 'running');
    assert.equal(started.body.data.results.length, 4);
    assert.ok(!('coverage' in started.body.data));
    const done = await waitRun(t, started.body.data.id);
    const byName = Object.fromEntries(done.results.map((r: { test_case: { name: string } }) => [r.test_case.name, r]));
    assert.equal(byName['Paid order is logged'].status, 'succeeded', JSON.stringify(byName['Paid order is logged']));
    assert.equal(byName['Wrong total'].status, 'failed');
    assert.equal(
      byName['Wrong total'].failure,
      'expected step say output message to equal "Ada paid 42", got "Ada paid 7"',
    );
    assert.equal(byName['Forgot the mock'].status, 'failed');
    assert.match(
      byName['Forgot the mock'].failure,
      /step 1 \(rest: make_request_v2\) would reach a system outside Switchboard: mock it, or set allow_external/,
    );
    assert.equal(byName['Customer service down'].status, 'succeeded', JSON.stringify(byName['Customer service down']));
    assert.deepEqual(byName['Paid order is logged'].recipe, { id: recipeId, name: 'Paid orders' });
    assert.equal(done.coverage.value, 100);
    assert.deepEqual(done.user, {
      id: (await t.ctx.db.selectFrom('developer_api_clients').select('id').orderBy('id').executeTakeFirstOrThrow()).id,
    });

    // The jobs are the recipe's, marked as test case jobs, and not counted in its figures.
    const job = await t.call('GET', `/api/recipes/${recipeId}/jobs/${byName['Paid order is logged'].job.id}`);
    assert.equal(job.status, 200, job.text);
    assert.equal(job.body.is_test_case_job, true);
    const afterRun = await t.call('GET', `/api/recipes/${recipeId}`);
    assert.equal(afterRun.body.job_succeeded_count, before.body.job_succeeded_count);
    assert.equal(afterRun.body.job_failed_count, before.body.job_failed_count);
    assert.equal(afterRun.body.running, false, 'the recipe need not run');

    // The other selectors reach the same test cases.
    for (const body of [
      { folder_id: project.folderId },
      { project_id: project.projectId },
      { test_case_ids: [ok.body.data.id] },
    ]) {
      const res = await t.call('POST', '/api/test_cases/run_requests', { body });
      assert.equal(res.status, 200, `${JSON.stringify(body)}: ${res.text}`);
      const n = (await waitRun(t, res.body.data.id)).results.length;
      assert.equal(n, 'test_case_ids' in body ? 1 : 4);
    }
    const manifest = await t.call('POST', '/api/export_manifests', {
      body: { export_manifest: { name: 'm', folder_id: project.folderId, auto_generate_assets: true } },
    });
    const byManifest = await t.call('POST', '/api/test_cases/run_requests', {
      body: { manifest_id: String(manifest.body.result.id) },
    });
    assert.equal((await waitRun(t, byManifest.body.data.id)).results.length, 4);
  });

  test('run requests: bad selectors, unknown ids, an empty scope, another environment', async () => {
    const none = await t.call('POST', '/api/test_cases/run_requests', { body: {} });
    assert.equal(none.status, 400);
    assert.equal(
      none.body.message,
      'Give exactly one of recipe_id, test_case_ids, folder_id, project_id or manifest_id',
    );
    assert.equal(
      (
        await t.call('POST', '/api/test_cases/run_requests', {
          body: { recipe_id: recipeId, folder_id: project.folderId },
        })
      ).status,
      400,
    );
    assert.equal((await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: 'abc' } })).status, 400);
    assert.equal(
      (await t.call('POST', '/api/test_cases/run_requests', { body: { test_case_ids: 'citc-x' } })).status,
      400,
    );
    assert.equal((await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: 999999 } })).status, 404);
    assert.equal(
      (await t.call('POST', '/api/test_cases/run_requests', { body: { test_case_ids: ['citc-AAAAAAAA-BBBBBB'] } }))
        .status,
      404,
    );
    assert.equal((await t.call('POST', '/api/test_cases/run_requests', { body: { project_id: 999999 } })).status, 404);
    assert.equal((await t.call('POST', '/api/test_cases/run_requests', { body: { manifest_id: 999999 } })).status, 404);
    const tooMany = await t.call('POST', '/api/test_cases/run_requests', {
      body: { test_case_ids: Array.from({ length: 501 }, (_, i) => `citc-AAAAAAAA-${String(i).padStart(6, '0')}`) },
    });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.message, 'The run would hold 501 test cases; at most 500 run in one request');
    assert.equal((await t.call('GET', '/api/test_cases/run_requests/cirr-nothere-000000')).status, 404);
    const empty = await t.createProject('Nothing to test');
    const res = await t.call('POST', '/api/test_cases/run_requests', { body: { project_id: empty.projectId } });
    assert.equal(res.status, 200);
    assert.deepEqual(
      { status: res.body.data.status, results: res.body.data.results, coverage: res.body.data.coverage },
      { status: 'completed', results: [], coverage: { value: 0 } },
    );
    const testToken = await t.tokenFor('Admin', 'test');
    assert.equal(
      (await t.call('GET', `/api/test_cases/run_requests/${res.body.data.id}`, { token: testToken })).status,
      404,
    );
    assert.equal(
      (await t.call('POST', '/api/test_cases/run_requests', { token: testToken, body: { recipe_id: recipeId } }))
        .status,
      404,
    );
    const readOnly = await t.tokenFor('Read only');
    assert.equal(
      (await t.call('POST', '/api/test_cases/run_requests', { token: readOnly, body: { recipe_id: recipeId } })).status,
      403,
    );
    assert.equal(
      (await t.call('GET', `/api/test_cases/run_requests/${res.body.data.id}`, { token: readOnly })).status,
      200,
    );
  });

  test('test cases go with their recipe: copied with it, exported with include_test_cases, imported in place, and they pass there', async () => {
    const source = await t.createProject('Carried');
    const code = numbered(webhookTrigger([log('say', `hello ${pill('hook', 'payload', 'who')}`)]));
    const made = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Greeter', folder_id: source.folderId, code: JSON.stringify(code) } },
    });
    const tc = {
      name: 'Greets Ada',
      trigger_output: { payload: { who: 'Ada' } },
      expectations: [{ step: 'say', output_path: 'message', equals: 'hello Ada' }],
    };
    assert.equal((await t.call('POST', `/api/recipes/${made.body.id}/test_cases`, { body: tc })).status, 200);

    const copy = await t.call('POST', `/api/recipes/${made.body.id}/copy`, { body: {} });
    assert.equal(copy.status, 200, copy.text);
    const copied = await t.call('GET', `/api/recipes/${copy.body.new_flow_id}/test_cases`);
    assert.deepEqual(
      copied.body.data.map((c: { name: string }) => c.name),
      ['Greets Ada'],
    );

    const manifest = await t.call('POST', '/api/export_manifests', {
      body: {
        export_manifest: {
          name: 'with tests',
          folder_id: source.folderId,
          auto_generate_assets: true,
          include_test_cases: true,
        },
      },
    });
    const pkg = await t.call('POST', `/api/packages/export/${manifest.body.result.id}`);
    assert.equal((await waitPackage(t, pkg.body.id)).status, 'completed');
    const zip = await t.app.inject({
      method: 'GET',
      url: `/api/packages/${pkg.body.id}/download`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    const { readZip } = await import('../packages/zip.ts');
    const files = await readZip(zip.rawPayload, { maxEntries: 100, maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 22 });
    const greeter = JSON.parse(files.get('greeter.recipe.json')!.toString('utf8'));
    assert.deepEqual(
      greeter.test_cases.map((c: { name: string; expectations: unknown }) => [c.name, c.expectations]),
      [['Greets Ada', [{ step: 'say', output_path: ['message'], equals: 'hello Ada' }]]],
    );

    const testToken = await t.tokenFor('Admin', 'test');
    const target = await t.createProject('Carried', 'test');
    const imported = await t.call('POST', `/api/packages/import/${target.folderId}`, {
      token: testToken,
      raw: zip.rawPayload,
      headers: { 'content-type': 'application/zip' },
    });
    const done = await waitPackage(t, imported.body.id, testToken);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const run = await t.call('POST', '/api/test_cases/run_requests', {
      token: testToken,
      body: { project_id: target.projectId },
    });
    assert.equal(run.status, 200, run.text);
    const result = await waitRun(t, run.body.data.id, testToken);
    // The recipe and its copy (in the same folder) each brought their test case.
    assert.deepEqual(
      result.results.map((r: { recipe: { name: string }; status: string }) => [r.recipe.name, r.status]),
      [
        ['Greeter', 'succeeded'],
        ['Copy of Greeter', 'succeeded'],
      ],
    );
  });
});

describe('GET /api/recipes/:recipe_id/test_cases: the order they were created in', () => {
  let t: TestApp;
  // Every test case is created in the same millisecond: the order cannot come from the clock.
  const frozen = new Date('2026-03-04T10:11:12.345Z');
  before(async () => {
    t = await createTestApp({ clock: { now: () => new Date(frozen) } });
  });
  after(() => t.close());

  test('listed and run in creation order, whatever their ids', async () => {
    const project = await t.createProject('Ordered');
    const code = numbered(webhookTrigger([log('say', 'hello')]));
    const created = await t.call('POST', '/api/recipes', {
      body: { recipe: { name: 'Greeter', folder_id: project.folderId, code: JSON.stringify(code) } },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.id;
    const names = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
    for (const name of names) {
      const res = await t.call('POST', `/api/recipes/${id}/test_cases`, {
        body: { name, trigger_output: {}, expectations: [{ job_status: 'succeeded' }] },
      });
      assert.equal(res.status, 200, res.text);
    }
    const list = await t.call('GET', `/api/recipes/${id}/test_cases`);
    assert.deepEqual(
      list.body.data.map((c: { name: string }) => c.name),
      names,
    );
    const started = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: id } });
    assert.equal(started.status, 200, started.text);
    const run = await waitRun(t, started.body.data.id);
    assert.deepEqual(
      run.results.map((r: { test_case: { name: string } }) => r.test_case.name),
      names,
    );
  });
});
