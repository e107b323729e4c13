// Message templates and the project file in packages (contract 15 §13): a template travels in the
// vendor's `<name>.workato_template.json`, a recipe's template step names it by reference (its id
// differs in every environment) and renders it after import; `project.json` carries the project's
// description, colour and icon both ways; each file's result says whether it was created, updated
// or already as the file says.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, makeZip, waitPackage, type TestApp } from '../../../test/helpers.ts';
import { action, fire, webhookTrigger } from '../../../test/recipes.ts';
import { readZip } from './zip.ts';

const LIMITS = { maxEntries: 10_000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 512 * 1024 * 1024 };
type Env = 'dev' | 'test';

describe('packages: message templates and project.json', () => {
  let t: TestApp;
  const tokens: Record<Env, string> = { dev: '', test: '' };
  const projects = {} as Record<Env, { folderId: number; projectId: number }>;
  before(async () => {
    t = await createTestApp();
    tokens.dev = t.adminToken;
    tokens.test = await t.tokenFor('Admin', 'test');
    projects.dev = await t.createProject('Mailer', 'dev');
    projects.test = await t.createProject('Mailer', 'test');
  });
  after(() => t.close());

  const call = (env: Env, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    t.call(method, url, { token: tokens[env], ...(body !== undefined ? { body } : {}) });

  async function importInto(env: Env, zip: Buffer) {
    const res = await t.call('POST', `/api/packages/import/${projects[env].folderId}`, {
      token: tokens[env],
      raw: zip,
      headers: { 'content-type': 'application/zip' },
    });
    assert.equal(res.status, 200, res.text);
    const done = await waitPackage(t, res.body.id, tokens[env]);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    return done as {
      files: Array<{ path: string; type: string | null; result: string; change?: string; reason?: string }>;
    };
  }

  async function exportFrom(env: Env): Promise<Map<string, Buffer>> {
    const manifest = await call(env, 'POST', '/api/export_manifests', {
      export_manifest: { name: `Mailer from ${env}`, folder_id: projects[env].folderId, auto_generate_assets: true },
    });
    assert.equal(manifest.status, 201, manifest.text);
    const started = await call(env, 'POST', `/api/packages/export/${manifest.body.result.id}`);
    const done = await waitPackage(t, started.body.id, tokens[env]);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/packages/${started.body.id}/download`,
      headers: { authorization: `Bearer ${tokens[env]}` },
    });
    return readZip(download.rawPayload, LIMITS);
  }

  const zipOf = (files: Map<string, Buffer>) =>
    makeZip(Object.fromEntries([...files].map(([k, v]) => [k, v.toString('utf8')])));
  const change = (done: Awaited<ReturnType<typeof importInto>>, path: string) =>
    done.files.find((f) => f.path === path);

  test('a template named by id in dev travels by reference and renders in test; project.json both ways', async () => {
    // dev: the project described by a vendor package's project.json, a template, a recipe naming it by id.
    const described = await importInto(
      'dev',
      await makeZip({
        'project.json': JSON.stringify({ description: 'Sends the mails', color: 'blue', icon: 'envelope' }),
      }),
    );
    assert.deepEqual(change(described, 'project.json'), {
      path: 'project.json',
      type: 'project',
      result: 'imported',
      change: 'updated',
    });
    const template = await call('dev', 'POST', '/api/message_templates', {
      name: 'Welcome mail',
      content_type: 'html',
      body: '<p>Hello {{name}}</p>',
      description: 'first mail',
    });
    assert.equal(template.status, 200, template.text);
    const recipe = await call('dev', 'POST', '/api/recipes', {
      recipe: {
        name: 'Welcome',
        folder_id: projects.dev.folderId,
        code: JSON.stringify(
          webhookTrigger([
            action('workato_template', 'create_document', 'doc', {
              template_id: String(template.body.id),
              template_input: { name: 'Ada' },
            }),
          ]),
        ),
      },
    });
    assert.equal(recipe.status, 200, recipe.text);

    const files = await exportFrom('dev');
    assert.deepEqual(JSON.parse(files.get('welcome_mail.workato_template.json')!.toString('utf8')), {
      name: 'Welcome mail',
      description: 'first mail',
      content_type: 'html',
      body: '<p>Hello {{name}}</p>',
    });
    assert.deepEqual(JSON.parse(files.get('project.json')!.toString('utf8')), {
      description: 'Sends the mails',
      color: 'blue',
      icon: 'envelope',
    });
    const exported = JSON.parse(files.get('welcome.recipe.json')!.toString('utf8'));
    assert.deepEqual(exported.code.block[0].input.template_id, {
      zip_name: 'welcome_mail.workato_template.json',
      name: 'Welcome mail',
      folder: '',
    });

    // test: ids differ (another template holds the first id there); the recipe still finds its own.
    assert.equal((await call('test', 'POST', '/api/message_templates', { name: 'Other', body: 'other' })).status, 200);
    const first = await importInto('test', await zipOf(files));
    assert.equal(change(first, 'welcome_mail.workato_template.json')?.change, 'created');
    assert.equal(change(first, 'welcome.recipe.json')?.change, 'created');
    assert.equal(change(first, 'project.json')?.change, 'updated');
    const inTest = (await call('test', 'GET', '/api/message_templates')).body.items as Array<{
      id: number;
      name: string;
    }>;
    const welcome = inTest.find((x) => x.name === 'Welcome mail');
    assert.ok(welcome && welcome.id !== template.body.id, JSON.stringify(inTest));
    const testProject = await t.ctx.db
      .selectFrom('projects')
      .select(['description', 'color', 'icon'])
      .where('id', '=', projects.test.projectId)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...testProject }, { description: 'Sends the mails', color: 'blue', icon: 'envelope' });

    const recipes = (await call('test', 'GET', `/api/recipes?folder_id=${projects.test.folderId}`)).body
      .items as Array<{
      id: number;
      name: string;
    }>;
    const testRecipe = recipes.find((r) => r.name === 'Welcome')!;
    assert.equal((await call('test', 'PUT', `/api/recipes/${testRecipe.id}/start`)).body.success, true);
    const hook = new URL((await call('test', 'GET', `/api/recipes/${testRecipe.id}`)).body.webhook_url).pathname;
    const job = await fire(t, hook, {});
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), { document: '<p>Hello Ada</p>' });
    assert.equal((await call('test', 'PUT', `/api/recipes/${testRecipe.id}/stop`)).status, 200);

    // Again as it is: unchanged; with a new body: updated, and the next run renders it.
    const again = await importInto('test', await zipOf(files));
    assert.equal(change(again, 'welcome_mail.workato_template.json')?.change, 'unchanged');
    assert.equal(change(again, 'project.json')?.change, 'unchanged');
    assert.equal(change(again, 'welcome.recipe.json')?.change, 'unchanged');
    files.set(
      'welcome_mail.workato_template.json',
      Buffer.from(JSON.stringify({ name: 'Welcome mail', content_type: 'text', body: 'Hi {{name}}' })),
    );
    const changed = await importInto('test', await zipOf(files));
    assert.equal(change(changed, 'welcome_mail.workato_template.json')?.change, 'updated');
    assert.equal((await call('test', 'PUT', `/api/recipes/${testRecipe.id}/start`)).body.success, true);
    assert.deepEqual((await fire(t, hook, {})).output(1), { document: 'Hi Ada' });
    assert.equal((await call('test', 'PUT', `/api/recipes/${testRecipe.id}/stop`)).status, 200);
  });

  test('a malformed template or project file fails alone with its reason; the rest imports', async () => {
    const before = (await call('dev', 'GET', '/api/message_templates')).body.items.length;
    const done = await importInto(
      'dev',
      await makeZip({
        'no_body.workato_template.json': JSON.stringify({ name: 'No body' }),
        'bad_type.workato_template.json': JSON.stringify({ name: 'Bad type', body: 'x', content_type: 'pdf' }),
        'project.json': JSON.stringify({ description: 42 }),
        'fine.workato_template.json': JSON.stringify({ name: 'Fine', body: 'ok' }),
      }),
    );
    const results = Object.fromEntries(done.files.map((f) => [f.path, [f.result, f.change ?? f.reason]]));
    assert.deepEqual(results, {
      'bad_type.workato_template.json': ['failed', 'content_type must be one of html, text, json, xml'],
      'fine.workato_template.json': ['imported', 'created'],
      'no_body.workato_template.json': ['failed', "body must be the template's text"],
      'project.json': ['failed', 'description must be text or null'],
    });
    assert.equal((await call('dev', 'GET', '/api/message_templates')).body.items.length, before + 1);
  });

  test('project.json imported into a folder that is not a project is kept, and no project changes', async () => {
    const folder = await call('dev', 'POST', '/api/folders', { name: 'Loose', parent_id: projects.dev.folderId });
    assert.equal(folder.status, 200, folder.text);
    const res = await t.call('POST', `/api/packages/import/${folder.body.id}`, {
      raw: await makeZip({ 'project.json': JSON.stringify({ description: 'elsewhere', color: 'red', icon: null }) }),
      headers: { 'content-type': 'application/zip' },
    });
    const done = await waitPackage(t, res.body.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.match(done.files[0].reason, /not a project/);
    const project = await t.ctx.db
      .selectFrom('projects')
      .select(['description'])
      .where('id', '=', projects.dev.projectId)
      .executeTakeFirstOrThrow();
    assert.equal(project.description, 'Sends the mails');
  });
});
