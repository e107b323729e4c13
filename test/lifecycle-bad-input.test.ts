// The routes of recipe lifecycle, builds and deployments, test automation and job control, sent
// what a careless client sends: malformed JSON, a wrong Content-Type, a body of the wrong shape.
// Each answers a 4xx in the error shape, and nothing is stored.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../src/db/types.ts';
import { createTestApp, type TestApp } from './helpers.ts';
import { createRecipe, webhookTrigger, log } from './recipes.ts';

let t: TestApp;
let ids: { project: number; folder: number; recipe: number; manifest: number; build: number; testCase: string };
before(async () => {
  t = await createTestApp();
  const project = await t.createProject('Careless');
  const recipe = await createRecipe(t, webhookTrigger([log('say', 'x')]), { folder_id: project.folderId });
  const manifest = await t.call('POST', '/api/export_manifests', {
    body: { export_manifest: { name: 'm', folder_id: project.folderId, auto_generate_assets: true } },
  });
  const build = await t.call('POST', `/api/projects/${project.projectId}/build`);
  const testCase = await t.call('POST', `/api/recipes/${recipe}/test_cases`, {
    body: { name: 'tc', trigger_output: {} },
  });
  ids = {
    project: project.projectId,
    folder: project.folderId,
    recipe,
    manifest: manifest.body.result.id,
    build: build.body.id,
    testCase: testCase.body.data.id,
  };
});
after(() => t.close());

const TABLES: Array<keyof Database> = [
  'export_manifests',
  'packages',
  'project_builds',
  'deployments',
  'test_cases',
  'test_run_requests',
  'jobs',
  'recipe_versions',
];

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES)
    out[table] = Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return out;
}

test('malformed JSON, a wrong Content-Type and bodies of the wrong shape: a 4xx in the error shape, nothing stored', async () => {
  // Let the build made in before() finish, so the counts stand still.
  for (let i = 0; i < 200 && (await t.call('GET', `/api/project_builds/${ids.build}`)).body.state === 'pending'; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const routes: Array<[string, string, unknown]> = [
    ['POST', '/api/export_manifests', { export_manifest: { name: ['x'], assets: 'all' } }],
    ['PUT', `/api/export_manifests/${ids.manifest}`, { export_manifest: { include_data: 'maybe' } }],
    ['POST', `/api/projects/${ids.project}/build`, { description: 7 }],
    ['POST', `/api/projects/${ids.project}/deploy?environment_type=test`, { description: { a: 1 } }],
    ['POST', `/api/project_builds/${ids.build}/deploy`, { environment_type: 5 }],
    ['POST', `/api/recipes/${ids.recipe}/test_cases`, { name: 'x', mocks: 'none' }],
    ['PUT', `/api/recipes/${ids.recipe}/test_cases/${ids.testCase}`, { expectations: [{ step: 'say' }] }],
    ['POST', '/api/test_cases/run_requests', { recipe_id: true }],
    ['POST', `/api/recipes/${ids.recipe}/repeat_jobs`, { job_ids: [1, 2] }],
    ['POST', `/api/recipes/${ids.recipe}/cancel_jobs`, { job_ids: {} }],
    ['PUT', `/api/recipes/${ids.recipe}/connect`, { adapter_name: 5, connection_id: 'x' }],
  ];
  const before = await counts();
  const recipeBefore = (await t.call('GET', `/api/recipes/${ids.recipe}`)).body;
  for (const [method, url, wrongShape] of routes) {
    for (const [raw, type, status] of [
      ['{"name": ', 'application/json', 400],
      ['name=x', 'application/x-www-form-urlencoded', 415],
      [JSON.stringify(wrongShape), 'application/json', 400],
    ] as const) {
      const res = await t.call(method as 'POST' | 'PUT', url, { raw, headers: { 'content-type': type } });
      assert.equal(res.status, status, `${method} ${url} ${type} ${raw}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string', res.text);
      assert.ok(!('stack' in res.body));
    }
  }
  assert.deepEqual(await counts(), before, 'nothing was stored');
  const recipeAfter = (await t.call('GET', `/api/recipes/${ids.recipe}`)).body;
  assert.deepEqual([recipeAfter.version_no, recipeAfter.config], [recipeBefore.version_no, recipeBefore.config]);
});
