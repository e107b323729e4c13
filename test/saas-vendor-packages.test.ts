// Recipes in the vendor's export format (test/fixtures/saas-recipes): Jira → Slack, Stripe →
// QuickBooks and Salesforce → Slack, imported unchanged as a package into a project whose
// connections are authorized against the stand-ins, started, and run by their webhooks.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, makeZip, waitPackage, type TestApp } from './helpers.ts';
import { readJob, startRecipe, type RanJob } from './recipes.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';
import { records, spec as salesforceSpec } from './stand-ins/salesforce.ts';
import { messages, slackBot as slackFixture } from './stand-ins/slack.ts';
import { issues, jira as jiraFixture } from './stand-ins/jira.ts';
import { objects, stripe as stripeFixture } from './stand-ins/stripe.ts';
import { entities, quickbooks as quickbooksFixture } from './stand-ins/quickbooks.ts';

const DIR = new URL('./fixtures/saas-recipes/', import.meta.url).pathname;

let t: TestApp;
const standIns: Record<string, StandIn> = {};
const webhooks = new Map<string, string>();

async function connection(folderId: number, name: string, provider: string, input: Record<string, string> | null) {
  const created = await t.call('POST', '/api/connections', {
    body: { name, provider, folder_id: folderId, input: input ?? {} },
  });
  assert.equal(created.status, 200, created.text);
  if (input !== null) {
    assert.equal(created.body.authorization_status, 'success', created.text);
    return;
  }
  const connected = await connectThroughConsole(t, await consoleSignIn(t, t.adminToken), created.body.id);
  assert.equal(connected.location, `/console/connections/${created.body.id}?authorization=success`);
}

before(async () => {
  standIns.salesforce = await startStandIn(salesforceSpec);
  standIns.slack = await startStandIn(slackFixture.spec);
  standIns.jira = await startStandIn(jiraFixture.spec);
  standIns.stripe = await startStandIn(stripeFixture.spec);
  standIns.quickbooks = await startStandIn(quickbooksFixture.spec);
  const origins = Object.assign({}, ...Object.values(standIns).map((s) => s.origins())) as Record<string, string>;
  t = await createTestApp({ env: { CONNECTOR_ORIGINS: JSON.stringify(origins) } });
  for (const provider of ['salesforce', 'slack_bot', 'quickbooks']) {
    const profile = await t.call('POST', '/api/custom_oauth_profiles', {
      body: { name: `${provider} app`, provider, data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } },
    });
    assert.equal(profile.status, 200, profile.text);
  }
  const { folderId } = await t.createProject('Integrations');
  await connection(folderId, 'Jira', 'jira', jiraFixture.input);
  await connection(folderId, 'Stripe', 'stripe', stripeFixture.input);
  await connection(folderId, 'Workbot', 'slack_bot', null);
  await connection(folderId, 'QuickBooks', 'quickbooks', null);
  await connection(folderId, 'Salesforce', 'salesforce', null);

  const files = Object.fromEntries(
    readdirSync(DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f, readFileSync(DIR + f)]),
  );
  const reply = await t.call('POST', `/api/packages/import/${folderId}`, {
    raw: await makeZip(files),
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(reply.status, 200, reply.text);
  const imported = await waitPackage(t, reply.body.id);
  assert.equal(imported.status, 'completed', JSON.stringify(imported));
  assert.deepEqual(imported.warnings, []);
  const list = await t.call('GET', `/api/recipes?folder_id=${folderId}`);
  assert.equal(list.status, 200, list.text);
  const recipes = (list.body.items ?? list.body) as Array<{ id: number; name: string }>;
  assert.equal(recipes.length, 3);
  for (const recipe of recipes) {
    await startRecipe(t, recipe.id);
    const read = await t.call('GET', `/api/recipes/${recipe.id}`);
    webhooks.set(recipe.name, new URL(read.body.webhook_url as string).pathname);
  }
});
after(async () => {
  await t.close();
  for (const standIn of Object.values(standIns)) await standIn.close();
});

async function deliver(recipe: string, payload: Record<string, unknown>): Promise<RanJob> {
  const path = webhooks.get(recipe);
  assert.ok(path, `no webhook for ${recipe}`);
  const before = await t.ctx.db.selectFrom('jobs').select('id').orderBy('id', 'desc').executeTakeFirst();
  const res = await t.app.inject({ method: 'POST', url: path, payload });
  assert.equal(res.statusCode, 200, res.body);
  await t.engine.idle();
  const job = await t.ctx.db.selectFrom('jobs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  assert.notEqual(job.id, before?.id, 'a job ran');
  return readJob(t, job.id);
}

describe('vendor-format recipes with SaaS connectors, imported unchanged', () => {
  test('Jira → Slack: a new issue is announced, its details replied in the thread, and the issue labelled', async () => {
    const job = await deliver('Announce new Jira issues in Slack', {
      webhookEvent: 'jira:issue_created',
      issue: { id: '10001', key: 'OPS-1' },
    });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const [announce, details] = messages(standIns.slack as StandIn).slice(-2);
    assert.equal(announce?.channel, 'C0OPS');
    assert.equal(announce?.text, 'New issue OPS-1: Printer on fire');
    assert.deepEqual(details, {
      channel: 'C0OPS',
      ts: details?.ts,
      text: 'Type: Task, labels: ',
      thread_ts: announce?.ts,
    });
    assert.deepEqual(issues(standIns.jira as StandIn)[0]?.fields.labels, ['announced']);
  });

  test('Stripe → QuickBooks: a paid invoice creates the customer once, then invoices the one found', async () => {
    const stripe = standIns.stripe as StandIn;
    objects(stripe, 'customers').push({
      id: 'cus_HOTEL1',
      object: 'customer',
      name: 'Hotel Lisboa',
      email: 'ap@lisboa.example',
    });
    const event = (invoice: string, cents: number) => ({
      type: 'invoice.paid',
      data: { object: { id: invoice, object: 'invoice', customer: 'cus_HOTEL1', amount_paid: cents, currency: 'eur' } },
    });
    const first = await deliver('Book paid Stripe invoices in QuickBooks', event('in_001', 12_550));
    assert.equal(first.status, 'succeeded', first.error ?? '');
    const second = await deliver('Book paid Stripe invoices in QuickBooks', event('in_002', 9_900));
    assert.equal(second.status, 'succeeded', second.error ?? '');
    const qbo = standIns.quickbooks as StandIn;
    const customers = entities(qbo, 'Customer').filter((c) => c.DisplayName === 'Hotel Lisboa');
    assert.equal(customers.length, 1, 'created once, found the second time');
    assert.deepEqual(customers[0]?.PrimaryEmailAddr, { Address: 'ap@lisboa.example' });
    const invoices = entities(qbo, 'Invoice').map((i) => [
      (i.CustomerRef as { value: string }).value,
      i.TotalAmt,
      i.PrivateNote,
    ]);
    assert.deepEqual(invoices, [
      [customers[0]?.Id, 125.5, 'Stripe in_001'],
      [customers[0]?.Id, 99, 'Stripe in_002'],
    ]);
  });

  test('Salesforce → Slack: the deals found by SOQL are posted, one reply per deal in the thread', async () => {
    const sf = standIns.salesforce as StandIn;
    records(sf, 'Opportunity').push(
      { Id: '006000000000001AAA', Name: 'Lisbon retreat', Amount: 12000, StageName: 'Closed Won' },
      { Id: '006000000000002AAA', Name: 'Porto offsite', Amount: 8000, StageName: 'Negotiation' },
      { Id: '006000000000003AAA', Name: 'Faro summit', Amount: 30000, StageName: 'Closed Won' },
    );
    const job = await deliver('Post won Salesforce deals to Slack', { stage: 'Closed Won' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const posted = messages(standIns.slack as StandIn).slice(-3);
    assert.deepEqual(
      posted.map((m) => [m.channel, m.text, m.thread_ts === undefined ? 'top' : m.thread_ts === posted[0]?.ts]),
      [
        ['C0SALES', '2 deals are Closed Won', 'top'],
        ['C0SALES', 'Lisbon retreat: 12000', true],
        ['C0SALES', 'Faro summit: 30000', true],
      ],
    );
  });
});
