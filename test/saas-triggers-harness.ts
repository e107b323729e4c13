// What the SaaS trigger tests share: an OAuth connection made through the console, a recipe of one
// trigger whose job logs a message, what its jobs logged, and a poll asked now.
import assert from 'node:assert/strict';
import { consoleSignIn, type TestApp } from './helpers.ts';
import { createRecipe, log, loggedByJobs, numbered, startRecipe } from './recipes.ts';
import { CLIENT_ID, CLIENT_SECRET } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';

export function triggerHarness(app: () => TestApp, connections: Map<string, number>) {
  async function connectOAuth(provider: string, input: Record<string, string> = {}): Promise<number> {
    const browser = await consoleSignIn(app(), app().adminToken);
    const profile = await app().call('POST', '/api/custom_oauth_profiles', {
      body: { name: `${provider} app`, provider, data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } },
    });
    assert.equal(profile.status, 200, profile.text);
    const created = await app().call('POST', '/api/connections', { body: { name: provider, provider, input } });
    assert.equal(created.status, 200, created.text);
    const connected = await connectThroughConsole(app(), browser, created.body.id);
    assert.equal(connected.location, `/console/connections/${created.body.id}?authorization=success`);
    return created.body.id as number;
  }
  async function triggerRecipe(provider: string, name: string, input: Record<string, unknown>, message: string) {
    const id = await createRecipe(
      app(),
      numbered({ keyword: 'trigger', provider, name, as: 'ev', input, block: [log('seen', message)] }),
      { config: JSON.stringify([{ keyword: 'application', provider, account_id: connections.get(provider) }]) },
    );
    await startRecipe(app(), id);
    return id;
  }

  /** What the recipe's jobs logged, in the order stored; its failed polls' errors apart. */
  const seen = (recipeId: number) => loggedByJobs(app(), recipeId);

  const pollNow = async (id: number) =>
    assert.equal((await app().call('POST', `/api/recipes/${id}/poll_now`)).status, 200);
  return { connectOAuth, triggerRecipe, seen, pollNow };
}
