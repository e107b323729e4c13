import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { fire, log, webhookTrigger } from '../../../test/recipes.ts';
import type { ChangeEvents } from '../../notifier.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function waitState(t: TestApp, url: string, token?: string): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i += 1) {
    const res = await t.call('GET', url, token ? { token } : {});
    assert.equal(res.status, 200, res.text);
    if (res.body.state !== 'pending') return res.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${url} stayed pending`);
}

describe('builds and deployments: promote a project from dev to test', () => {
  let t: TestApp;
  let testToken: string;
  let project: { folderId: number; projectId: number };
  let recipeId: number;
  const events: Array<[string, unknown]> = [];

  before(async () => {
    t = await createTestApp();
    testToken = await t.tokenFor('Admin', 'test');
    project = await t.createProject('Payments');
    for (const topic of ['deployment.succeeded', 'deployment.failed'] as const)
      t.ctx.notifier.subscribe(topic, (payload: ChangeEvents[typeof topic]) => events.push([topic, payload]));
    const created = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Charge',
          folder_id: project.folderId,
          code: JSON.stringify(webhookTrigger([log('say', 'version one')])),
        },
      },
    });
    assert.equal(created.status, 200, created.text);
    recipeId = created.body.id;
  });
  after(() => t.close());

  test('build, deploy to test, run a job there; edits after a build do not change it; an older build rolls test back; the history filters', async () => {
    const build = await t.call('POST', `/api/projects/${project.projectId}/build`, { body: { description: 'v1' } });
    assert.equal(build.status, 200, build.text);
    assert.equal(build.body.state, 'pending');
    assert.equal(build.body.project_id, String(project.projectId));
    assert.equal(build.body.project_build_id, build.body.id);
    assert.equal(build.body.download_url, null);
    const built = await waitState(t, `/api/project_builds/${build.body.id}`);
    assert.equal(built.state, 'success', JSON.stringify(built));
    assert.match(built.download_url, /\/api\/packages\/\d+\/download$/);

    // Editing the project after the build does not change what the build deploys.
    assert.equal(
      (
        await t.call('PUT', `/api/recipes/${recipeId}`, {
          body: { recipe: { code: JSON.stringify(webhookTrigger([log('say', 'version two')])) } },
        })
      ).body.success,
      true,
    );

    const deployed = await t.call('POST', `/api/project_builds/${build.body.id}/deploy?environment_type=test`, {
      body: { description: 'to test' },
    });
    assert.equal(deployed.status, 200, deployed.text);
    assert.deepEqual(Object.keys(deployed.body).sort(), [
      'created_at',
      'description',
      'environment_type',
      'id',
      'performed_by_name',
      'project_build_id',
      'project_id',
      'state',
      'target_project_id',
      'updated_at',
    ]);
    const first = await waitState(t, `/api/deployments/${deployed.body.id}`);
    assert.equal(first.state, 'success', JSON.stringify(first));
    await announced(events, 'deployment.succeeded');
    assert.deepEqual(events.at(-1), [
      'deployment.succeeded',
      { deploymentId: deployed.body.id, projectId: project.projectId, environmentType: 'test' },
    ]);

    const inTest = await t.call('GET', '/api/recipes', { token: testToken });
    const charge = inTest.body.items.find((r: { name: string }) => r.name === 'Charge');
    assert.ok(charge, 'the recipe is in test');
    assert.match(charge.code, /version one/);
    assert.deepEqual((await t.call('PUT', `/api/recipes/${charge.id}/start`, { token: testToken })).body, {
      success: true,
    });
    const job = await fire(t, new URL(charge.webhook_url).pathname, { n: 1 });
    assert.equal(job.status, 'succeeded');

    // Build and deploy the new version in one call: the running recipe is restarted on it.
    const both = await t.call('POST', `/api/projects/f${project.folderId}/deploy?environment_type=test`, {
      body: { description: 'v2' },
    });
    assert.equal(both.status, 200, both.text);
    assert.notEqual(both.body.project_build_id, build.body.id);
    assert.equal((await waitState(t, `/api/deployments/${both.body.id}`)).state, 'success');
    let now = await t.call('GET', `/api/recipes/${charge.id}`, { token: testToken });
    assert.match(now.body.code, /version two/);
    assert.equal(now.body.running, true, 'restarted on the new version');

    // Deploying the older build again rolls test back to it.
    const rollback = await t.call('POST', `/api/project_builds/${build.body.id}/deploy`, {
      body: { environment_type: 'test' },
    });
    assert.equal((await waitState(t, `/api/deployments/${rollback.body.id}`)).state, 'success');
    now = await t.call('GET', `/api/recipes/${charge.id}`, { token: testToken });
    assert.match(now.body.code, /version one/);
    assert.equal(now.body.running, true);
    assert.equal((await t.call('PUT', `/api/recipes/${charge.id}/stop`, { token: testToken })).status, 200);
    const projects = await t.call('GET', '/api/projects', { token: testToken });
    assert.equal(
      projects.body.filter((p: { name: string }) => p.name === 'Payments').length,
      1,
      'one project in test, updated in place',
    );

    const history = await t.call('GET', `/api/deployments?project_id=${project.projectId}&environment_type=test`);
    assert.equal(history.status, 200);
    assert.deepEqual(
      history.body.items.map((d: { id: number }) => d.id),
      [rollback.body.id, both.body.id, deployed.body.id],
    );
    assert.deepEqual(
      (await t.call('GET', `/api/deployments?folder_id=f${project.folderId}&state=success&per_page=1`)).body.items.map(
        (d: { id: number }) => d.id,
      ),
      [rollback.body.id],
    );
    assert.deepEqual((await t.call('GET', '/api/deployments?environment_type=prod')).body.items, []);
    assert.deepEqual((await t.call('GET', '/api/deployments?from=2999-01-01T00:00:00Z')).body.items, []);
    assert.equal(
      (await t.call('GET', `/api/deployments?to=2999-01-01T00:00:00Z&project_id=${project.projectId}`)).body.items
        .length,
      3,
    );
  });

  test("a deployment keeps the target's lookup-table rows unless the build carries them (include_data)", async () => {
    const rowsProject = await t.createProject('Rates');
    const table = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'Rate card', project_id: rowsProject.projectId, schema: [{ label: 'tier' }, { label: 'rate' }] },
    });
    assert.equal(table.status, 200, table.text);
    const addRow = (id: number, tier: string, token?: string) =>
      t.call('POST', `/api/lookup_tables/${id}/rows`, {
        ...(token ? { token } : {}),
        body: { data: { tier, rate: '1' } },
      });
    assert.equal((await addRow(table.body.id, 'dev-gold')).status, 200);
    const deploy = async (body: Record<string, unknown>) => {
      const started = await t.call('POST', `/api/projects/${rowsProject.projectId}/deploy?environment_type=test`, {
        body,
      });
      assert.equal(started.status, 200, started.text);
      const done = await waitState(t, `/api/deployments/${started.body.id}`);
      assert.equal(done.state, 'success', JSON.stringify(done));
      return (await t.call('GET', `/api/project_builds/${started.body.project_build_id}`)).body;
    };
    const testRows = async () => {
      const tables = await t.call('GET', '/api/lookup_tables', { token: testToken });
      const inTest = tables.body.find((x: { name: string }) => x.name === 'Rate card');
      const rows = await t.call('GET', `/api/lookup_tables/${inTest.id}/rows`, { token: testToken });
      return { id: inTest.id as number, tiers: rows.body.map((r: { data: { tier: string } }) => r.data.tier).sort() };
    };

    const first = await deploy({});
    assert.equal(first.include_data, false);
    const created = await testRows();
    assert.deepEqual(created.tiers, [], 'the table is created in test without the rows of dev');
    assert.equal((await addRow(created.id, 'test-state', testToken)).status, 200);
    await deploy({ description: 'a release' });
    assert.deepEqual((await testRows()).tiers, ['test-state'], "a release keeps test's rows");
    const withData = await deploy({ include_data: true });
    assert.equal(withData.include_data, true);
    assert.deepEqual((await testRows()).tiers, ['dev-gold'], 'a build that carries rows replaces them');
    const bad = await t.call('POST', `/api/projects/${rowsProject.projectId}/build`, { body: { include_data: 'yes' } });
    assert.equal(bad.status, 400, bad.text);
  });

  test('a connection missing in the target fails the deployment, says which, and applies nothing', async () => {
    const other = await t.createProject('Ledger');
    const conn = await t.call('POST', '/api/connections', {
      body: {
        name: 'Ledger DB',
        provider: 'rest',
        folder_id: other.folderId,
        input: { base_url: 'http://127.0.0.1:9/', auth_type: 'none' },
      },
    });
    assert.ok(conn.status < 300, conn.text);
    await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Post entry',
          folder_id: other.folderId,
          code: JSON.stringify(webhookTrigger([log('x', 'y')])),
          config: JSON.stringify([{ keyword: 'application', provider: 'rest', account_id: conn.body.id }]),
        },
      },
    });
    const dep = await t.call('POST', `/api/projects/${other.projectId}/deploy?environment_type=prod`);
    assert.equal(dep.status, 200, dep.text);
    const failed = await waitState(t, `/api/deployments/${dep.body.id}`);
    assert.equal(failed.state, 'failed');
    assert.match(failed.error, /no connection named "Ledger DB" \(rest\) in the target environment/);
    await announced(events, 'deployment.failed');
    assert.deepEqual(events.at(-1)?.[0], 'deployment.failed');
    const prodToken = await t.tokenFor('Admin', 'prod');
    const prodProjects = await t.call('GET', '/api/projects', { token: prodToken });
    assert.ok(!prodProjects.body.some((p: { name: string }) => p.name === 'Ledger'), 'no project was created in prod');
    // With the connection made in prod (prod's credentials), the same build deploys.
    const made = await t.call('POST', '/api/connections', {
      token: prodToken,
      body: { name: 'Ledger DB', provider: 'rest', input: { base_url: 'http://127.0.0.1:9/prod', auth_type: 'none' } },
    });
    assert.ok(made.status < 300, made.text);
    const again = await t.call('POST', `/api/project_builds/${dep.body.project_build_id}/deploy?environment_type=prod`);
    assert.equal((await waitState(t, `/api/deployments/${again.body.id}`)).state, 'success');
    const recipe = (await t.call('GET', '/api/recipes', { token: prodToken })).body.items.find(
      (r: { name: string }) => r.name === 'Post entry',
    );
    assert.equal(
      recipe.config.find((c: { provider: string }) => c.provider === 'rest').account_id,
      made.body.id,
      "mapped by name to prod's connection",
    );
  });

  test("a connection to a custom connector: found in the target through that environment's connector of the same title", async () => {
    const code = "{\n  title: 'Billing desk',\n  test: lambda { |_connection| true }\n}\n";
    const project = await t.createProject('Billing');
    const testToken = await t.tokenFor('Admin', 'test');
    const connectorIn = async (token?: string) => {
      const made = await t.call('POST', '/api/custom_connectors', {
        ...(token ? { token } : {}),
        body: { title: 'Billing desk', code },
      });
      assert.equal(made.status, 200, made.text);
      await t.call('POST', `/api/custom_connectors/${made.body.data.id}/release`, token ? { token } : {});
      return made.body.data.name as string;
    };
    const devProvider = await connectorIn();
    const conn = await t.call('POST', '/api/connections', {
      body: { name: 'Billing', provider: devProvider, folder_id: project.folderId, input: {} },
    });
    assert.ok(conn.status < 300, conn.text);
    const recipe = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Bill',
          folder_id: project.folderId,
          code: JSON.stringify(webhookTrigger([log('x', 'y')])),
          config: JSON.stringify([{ keyword: 'application', provider: devProvider, account_id: conn.body.id }]),
        },
      },
    });
    assert.equal(recipe.status, 200, recipe.text);
    // The target's own connector (another name) and its connection to it, with the target's settings.
    const targetProvider = await connectorIn(testToken);
    assert.notEqual(targetProvider, devProvider);
    const own = await t.call('POST', '/api/connections', {
      token: testToken,
      body: { name: 'Billing', provider: targetProvider, input: {} },
    });
    assert.ok(own.status < 300, own.text);
    const dep = await t.call('POST', `/api/projects/${project.projectId}/deploy?environment_type=test`);
    assert.equal(dep.status, 200, dep.text);
    const done = await waitState(t, `/api/deployments/${dep.body.id}`);
    assert.equal(done.state, 'success', JSON.stringify(done));
    const deployed = (await t.call('GET', '/api/recipes', { token: testToken })).body.items.find(
      (r: { name: string }) => r.name === 'Bill',
    );
    assert.equal(
      deployed.config.find((c: { provider: string }) => c.provider === devProvider).account_id,
      own.body.id,
      "the recipe uses the target's connection",
    );
    const connections = (await t.call('GET', '/api/connections', { token: testToken })).body;
    assert.deepEqual(
      connections.filter((c: { name: string }) => c.name === 'Billing').map((c: { id: number }) => c.id),
      [own.body.id],
      'no second connection was made',
    );
  });

  test('a release whose recipe cannot start: the error says so once and names it, the recipe waits stopped, and a rollback starts it again', async () => {
    const release = await t.createProject('Refunds');
    const created = await t.call('POST', '/api/recipes', {
      body: {
        recipe: {
          name: 'Refund',
          folder_id: release.folderId,
          code: JSON.stringify(webhookTrigger([log('say', 'good version')])),
        },
      },
    });
    assert.equal(created.status, 200, created.text);
    const deployTo = async (body: Record<string, unknown>) => {
      const started = await t.call('POST', `/api/projects/${release.projectId}/deploy?environment_type=test`, { body });
      assert.equal(started.status, 200, started.text);
      return waitState(t, `/api/deployments/${started.body.id}`);
    };
    const good = await deployTo({ description: 'good' });
    assert.equal(good.state, 'success', JSON.stringify(good));
    assert.ok(good.target_project_id, 'the target project is named');
    const inTest = async () =>
      (await t.call('GET', '/api/recipes', { token: testToken })).body.items.find(
        (r: { name: string; folder_id: number }) => r.name === 'Refund',
      );
    const target = await inTest();
    assert.equal((await t.call('PUT', `/api/recipes/${target.id}/start`, { token: testToken })).status, 200);

    // A version that saves but cannot start (an action this server does not have).
    const broken = webhookTrigger([
      { number: 1, keyword: 'action', provider: 'logger', name: 'no_such_action', as: 'say', input: {} },
    ]);
    const saved = await t.call('PUT', `/api/recipes/${created.body.id}`, {
      body: { recipe: { code: JSON.stringify(broken) } },
    });
    assert.equal(saved.status, 200, saved.text);
    const bad = await deployTo({ description: 'broken' });
    assert.equal(bad.state, 'failed');
    assert.match(
      bad.error,
      new RegExp(
        `^The package was applied, but a recipe that ran before could not be started again: recipe ${target.id} \\("Refund"\\) cannot start \\(step 1[^)]*\\) and was left stopped on its new version$`,
      ),
    );
    let now = await inTest();
    assert.equal(now.running, false);
    assert.match(now.code, /no_such_action/, 'the new version is in place');
    assert.equal(now.stop_cause, 'release_start_failed');
    const listed = await t.call('GET', '/api/recipes?stop_cause=release_start_failed', { token: testToken });
    assert.deepEqual(
      listed.body.items.map((r: { id: number }) => r.id),
      [target.id],
    );

    // Rolling back to the good build restores the code and the running state.
    const rollback = await t.call('POST', `/api/project_builds/${good.project_build_id}/deploy?environment_type=test`);
    assert.equal((await waitState(t, `/api/deployments/${rollback.body.id}`)).state, 'success');
    now = await inTest();
    assert.match(now.code, /good version/);
    assert.equal(now.running, true, 'running again after the rollback');
    assert.equal(now.stop_cause, null);
    assert.equal((await t.call('PUT', `/api/recipes/${target.id}/stop`, { token: testToken })).status, 200);

    // A recipe stopped by hand stays stopped through a release.
    const again = await deployTo({ description: 'again' });
    assert.equal(again.state, 'success');
    assert.equal((await inTest()).running, false);
  });

  test("bad input: no environment_type (400), an unknown one or dev (404), a failed build (422), another environment's token (400), unknown ids (404)", async () => {
    const build = await t.call('POST', `/api/projects/${project.projectId}/build`);
    await waitState(t, `/api/project_builds/${build.body.id}`);
    const missing = await t.call('POST', `/api/project_builds/${build.body.id}/deploy`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.message, 'Missing parameter environment_type');
    for (const env of ['staging', 'dev', 'TEST']) {
      const res = await t.call('POST', `/api/project_builds/${build.body.id}/deploy?environment_type=${env}`);
      assert.equal(res.status, 404, env);
      assert.equal(res.body.message, 'Not found');
    }
    const fromTest = await t.call('POST', `/api/projects/${project.projectId}/build`, { token: testToken });
    assert.equal(fromTest.status, 400);
    assert.equal(fromTest.body.message, 'Deployments can only be started from the development environment');
    assert.equal((await t.call('POST', '/api/projects/999999/build')).status, 404);
    assert.equal((await t.call('POST', '/api/projects/f999999/deploy?environment_type=test')).status, 404);
    assert.equal((await t.call('POST', '/api/projects/abc/build')).status, 400);
    assert.equal((await t.call('GET', '/api/project_builds/999999')).status, 404);
    assert.equal((await t.call('GET', '/api/deployments/999999')).status, 404);
    assert.equal((await t.call('POST', '/api/project_builds/999999/deploy?environment_type=test')).status, 404);
    assert.equal(
      (await t.call('POST', `/api/projects/${project.projectId}/build`, { body: { description: 5 } })).status,
      400,
    );
    assert.equal((await t.call('GET', '/api/deployments?state=done')).status, 400);
    assert.equal((await t.call('GET', '/api/deployments?environment_type=staging')).status, 400);
    assert.equal((await t.call('GET', '/api/deployments?from=yesterday')).status, 400);
    // A build of another workspace is not found.
    const other = await t.newWorkspace('Other Co');
    assert.equal(
      (await t.call('GET', `/api/project_builds/${build.body.id}`, { token: other.adminToken })).status,
      404,
    );
    assert.equal(
      (
        await t.call('POST', `/api/project_builds/${build.body.id}/deploy?environment_type=test`, {
          token: other.adminToken,
        })
      ).status,
      404,
    );
    // A build that failed cannot be deployed.
    await t.ctx.db
      .updateTable('packages')
      .set({ status: 'failed', error: 'disk on fire' })
      .where(
        'id',
        '=',
        (
          await t.ctx.db
            .selectFrom('project_builds')
            .select('package_id')
            .where('id', '=', build.body.id)
            .executeTakeFirstOrThrow()
        ).package_id,
      )
      .execute();
    const refused = await t.call('POST', `/api/project_builds/${build.body.id}/deploy?environment_type=test`);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.message, 'The build is failed: only a build in state success can be deployed');
    assert.equal((await t.call('POST', `/api/projects/${project.projectId}/build`, { token: null })).status, 401);
    const readOnly = await t.tokenFor('Read only');
    assert.equal((await t.call('POST', `/api/projects/${project.projectId}/build`, { token: readOnly })).status, 403);
    assert.equal((await t.call('GET', '/api/deployments', { token: readOnly })).status, 200);
  });
});

/** The end of a deployment is announced just after its state is stored: wait for the event (2 s at most). */
async function announced(events: Array<[string, unknown]>, name: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (events.at(-1)?.[0] !== name && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
