// One app and the Google, Microsoft and SendGrid stand-ins for the tests of the Gmail, Sheets,
// Drive, SendGrid and Outlook named actions: a connection of each, named as the vendor-format
// recipes under test/fixtures/recipes/written reference them, OAuth ones connected through Connect.
import assert from 'node:assert/strict';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../helpers.ts';
import { connectThroughConsole } from './connect.ts';
import { GOOGLE } from './google.ts';
import { MICROSOFT } from './microsoft.ts';
import { API_KEY, sendgrid as sendgridFixture } from './sendgrid.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-in.ts';

/** The HTTP timeout of the app's connector requests. */
export const TIMEOUT_MS = 3000;

export interface MailFilesApp {
  t: TestApp;
  google: StandIn;
  microsoft: StandIn;
  sendgrid: StandIn;
  /** Connection ids by provider. */
  ids: Record<string, number>;
  close(): Promise<void>;
}

async function oauthConnection(t: TestApp, browser: ConsoleBrowser, provider: string, name: string): Promise<number> {
  const profile = await t.call('POST', '/api/custom_oauth_profiles', {
    body: { name: `${provider} app`, provider, data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } },
  });
  assert.equal(profile.status, 200, profile.text);
  const created = await t.call('POST', '/api/connections', { body: { name, provider, input: {} } });
  assert.equal(created.status, 200, created.text);
  const connected = await connectThroughConsole(t, browser, created.body.id);
  assert.equal(connected.location, `/console/connections/${created.body.id}?authorization=success`);
  return created.body.id as number;
}

export async function startMailFilesApp(): Promise<MailFilesApp> {
  const google = await startStandIn(GOOGLE);
  const microsoft = await startStandIn(MICROSOFT);
  const sendgrid = await startStandIn(sendgridFixture.spec);
  const t = await createTestApp({
    env: {
      CONNECTOR_ORIGINS: JSON.stringify({ ...google.origins(), ...microsoft.origins(), ...sendgrid.origins() }),
    },
    engine: { limits: { httpTimeoutMs: TIMEOUT_MS, connectorStepMs: 20_000 } },
  });
  const browser = await consoleSignIn(t, t.adminToken);
  const ids: Record<string, number> = {
    gmail: await oauthConnection(t, browser, 'gmail', 'My Gmail account'),
    google_sheets: await oauthConnection(t, browser, 'google_sheets', 'My Google Sheets account'),
    google_drive: await oauthConnection(t, browser, 'google_drive', 'My Google Drive account'),
    outlook: await oauthConnection(t, browser, 'outlook', 'My Outlook account'),
  };
  const key = await t.call('POST', '/api/connections', {
    body: { name: 'My SendGrid account', provider: 'sendgrid', input: { api_key: API_KEY } },
  });
  assert.equal(key.body.authorization_status, 'success', key.text);
  ids.sendgrid = key.body.id as number;
  return {
    t,
    google,
    microsoft,
    sendgrid,
    ids,
    async close() {
      await t.close();
      await Promise.all([google.close(), microsoft.close(), sendgrid.close()]);
    },
  };
}
