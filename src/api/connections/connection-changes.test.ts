import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, tempDir, type TestApp } from '../../../test/helpers.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { resolveConnectionCredentials, type ConnectionCredentials } from './connections.service.ts';
import { IncompleteCredentialsError } from './connection-input.ts';

const PASSWORD = 'pw-Sup3r-s3cret-9f1c';
const ENV_TOKEN = 'env-token-7Hq2-value';

let t: TestApp;
let devEnvironmentId: number;
let secretsDir: string;

before(async () => {
  secretsDir = tempDir('sb-conn-secrets-');
  t = await createTestApp({
    env: {
      SECRETS_DIR: secretsDir,
      SWITCHBOARD_SECRET_API_TOKEN: ENV_TOKEN,
      // A server setting under the secret prefix: it must never be readable as a secret.
      SWITCHBOARD_SECRET_KEY: 'ab'.repeat(32),
    },
  });
  devEnvironmentId = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev'))!.id;
});
after(() => t.close());

async function create(body: Record<string, unknown>, token?: string) {
  return t.call('POST', '/api/connections', { body, ...(token ? { token } : {}) });
}

async function credentialsOf(id: number): Promise<ConnectionCredentials> {
  return resolveConnectionCredentials(t.ctx, { workspaceId: t.workspaceId, environmentId: devEnvironmentId }, id);
}

const basicRest = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  provider: 'rest',
  input: { base_url: 'https://api.example.com/v1', auth_type: 'basic', username: 'svc', password: PASSWORD },
  ...extra,
});

describe('GET /api/connections/:id', () => {
  test('the bare connection object', async () => {
    const created = await create(basicRest('Get me'));
    const res = await t.call('GET', `/api/connections/${created.body.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, created.body);
    assert.ok(!res.text.includes(PASSWORD));
  });

  test('404: unknown, non-numeric, another environment, another workspace, out of project scope', async () => {
    const created = await create(basicRest('Hidden from others'));
    for (const id of ['999999', 'abc', '1.5', '0', '-1', 'runtime_user_connections']) {
      const res = await t.call('GET', `/api/connections/${id}`);
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, { message: 'Not found' });
    }
    assert.equal(
      (await t.call('GET', `/api/connections/${created.body.id}`, { token: await t.tokenFor('Admin', 'prod') })).status,
      404,
    );
    const other = await t.newWorkspace('Get Other Co');
    assert.equal((await t.call('GET', `/api/connections/${created.body.id}`, { token: other.adminToken })).status, 404);
    const project = await t.createProject('Get scope project');
    assert.equal(
      (
        await t.call('GET', `/api/connections/${created.body.id}`, {
          token: (await t.scopedClient([project.folderId])).token,
        })
      ).status,
      404,
      'Home is outside every project',
    );
  });

  test('401 and 403', async () => {
    assert.equal((await t.call('GET', '/api/connections/1', { token: null })).status, 401);
    assert.equal(
      (await t.call('GET', '/api/connections/1', { token: await t.tokenWith('No conn read', ['connections:write']) }))
        .status,
      403,
    );
  });
});

describe('PUT /api/connections/:id', () => {
  test('renames and merges input: keys sent replace, null removes, others stay; untested input loses its status', async () => {
    const created = await create(basicRest('To update'));
    assert.equal(created.body.authorization_status, 'success');
    const res = await t.call('PUT', `/api/connections/${created.body.id}`, {
      body: { name: 'Updated', input: { username: 'svc2', extra: 'e', auth_type: null } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'Updated');
    assert.deepEqual(res.body.input_fields, ['base_url', 'extra', 'password', 'username']);
    assert.equal(res.body.authorization_status, null);
    assert.equal(res.body.authorized_at, created.body.authorized_at, 'the last successful authorisation is kept');
    const creds = await credentialsOf(created.body.id);
    assert.equal(creds.values.password, PASSWORD);
    assert.equal(creds.values.username, 'svc2');
    assert.equal(creds.values.auth_type, undefined);
  });

  test('shell_connection false re-tests; the POST form does the same; description and external_id clear with ""', async () => {
    const created = await create({
      name: 'Retest',
      provider: 'rest',
      shell_connection: true,
      description: 'd',
      external_id: 'x1',
      input: { base_url: 'https://t.example' },
    });
    assert.equal(created.body.authorization_status, null);
    const res = await t.call('PUT', `/api/connections/${created.body.id}`, { body: { shell_connection: false } });
    assert.equal(res.body.authorization_status, 'success');
    const broken = await t.call('POST', `/api/connections/${created.body.id}`, {
      body: { input: { auth_type: 'bearer' }, shell_connection: false, description: '', external_id: null },
    });
    assert.equal(broken.status, 200);
    assert.equal(broken.body.authorization_status, 'failed');
    assert.equal(broken.body.authorization_error, 'bearer authentication needs token');
    assert.equal(broken.body.description, null);
    assert.equal(broken.body.external_id, null);
  });

  test('moves to another folder; the provider cannot change (the same value is fine)', async () => {
    const created = await create(basicRest('Mover'));
    const project = await t.createProject('Move target');
    const moved = await t.call('PUT', `/api/connections/${created.body.id}`, {
      body: { folder_id: project.folderId, provider: 'rest' },
    });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.folder_id, project.folderId);
    const changed = await t.call('PUT', `/api/connections/${created.body.id}`, { body: { provider: 'jira' } });
    assert.equal(changed.status, 400);
    assert.ok(changed.body.errors.provider);
  });

  test('errors change nothing: 404s, empty body, bad types, bad input, bad folder or parent', async () => {
    const created = await create(basicRest('Stable'));
    const id = created.body.id;
    const snapshot = (await t.call('GET', `/api/connections/${id}`)).body;
    assert.equal((await t.call('PUT', '/api/connections/999999', { body: { name: 'x' } })).status, 404);
    assert.equal((await t.call('PUT', '/api/connections/abc', { body: { name: 'x' } })).status, 404);
    assert.equal(
      (await t.call('PUT', `/api/connections/${id}`, { token: await t.tokenFor('Admin', 'test'), body: { name: 'x' } }))
        .status,
      404,
    );
    const bad: Array<Record<string, unknown> | undefined> = [
      undefined,
      {},
      { nmae: 'typo' },
      { name: '' },
      { name: 7 },
      { folder_id: 999999 },
      { parent_id: 999999 },
      { parent_id: id },
      { input: { base_url: 'nope' } },
      { input: { x: { y: 1 } } },
      { input: { password: { secret: 'env:PATH' } } },
      { shell_connection: 'no' },
      { custom_oauth_profile_id: 999999 },
    ];
    for (const body of bad) {
      const res = await t.call('PUT', `/api/connections/${id}`, body === undefined ? {} : { body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 200)}`);
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal(
      (await t.call('PUT', `/api/connections/${id}`, { raw: '{bad', headers: { 'content-type': 'application/json' } }))
        .status,
      400,
    );
    assert.equal(
      (await t.call('PUT', `/api/connections/${id}`, { raw: 'name=x', headers: { 'content-type': 'text/plain' } }))
        .status,
      415,
    );
    assert.deepEqual((await t.call('GET', `/api/connections/${id}`)).body, snapshot);
    assert.equal((await credentialsOf(id)).values.password, PASSWORD);
  });

  test('401 and 403 change nothing', async () => {
    const created = await create(basicRest('Guarded'));
    assert.equal(
      (await t.call('PUT', `/api/connections/${created.body.id}`, { token: null, body: { name: 'x' } })).status,
      401,
    );
    assert.equal(
      (
        await t.call('PUT', `/api/connections/${created.body.id}`, {
          token: await t.tokenWith('Conn reader 2', ['connections:read']),
          body: { name: 'x' },
        })
      ).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/connections/${created.body.id}`)).body.name, 'Guarded');
  });
});

describe('POST /api/connections/:id/disconnect', () => {
  test('drops the credentials and the authorization; with no body, an empty body or force', async () => {
    for (const options of [
      {},
      { raw: '', headers: { 'content-type': 'application/json' } },
      { body: { force: true } },
    ]) {
      const created = await create(basicRest('Disconnect me'));
      const res = await t.call('POST', `/api/connections/${created.body.id}/disconnect`, options);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { success: true, status: 'disconnected' });
      const after = (await t.call('GET', `/api/connections/${created.body.id}`)).body;
      assert.equal(after.authorization_status, null);
      assert.equal(after.authorized_at, null);
      assert.deepEqual(after.input_fields, []);
      await assert.rejects(
        credentialsOf(created.body.id),
        (e: unknown) => e instanceof IncompleteCredentialsError && /base_url is missing/.test(e.message),
        'nothing left to resolve',
      );
    }
  });

  test('404, 400 for a bad force, 401 and 403; nothing changes', async () => {
    const created = await create(basicRest('Keep connected'));
    assert.equal((await t.call('POST', '/api/connections/999999/disconnect')).status, 404);
    assert.equal((await t.call('POST', '/api/connections/x/disconnect')).status, 404);
    assert.equal(
      (await t.call('POST', `/api/connections/${created.body.id}/disconnect`, { body: { force: 'yes' } })).status,
      400,
    );
    assert.equal((await t.call('POST', `/api/connections/${created.body.id}/disconnect`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('POST', `/api/connections/${created.body.id}/disconnect`, {
          token: await t.tokenWith('Conn reader 3', ['connections:read']),
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await t.call('POST', `/api/connections/${created.body.id}/disconnect`, {
          token: await t.tokenFor('Admin', 'prod'),
        })
      ).status,
      404,
    );
    const after = (await t.call('GET', `/api/connections/${created.body.id}`)).body;
    assert.equal(after.authorization_status, 'success');
    assert.equal((await credentialsOf(created.body.id)).values.password, PASSWORD);
  });
});

describe('DELETE /api/connections/:id', () => {
  test('deletes and answers {"success": true}', async () => {
    const created = await create(basicRest('Delete me'));
    const res = await t.call('DELETE', `/api/connections/${created.body.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    assert.equal((await t.call('GET', `/api/connections/${created.body.id}`)).status, 404);
  });

  test('422 while child connections hang from it; nothing is deleted', async () => {
    const parent = await create({ name: 'Parent in use', provider: 'hubspot', shell_connection: true });
    const child = await create({
      name: 'Child',
      provider: 'hubspot',
      shell_connection: true,
      parent_id: parent.body.id,
      external_id: 'u1',
    });
    const res = await t.call('DELETE', `/api/connections/${parent.body.id}`);
    assert.equal(res.status, 422);
    assert.match(res.body.message, /^Connection is in use/);
    assert.equal((await t.call('GET', `/api/connections/${parent.body.id}`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/connections/${child.body.id}`)).status, 200);
    assert.equal((await t.call('DELETE', `/api/connections/${parent.body.id}`)).status, 200);
  });

  test('422 naming the recipes that use it, by id or by name (an import); deleted once none does', async () => {
    const conn = await create(basicRest('Used by recipes'));
    const recipe = (name: string, account: unknown, provider = 'http') =>
      t.call('POST', '/api/recipes', {
        body: {
          recipe: {
            name,
            code: JSON.stringify({
              number: 0,
              keyword: 'trigger',
              provider: 'workato_webhooks',
              name: 'new_event',
              as: 'h',
              input: {},
              block: [],
            }),
            config: JSON.stringify([{ keyword: 'application', provider, name: provider, account_id: account }]),
          },
        },
      });
    const byId = await recipe('Sync orders', conn.body.id);
    const byName = await recipe(
      'Imported sync',
      { zip_name: 'x.connection.json', name: 'Used by recipes', folder: '' },
      'rest',
    );
    const other = await recipe('Other connection', conn.body.id + 1000, 'rest');
    assert.equal(other.status, 200, other.text);
    const res = await t.call('DELETE', `/api/connections/${conn.body.id}`);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.message, 'Connection is in use: 2 recipe(s) use it (Sync orders, Imported sync)');
    assert.equal((await t.call('GET', `/api/connections/${conn.body.id}`)).status, 200, 'nothing deleted');
    for (const [id, adapter] of [
      [byId.body.id, 'http'],
      [byName.body.id, 'rest'],
    ]) {
      const cleared = await t.call('PUT', `/api/recipes/${id}/connect`, {
        body: { adapter_name: adapter, connection_id: null },
      });
      assert.equal(cleared.status, 200, cleared.text);
    }
    const again = await t.call('DELETE', `/api/connections/${conn.body.id}`);
    assert.equal(again.status, 200, again.text);
  });

  test('404 unknown / non-numeric / other environment; 401; 403; nothing deleted', async () => {
    const created = await create(basicRest('Not deleted'));
    assert.equal((await t.call('DELETE', '/api/connections/999999')).status, 404);
    assert.equal((await t.call('DELETE', '/api/connections/abc')).status, 404);
    assert.equal(
      (await t.call('DELETE', `/api/connections/${created.body.id}`, { token: await t.tokenFor('Admin', 'test') }))
        .status,
      404,
    );
    assert.equal((await t.call('DELETE', `/api/connections/${created.body.id}`, { token: null })).status, 401);
    assert.equal(
      (
        await t.call('DELETE', `/api/connections/${created.body.id}`, {
          token: await t.tokenWith('Conn reader 4', ['connections:read']),
        })
      ).status,
      403,
    );
    assert.equal((await t.call('GET', `/api/connections/${created.body.id}`)).status, 200);
  });
});

describe('resolveConnectionCredentials (service, for the recipe engine and proxy collections)', () => {
  test('unknown id is not found; an incomplete rest connection is refused without a value', async () => {
    await assert.rejects(
      resolveConnectionCredentials(t.ctx, { workspaceId: t.workspaceId, environmentId: devEnvironmentId }, 999999),
      /Not found/,
    );
    const incomplete = await create({
      name: 'Half',
      provider: 'rest',
      shell_connection: true,
      input: { base_url: 'https://h.example', auth_type: 'basic', username: 'u' },
    });
    await assert.rejects(
      credentialsOf(incomplete.body.id),
      (e: unknown) => e instanceof IncompleteCredentialsError && e.message === 'basic authentication needs password',
    );
  });

  test('another environment cannot resolve a dev connection', async () => {
    const created = await create(basicRest('Env bound'));
    const prod = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'prod'))!.id;
    await assert.rejects(
      resolveConnectionCredentials(t.ctx, { workspaceId: t.workspaceId, environmentId: prod }, created.body.id),
      /Not found/,
    );
  });
});
