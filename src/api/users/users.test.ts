import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { createRecipe, log, startRecipe, webhookTrigger } from '../../../test/recipes.ts';
import { manualClock } from '../../time.ts';

let t: TestApp;
const clock = manualClock('2026-03-10T08:59:40.004Z');
before(async () => {
  t = await createTestApp({ clock });
});
after(() => t.close());

// Every key the vendor's User schema requires (contract 05 §7): clients validate against it.
const REQUIRED_KEYS = [
  'id',
  'name',
  'created_at',
  'plan_id',
  'current_billing_period_start',
  'current_billing_period_end',
  'recipes_count',
  'company_name',
  'location',
  'email',
  'active_recipes_count',
  'root_folder_id',
];

describe('GET /api/users/me', () => {
  test('answers the workspace of the token with every documented key', async () => {
    const res = await t.call('GET', '/api/users/me');
    assert.equal(res.status, 200);
    for (const key of REQUIRED_KEYS) assert.ok(key in res.body, `missing ${key}`);
    assert.equal(res.body.id, t.workspaceId);
    assert.equal(res.body.name, 'Acme Integrations');
    assert.equal(res.body.email, 'integrations@example.com');
    assert.equal(res.body.created_at, '2026-03-10T08:59:40.004+00:00');
    assert.equal(res.body.current_billing_period_start, '2026-03-01T00:00:00.000+00:00');
    assert.equal(res.body.current_billing_period_end, '2026-04-01T00:00:00.000+00:00');
    assert.equal(res.body.location, null);
    assert.deepEqual(res.body.interested_applications, []);
    assert.equal(typeof res.body.root_folder_id, 'number');
    assert.equal(res.body.last_seen, '2026-03-10T08:59:40.004+00:00', 'the call itself counts as seen');
  });

  test('last_seen follows use of the API', async () => {
    clock.advance(5 * 60_000);
    const res = await t.call('GET', '/api/users/me');
    assert.equal(res.body.last_seen, '2026-03-10T09:04:40.004+00:00');
  });

  test('each workspace sees itself, with its own Home folder', async () => {
    const other = await t.newWorkspace('Globex');
    const res = await t.call('GET', '/api/users/me', { token: other.adminToken });
    assert.equal(res.body.name, 'Globex');
    assert.equal(res.body.id, other.workspaceId);
    const mine = await t.call('GET', '/api/users/me');
    assert.notEqual(res.body.root_folder_id, mine.body.root_folder_id);
  });

  test('401 without a token or with a wrong one', async () => {
    assert.deepEqual((await t.call('GET', '/api/users/me', { token: null })).body, { message: 'Unauthorized' });
    assert.equal((await t.call('GET', '/api/users/me', { token: 'nonsense' })).status, 401);
    assert.equal(
      (await t.call('GET', '/api/users/me', { token: null, headers: { authorization: 'Bearer' } })).status,
      401,
    );
  });

  test('403 for clients of test and prod (dev only), and for a role without Workspace details', async () => {
    for (const env of ['test', 'prod'] as const) {
      const token = await t.tokenFor('Admin', env);
      const res = await t.call('GET', '/api/users/me', { token });
      assert.equal(res.status, 403, env);
      assert.match(res.body.message, /dev environment/);
    }
    const token = await t.tokenWith('Clients only', ['developer_api_clients:read']);
    assert.equal((await t.call('GET', '/api/users/me', { token })).status, 403);
  });

  test('unknown query parameters are ignored; other methods are 404', async () => {
    assert.equal((await t.call('GET', '/api/users/me?foo=bar')).status, 200);
    const post = await t.call('POST', '/api/users/me', { body: {} });
    assert.equal(post.status, 404);
    assert.deepEqual(post.body, { message: 'Not found' });
  });
});

describe('GET /api/users/me counts recipes', () => {
  test('recipes_count and active_recipes_count', async () => {
    for (let i = 0; i < 3; i++) await createRecipe(t, webhookTrigger([log('note', 'hello')]));
    await startRecipe(t, await createRecipe(t, webhookTrigger([log('note', 'hello')])));
    const me = await t.call('GET', '/api/users/me');
    const total = (await t.ctx.db.selectFrom('recipes').select('id').execute()).length;
    assert.equal(me.body.recipes_count, total);
    const running = (await t.ctx.db.selectFrom('recipes').select('id').where('running', '=', 1).execute()).length;
    assert.equal(me.body.active_recipes_count, running);
  });
});
