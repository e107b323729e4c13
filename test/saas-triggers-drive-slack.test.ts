// Google Drive's new_file polling trigger and the Slack bot's slash command trigger through recipe
// jobs against their stand-ins: Drive's files.list paged from the closure, nothing twice; slash
// commands signed with the app's signing secret, acknowledged at once, refused with 400 when forged,
// stale or malformed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { dp } from './recipes.ts';
import { startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { triggerHarness } from './saas-triggers-harness.ts';
import { eventsApiCall, SIGNING_SECRET, slackBot as slackFixture, slashCommandCall } from './stand-ins/slack.ts';
import { googleDrive as driveFixture } from './stand-ins/google.ts';
import { googleData } from './stand-ins/google-workspace.ts';

let t: TestApp;
let slack: StandIn;
let google: StandIn;
const connections = new Map<string, number>();
const { connectOAuth, triggerRecipe, seen, pollNow } = triggerHarness(() => t, connections);

before(async () => {
  slack = await startStandIn(slackFixture.spec);
  google = await startStandIn(driveFixture.spec);
  // Polls happen when a recipe starts and on poll_now only.
  t = await createTestApp({
    env: { CONNECTOR_ORIGINS: JSON.stringify({ ...slack.origins(), ...google.origins() }) },
    engine: { triggerPollMs: 3_600_000 },
  });
  connections.set('slack_bot', await connectOAuth('slack_bot', { signing_secret: SIGNING_SECRET }));
  connections.set('google_drive', await connectOAuth('google_drive'));
});
after(async () => {
  await t.close();
  await slack.close();
  await google.close();
});

describe('slack_bot/bot_command_v2', () => {
  test("a signed slash command of the recipe's command is one job, acknowledged at once; bad calls are 400", async () => {
    const pills = ['command', 'text', 'user_id', 'response_url'].map((f) => `#{${dp('slack_bot', 'ev', f)}}`).join('|');
    const id = await triggerRecipe(
      'slack_bot',
      'bot_command_v2',
      { slash_command: { enable: 'true', name: '/deploy', first_reply: 'On it...' } },
      pills,
    );
    const row = await t.ctx.db
      .selectFrom('recipes')
      .select('webhook_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const url = `/webhooks/rest/${row.webhook_key}/command`;
    const send = (call: { payload: string; headers: Record<string, string> }) =>
      t.app.inject({ method: 'POST', url, headers: call.headers, payload: call.payload });
    const form = (n: number, extra: Record<string, string> = {}) => ({
      token: 'deprecated-verification-token',
      team_id: 'T1',
      team_domain: 'acme',
      channel_id: 'C1',
      channel_name: 'ops',
      user_id: 'U1',
      user_name: 'ana',
      command: '/deploy',
      text: `api v${n}`,
      api_app_id: 'A1',
      response_url: `https://hooks.slack.com/commands/T1/${n}/x`,
      trigger_id: `13345224609.738474920.${n}`,
      ...extra,
    });

    const first = await send(slashCommandCall(form(1)));
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { response_type: 'ephemeral', text: 'On it...' });
    // Another command of the same app is not this recipe's: acknowledged, no job.
    const other = await send(slashCommandCall(form(2, { command: '/status' })));
    assert.equal(other.statusCode, 200);
    assert.equal(other.body, '');
    assert.equal((await send(slashCommandCall(form(3)))).statusCode, 200);
    assert.deepEqual((await seen(id)).messages, [
      '/deploy|api v1|U1|https://hooks.slack.com/commands/T1/1/x',
      '/deploy|api v3|U1|https://hooks.slack.com/commands/T1/3/x',
    ]);
    const job = await t.ctx.db
      .selectFrom('jobs')
      .select('trigger_output')
      .where('recipe_id', '=', id)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const output = JSON.parse(job.trigger_output) as Record<string, unknown>;
    assert.equal(output.trigger_id, '13345224609.738474920.1');
    assert.equal(output.channel_name, 'ops');
    assert.equal('token' in output, false, "Slack's verification token is not kept");

    const refused = async (call: { payload: string; headers: Record<string, string> }, message: RegExp) => {
      const answer = await send(call);
      assert.equal(answer.statusCode, 400, answer.body);
      assert.match(answer.json().error, message);
    };
    await refused(slashCommandCall(form(4), { secret: 'not-the-secret' }), /signature does not match/);
    await refused(slashCommandCall(form(5), { timestamp: Math.floor(Date.now() / 1000) - 600 }), /last five minutes/);
    await refused(slashCommandCall({ ...form(6), command: '' }), /no slash command/);
    const { user_id: _u, ...withoutUser } = form(7);
    await refused(slashCommandCall(withoutUser), /no `user_id`/);
    // Signed JSON is not a slash command's form.
    await refused(eventsApiCall(form(8)), /is a form/);
    const unsigned = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form(9)).toString(),
    });
    assert.equal(unsigned.statusCode, 400);
    assert.equal((await seen(id)).messages.length, 2, 'nothing stored from refused calls');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
    assert.equal((await send(slashCommandCall(form(10)))).statusCode, 404);
  });

  test('bot_command without a first reply answers an empty 200', async () => {
    const id = await triggerRecipe('slack_bot', 'bot_command', { slash_command: { name: 'deploy' } }, 'ran');
    const row = await t.ctx.db
      .selectFrom('recipes')
      .select('webhook_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const call = slashCommandCall({
      command: '/deploy',
      text: '',
      user_id: 'U1',
      channel_id: 'C1',
      response_url: 'https://hooks.slack.com/commands/T1/1/x',
      trigger_id: '1.2.3',
    });
    const answer = await t.app.inject({
      method: 'POST',
      url: `/webhooks/rest/${row.webhook_key}/command`,
      headers: call.headers,
      payload: call.payload,
    });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body, '');
    assert.deepEqual((await seen(id)).messages, ['ran']);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
  });
});

describe('google_drive/new_file', () => {
  test('files created in the folder since, oldest first, paged; nothing twice; a bad folder fails the poll', async () => {
    const now = Date.now();
    const files = googleData(google).files;
    const file = (n: number, at: number, parent = 'folder-invoices') => ({
      id: `nf${n}`,
      name: `invoice-${n}.pdf`,
      mimeType: 'application/pdf',
      parents: [parent],
      content: Buffer.from(`%PDF ${n}`),
      createdTime: new Date(at).toISOString(),
    });
    // Pushed newest first: the order is Drive's (orderBy=createdTime), not the list's.
    files.push(
      file(3, now - 600_000),
      file(2, now - 1200_000),
      file(1, now - 2 * 3600_000),
      file(9, now - 900_000, 'root'),
    );
    const fields = ['id', 'name'].map((f) => `#{${dp('google_drive', 'ev', f)}}`).join(':');
    const id = await triggerRecipe('google_drive', 'new_file', { folder: 'folder-invoices' }, fields);
    assert.deepEqual((await seen(id)).messages, ['nf2:invoice-2.pdf', 'nf3:invoice-3.pdf']);
    const asked = google.apiRequests().findLast((r) => r.path === '/drive/v3/files')!;
    assert.match(
      asked.query.get('q')!,
      /^'folder-invoices' in parents and createdTime >= '\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z' and trashed = false$/,
    );
    assert.equal(asked.query.get('orderBy'), 'createdTime');
    // The file at the cursor comes again: dropped by its id.
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 2);
    for (let n = 10; n < 140; n++) files.push(file(n, now - 300_000 + n * 1000));
    await pollNow(id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 132, 'two pages of one poll');
    assert.equal(messages.at(-1), 'nf139:invoice-139.pdf');
    assert.equal(new Set(messages).size, 132);
    assert.ok(google.apiRequests().some((r) => r.path === '/drive/v3/files' && r.query.get('pageToken') === '100'));
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 132, 'nothing new');
    const closure = (await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure.closure as { after: string };
    assert.equal(closure.after, new Date(now - 300_000 + 139_000).toISOString());
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);

    const before = google.apiRequests().length;
    const bad = await triggerRecipe('google_drive', 'new_file', { folder: "x' or name contains '" }, 'x');
    assert.match((await seen(bad)).errors[0] ?? '', /is not a Drive folder ID/);
    assert.equal(google.apiRequests().length, before, 'refused before any request');
    await t.call('PUT', `/api/recipes/${bad}/stop`);
  });
});
