// The console shows tags in its recipe and connection lists, and its changes reach the activity log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { createRecipe, fire, log, webhookRecipe, webhookTrigger } from '../../test/recipes.ts';

let t: TestApp;
let cookie: string;
let csrf: string;
before(async () => {
  t = await createTestApp();
  const signIn = await t.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    payload: new URLSearchParams({ token: t.adminToken }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(signIn.statusCode, 303, signIn.body);
  cookie = String([signIn.headers['set-cookie']].flat()[0]).split(';')[0] as string;
  const home = await t.app.inject({ method: 'GET', url: '/console/', headers: { cookie } });
  csrf = /name="_csrf" value="([^"]+)"/.exec(home.body)?.[1] as string;
  assert.ok(csrf);
});
after(() => t.close());

const page = async (url: string) => {
  const res = await t.app.inject({ method: 'GET', url, headers: { cookie } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
};
const post = (url: string) =>
  t.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams({ _csrf: csrf }).toString(),
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
  });

describe('console: tags in the lists', () => {
  test("the recipes and connections lists show each one's tags by title, escaped", async () => {
    const recipeId = await createRecipe(t, webhookTrigger([log('say', 'hi')]), { name: 'Tagged in console' });
    const conn = await t.call('POST', '/api/connections', { body: { name: 'Console conn', provider: 'jira' } });
    const tag = await t.call('POST', '/api/tags', { body: { title: '<Critical>', description: 'Page "someone"' } });
    await t.call('POST', '/api/tags_assignments', {
      body: { add_tags: [tag.body.handle], recipe_ids: [recipeId], connection_ids: [conn.body.id] },
    });
    const recipes = await page('/console/recipes');
    assert.match(
      recipes,
      /Tagged in console<\/a> <span class="tags"><span class="badge tag" title="Page &quot;someone&quot;">&lt;Critical&gt;<\/span>/,
    );
    const connections = await page('/console/connections');
    assert.match(
      connections,
      /Console conn<\/a> <span class="tags"><span class="badge tag"[^>]*>&lt;Critical&gt;<\/span>/,
    );
    assert.doesNotMatch(recipes + connections, /<Critical>/);
  });
});

describe('console: changes in the activity log', () => {
  test('start, stop and a job run again from the console are recorded once each, via the console', async () => {
    const { id, path } = await webhookRecipe(t, [log('say', 'x')]);
    await fire(t, path, { n: 1 });
    const job = (await t.call('GET', `/api/recipes/${id}/jobs`)).body.items[0];
    const before = (await t.call('GET', '/api/activity_logs?per_page=1')).body.data[0].id as number;
    assert.equal((await post(`/console/recipes/${id}/stop`)).statusCode, 303);
    assert.equal((await post(`/console/recipes/${id}/start`)).statusCode, 303);
    assert.equal((await post(`/console/recipes/${id}/jobs/${job.id}/repeat`)).statusCode, 303);
    // Stopped again (recorded), then once more: refused, so not recorded.
    await post(`/console/recipes/${id}/stop`);
    assert.notEqual((await post(`/console/recipes/${id}/stop`)).statusCode, 303);
    const entries = (await t.call('GET', '/api/activity_logs')).body.data
      .filter((e: { id: number }) => e.id > before)
      .reverse();
    assert.deepEqual(
      entries.map((e: { event_type: string; details: { via: string } }) => [e.event_type, e.details.via]),
      [
        ['recipe_stopped', 'console'],
        ['recipe_started', 'console'],
        ['jobs_repeated', 'console'],
        ['recipe_stopped', 'console'],
      ],
    );
    assert.equal(entries[2].details.job_ids[0], job.id);
    assert.equal(entries[0].details.client.name, 'Bootstrap admin');
  });
});
