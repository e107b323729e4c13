import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { manualClock } from '../../time.ts';
import { webhookTrigger, log } from '../../../test/recipes.ts';

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('PACKAGE_RETENTION_HOURS', () => {
  let t: TestApp;
  const clock = manualClock(new Date());
  before(async () => {
    t = await createTestApp({ clock, env: { PACKAGE_RETENTION_HOURS: '1', JOBS_SWEEP_INTERVAL_MS: '20' } });
  });
  after(() => t.close());

  test("an export's zip and a completed run request go after the retention; a build's zip and the package rows stay; an import keeps no zip", async () => {
    const project = await t.createProject('Kept a while');
    const recipe = await t.call('POST', '/api/recipes', {
      body: {
        recipe: { name: 'R', folder_id: project.folderId, code: JSON.stringify(webhookTrigger([log('say', 'x')])) },
      },
    });
    await t.call('POST', `/api/recipes/${recipe.body.id}/test_cases`, {
      body: { name: 'runs', trigger_output: { payload: {} } },
    });
    const manifest = await t.call('POST', '/api/export_manifests', {
      body: { export_manifest: { name: 'm', folder_id: project.folderId, auto_generate_assets: true, auto_run: true } },
    });
    const exportId = manifest.body.result.package_id;
    const build = await t.call('POST', `/api/projects/${project.projectId}/build`);
    const run = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: recipe.body.id } });
    await until(
      'the export, the build and the run end',
      async () =>
        (await t.call('GET', `/api/packages/${exportId}`)).body.status === 'completed' &&
        (await t.call('GET', `/api/project_builds/${build.body.id}`)).body.state === 'success' &&
        (await t.call('GET', `/api/test_cases/run_requests/${run.body.data.id}`)).body.data.status === 'completed',
    );
    const zip = await t.app.inject({
      method: 'GET',
      url: `/api/packages/${exportId}/download`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    assert.equal(zip.statusCode, 200);
    const imported = await t.call('POST', `/api/packages/import/${project.folderId}`, {
      raw: zip.rawPayload,
      headers: { 'content-type': 'application/zip' },
    });
    await until(
      'the import ends',
      async () => (await t.call('GET', `/api/packages/${imported.body.id}`)).body.status !== 'in_progress',
    );
    const chunksOf = async (id: number) =>
      Number(
        (
          await t.ctx.db
            .selectFrom('package_chunks')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('package_id', '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await chunksOf(imported.body.id), 0, 'an import keeps no zip once it ended');

    clock.advance(30 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await t.call('GET', `/api/packages/${exportId}/download`)).status, 200, 'kept within the retention');

    clock.advance(31 * 60_000);
    await until(
      "the export's zip goes",
      async () => (await t.call('GET', `/api/packages/${exportId}/download`)).status === 404,
    );
    const pkg = await t.call('GET', `/api/packages/${exportId}`);
    assert.equal(pkg.body.status, 'completed', 'the package itself stays');
    assert.equal(pkg.body.download_url, null);
    await until(
      'the run request goes',
      async () => (await t.call('GET', `/api/test_cases/run_requests/${run.body.data.id}`)).status === 404,
    );
    const built = await t.call('GET', `/api/project_builds/${build.body.id}`);
    assert.equal(built.body.state, 'success');
    const buildZip = await t.app.inject({
      method: 'GET',
      url: new URL(built.body.download_url).pathname,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    assert.equal(buildZip.statusCode, 200, 'a build can always be deployed again');
  });
});
