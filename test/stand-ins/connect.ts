// Connecting a connection through the console as a browser does: Connect, the page on the way to
// the provider, the provider's authorize endpoint (a stand-in that consents at once), and the
// redirect back to GET /oauth/callback with the cookie Connect set.
import assert from 'node:assert/strict';
import type { ConsoleBrowser, TestApp } from '../helpers.ts';

export interface Connected {
  /** Where the callback's page sends the browser on. */
  location: string;
  status: number;
}

export async function connectThroughConsole(
  t: TestApp,
  browser: ConsoleBrowser,
  connectionId: number,
): Promise<Connected> {
  const page = await browser.post(`/console/connections/${connectionId}/connect`);
  assert.equal(page.statusCode, 200, page.body);
  const cookie = [page.headers['set-cookie']].flat().find((c) => String(c).startsWith('sb_oauth='));
  assert.ok(cookie, 'Connect sets the browser cookie of the redirect');
  assert.match(String(cookie), /Path=\/oauth\/callback; HttpOnly; SameSite=Lax/);
  const link = /id="continue" href="([^"]+)"/.exec(page.body);
  assert.ok(link, page.body);
  const authorizeUrl = (link[1] as string).replace(/&amp;/g, '&');
  const consent = await fetch(authorizeUrl, { redirect: 'manual' });
  assert.equal(consent.status, 302, await consent.text());
  const back = new URL(consent.headers.get('location') as string);
  assert.equal(back.pathname, '/oauth/callback');
  const callback = await t.app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: String(cookie).split(';')[0] as string },
  });
  const next = /id="continue" href="([^"]+)"/.exec(callback.body)?.[1]?.replace(/&amp;/g, '&');
  return { status: callback.statusCode, location: next ?? callback.body };
}
