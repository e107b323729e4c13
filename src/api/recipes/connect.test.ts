import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, createRecipe, log, webhookTrigger } from '../../../test/recipes.ts';

describe('PUT /api/recipes/:id/connect', () => {
  let t: TestApp;
  let recipeId: number;
  let connectionId: number;
  before(async () => {
    t = await createTestApp();
    const conn = await t.call('POST', '/api/connections', {
      body: { name: 'Orders API', provider: 'rest', input: { base_url: 'http://127.0.0.1:9/', auth_type: 'none' } },
    });
    assert.ok(conn.status < 300, conn.text);
    connectionId = conn.body.id;
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
  });
  after(() => t.close());

  test("sets the slot's connection (a new version), empties it with null, refused while running", async () => {
    const res = await t.call('PUT', `/api/recipes/${recipeId}/connect`, {
      body: { adapter_name: 'rest', connection_id: String(connectionId) },
    });
    assert.deepEqual(res.body, { success: true }, res.text);
    let recipe = await t.call('GET', `/api/recipes/${recipeId}`);
    assert.equal(recipe.body.config.find((c: { provider: string }) => c.provider === 'rest').account_id, connectionId);
    assert.equal(recipe.body.version_no, 2);
    assert.deepEqual(
      (await t.call('PUT', `/api/recipes/${recipeId}/connect`, { body: { adapter_name: 'rest', connection_id: null } }))
        .body,
      { success: true },
    );
    recipe = await t.call('GET', `/api/recipes/${recipeId}`);
    assert.equal(recipe.body.config.find((c: { provider: string }) => c.provider === 'rest').account_id, null);

    await t.call('PUT', `/api/recipes/${recipeId}/connect`, {
      body: { adapter_name: 'rest', connection_id: connectionId },
    });
    assert.deepEqual((await t.call('PUT', `/api/recipes/${recipeId}/start`)).body, { success: true });
    const running = await t.call('PUT', `/api/recipes/${recipeId}/connect`, {
      body: { adapter_name: 'rest', connection_id: null },
    });
    assert.equal(running.status, 200);
    assert.equal(running.body.success, false);
    await t.call('PUT', `/api/recipes/${recipeId}/stop`);
  });

  test('bad input: a connector the recipe does not use, an unknown connection, another provider, missing fields, another environment', async () => {
    const other = await t.call('POST', '/api/connections', {
      body: { name: 'CRM', provider: 'salesforce', shell_connection: true },
    });
    const cases: Array<[unknown, number, string]> = [
      [{ adapter_name: 'slack', connection_id: connectionId }, 400, 'adapter_name'],
      [{ adapter_name: 'rest', connection_id: 999999 }, 400, 'connection_id'],
      [{ adapter_name: 'rest', connection_id: other.body.id }, 400, 'connection_id'],
      [{ adapter_name: 'rest' }, 400, 'connection_id'],
      [{ connection_id: connectionId }, 400, 'adapter_name'],
      [{ adapter_name: 'rest', connection_id: 'abc' }, 400, 'connection_id'],
    ];
    for (const [body, status, field] of cases) {
      const res = await t.call('PUT', `/api/recipes/${recipeId}/connect`, { body });
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.body.errors?.[field], `${field}: ${res.text}`);
    }
    assert.equal(
      (
        await t.call('PUT', '/api/recipes/999999/connect', {
          body: { adapter_name: 'rest', connection_id: connectionId },
        })
      ).status,
      404,
    );
    const testToken = await t.tokenFor('Admin', 'test');
    assert.equal(
      (
        await t.call('PUT', `/api/recipes/${recipeId}/connect`, {
          token: testToken,
          body: { adapter_name: 'rest', connection_id: connectionId },
        })
      ).status,
      404,
    );
  });

  test('updating only the code keeps the connections of the applications it still uses, adds the new ones empty', async () => {
    const id = await createRecipe(
      t,
      webhookTrigger([action('rest', 'make_request_v2', 'call', { request: { method: 'GET', url: 'http://x/' } })]),
    );
    await t.call('PUT', `/api/recipes/${id}/connect`, { body: { adapter_name: 'rest', connection_id: connectionId } });
    const code = webhookTrigger([
      action('rest', 'make_request_v2', 'call', { request: { method: 'GET', url: 'http://x/y' } }),
      log('say', 'changed'),
    ]);
    const res = await t.call('PUT', `/api/recipes/${id}`, { body: { recipe: { code: JSON.stringify(code) } } });
    assert.deepEqual(res.body, { success: true }, res.text);
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    const accounts = Object.fromEntries(
      recipe.body.config.map((c: { provider: string; account_id: unknown }) => [c.provider, c.account_id]),
    );
    assert.equal(accounts.rest, connectionId, recipe.text);
    assert.equal(accounts.logger, null, recipe.text);
    assert.equal(recipe.body.code.includes('changed'), true);
  });
});
