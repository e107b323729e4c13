// Triggers of the SaaS connectors through recipe jobs against the services' stand-ins: polling
// triggers page from their closure (kept in the recipe) and drop what they saw before; Slack's
// Events API calls are checked against the signing secret.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type TestApp } from './helpers.ts';
import { createRecipe, dp, log, numbered, startRecipe } from './recipes.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';
import { SECRET_KEY, stripe as stripeFixture, stripeEvents } from './stand-ins/stripe.ts';
import { eventsApiCall, SIGNING_SECRET, slackBot as slackFixture } from './stand-ins/slack.ts';
import { records, spec as salesforceSpec } from './stand-ins/salesforce.ts';
import { inboxMessages, outlook as outlookFixture } from './stand-ins/microsoft.ts';
import { gmail as gmailFixture, gmailMessages, sheetRows } from './stand-ins/google.ts';
import { API_TOKEN, EMAIL, jiraIssues, spec as jiraSpec, USER_TIME_ZONE } from './stand-ins/jira.ts';

let t: TestApp;
let stripe: StandIn;
let slack: StandIn;
let salesforce: StandIn;
let jira: StandIn;
let microsoft: StandIn;
let google: StandIn;
const connections = new Map<string, number>();

async function connectOAuth(provider: string, input: Record<string, string> = {}): Promise<number> {
  const browser = await consoleSignIn(t, t.adminToken);
  const profile = await t.call('POST', '/api/custom_oauth_profiles', {
    body: { name: `${provider} app`, provider, data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } },
  });
  assert.equal(profile.status, 200, profile.text);
  const created = await t.call('POST', '/api/connections', { body: { name: provider, provider, input } });
  assert.equal(created.status, 200, created.text);
  const connected = await connectThroughConsole(t, browser, created.body.id);
  assert.equal(connected.location, `/console/connections/${created.body.id}?authorization=success`);
  return created.body.id as number;
}

before(async () => {
  stripe = await startStandIn(stripeFixture.spec);
  slack = await startStandIn(slackFixture.spec);
  salesforce = await startStandIn(salesforceSpec);
  jira = await startStandIn(jiraSpec);
  microsoft = await startStandIn(outlookFixture.spec);
  google = await startStandIn(gmailFixture.spec);
  // Polls happen when a recipe starts and on poll_now only.
  t = await createTestApp({
    env: {
      CONNECTOR_ORIGINS: JSON.stringify({
        ...stripe.origins(),
        ...slack.origins(),
        ...salesforce.origins(),
        ...jira.origins(),
        ...microsoft.origins(),
        ...google.origins(),
      }),
    },
    engine: { triggerPollMs: 3_600_000 },
  });
  const made = await t.call('POST', '/api/connections', {
    body: { name: 'Stripe', provider: 'stripe', input: { api_key: SECRET_KEY }, shell_connection: false },
  });
  assert.equal(made.body.authorization_status, 'success', made.text);
  connections.set('stripe', made.body.id as number);
  connections.set('slack_bot', await connectOAuth('slack_bot', { signing_secret: SIGNING_SECRET }));
  connections.set('salesforce', await connectOAuth('salesforce'));
  connections.set('outlook', await connectOAuth('outlook'));
  connections.set('gmail', await connectOAuth('gmail'));
  connections.set('google_sheets', await connectOAuth('google_sheets'));
  const jiraConnection = await t.call('POST', '/api/connections', {
    body: {
      name: 'Jira',
      provider: 'jira',
      input: { host_name: 'acme.atlassian.net', auth_type: 'api_token', email: EMAIL, apitoken: API_TOKEN },
      shell_connection: false,
    },
  });
  assert.equal(jiraConnection.body.authorization_status, 'success', jiraConnection.text);
  connections.set('jira', jiraConnection.body.id as number);
});
after(async () => {
  await t.close();
  await stripe.close();
  await slack.close();
  await salesforce.close();
  await jira.close();
  await microsoft.close();
  await google.close();
});

async function triggerRecipe(provider: string, name: string, input: Record<string, unknown>, message: string) {
  const id = await createRecipe(
    t,
    numbered({ keyword: 'trigger', provider, name, as: 'ev', input, block: [log('seen', message)] }),
    { config: JSON.stringify([{ keyword: 'application', provider, account_id: connections.get(provider) }]) },
  );
  await startRecipe(t, id);
  return id;
}

/** What the recipe's jobs logged, in the order stored; its failed polls' errors apart. */
async function seen(recipeId: number): Promise<{ messages: string[]; errors: string[] }> {
  await t.engine.idle();
  const jobs = await t.ctx.db
    .selectFrom('jobs')
    .select(['id', 'is_poll_error', 'error'])
    .where('recipe_id', '=', recipeId)
    .orderBy('id')
    .execute();
  const messages: string[] = [];
  const errors: string[] = [];
  for (const job of jobs) {
    if (job.is_poll_error) {
      errors.push(job.error ?? '');
      continue;
    }
    const line = await t.ctx.db
      .selectFrom('job_lines')
      .select(['output', 'error'])
      .where('job_id', '=', job.id)
      .where('recipe_line_number', '=', 1)
      .executeTakeFirst();
    messages.push((JSON.parse(line?.output ?? 'null') as { message: string } | null)?.message ?? String(line?.error));
  }
  return { messages, errors };
}

const pollNow = async (id: number) => assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 200);

describe('stripe/new_event', () => {
  test('events since the start become jobs oldest first; later polls page from the newest seen', async () => {
    const now = Math.floor(Date.now() / 1000);
    const event = (n: number, created: number, type = 'invoice.paid') => ({
      id: `evt_${n}`,
      object: 'event' as const,
      type,
      created,
      livemode: false,
      data: { object: { id: `in_${n}`, amount_paid: n * 100 } },
    });
    const events = stripeEvents(stripe);
    events.push(event(1, now - 7200), event(2, now - 600), event(3, now - 300, 'customer.created'), event(4, now - 60));
    const pills = ['id', 'type'].map((f) => `#{${dp('stripe', 'ev', f)}}`).join(':');
    const id = await triggerRecipe('stripe', 'new_event', { event_type: 'invoice.paid' }, pills);
    // An hour back by default; only invoice.paid.
    assert.deepEqual((await seen(id)).messages, ['evt_2:invoice.paid', 'evt_4:invoice.paid']);
    const first = stripe.apiRequests().at(-1)!;
    assert.equal(first.query.get('type'), 'invoice.paid');
    assert.ok(Number(first.query.get('created[gte]')) >= now - 3600 - 5);

    // 150 more: two pages at once (ending_before the newest seen), then nothing new.
    for (let n = 5; n < 155; n++) events.push(event(n, now));
    await pollNow(id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 152);
    assert.deepEqual(messages.slice(2, 4), ['evt_5:invoice.paid', 'evt_6:invoice.paid']);
    assert.equal(messages.at(-1), 'evt_154:invoice.paid');
    const paged = stripe.apiRequests().slice(-2);
    assert.deepEqual(
      paged.map((r) => r.query.get('ending_before')),
      ['evt_4', 'evt_104'],
    );
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 152);
    assert.deepEqual((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure.closure, { last_id: 'evt_154' });
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
  });

  test("Stripe's refusal is a failed poll with its message; bad input is refused before any request", async () => {
    const before = stripe.apiRequests().length;
    const id = await triggerRecipe('stripe', 'new_event', { event_type: 'invoice.paid; drop' }, 'x');
    assert.match((await seen(id)).errors[0] ?? '', /is not a Stripe event type/);
    assert.equal(stripe.apiRequests().length, before);
    await t.call('PUT', `/api/recipes/${id}/stop`);
    stripe.enqueue({
      status: 400,
      json: { error: { type: 'invalid_request_error', message: 'No such event: evt_gone', param: 'ending_before' } },
    });
    const other = await triggerRecipe('stripe', 'new_event', {}, 'x');
    assert.match((await seen(other)).errors[0] ?? '', /No such event: evt_gone/);
    await t.call('PUT', `/api/recipes/${other}/stop`);
  });
});

describe('slack_bot/new_event', () => {
  test('answers the URL verification, makes a job of each signed event once, refuses bad signatures', async () => {
    const text = `#{${dp('slack_bot', 'ev', 'text')}}`;
    const id = await triggerRecipe('slack_bot', 'new_event', { event_type: 'message' }, `${text}`);
    const row = await t.ctx.db
      .selectFrom('recipes')
      .select('webhook_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const url = `/webhooks/rest/${row.webhook_key}/event`;
    const send = (call: { payload: string; headers: Record<string, string> }) =>
      t.app.inject({ method: 'POST', url, headers: call.headers, payload: call.payload });

    const challenge = await send(eventsApiCall({ type: 'url_verification', token: 'x', challenge: 'c-123' }));
    assert.equal(challenge.statusCode, 200);
    assert.deepEqual(challenge.json(), { challenge: 'c-123' });

    const callback = (eventId: string, event: Record<string, unknown>) => ({
      type: 'event_callback',
      team_id: 'T1',
      api_app_id: 'A1',
      event_id: eventId,
      event_time: 1_700_000_000,
      event,
    });
    const message = { type: 'message', channel: 'C1', user: 'U1', text: 'hello', ts: '1700000000.000100' };
    assert.equal((await send(eventsApiCall(callback('Ev1', message)))).statusCode, 200);
    // Slack retries a delivery it did not see answered: the same event_id is not a second job.
    assert.equal((await send(eventsApiCall(callback('Ev1', message)))).statusCode, 200);
    assert.equal((await send(eventsApiCall(callback('Ev2', { type: 'reaction_added', user: 'U1' })))).statusCode, 200);
    assert.equal((await send(eventsApiCall(callback('Ev3', { ...message, text: 'again' })))).statusCode, 200);
    assert.deepEqual((await seen(id)).messages, ['hello', 'again']);
    const job = await t.ctx.db
      .selectFrom('jobs')
      .select('trigger_output')
      .where('recipe_id', '=', id)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(job.trigger_output), {
      ...message,
      event_id: 'Ev1',
      event_time: 1_700_000_000,
      team_id: 'T1',
    });

    const forged = await send(eventsApiCall(callback('Ev4', message), { secret: 'not-the-secret' }));
    assert.equal(forged.statusCode, 400);
    assert.match(forged.json().error, /signature does not match/);
    const stale = await send(
      eventsApiCall(callback('Ev5', message), { timestamp: Math.floor(Date.now() / 1000) - 600 }),
    );
    assert.equal(stale.statusCode, 400);
    const unsigned = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(callback('Ev6', message)),
    });
    assert.equal(unsigned.statusCode, 400);
    assert.equal((await seen(id)).messages.length, 2, 'nothing stored from refused calls');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
    assert.equal((await send(eventsApiCall(callback('Ev7', message)))).statusCode, 404);
  });
});

/** A time as Salesforce and Jira write it: `2026-01-01T00:00:00.000+0000`. */
const written = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('Z', '+0000');

describe('salesforce/new_sobject and updated_sobject', () => {
  test('records created in the last hour, then newer ones; a full page asks for the next at once', async () => {
    const now = Date.now();
    const leads = records(salesforce, 'Lead');
    const lead = (n: number, at: number) => ({
      Id: `00Q${String(n).padStart(12, '0')}AAA`,
      LastName: `Lead ${n}`,
      CreatedDate: written(at),
      SystemModstamp: written(at),
    });
    leads.push(lead(1, now - 2 * 3600_000), lead(2, now - 1800_000), lead(3, now - 600_000));
    const name = `#{${dp('salesforce', 'ev', 'LastName')}}`;
    const id = await triggerRecipe('salesforce', 'new_sobject', { sobject_name: 'Lead' }, name);
    assert.deepEqual((await seen(id)).messages, ['Lead 2', 'Lead 3']);
    const q = salesforce.apiRequests().at(-1)!.query.get('q')!;
    assert.match(
      q,
      /^SELECT FIELDS\(ALL\) FROM Lead WHERE CreatedDate >= \S+Z ORDER BY CreatedDate ASC, Id ASC LIMIT 200$/,
    );
    // The record at the cursor's second comes again: dropped by its Id.
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 2);
    for (let n = 4; n < 214; n++) leads.push(lead(n, now - 300_000 + n * 1000));
    await pollNow(id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 212, 'two pages of one poll');
    assert.equal(messages.at(-1), 'Lead 213');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);

    // New/updated: from since; a record changed again is an event again.
    const updated = await triggerRecipe(
      'salesforce',
      'updated_sobject',
      { sobject_name: 'Lead', since: new Date(now - 3 * 3600_000).toISOString() },
      name,
    );
    await pollNow(updated);
    assert.equal((await seen(updated)).messages.length, 213);
    leads[1]!.SystemModstamp = written(now + 60_000);
    leads[1]!.LastName = 'Lead 2 changed';
    await pollNow(updated);
    assert.equal((await seen(updated)).messages.at(-1), 'Lead 2 changed');
    assert.equal((await seen(updated)).messages.length, 214);
    assert.equal((await t.call('PUT', `/api/recipes/${updated}/stop`)).status, 200);

    const bad = await triggerRecipe('salesforce', 'new_sobject', { sobject_name: 'Lead WHERE Id != null' }, name);
    assert.match((await seen(bad)).errors[0] ?? '', /is not an API name/);
    await t.call('PUT', `/api/recipes/${bad}/stop`);
  });
});

describe('jira/new_issue', () => {
  test("issues created since, asked in the user's time zone, paged with nextPageToken", async () => {
    const now = Date.now();
    const issues = jiraIssues(jira);
    const issue = (n: number, at: number, project = 'OPS') => ({
      id: String(10000 + n),
      key: `${project}-${n}`,
      fields: { summary: `Issue ${n}`, created: written(at), project: { key: project } },
    });
    issues.push(issue(1, now - 2 * 3600_000), issue(2, now - 1200_000), issue(3, now - 600_000, 'HR'));
    const key = `#{${dp('jira', 'ev', 'key')}}`;
    const id = await triggerRecipe('jira', 'new_issue', { project: 'OPS' }, key);
    assert.deepEqual((await seen(id)).messages, ['OPS-2']);
    const jql = jira.apiRequests().at(-1)!.query.get('jql')!;
    const minute = new Intl.DateTimeFormat('en-CA', {
      timeZone: USER_TIME_ZONE,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .format(new Date(now - 3600_000))
      .replace(/-/g, '/')
      .replace(', ', ' ');
    assert.ok(jql.startsWith('project = "OPS" AND created >= "'), jql);
    assert.match(jql, /created >= "\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}" ORDER BY created ASC, id ASC$/);
    assert.ok(jql.includes(minute.slice(0, 13)), `${jql} in ${USER_TIME_ZONE} (${minute})`);
    for (let n = 4; n < 134; n++) issues.push(issue(n, now - 300_000 + n * 1000));
    await pollNow(id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 131);
    assert.equal(messages.at(-1), 'OPS-133');
    assert.ok(jira.apiRequests().some((r) => r.query.get('nextPageToken') === '100'));
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 131, 'nothing new');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
  });
});

describe('outlook/new_email', () => {
  test('messages received since, oldest first, following @odata.nextLink; nothing twice', async () => {
    const now = Date.now();
    const inbox = inboxMessages(microsoft);
    const message = (n: number, at: number) => ({
      id: `AAMk${n}`,
      subject: `Invoice ${n}`,
      receivedDateTime: new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      bodyPreview: `Please find invoice ${n}`,
      from: { emailAddress: { name: 'Billing', address: 'billing@example.com' } },
    });
    inbox.push(message(1, now - 2 * 3600_000), message(2, now - 900_000));
    const subject = `#{${dp('outlook', 'ev', 'subject')}}`;
    const id = await triggerRecipe('outlook', 'new_email', {}, subject);
    assert.deepEqual((await seen(id)).messages, ['Invoice 2']);
    const asked = microsoft.apiRequests().at(-1)!;
    assert.equal(asked.path, '/v1.0/me/mailFolders/inbox/messages');
    assert.match(asked.query.get('$filter')!, /^receivedDateTime ge \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    for (let n = 3; n < 123; n++) inbox.push(message(n, now - 600_000 + n * 1000));
    await pollNow(id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 121);
    assert.equal(messages.at(-1), 'Invoice 122');
    assert.ok(
      microsoft.apiRequests().some((r) => r.query.get('$skip') === '100'),
      'followed the next links',
    );
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 121, 'nothing new');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
  });
});

describe('gmail/new_email', () => {
  test('mail received since, oldest first with its headers, paged; nothing twice', async () => {
    const now = Date.now();
    const mail = gmailMessages(google);
    const message = (n: number, at: number) => ({
      id: `18c${n}`,
      threadId: `t${n}`,
      labelIds: ['INBOX'],
      snippet: `Hello ${n}`,
      internalDate: String(Math.floor(at / 1000) * 1000),
      payload: {
        mimeType: 'text/plain',
        headers: [
          { name: 'Subject', value: `Order ${n}` },
          { name: 'From', value: 'Shop <shop@example.com>' },
          { name: 'To', value: 'ana@example.com' },
        ],
      },
    });
    mail.push(message(1, now - 2 * 3600_000), message(2, now - 1200_000), message(3, now - 600_000));
    const fields = ['subject', 'from'].map((f) => `#{${dp('gmail', 'ev', f)}}`).join('|');
    const id = await triggerRecipe('gmail', 'new_email', {}, fields);
    assert.deepEqual((await seen(id)).messages, ['Order 2|Shop <shop@example.com>', 'Order 3|Shop <shop@example.com>']);
    const list = google.apiRequests().find((r) => r.path === '/gmail/v1/users/me/messages')!;
    assert.match(list.query.get('q')!, /^after:\d+$/);
    for (let n = 4; n < 64; n++) mail.push(message(n, now - 300_000 + n * 1000));
    await pollNow(id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    // Gmail lists newest first: a burst larger than a page comes page by page, each oldest first.
    assert.equal(messages.length, 62);
    assert.deepEqual(
      messages.slice(2, 4).concat(messages.slice(-2)),
      ['Order 14', 'Order 15', 'Order 12', 'Order 13'].map((s) => `${s}|Shop <shop@example.com>`),
    );
    assert.equal(new Set(messages).size, 62);
    assert.ok(
      google.apiRequests().some((r) => r.query.get('pageToken') === '50'),
      'the second page',
    );
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 62, 'nothing new');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
  });
});

describe('google_sheets/new_spreadsheet_row', () => {
  test('every row at the first start, then rows added at the bottom; columns by their header', async () => {
    const rows = sheetRows(google, 'sheet-42', "Ana's orders");
    rows.push(['Name', 'Amount'], ['Acme', '10'], ['Globex', '20']);
    const fields = ['row_number', 'Name', 'Amount'].map((f) => `#{${dp('google_sheets', 'ev', f)}}`).join(':');
    const id = await triggerRecipe(
      'google_sheets',
      'new_spreadsheet_row',
      { spreadsheet: 'sheet-42', sheet: "Ana's orders" },
      fields,
    );
    assert.deepEqual((await seen(id)).messages, ['2:Acme:10', '3:Globex:20']);
    assert.ok(
      google.apiRequests().some((r) => decodeURIComponent(r.path).endsWith("/values/'Ana''s orders'!A2:ZZZ501")),
      'rows after the header, the sheet name quoted',
    );
    await pollNow(id);
    assert.equal((await seen(id)).messages.length, 2, 'nothing new');
    rows.push(['Initech', '30']);
    await pollNow(id);
    assert.deepEqual((await seen(id)).messages.slice(2), ['4:Initech:30']);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);

    const bad = await triggerRecipe('google_sheets', 'new_spreadsheet_row', { spreadsheet: '../x', sheet: 'S' }, 'x');
    assert.match((await seen(bad)).errors[0] ?? '', /is not a spreadsheet ID/);
    await t.call('PUT', `/api/recipes/${bad}/stop`);
  });
});
