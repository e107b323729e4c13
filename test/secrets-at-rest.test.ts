// "Done when" of issue 3: after the connection, custom OAuth profile and secrets APIs were used
// with known plaintext credentials, no table of the database, no log line and no reply holds them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createLogger } from '../src/logger.ts';
import { findEnvironmentByType } from '../src/workspaces/workspaces.store.ts';
import { resolveConnectionCredentials } from '../src/api/connections/connections.service.ts';
import { openProfileCredentials } from '../src/api/custom_oauth_profiles/custom_oauth_profiles.service.ts';
import { createTestApp, type Reply, tempDir, type TestApp } from './helpers.ts';

// Distinctive values, so that a match can only be a leak.
const PLAINTEXT = {
  connectionPassword: 'conn-password-Q7v2-plain',
  connectionPasswordRotated: 'conn-password-rotated-K3x9',
  connectionApiKey: 'conn-apikey-W5n8-plain',
  jiraToken: 'jira-apitoken-R2d2-plain',
  oauthClientSecret: 'oauth-client-secret-T1m4-plain',
  oauthToken: 'oauth-extra-token-P0p3-plain',
  oauthClientSecretRotated: 'oauth-client-secret-rotated-B8b8',
  storedSecret: 'stored-secret-H6h6-plain',
  storedSecretRotated: 'stored-secret-rotated-J9j9',
  envSecret: 'env-secret-U4u4-plain',
  fileSecret: 'file-secret-Y2y2-plain',
};

const logLines: string[] = [];
const replies: string[] = [];
let t: TestApp;

before(async () => {
  const secretsDir = tempDir('sb-at-rest-');
  fs.writeFileSync(path.join(secretsDir, 'partner_key'), PLAINTEXT.fileSecret);
  t = await createTestApp({
    logger: createLogger('trace', {
      write: (line: string) => {
        logLines.push(line);
      },
    }),
    env: { SECRETS_DIR: secretsDir, SWITCHBOARD_SECRET_PARTNER: PLAINTEXT.envSecret },
  });
});
after(() => t.close());

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<Reply> {
  const res = await t.call(method, url, body === undefined ? {} : { body });
  replies.push(res.text);
  assert.ok(res.status < 500, `${method} ${url} -> ${res.status} ${res.text}`);
  return res;
}

test('no plaintext credential or secret in any table, log line or reply after the APIs were used', async () => {
  // The built-in secret store.
  assert.equal(
    (await call('PUT', '/api/secrets_management/secrets/partner_password', { value: PLAINTEXT.storedSecret })).status,
    200,
  );
  assert.equal(
    (await call('PUT', '/api/secrets_management/secrets/partner_password', { value: PLAINTEXT.storedSecretRotated }))
      .status,
    200,
  );
  assert.equal(
    (await call('PUT', '/api/secrets_management/secrets/to_delete', { value: PLAINTEXT.storedSecret })).status,
    200,
  );
  assert.equal((await call('DELETE', '/api/secrets_management/secrets/to_delete')).status, 200);

  // Connections holding values, and one referencing every provider.
  const basic = await call('POST', '/api/connections', {
    name: 'Basic',
    provider: 'rest',
    input: {
      base_url: 'https://api.example',
      auth_type: 'basic',
      username: 'svc',
      password: PLAINTEXT.connectionPassword,
    },
  });
  assert.equal(basic.body.authorization_status, 'success');
  await call('PUT', `/api/connections/${basic.body.id}`, {
    input: { password: PLAINTEXT.connectionPasswordRotated },
    shell_connection: false,
  });
  const keyed = await call('POST', '/api/connections', {
    name: 'Keyed',
    provider: 'http',
    input: { base_url: 'https://k.example', auth_type: 'api_key', api_key: PLAINTEXT.connectionApiKey },
  });
  await call('POST', `/api/connections/${keyed.body.id}/disconnect`);
  await call('POST', '/api/connections', {
    name: 'Jira',
    provider: 'jira',
    input: { host_name: 'acme.atlassian.net', apitoken: PLAINTEXT.jiraToken },
  });
  const referencing = await call('POST', '/api/connections', {
    name: 'Referencing',
    provider: 'rest',
    input: {
      base_url: 'https://r.example',
      auth_type: 'basic',
      username: { secret: 'env:SWITCHBOARD_SECRET_PARTNER' },
      password: { secret: 'partner_password' },
      extra: { secret: 'file:partner_key' },
    },
  });
  assert.equal(referencing.body.authorization_status, 'success');
  await call('GET', '/api/connections');
  await call('GET', `/api/connections/${basic.body.id}`);

  // Custom OAuth profiles.
  const profile = await call('POST', '/api/custom_oauth_profiles', {
    name: 'Slack app',
    provider: 'slack',
    data: { client_id: 'public-client-id', client_secret: PLAINTEXT.oauthClientSecret, token: PLAINTEXT.oauthToken },
  });
  await call('PUT', `/api/custom_oauth_profiles/${profile.body.result.id}`, {
    data: { client_secret: PLAINTEXT.oauthClientSecretRotated },
  });
  await call('POST', '/api/connections', {
    name: 'Slack',
    provider: 'slack',
    custom_oauth_profile_id: profile.body.result.id,
  });
  await call('GET', '/api/custom_oauth_profiles');
  await call('GET', `/api/custom_oauth_profiles/${profile.body.result.id}`);
  await call('POST', '/api/secrets_management/clear_cache');

  // The values were kept (encrypted), not dropped: the services that use them get them back.
  const dev = (await findEnvironmentByType(t.ctx.db, t.workspaceId, 'dev'))!.id;
  const scope = { workspaceId: t.workspaceId, environmentId: dev };
  assert.equal(
    (await resolveConnectionCredentials(t.ctx, scope, basic.body.id)).values.password,
    PLAINTEXT.connectionPasswordRotated,
  );
  assert.deepEqual((await resolveConnectionCredentials(t.ctx, scope, referencing.body.id)).values, {
    base_url: 'https://r.example',
    auth_type: 'basic',
    username: PLAINTEXT.envSecret,
    password: PLAINTEXT.storedSecretRotated,
    extra: PLAINTEXT.fileSecret,
  });
  assert.equal(
    (await openProfileCredentials(t.ctx, scope, profile.body.result.id)).clientSecret,
    PLAINTEXT.oauthClientSecretRotated,
  );

  // Dump every table.
  const names = (await t.ctx.db.introspection.getTables()).map((table) => table.name);
  for (const expected of ['connections', 'custom_oauth_profiles', 'secrets'])
    assert.ok(names.includes(expected), expected);
  let dump = '';
  for (const name of names) {
    const rows = await sql`SELECT * FROM ${sql.table(name)}`.execute(t.ctx.db);
    dump += `${name}\n${JSON.stringify(rows.rows)}\n`;
  }
  assert.match(dump, /v1\.[\w-]+\.[\w-]+\.[\w-]+/, 'sealed values are there');
  assert.ok(dump.includes('public-client-id'), 'the dump is real: the OAuth client id (not a secret) is in it');

  const logs = logLines.join('');
  assert.ok(logLines.length > 0, 'requests were logged');
  for (const [label, value] of Object.entries(PLAINTEXT)) {
    assert.ok(!dump.includes(value), `${label} is in the database dump`);
    assert.ok(!logs.includes(value), `${label} is in the logs`);
    assert.ok(!replies.some((r) => r.includes(value)), `${label} is in a reply`);
  }
});
