import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, tempDir, type TestApp } from '../../../test/helpers.ts';
import { insertFolder } from '../folders/folders.store.ts';
import { findEnvironmentByType } from '../../workspaces/workspaces.store.ts';
import { SecretResolutionError } from '../secrets_management/secret-resolver.ts';
import { resolveConnectionCredentials, type ConnectionCredentials } from './connections.service.ts';

const PASSWORD = 'pw-Sup3r-s3cret-9f1c';
const ENV_TOKEN = 'env-token-7Hq2-value';

let t: TestApp;
let devEnvironmentId: number;
let homeFolderId: number;
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
  homeFolderId = (await t.call('GET', '/api/users/me')).body.root_folder_id;
});
after(() => t.close());

async function create(body: Record<string, unknown>, token?: string) {
  return t.call('POST', '/api/connections', { body, ...(token ? { token } : {}) });
}

async function allConnections(): Promise<Array<Record<string, unknown>>> {
  return (await t.call('GET', '/api/connections?include_runtime_connections=true')).body;
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

const CONNECTION_KEYS = [
  'application',
  'authorization_error',
  'authorization_status',
  'authorized_at',
  'connection_lost_at',
  'connection_lost_reason',
  'created_at',
  'custom_oauth_profile_id',
  'description',
  'external_id',
  'folder_id',
  'id',
  'input_fields',
  'name',
  'parent_id',
  'provider',
  'tags',
  'updated_at',
];

describe('POST /api/connections', () => {
  test('a rest connection with basic credentials is stored, tested, and never shows the password', async () => {
    const res = await create(basicRest('Billing API', { description: 'Invoices' }));
    assert.equal(res.status, 200, res.text);
    const c = res.body;
    assert.deepEqual(Object.keys(c).sort(), CONNECTION_KEYS);
    assert.equal(c.name, 'Billing API');
    assert.equal(c.provider, 'rest');
    assert.equal(c.application, 'rest');
    assert.equal(c.description, 'Invoices');
    assert.equal(c.authorization_status, 'success');
    assert.equal(c.authorization_error, null);
    assert.match(c.authorized_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(c.created_at, /Z$/);
    assert.equal(c.folder_id, homeFolderId, 'Home folder by default');
    assert.deepEqual(c.tags, []);
    assert.equal(c.parent_id, null);
    assert.equal(c.external_id, null);
    assert.equal(c.connection_lost_at, null);
    assert.deepEqual(c.input_fields, ['auth_type', 'base_url', 'password', 'username']);
    assert.ok(!res.text.includes(PASSWORD));
    const creds = await credentialsOf(c.id);
    assert.equal(creds.values.password, PASSWORD, 'the password is kept (encrypted), not dropped');
    assert.equal(creds.rest?.headers.authorization, `Basic ${Buffer.from(`svc:${PASSWORD}`).toString('base64')}`);
    assert.equal(creds.rest?.baseUrl.href, 'https://api.example.com/v1');
  });

  test('any provider is stored; one without a connector here is marked failed, a shell is untested', async () => {
    const erp = await create({
      name: 'Prod ERP',
      provider: 'acme_erp',
      input: { host_name: 'erp.acme.example', apitoken: 'erp-token-123' },
    });
    assert.equal(erp.status, 200);
    assert.equal(erp.body.provider, 'acme_erp');
    assert.equal(erp.body.authorization_status, 'failed');
    assert.match(erp.body.authorization_error, /No connector for provider "acme_erp"/);
    assert.equal(erp.body.authorized_at, null);
    const shell = await create({ name: 'Salesforce shell', provider: 'salesforce', shell_connection: true });
    assert.equal(shell.status, 200);
    assert.equal(shell.body.authorization_status, null);
    assert.equal(shell.body.authorization_error, null);
    assert.deepEqual(shell.body.input_fields, []);
  });

  test('http is an alias of rest; bearer and api_key authentication; an incomplete input fails its test', async () => {
    const bearer = await create({
      name: 'Bearer API',
      provider: 'http',
      input: { base_url: 'http://localhost:9000', auth_type: 'bearer', token: 'tok-1' },
    });
    assert.equal(bearer.body.authorization_status, 'success');
    assert.equal((await credentialsOf(bearer.body.id)).rest?.headers.authorization, 'Bearer tok-1');
    const apiKey = await create({
      name: 'Key API',
      provider: 'rest',
      input: { base_url: 'https://k.example', auth_type: 'api_key', api_key: 'k-1', api_key_header: 'X-Token' },
    });
    assert.equal(apiKey.body.authorization_status, 'success');
    assert.deepEqual((await credentialsOf(apiKey.body.id)).rest?.headers, { 'x-token': 'k-1' });
    const none = await create({ name: 'Open API', provider: 'rest', input: { base_url: 'https://open.example' } });
    assert.equal(none.body.authorization_status, 'success');
    const incomplete = await create({
      name: 'No password',
      provider: 'rest',
      input: { base_url: 'https://x.example', auth_type: 'basic', username: 'u' },
    });
    assert.equal(incomplete.status, 200);
    assert.equal(incomplete.body.authorization_status, 'failed');
    assert.equal(incomplete.body.authorization_error, 'basic authentication needs password');
    const noUrl = await create({ name: 'No URL', provider: 'rest', shell_connection: false });
    assert.equal(noUrl.body.authorization_status, 'failed');
    assert.match(noUrl.body.authorization_error, /base_url/);
    // Neither input nor shell_connection (the vendor's CLI, contract 23 §5): a shell, nothing tested.
    const shell = await create({ name: 'Shell by default', provider: 'rest' });
    assert.equal(shell.status, 200);
    assert.equal(shell.body.authorization_status, null);
    assert.equal(shell.body.authorization_error, null);
  });

  test('secret references: built-in store, env and file secrets resolve; unknown ones fail the test without a value', async () => {
    assert.equal(
      (await t.call('PUT', '/api/secrets_management/secrets/billing_password', { body: { value: 'store-value-1' } }))
        .status,
      200,
    );
    fs.writeFileSync(path.join(secretsDir, 'billing_key'), 'file-value-1\n');
    const res = await create({
      name: 'Referenced',
      provider: 'rest',
      input: {
        base_url: 'https://r.example',
        auth_type: 'basic',
        username: { secret: 'env:SWITCHBOARD_SECRET_API_TOKEN' },
        password: { secret: 'billing_password' },
        extra: { secret: 'file:billing_key' },
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.authorization_status, 'success');
    const creds = await credentialsOf(res.body.id);
    assert.equal(creds.values.username, ENV_TOKEN);
    assert.equal(creds.values.password, 'store-value-1');
    assert.equal(creds.values.extra, 'file-value-1', 'one trailing newline dropped');

    const missing = await create({
      name: 'Missing secret',
      provider: 'rest',
      input: { base_url: 'https://r.example', auth_type: 'bearer', token: { secret: 'store:nope' } },
    });
    assert.equal(missing.status, 200);
    assert.equal(missing.body.authorization_status, 'failed');
    assert.equal(missing.body.authorization_error, 'secret store:nope: not found');
    await assert.rejects(credentialsOf(missing.body.id), SecretResolutionError);
  });

  test('references that can never resolve are refused at once (400), and nothing is created', async () => {
    const before = (await allConnections()).length;
    const cases: Array<[unknown, string]> = [
      [{ secret: 'env:HOME' }, 'only environment variables starting with SWITCHBOARD_SECRET_'],
      // SWITCHBOARD_SECRET_KEY starts with the allowed prefix but is the server's own key.
      [
        { secret: 'env:SWITCHBOARD_SECRET_KEY' },
        'SWITCHBOARD_SECRET_KEY is a setting of the server, never a secret of a connection',
      ],
      [{ secret: 'file:../etc/passwd' }, 'invalid file secret name'],
      [{ secret: 'file:/etc/passwd' }, 'invalid file secret name'],
      [{ secret: 'vault:x' }, 'must be NAME'],
      [{ secret: 'bad name' }, 'invalid store secret name'],
    ];
    for (const [ref, message] of cases) {
      const res = await create({
        name: 'Bad ref',
        provider: 'rest',
        input: { base_url: 'https://r.example', password: ref },
      });
      assert.equal(res.status, 400, JSON.stringify(ref));
      assert.ok(res.body.errors['input.password'][0].includes(message), res.text);
    }
    assert.equal((await allConnections()).length, before);
  });

  test('placed in a folder of the environment; folder ids as strings are accepted', async () => {
    const project = await t.createProject('Connections project');
    const res = await create(basicRest('In project', { folder_id: String(project.folderId) }));
    assert.equal(res.status, 200);
    assert.equal(res.body.folder_id, project.folderId);
  });

  test('parent_id: a top-level connection of the same provider; external_id stored', async () => {
    const parent = await create({ name: 'OAuth parent', provider: 'slack', shell_connection: true });
    const child = await create({
      name: 'User 1',
      provider: 'slack',
      shell_connection: true,
      parent_id: parent.body.id,
      external_id: 'user-1',
    });
    assert.equal(child.status, 200);
    assert.equal(child.body.parent_id, parent.body.id);
    assert.equal(child.body.external_id, 'user-1');
    const before = (await allConnections()).length;
    const otherProvider = await create({
      name: 'Wrong',
      provider: 'jira',
      shell_connection: true,
      parent_id: parent.body.id,
    });
    assert.equal(otherProvider.status, 400);
    assert.ok(otherProvider.body.errors.parent_id);
    const grandChild = await create({
      name: 'Grandchild',
      provider: 'slack',
      shell_connection: true,
      parent_id: child.body.id,
    });
    assert.equal(grandChild.status, 400);
    const unknown = await create({ name: 'Orphan', provider: 'slack', shell_connection: true, parent_id: 999999 });
    assert.equal(unknown.status, 400);
    assert.equal((await allConnections()).length, before);
  });

  test('custom OAuth profile: only as a shell (400 otherwise); the profile must match the provider', async () => {
    const profile = await t.call('POST', '/api/custom_oauth_profiles', {
      body: {
        name: 'Acme Slack app',
        provider: 'slack',
        data: { client_id: 'cid', client_secret: 'csecret-for-conn-test' },
      },
    });
    assert.equal(profile.status, 200);
    const before = (await allConnections()).length;
    const tested = await create({
      name: 'Slack',
      provider: 'slack',
      custom_oauth_profile_id: profile.body.result.id,
      shell_connection: false,
    });
    assert.equal(tested.status, 400);
    assert.deepEqual(tested.body, { message: 'OAuth connections can only be created as shell connections' });
    const mismatch = await create({ name: 'Slack', provider: 'jira', custom_oauth_profile_id: profile.body.result.id });
    assert.equal(mismatch.status, 400);
    assert.ok(mismatch.body.errors.custom_oauth_profile_id);
    assert.equal((await allConnections()).length, before);
    const ok = await create({
      name: 'Slack',
      provider: 'slack',
      custom_oauth_profile_id: String(profile.body.result.id),
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.custom_oauth_profile_id, profile.body.result.id);
    assert.equal(ok.body.authorization_status, null, 'created as a shell');
    const got = await t.call('GET', `/api/custom_oauth_profiles/${profile.body.result.id}`);
    assert.equal(got.body.result.shared_accounts_count, 1);
  });

  test('bad input: each a 400 naming the field, and nothing is created', async () => {
    const before = (await allConnections()).length;
    const otherEnvProject = await t.createProject('Test-env project', 'test');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'rest' }, 'name'],
      [{ name: '  ', provider: 'rest' }, 'name'],
      [{ name: 'x'.repeat(256), provider: 'rest' }, 'name'],
      [{ name: 42, provider: 'rest' }, 'name'],
      [{ name: 'x' }, 'provider'],
      [{ name: 'x', provider: '' }, 'provider'],
      [{ name: 'x', provider: 'has spaces' }, 'provider'],
      [{ name: 'x', provider: 'rest', folder_id: 'abc' }, 'folder_id'],
      [{ name: 'x', provider: 'rest', folder_id: 999999 }, 'folder_id'],
      [{ name: 'x', provider: 'rest', folder_id: otherEnvProject.folderId }, 'folder_id'],
      [{ name: 'x', provider: 'rest', shell_connection: 'yes' }, 'shell_connection'],
      [{ name: 'x', provider: 'rest', input: 'password=x' }, 'input'],
      [{ name: 'x', provider: 'rest', input: { nested: { a: 1 } } }, 'input.nested'],
      [{ name: 'x', provider: 'rest', input: { list: [1, 2] } }, 'input.list'],
      [{ name: 'x', provider: 'rest', input: { password: { secret: 'a', value: 'b' } } }, 'input.password'],
      [{ name: 'x', provider: 'rest', input: { base_url: 'ftp://files.example' } }, 'input.base_url'],
      [{ name: 'x', provider: 'rest', input: { base_url: 'not a url' } }, 'input.base_url'],
      [{ name: 'x', provider: 'rest', input: { auth_type: 'kerberos' } }, 'input.auth_type'],
      [{ name: 'x', provider: 'rest', input: { api_key_header: 'Bad Header' } }, 'input.api_key_header'],
      [
        {
          name: 'x',
          provider: 'rest',
          input: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, 'v'])),
        },
        'input',
      ],
      [{ name: 'x', provider: 'rest', input: { password: 'p'.repeat(70_000) } }, 'input.password'],
      [{ name: 'x', provider: 'rest', description: 'd'.repeat(10_001) }, 'description'],
      [{ name: 'x', provider: 'rest', external_id: 'e'.repeat(256) }, 'external_id'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.text.slice(0, 200)}`);
      assert.equal(typeof res.body.message, 'string');
      assert.ok(res.body.errors?.[field], `errors names ${field}: ${res.text.slice(0, 300)}`);
    }
    assert.equal((await allConnections()).length, before);
  });

  test('malformed JSON, wrong Content-Type, an array body and an oversized body are refused; nothing created', async () => {
    const before = (await allConnections()).length;
    const malformed = await t.call('POST', '/api/connections', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
    const form = await t.call('POST', '/api/connections', {
      raw: 'name=x&provider=rest',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.equal((await t.call('POST', '/api/connections', { body: [1] })).status, 400);
    assert.equal(
      (await t.call('POST', '/api/connections', { raw: '', headers: { 'content-type': 'application/json' } })).status,
      400,
    );
    const huge = await t.call('POST', '/api/connections', {
      raw: JSON.stringify({ name: 'x', provider: 'rest', input: { password: 'x'.repeat(2 * 1024 * 1024) } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413);
    assert.equal((await allConnections()).length, before);
  });

  test('a client limited to a project must name a folder in its scope', async () => {
    const mine = await t.createProject('Scoped conn project');
    const other = await t.createProject('Not my project');
    const { token } = await t.scopedClient([mine.folderId]);
    const before = (await allConnections()).length;
    const noFolder = await create(basicRest('scoped'), token);
    assert.equal(noFolder.status, 400);
    assert.ok(noFolder.body.errors.folder_id);
    const outside = await create(basicRest('scoped', { folder_id: other.folderId }), token);
    assert.equal(outside.status, 400);
    assert.equal((await allConnections()).length, before);
    const inside = await create(basicRest('scoped', { folder_id: mine.folderId }), token);
    assert.equal(inside.status, 200);
  });

  test('401 without a token; 403 for a role without connections:write (nothing created)', async () => {
    const before = (await allConnections()).length;
    assert.equal((await t.call('POST', '/api/connections', { token: null, body: basicRest('x') })).status, 401);
    const readOnly = await t.tokenWith('Connections reader', ['connections:read']);
    const res = await create(basicRest('x'), readOnly);
    assert.equal(res.status, 403);
    assert.match(res.body.message, /connections:write/);
    assert.equal((await allConnections()).length, before);
  });
});

describe('GET /api/connections', () => {
  test('a bare array in ascending id order, every key present', async () => {
    await create(basicRest('List me'));
    const res = await t.call('GET', '/api/connections');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    assert.ok(res.body.length >= 1);
    for (const c of res.body) assert.deepEqual(Object.keys(c).sort(), CONNECTION_KEYS);
    const ids = res.body.map((c: { id: number }) => c.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => a - b),
    );
    assert.ok(!res.text.includes(PASSWORD));
  });

  test('filters: folder_id, provider, parent_id, external_id; runtime user connections only on request', async () => {
    const project = await t.createProject('Filter project');
    const sub = await insertFolder(t.ctx.db, {
      workspace_id: t.workspaceId,
      environment_id: devEnvironmentId,
      parent_id: project.folderId,
      name: 'Sub',
      is_project: 0,
      project_id: project.projectId,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    const a = await create({ name: 'A', provider: 'zendesk', shell_connection: true, folder_id: project.folderId });
    const b = await create({
      name: 'B',
      provider: 'zendesk',
      shell_connection: true,
      folder_id: sub.id,
      external_id: 'ext-b',
    });
    const runtime = await create({
      name: 'Runtime',
      provider: 'zendesk',
      shell_connection: true,
      folder_id: project.folderId,
      parent_id: a.body.id,
      external_id: 'end-user-7',
    });

    const inFolder = await t.call('GET', `/api/connections?folder_id=${project.folderId}`);
    assert.deepEqual(
      inFolder.body.map((c: { id: number }) => c.id),
      [a.body.id],
      'not recursive; runtime excluded',
    );
    const withRuntime = await t.call(
      'GET',
      `/api/connections?folder_id=${project.folderId}&include_runtime_connections=true`,
    );
    assert.deepEqual(
      withRuntime.body.map((c: { id: number }) => c.id),
      [a.body.id, runtime.body.id],
    );
    const byProvider = await t.call('GET', '/api/connections?provider=zendesk');
    assert.deepEqual(
      byProvider.body.map((c: { id: number }) => c.id),
      [a.body.id, b.body.id],
    );
    const children = await t.call('GET', `/api/connections?parent_id=${a.body.id}&include_runtime_connections=true`);
    assert.deepEqual(
      children.body.map((c: { id: number }) => c.id),
      [runtime.body.id],
    );
    const byExternal = await t.call('GET', '/api/connections?external_id=ext-b');
    assert.deepEqual(
      byExternal.body.map((c: { id: number }) => c.id),
      [b.body.id],
    );
    const tags = await t.call('GET', `/api/connections?folder_id=${project.folderId}&includes[]=tags`);
    assert.equal(tags.status, 200);
    assert.deepEqual(tags.body[0].tags, []);
    const none = await t.call('GET', '/api/connections?provider=nothing-here');
    assert.deepEqual(none.body, []);
  });

  test('not paged unless asked; page and per_page page in id order', async () => {
    for (let i = 0; i < 3; i++) await create({ name: `Paged ${i}`, provider: 'paged', shell_connection: true });
    const all = await t.call('GET', '/api/connections?provider=paged');
    assert.equal(all.body.length, 3);
    const page1 = await t.call('GET', '/api/connections?provider=paged&per_page=2');
    const page2 = await t.call('GET', '/api/connections?provider=paged&per_page=2&page=2');
    assert.deepEqual(
      [...page1.body, ...page2.body].map((c: { id: number }) => c.id),
      all.body.map((c: { id: number }) => c.id),
    );
    assert.equal(page1.body.length, 2);
    assert.deepEqual((await t.call('GET', '/api/connections?provider=paged&page=9')).body, []);
    assert.equal(
      (await t.call('GET', '/api/connections?provider=paged&page=abc&per_page=-1')).body.length,
      3,
      'junk paging falls back to defaults',
    );
  });

  test('project scope: a limited client sees its project and the folders below, nothing else', async () => {
    const mine = await t.createProject('Visible project');
    const sub = await insertFolder(t.ctx.db, {
      workspace_id: t.workspaceId,
      environment_id: devEnvironmentId,
      parent_id: mine.folderId,
      name: 'Deep',
      is_project: 0,
      project_id: mine.projectId,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    const hidden = await t.createProject('Hidden project');
    const inProject = await create({
      name: 'Mine',
      provider: 'scopecheck',
      shell_connection: true,
      folder_id: mine.folderId,
    });
    const inSub = await create({
      name: 'Mine deep',
      provider: 'scopecheck',
      shell_connection: true,
      folder_id: sub.id,
    });
    await create({ name: 'Hidden', provider: 'scopecheck', shell_connection: true, folder_id: hidden.folderId });
    await create({ name: 'In Home', provider: 'scopecheck', shell_connection: true });
    const { token } = await t.scopedClient([mine.folderId]);
    const res = await t.call('GET', '/api/connections?provider=scopecheck', { token });
    assert.deepEqual(
      res.body.map((c: { id: number }) => c.id),
      [inProject.body.id, inSub.body.id],
    );
    const hiddenFolder = await t.call('GET', `/api/connections?folder_id=${hidden.folderId}`, { token });
    assert.deepEqual(hiddenFolder.body, []);
  });

  test('other environments and workspaces see none of these connections', async () => {
    await create({ name: 'Dev only', provider: 'envcheck', shell_connection: true });
    const testToken = await t.tokenFor('Admin', 'test');
    assert.deepEqual((await t.call('GET', '/api/connections?provider=envcheck', { token: testToken })).body, []);
    const other = await t.newWorkspace('Connections Other Co');
    assert.deepEqual((await t.call('GET', '/api/connections', { token: other.adminToken })).body, []);
  });

  test('400 for a non-numeric folder_id or parent_id; 401; 403 without connections:read', async () => {
    const bad = await t.call('GET', '/api/connections?folder_id=abc');
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.folder_id);
    assert.equal((await t.call('GET', '/api/connections?parent_id=-1')).status, 400);
    assert.equal((await t.call('GET', '/api/connections?include_runtime_connections=maybe')).status, 400);
    assert.equal((await t.call('GET', '/api/connections', { token: null })).status, 401);
    const token = await t.tokenWith('No connections', ['workspace_details:read']);
    assert.equal((await t.call('GET', '/api/connections', { token })).status, 403);
  });
});
