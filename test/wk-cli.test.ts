// The vendor's CLI `wk`, command by command (contract 23 §9), for tags, the connector catalog,
// connections, recipe connect, the workspace (info, users, audit log), recipe versions and jobs:
// each command's request as wk sends it and its reply decoded into wk's structs (test/wk.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { action, createRecipe, fire, log, webhookRecipe, webhookTrigger } from './recipes.ts';
import { GO_ZERO_TIME } from './go-decode.ts';
import { WkError, wkClient, type Wk } from './wk.ts';

let t: TestApp;
let wk: Wk;
let recipeId: number;
let homeFolderId: number;
before(async () => {
  t = await createTestApp();
  wk = wkClient(t.app, t.adminToken);
  // A stopped recipe with an HTTP step: its `rest` slot is what update-connection fills.
  recipeId = await createRecipe(
    t,
    webhookTrigger([
      action('rest', 'make_request_v2', 'call', {
        request: { method: 'GET', url: 'http://127.0.0.1:9/x' },
        response: {},
      }),
      log('say', 'x'),
    ]),
  );
  homeFolderId = (await t.call('GET', '/api/users/me')).body.root_folder_id;
});
after(() => t.close());

async function rejects(promise: Promise<unknown>, status: number, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof WkError, String(error));
    assert.equal(error.status, status, error.message);
    assert.match(error.message, message);
    return true;
  });
}

describe('wk workspace', () => {
  test('wk workspace info: id, name and e-mail of the workspace', async () => {
    const info = await wk.workspace.info();
    assert.ok(info.id > 0);
    assert.equal(info.name, 'Acme Integrations');
    assert.equal(info.email, 'integrations@example.com');
  });

  test('wk workspace users [--email E]', async () => {
    await t.call('POST', '/api/member_invitations', {
      body: { name: 'Ana', email: 'ana@example.com', role_name: 'Admin' },
    });
    const users = await wk.workspace.users();
    assert.deepEqual(
      users.map((u) => u.email),
      ['integrations@example.com', 'ana@example.com'],
    );
    assert.deepEqual(
      (await wk.workspace.users('ANA@example.com')).map((u) => u.name),
      ['Ana'],
    );
    assert.equal(wk.sent.at(-1)?.url, '/api/members?email=ANA%40example.com');
  });
});

describe('wk tags', () => {
  test('create, list [--search] [--page --per-page], update, apply, remove, delete', async () => {
    const prod = await wk.tags.create('Production', { description: 'Live systems', color: 'green' });
    assert.match(prod.handle, /^tag-/);
    assert.equal(prod.title, 'Production');
    assert.deepEqual(wk.sent.at(-1)?.body, { title: 'Production', description: 'Live systems', color: 'green' });
    const bare = await wk.tags.create('Staging');
    assert.deepEqual(wk.sent.at(-1)?.body, { title: 'Staging' });
    assert.equal(bare.description, '');

    assert.deepEqual(
      (await wk.tags.list()).map((x) => x.title),
      ['Production', 'Staging'],
    );
    assert.equal(wk.sent.at(-1)?.url, '/api/tags');
    assert.deepEqual(
      (await wk.tags.list({ search: 'stag' })).map((x) => x.handle),
      [bare.handle],
    );
    assert.equal(wk.sent.at(-1)?.url, '/api/tags?q=stag');
    assert.deepEqual(
      (await wk.tags.list({ page: 2, perPage: 1 })).map((x) => x.title),
      ['Staging'],
    );

    const updated = await wk.tags.update(bare.handle, { title: 'Pre-production', color: '#aa3300' });
    assert.deepEqual(wk.sent.at(-1), {
      method: 'PUT',
      url: `/api/tags/${bare.handle}`,
      body: { title: 'Pre-production', color: '#aa3300' },
    });
    assert.equal(updated.title, 'Pre-production');
    assert.equal(updated.color, '#aa3300');

    const conn = await wk.connections.create('Tagged', 'jira');
    await wk.tags.apply(prod.handle, { recipes: [recipeId], connections: [conn.id] });
    assert.deepEqual(wk.sent.at(-1)?.body, {
      add_tags: [prod.handle],
      recipe_ids: [recipeId],
      connection_ids: [conn.id],
    });
    assert.deepEqual((await t.call('GET', `/api/recipes/${recipeId}?includes[]=tags`)).body.tags, [prod.handle]);
    await wk.tags.remove(prod.handle, { recipes: [recipeId] });
    assert.deepEqual(wk.sent.at(-1)?.body, { remove_tags: [prod.handle], recipe_ids: [recipeId] });
    assert.deepEqual((await t.call('GET', `/api/recipes/${recipeId}?includes[]=tags`)).body.tags, []);

    await wk.tags.delete(prod.handle);
    assert.deepEqual(
      (await wk.tags.list()).map((x) => x.title),
      ['Pre-production'],
    );
  });

  test('what wk shows when the server refuses: the message', async () => {
    await rejects(wk.tags.create('pre-PRODUCTION'), 422, /already exists/);
    await rejects(wk.tags.update('tag-nothere-000000', { title: 'x' }), 404, /^Tag not found$/);
    await rejects(wk.tags.delete('tag-nothere-000000'), 404, /Tag not found/);
    await rejects(wk.tags.apply('tag-nothere-000000', { recipes: [recipeId] }), 404, /Tags not found/);
    const [tag] = await wk.tags.list();
    await rejects(wk.tags.apply(tag.handle, { recipes: [987654] }), 404, /Recipes not found: 987654/);
  });
});

describe('wk connectors list', () => {
  test('[--search S]: the catalog, or the connectors named', async () => {
    const all = await wk.connectors.list();
    assert.ok(all.some((c) => c.name === 'clock' && c.title === 'Scheduler' && c.description !== ''));
    const some = await wk.connectors.list('rest,logger');
    assert.equal(wk.sent.at(-1)?.url, '/api/integrations?applications=rest%2Clogger');
    assert.deepEqual(
      some.map((c) => c.name),
      ['logger', 'rest'],
    );
  });
});

describe('wk connections', () => {
  test('create [--folder], list [--folder] [--application] [--page --per-page], get, update, disconnect, delete', async () => {
    const home = await wk.connections.create('Orders API', 'rest');
    assert.deepEqual(wk.sent.at(-1)?.body, { name: 'Orders API', provider: 'rest' });
    assert.equal(home.folder_id, homeFolderId, 'without --folder: the Home folder, whose id the reply carries');
    assert.equal(home.application, 'rest');
    assert.equal(home.authorization_status, null, 'a shell connection');
    assert.notEqual(home.created_at, GO_ZERO_TIME);
    const folder = await t.call('POST', '/api/folders', { body: { name: 'Connections here' } });
    const inFolder = await wk.connections.create('Jira', 'jira', folder.body.id);
    assert.equal(inFolder.folder_id, folder.body.id);

    assert.ok((await wk.connections.list()).some((c) => c.id === home.id));
    assert.deepEqual(
      (await wk.connections.list({ folder: folder.body.id })).map((c) => c.id),
      [inFolder.id],
    );
    assert.deepEqual(
      (await wk.connections.list({ application: 'jira' })).map((c) => c.name),
      ['Tagged', 'Jira'],
    );
    assert.equal((await wk.connections.list({ page: 1, perPage: 1 })).length, 1);
    assert.equal(wk.sent.at(-1)?.url, '/api/connections?page=1&per_page=1');

    assert.equal((await wk.connections.get(inFolder.id)).name, 'Jira');
    assert.equal(wk.sent.at(-1)?.url, '/api/connections');
    await rejects(wk.connections.get(999_999), 404, /connection 999999 not found/);

    const renamed = await wk.connections.update(inFolder.id, 'Jira cloud');
    assert.equal(renamed.name, 'Jira cloud');
    await wk.connections.disconnect(home.id);
    assert.deepEqual(wk.sent.at(-1), { method: 'POST', url: `/api/connections/${home.id}/disconnect` });
    await wk.connections.delete(inFolder.id);
    await rejects(wk.connections.get(inFolder.id), 404, /not found/);
    await rejects(wk.connections.update(inFolder.id, 'x'), 404, /Not found/);
    await rejects(wk.connections.create('', 'rest'), 400, /name/);
  });

  test('wk recipes update-connection <id> --adapter A --connection C', async () => {
    // Authorized (made with its input through the API), so that the recipe can start further down.
    const made = await t.call('POST', '/api/connections', {
      body: { name: 'For the recipe', provider: 'rest', input: { base_url: 'http://127.0.0.1:9', auth_type: 'none' } },
    });
    const conn = made.body as { id: number };
    await wk.recipes.updateConnection(recipeId, 'rest', conn.id);
    const recipe = (await t.call('GET', `/api/recipes/${recipeId}`)).body;
    assert.equal(recipe.config.find((c: { provider: string }) => c.provider === 'rest').account_id, conn.id);
    await rejects(
      wk.recipes.updateConnection(recipeId, 'salesforce', conn.id),
      400,
      /^Adapter_name is not a connector/,
    );
    await rejects(wk.recipes.updateConnection(987654, 'rest', conn.id), 404, /Not found/);
    // A running recipe keeps its connections: the vendor answers 200 with success false, which
    // wk does not read (contract 14 §12); the slot is unchanged.
    const other = await wk.connections.create('Not taken', 'rest');
    assert.deepEqual((await t.call('PUT', `/api/recipes/${recipeId}/start`)).body, { success: true });
    await wk.recipes.updateConnection(recipeId, 'rest', other.id);
    const still = (await t.call('GET', `/api/recipes/${recipeId}`)).body;
    assert.equal(still.config.find((c: { provider: string }) => c.provider === 'rest').account_id, conn.id);
    assert.equal((await t.call('PUT', `/api/recipes/${recipeId}/stop`)).status, 200);
  });
});

describe('wk recipes versions and jobs', () => {
  test('the recipe as wk reads it carries trigger_application', async () => {
    const recipe = await wk.recipes.get(recipeId);
    assert.equal(recipe.trigger_application, 'workato_webhooks');
    assert.equal(recipe.id, recipeId);
  });

  test('wk recipes versions <id>, the version by id, wk recipes versions comment <id> <version_id> <comment>', async () => {
    const versions = await wk.recipes.versions(recipeId);
    assert.ok(versions.length >= 2);
    const newest = versions[0];
    assert.ok(newest.version_no > versions[1].version_no);
    assert.equal(newest.author_email, 'integrations@example.com');
    const one = await wk.recipes.version(recipeId, newest.id);
    assert.equal(one.version_no, newest.version_no);
    const commented = await wk.recipes.commentVersion(recipeId, newest.id, 'Checked by CI');
    assert.equal(commented.comment, 'Checked by CI');
    assert.deepEqual(wk.sent.at(-1), {
      method: 'PATCH',
      url: `/api/recipes/${recipeId}/versions/${newest.id}`,
      body: { comment: 'Checked by CI' },
    });
    await rejects(wk.recipes.version(recipeId, newest.version_no + 1000), 404, /Recipe version not found/);
    await rejects(wk.recipes.commentVersion(recipeId, newest.id, 'x'.repeat(256)), 0, /255/);
    assert.equal((await wk.recipes.versions(recipeId, { page: 1, perPage: 1 })).length, 1);
  });

  test('wk recipes jobs get <recipe_id> <job_id>, wk recipes jobs retry <recipe_id> <job_id>...', async () => {
    const plain = await webhookRecipe(t, [log('say', 'hello')]);
    const ran = await fire(t, plain.path, { n: 1 });
    assert.equal(ran.status, 'succeeded');
    const listed = (await t.call('GET', `/api/recipes/${plain.id}/jobs`)).body.items[0];
    const job = await wk.recipes.job(plain.id, listed.id);
    assert.equal(job.id, listed.id);
    assert.equal(job.status, 'succeeded');
    assert.equal(job.is_repeat, false);
    assert.deepEqual(
      job.lines.map((l: { recipe_line_number: number; adapter_name: string }) => [
        l.recipe_line_number,
        l.adapter_name,
      ]),
      [
        [0, 'workato_webhooks'],
        [1, 'logger'],
      ],
    );
    assert.notEqual(job.lines[1].line_stat.started_at, null);
    await rejects(wk.recipes.job(recipeId, listed.id), 404, /Not found/);
    await rejects(wk.recipes.job(plain.id, 'j-nothere-0000000'), 404, /Not found/);

    const results = await wk.recipes.retry(plain.id, [listed.id, 'j-nothere-0000000']);
    assert.deepEqual(
      results.map((r) => [r.job_id, r.status]),
      [
        [listed.id, 'enqueued'],
        ['j-nothere-0000000', 'failed'],
      ],
    );
    assert.notEqual(results[1].error, '');
    // The new job is there as soon as it is queued (whether it has run yet or not).
    const jobs = (await t.call('GET', `/api/recipes/${plain.id}/jobs`)).body.items as Array<{ id: string }>;
    const newJob = jobs.find((j) => j.id !== listed.id);
    assert.ok(newJob, 'the repeat is a new job of the recipe');
    const repeat = await wk.recipes.job(plain.id, newJob.id);
    assert.equal(repeat.is_repeat, true);
    assert.equal(repeat.master_job_id, listed.id);
  });
});

describe('wk workspace audit-log', () => {
  test('[--since] [--until] [--action]: what the commands above changed, newest first, with who', async () => {
    const all = await wk.workspace.auditLog();
    assert.ok(all.length > 10);
    for (const e of all) {
      assert.ok(e.id > 0);
      assert.notEqual(e.event_type, '');
      assert.equal(e.user.email, 'integrations@example.com');
      assert.match(e.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    }
    const tagsCreated = await wk.workspace.auditLog({ action: 'tag_created' });
    assert.deepEqual(
      tagsCreated.map((e) => e.details.title),
      ['Staging', 'Production'],
    );
    const since = all.at(-1).timestamp;
    const until = all[0].timestamp;
    assert.equal((await wk.workspace.auditLog({ since, until })).length, all.length);
    assert.equal(
      wk.sent.at(-1)?.url,
      `/api/activity_logs?${new URLSearchParams({ from: since, to: until }).toString()}`,
    );
    assert.deepEqual(await wk.workspace.auditLog({ since: '2999-01-01T00:00:00Z' }), []);
    await rejects(wk.workspace.auditLog({ since: 'last tuesday' }), 400, /^From must be an RFC 3339 date-time/);
  });
});
