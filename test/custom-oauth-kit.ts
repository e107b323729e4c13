// What the tests of custom connectors' authorizing connections share (src/connectors/custom-oauth*.test.ts):
// connectors in the vendor's documented style whose connections authorize against the OAuth
// provider stand-in (test/stand-ins/oauth-provider.ts), and the steps they take through HTTP.
import assert from 'node:assert/strict';
import type { TestApp } from './helpers.ts';
import { action, fire, webhookRecipe, type RanJob } from './recipes.ts';
import type { OAuthProvider } from './stand-ins/oauth-provider.ts';

// Its own acquire and refresh, the app in the connection's fields, and detect_on for an error in a 200.
export const OWN_LAMBDAS = `{
  title: 'Notes Plus',
  connection: {
    fields: [
      { name: 'api_url' },
      { name: 'client_id' },
      { name: 'client_secret', control_type: 'password' }
    ],
    authorization: {
      type: 'oauth2',
      authorization_url: lambda { |connection| "#{connection['api_url']}/oauth/authorize" },
      acquire: lambda do |connection, auth_code, redirect_uri|
        tokens = post("#{connection['api_url']}/oauth/token")
                   .payload(grant_type: 'authorization_code', code: auth_code, redirect_uri: redirect_uri,
                            client_id: connection['client_id'], client_secret: connection['client_secret'])
                   .request_format_www_form_urlencoded
        [{ access_token: tokens['access_token'], refresh_token: tokens['refresh_token'] }, nil,
         { workspace: tokens['workspace'] }]
      end,
      refresh: lambda do |connection, refresh_token|
        post("#{connection['api_url']}/oauth/token")
          .payload(grant_type: 'refresh_token', refresh_token: refresh_token,
                   client_id: connection['client_id'], client_secret: connection['client_secret'])
          .request_format_www_form_urlencoded
      end,
      apply: lambda do |connection|
        headers('Authorization' => "Bearer #{connection['access_token']}")
      end,
      detect_on: [/token_expired/],
      refresh_on: [401, /token_expired/]
    },
    base_uri: lambda { |connection| connection['api_url'] }
  },
  test: lambda { |_connection| get('/me') },
  actions: {
    list_notes: {
      execute: lambda do |connection, _input|
        { notes: get('/notes')['notes'], workspace: connection['workspace'] }
      end
    }
  }
}
`;

// A multi authorization whose options are an API key and OAuth 2.0 authorization code (the standard
// exchange and refresh at token_url, the app in the connection's fields through lambdas, PKCE).
export const MULTI_OAUTH = `{
  title: 'Notes Either',
  connection: {
    fields: [
      { name: 'api_url' },
      { name: 'auth_type', control_type: 'select', pick_list: [['API key', 'key'], ['OAuth 2.0', 'oauth']] },
      { name: 'client_id', optional: true },
      { name: 'client_secret', control_type: 'password', optional: true }
    ],
    authorization: {
      type: 'multi',
      selected: lambda { |connection| connection['auth_type'] },
      options: {
        key: {
          type: 'api_key',
          fields: [{ name: 'api_key', control_type: 'password' }],
          apply: lambda { |connection| headers('X-Api-Key' => connection['api_key']) }
        },
        oauth: {
          type: 'oauth2',
          client_id: lambda { |connection| connection['client_id'] },
          client_secret: lambda { |connection| connection['client_secret'] },
          authorization_url: lambda { |connection| "#{connection['api_url']}/oauth/authorize?scope=notes.read" },
          token_url: lambda { |connection| "#{connection['api_url']}/oauth/token" },
          pkce: lambda { |verifier, challenge| { verifier: verifier, challenge: challenge, challenge_method: 'S256' } },
          apply: lambda { |_connection, access_token| headers('Authorization' => "Bearer #{access_token}") },
          refresh_on: [401]
        }
      }
    },
    base_uri: lambda { |connection| connection['api_url'] }
  },
  test: lambda { |_connection| get('/me') },
  actions: {
    list_notes: { execute: lambda { |_connection, _input| { notes: get('/notes')['notes'] } } }
  }
}
`;

/** Creates and releases a custom connector; its provider name. */
export async function releasedConnector(t: TestApp, code: string, title: string): Promise<string> {
  const created = await t.call('POST', '/api/custom_connectors', { body: { title, code } });
  assert.equal(created.status, 200, created.text);
  const release = await t.call('POST', `/api/custom_connectors/${created.body.data.id}/release`);
  assert.equal(release.status, 200, release.text);
  return created.body.data.name as string;
}

/** A shell connection of the provider with these fields; its id. */
export async function shellConnection(
  t: TestApp,
  providerName: string,
  input: Record<string, string>,
  name: string,
): Promise<number> {
  const res = await t.call('POST', '/api/connections', {
    body: { name, provider: providerName, input, shell_connection: true },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.id as number;
}

/** The connection's sealed authorization as stored. */
export async function sealedAuth(t: TestApp, id: number): Promise<string> {
  const row = await t.ctx.db.selectFrom('connections').select('auth_sealed').where('id', '=', id).executeTakeFirst();
  assert.ok(row?.auth_sealed, 'the authorization is stored');
  return row.auth_sealed;
}

/** A job of a new recipe whose one step is the connector's `list_notes` on the connection. */
export async function runListNotes(t: TestApp, providerName: string, connectionId: number): Promise<RanJob> {
  const config = [
    { keyword: 'application', provider: 'workato_webhooks', account_id: null },
    { keyword: 'application', provider: providerName, account_id: connectionId },
  ];
  const { path } = await webhookRecipe(t, [action(providerName, 'list_notes', 'notes', {})], {
    config: JSON.stringify(config),
  });
  return fire(t, path, {});
}

/** Waits until `check` holds, or `guardMs` passed (a guard only: the caller asserts what followed). */
export async function until(check: () => boolean, guardMs: number): Promise<void> {
  const end = Date.now() + guardMs;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Refresh grants the provider was asked for so far. */
export const refreshCount = (provider: OAuthProvider): number =>
  provider.tokenForms.filter((f) => f.get('grant_type') === 'refresh_token').length;
