// The console's builds and test runs through HTTP (inject): a project's builds, a build's page
// (what it holds, its deployments), starting a build and deploying it, a recipe's test cases and
// a test run's results; the same privileges as the API, and bad input answered with a clear page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, waitFor, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { action, log, numbered, webhookTrigger } from '../../test/recipes.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let reader: ConsoleBrowser;
let project: { folderId: number; projectId: number };

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  reader = await consoleSignIn(t, await t.tokenFor('Read only'));
  project = await t.createProject('Payments');
  const created = await t.call('POST', '/api/recipes', {
    body: {
      recipe: {
        name: 'Charge',
        folder_id: project.folderId,
        code: JSON.stringify(webhookTrigger([log('say', 'hello')])),
      },
    },
  });
  assert.equal(created.status, 200, created.text);
});
after(async () => t.close());

function assertNoStack(body: string): void {
  assert.doesNotMatch(body, /at .*\.ts:\d+|Error: |node_modules/);
}

describe('GET /console/builds and POST /console/builds', () => {
  test('start a build of a project from the console; its page shows what it holds; deploy it to test', async () => {
    const empty = await admin.get('/console/builds');
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /<h1>Builds<\/h1>/);
    assert.match(empty.body, /No build here/);
    assert.match(empty.body, /<a href="\/console\/builds" aria-current="page">Builds<\/a>/);
    assert.match(empty.body, new RegExp(`<option value="${project.projectId}">Payments</option>`));

    const started = await admin.post('/console/builds', {
      project_id: String(project.projectId),
      description: 'first <b>build</b>',
    });
    assert.equal(started.statusCode, 303, started.body);
    const location = started.headers.location as string;
    const id = Number(/^\/console\/builds\/(\d+)\?done=build_started$/.exec(location)?.[1]);
    assert.ok(id > 0, location);
    const api = await t.call('GET', `/api/project_builds/${id}`);
    assert.equal(api.status, 200);
    assert.equal(api.body.description, 'first <b>build</b>');
    assert.equal(api.body.project_id, String(project.projectId));

    const built = await waitFor(
      () => admin.get(`/console/builds/${id}`),
      (res) => !/>pending</.test(res.body),
      'the build',
    );
    assert.equal(built.statusCode, 200);
    assert.match(built.body, /<span class="badge ok">success<\/span>/);
    assert.match(built.body, /first &lt;b&gt;build&lt;\/b&gt;/, 'escaped');
    assert.match(built.body, /<td>Charge<\/td><td>recipe<\/td>/, 'what the build holds');
    assert.match(built.body, /Not deployed yet/);
    assert.match(built.body, /<select id="deploy-target" name="environment_type">/);

    const list = await admin.get(`/console/builds?project_id=${project.projectId}`);
    assert.match(
      list.body,
      new RegExp(
        `<a href="/console/builds/${id}">Build ${id}</a></td><td>Payments</td><td><span class="badge ok">success</span>`,
      ),
    );

    const deployed = await admin.post(`/console/builds/${id}/deploy`, {
      environment_type: 'test',
      description: 'to test',
    });
    assert.equal(deployed.statusCode, 303, deployed.body);
    const deploymentId = Number(
      new RegExp(`^/console/builds/${id}\\?deployment=(\\d+)$`).exec(deployed.headers.location as string)?.[1],
    );
    assert.ok(deploymentId > 0, deployed.headers.location as string);
    const afterDeploy = await waitFor(
      () => admin.get(deployed.headers.location as string),
      (res) => !/<td>test<\/td><td><span class="badge ">pending/.test(res.body),
      'the deployment',
    );
    assert.match(
      afterDeploy.body,
      new RegExp(`<p class="notice ok" role="status">Deployment ${deploymentId} to test succeeded\\.</p>`),
    );
    assert.match(
      afterDeploy.body,
      /<div class="muted small">to test<\/div><\/td><td>test<\/td><td><span class="badge ok">success<\/span>/,
    );
    const deployments = await t.call('GET', '/api/deployments');
    assert.equal(deployments.body.items.length, 1);
    assert.equal(deployments.body.items[0].project_build_id, id);
    const inTest = await t.call('GET', '/api/recipes', { token: await t.tokenFor('Admin', 'test') });
    assert.ok(
      inTest.body.items.some((r: { name: string }) => r.name === 'Charge'),
      'the recipe is in test',
    );
    const deploymentsPage = await admin.get('/console/deployments');
    assert.match(deploymentsPage.body, new RegExp(`<a href="/console/builds/${id}">Build ${id}</a>`));
    assert.match(deploymentsPage.body, /<td>Payments<\/td><td><a href="\/console\/builds\//, 'the project by its name');
  });

  test('a failed deployment says it failed, never a green "started"; its untested connection is not called a success', async () => {
    const ledger = await t.createProject('Ledger');
    const conn = await t.call('POST', '/api/connections', {
      body: {
        name: 'Ledger DB',
        provider: 'rest',
        folder_id: ledger.folderId,
        input: { base_url: 'http://127.0.0.1:9/', auth_type: 'none' },
      },
    });
    assert.ok(conn.status < 300, conn.text);
    assert.equal(conn.body.authorization_status, 'success', 'what the API says: its fields are complete');
    const connectionPage = await admin.get(`/console/connections/${conn.body.id}`);
    assert.match(connectionPage.body, /<span class="badge">not tested<\/span>/);
    assert.doesNotMatch(connectionPage.body, /badge ok">success/);
    const connectionsList = await admin.get('/console/connections');
    assert.match(
      connectionsList.body,
      new RegExp(
        `<a href="/console/connections/${conn.body.id}">Ledger DB</a>.*?<span class="badge">not tested</span>`,
        's',
      ),
    );
    const recipe = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Post entry',
          folder_id: ledger.folderId,
          code: JSON.stringify(webhookTrigger([log('x', 'y')])),
          config: JSON.stringify([{ keyword: 'application', provider: 'rest', account_id: conn.body.id }]),
        },
      },
    });
    assert.equal(recipe.status, 200, recipe.text);
    const build = await t.call('POST', `/api/projects/${ledger.projectId}/build`, { body: {} });
    assert.equal(build.status, 200, build.text);
    await waitFor(
      () => t.call('GET', `/api/project_builds/${build.body.id}`),
      (res) => res.body.state !== 'pending',
      'the build',
    );
    const deployed = await admin.post(`/console/builds/${build.body.id}/deploy`, { environment_type: 'test' });
    assert.equal(deployed.statusCode, 303, deployed.body);
    const failed = await waitFor(
      () => admin.get(deployed.headers.location as string),
      (res) => !/role="status">Deployment \d+ to test started/.test(res.body),
      'the deployment',
    );
    assert.match(
      failed.body,
      /<p class="notice error" role="alert">Deployment \d+ to test failed: [^<]*no connection named &quot;Ledger DB&quot; \(rest\)/,
    );
    assert.doesNotMatch(failed.body, /notice ok|Deployment started/);
  });

  test('a read-only token sees builds but no build or deploy form, and a forged build or deploy is refused: 403, nothing changed', async () => {
    const builds = (await t.call('GET', '/api/deployments')).body.items.length;
    const list = await reader.get('/console/builds');
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /Start build/);
    const build = await t.call('POST', `/api/projects/${project.projectId}/build`, { body: {} });
    await waitFor(
      () => t.call('GET', `/api/project_builds/${build.body.id}`),
      (res) => res.body.state !== 'pending',
      'the build',
    );
    const page = await reader.get(`/console/builds/${build.body.id}`);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Deploy this build/);
    const refusedBuild = await reader.post('/console/builds', { project_id: String(project.projectId) });
    assert.equal(refusedBuild.statusCode, 403);
    assert.match(refusedBuild.body, /project_deployments:write/);
    const refusedDeploy = await reader.post(`/console/builds/${build.body.id}/deploy`, { environment_type: 'prod' });
    assert.equal(refusedDeploy.statusCode, 403);
    assert.equal((await t.call('GET', '/api/deployments')).body.items.length, builds, 'no deployment made');
  });

  test('a token of the test environment may not build: the page says builds start in dev', async () => {
    const testAdmin = await consoleSignIn(t, await t.tokenFor('Admin', 'test'));
    const list = await testAdmin.get('/console/builds');
    assert.equal(list.statusCode, 200);
    assert.doesNotMatch(list.body, /Start build/);
    const refused = await testAdmin.post('/console/builds', { project_id: String(project.projectId) });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /dev/);
    assertNoStack(refused.body);
  });

  test("bad input: unknown project or build, another workspace's build, a bad target, a pending build, missing CSRF", async () => {
    const unknownProject = await admin.post('/console/builds', { project_id: '999999' });
    assert.equal(unknownProject.statusCode, 404);
    const notANumber = await admin.post('/console/builds', { project_id: 'abc' });
    assert.equal(notANumber.statusCode, 400);
    assert.match(notANumber.body, /project_id/);
    const missing = await admin.post('/console/builds', {});
    assert.equal(missing.statusCode, 400);
    assert.equal((await admin.get('/console/builds/999999')).statusCode, 404);
    assert.equal((await admin.get('/console/builds/abc')).statusCode, 400);
    assert.equal((await admin.get('/console/builds?project_id=x')).statusCode, 400);
    assert.equal((await admin.get('/console/builds?page=0')).statusCode, 400);

    const other = await t.newWorkspace('Elsewhere');
    const otherProject = await t.createProject('Secret project', 'dev', other.workspaceId);
    const otherBuild = await t.call('POST', `/api/projects/${otherProject.projectId}/build`, {
      token: other.adminToken,
      body: { description: 'Plugh description' },
    });
    assert.equal(otherBuild.status, 200, otherBuild.text);
    const foreign = await admin.get(`/console/builds/${otherBuild.body.id}`);
    assert.equal(foreign.statusCode, 404);
    assert.doesNotMatch(foreign.body, /Secret project|Plugh/);
    assert.doesNotMatch((await admin.get('/console/builds')).body, /Secret project/);

    const build = await t.call('POST', `/api/projects/${project.projectId}/build`, { body: {} });
    const before = (await t.call('GET', '/api/deployments')).body.items.length;
    const badTarget = await admin.post(`/console/builds/${build.body.id}/deploy`, { environment_type: 'dev' });
    assert.equal(badTarget.statusCode, 400);
    assert.match(badTarget.body, /environment_type/);
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: `/console/builds/${build.body.id}/deploy`,
      payload: 'environment_type=test',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin.cookie },
    });
    assert.equal(noCsrf.statusCode, 403);
    const json = await t.app.inject({
      method: 'POST',
      url: '/console/builds',
      payload: JSON.stringify({ project_id: project.projectId }),
      headers: { 'content-type': 'application/json', cookie: admin.cookie },
    });
    assert.equal(json.statusCode, 415);
    assert.equal((await t.call('GET', '/api/deployments')).body.items.length, before, 'nothing deployed');
  });
});

describe('test cases on the recipe page and POST /console/test-runs', () => {
  let testedId: number;
  let passingId: string;

  before(async () => {
    const pill = (line: string, ...path: string[]) =>
      `#{_dp('${JSON.stringify({ pill_type: 'output', provider: line === 'hook' ? 'workato_webhooks' : 'rest', line, path })}')}`;
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
    testedId = created.body.id;
    const base = {
      trigger_output: { payload: { total: 42 } },
      mocks: [{ step: 'customer', output: { status: 200, body: { name: 'Ada' } } }],
    };
    const passing = await t.call('POST', `/api/recipes/${testedId}/test_cases`, {
      body: {
        ...base,
        name: 'Paid order is logged',
        description: 'the happy path',
        expectations: [{ step: 'say', output_path: ['message'], equals: 'Ada paid 42' }],
      },
    });
    assert.equal(passing.status, 200, passing.text);
    passingId = passing.body.data.id;
    const failing = await t.call('POST', `/api/recipes/${testedId}/test_cases`, {
      body: {
        ...base,
        name: 'Expects <Bob>',
        expectations: [{ step: 'say', output_path: ['message'], equals: 'Bob paid 42' }],
      },
    });
    assert.equal(failing.status, 200, failing.text);
  });

  test('the recipe page lists its test cases; run them all and read each result, its failure and the coverage', async () => {
    const page = await admin.get(`/console/recipes/${testedId}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2 id="tests-title">Test cases<\/h2>/);
    // Each name opens its test case's page.
    assert.match(
      page.body,
      /<td><a href="\/console\/recipes\/\d+\/test-cases\/[^"]+">Paid order is logged<\/a><\/td><td>the happy path<\/td>/,
    );
    assert.match(page.body, /<td><a href="\/console\/recipes\/\d+\/test-cases\/[^"]+">Expects &lt;Bob&gt;<\/a><\/td>/);
    assert.match(page.body, /Run all test cases/);

    const started = await admin.post('/console/test-runs', { recipe_id: String(testedId) });
    assert.equal(started.statusCode, 303, started.body);
    const location = started.headers.location as string;
    assert.match(location, /^\/console\/test-runs\/cirr-/);
    const done = await waitFor(
      () => admin.get(location),
      (res) => />completed: /.test(res.body),
      'the test run',
    );
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /1 passed, 1 failed/);
    assert.match(done.body, /<span class="badge bad">completed: 1 not passed<\/span>/);
    assert.match(
      done.body,
      /<td>Paid order is logged<\/td><td><span class="badge ok">passed<\/span><\/td><td class="error-text"><\/td>/,
    );
    assert.match(
      done.body,
      /<td>Expects &lt;Bob&gt;<\/td><td><span class="badge bad">failed<\/span><\/td><td class="error-text">[^<]*Bob paid 42[^<]*<\/td>/,
    );
    assert.match(done.body, /<dt>Coverage<\/dt><dd>\d+% of the steps<\/dd>/);
    const jobLink = new RegExp(`<a href="(/console/recipes/${testedId}/jobs/[^"]+)">`).exec(done.body)?.[1];
    assert.ok(jobLink, 'each result links to its job');
    const job = await admin.get(jobLink);
    assert.equal(job.statusCode, 200, 'the job of a test case opens');
    assert.match(job.body, /Ada paid 42|Bob paid 42/);
    const runs = await admin.get('/console/test-runs');
    assert.match(runs.body, new RegExp(`<a href="${location}"><code>`));
  });

  test('run one test case from its row', async () => {
    const started = await admin.post('/console/test-runs', { recipe_id: String(testedId), test_case_id: passingId });
    assert.equal(started.statusCode, 303, started.body);
    const done = await waitFor(
      () => admin.get(started.headers.location as string),
      (res) => />completed: /.test(res.body),
      'the test run',
    );
    assert.match(done.body, /1 passed, 0 failed/);
    assert.doesNotMatch(done.body, /Expects/);
  });

  test('a read-only token sees the test cases but no run button, and a forged run is refused: 403, nothing started', async () => {
    const page = await reader.get(`/console/recipes/${testedId}`);
    assert.match(page.body, /Paid order is logged/);
    assert.doesNotMatch(page.body, /Run all test cases/);
    const before = await t.ctx.db.selectFrom('test_run_requests').select('id').execute();
    const refused = await reader.post('/console/test-runs', { recipe_id: String(testedId) });
    assert.equal(refused.statusCode, 403);
    assert.equal((await t.ctx.db.selectFrom('test_run_requests').select('id').execute()).length, before.length);
    const withoutTests = await consoleSignIn(t, await t.tokenWith('Recipes only', ['recipes:read']));
    const recipePage = await withoutTests.get(`/console/recipes/${testedId}`);
    assert.equal(recipePage.statusCode, 200);
    assert.doesNotMatch(recipePage.body, /Test cases/);
  });

  test("bad input: unknown recipe, test case or run; another workspace's run", async () => {
    assert.equal((await admin.post('/console/test-runs', { recipe_id: '999999' })).statusCode, 404);
    const unknownCase = await admin.post('/console/test-runs', {
      recipe_id: String(testedId),
      test_case_id: 'citc-nope',
    });
    assert.equal(unknownCase.statusCode, 404);
    assert.equal((await admin.post('/console/test-runs', { recipe_id: 'x' })).statusCode, 400);
    assert.equal((await admin.post('/console/test-runs', {})).statusCode, 400);
    const unknownRun = await admin.get('/console/test-runs/cirr-unknown');
    assert.equal(unknownRun.statusCode, 404);
    assertNoStack(unknownRun.body);
    const other = await t.newWorkspace('Other tests');
    const otherRecipe = await t.call('POST', '/api/recipes', {
      token: other.adminToken,
      body: { recipe: { name: 'Theirs', code: JSON.stringify(webhookTrigger([log('a', 'b')])) } },
    });
    const otherRun = await t.call('POST', '/api/test_cases/run_requests', {
      token: other.adminToken,
      body: { recipe_id: otherRecipe.body.id },
    });
    assert.equal(otherRun.status, 200, otherRun.text);
    const foreign = await admin.get(`/console/test-runs/${otherRun.body.data.id}`);
    assert.equal(foreign.statusCode, 404);
    assert.doesNotMatch(foreign.body, /Theirs/);
  });
});
