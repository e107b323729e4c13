// Named actions of Salesforce and Slack as the vendor's recipes store them (contract 22 §3),
// through recipe jobs against the stand-ins: records created, searched, read, updated, upserted
// and deleted, and a bot message posted with a datapill of the search.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type TestApp } from './helpers.ts';
import { action, CURRENT, fire, pill, webhookRecipe } from './recipes.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';
import { records, spec as salesforceSpec } from './stand-ins/salesforce.ts';
import { slackBot as slackFixture } from './stand-ins/slack.ts';

let t: TestApp;
let salesforce: StandIn;
let slack: StandIn;
let config: string;

async function connect(provider: string): Promise<number> {
  const browser = await consoleSignIn(t, t.adminToken);
  const profile = await t.call('POST', '/api/custom_oauth_profiles', {
    body: { name: `${provider} app`, provider, data: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } },
  });
  assert.equal(profile.status, 200, profile.text);
  const created = await t.call('POST', '/api/connections', { body: { name: provider, provider, input: {} } });
  assert.equal(created.status, 200, created.text);
  const connected = await connectThroughConsole(t, browser, created.body.id);
  assert.equal(connected.location, `/console/connections/${created.body.id}?authorization=success`);
  return created.body.id as number;
}

before(async () => {
  salesforce = await startStandIn(salesforceSpec);
  slack = await startStandIn(slackFixture.spec);
  t = await createTestApp({
    env: { CONNECTOR_ORIGINS: JSON.stringify({ ...salesforce.origins(), ...slack.origins() }) },
  });
  config = JSON.stringify([
    { keyword: 'application', provider: 'workato_webhooks', account_id: null },
    { keyword: 'application', provider: 'salesforce', account_id: await connect('salesforce') },
    { keyword: 'application', provider: 'slack_bot', account_id: await connect('slack_bot') },
  ]);
});
after(async () => {
  await t.close();
  await salesforce.close();
  await slack.close();
});

const sf = (name: string, as: string, input: Record<string, unknown>) => action('salesforce', name, as, input);
const email = pill('workato_webhooks', 'hook', 'payload', 'email');

describe('Salesforce and Slack named actions through recipe jobs', () => {
  test('create, search, get, update, upsert and delete records; post a bot message with what was found', async () => {
    const contactId = pill('salesforce', 'search', 'Contact', CURRENT, 'Id');
    const { path } = await webhookRecipe(
      t,
      [
        sf('create_sobject', 'create', { sobject_name: 'Contact', LastName: 'Silva', FirstName: 'Ana', Email: email }),
        sf('search_sobjects', 'search', { sobject_name: 'Contact', limit: '150', Email: email }),
        sf('get_sobject', 'get', { sobject_name: 'Contact', id: contactId }),
        sf('update_sobject_v2', 'update', { sobject_name: 'Contact', id: contactId, Title: 'Manager', Phone: '' }),
        sf('upsert_sobject', 'upsert_existing', {
          sobject_name: 'Contact',
          query_field: { primary_key: 'Email' },
          Email: email,
          Department: 'Front desk',
        }),
        sf('upsert_sobject', 'upsert_new', {
          sobject_name: 'Contact',
          query_field: { primary_key: 'Email' },
          Email: "o'neil@example.com",
          LastName: "O'Neil",
        }),
        action('slack_bot', 'post_bot_message', 'post', {
          channel: 'C1234567890',
          text: `Contact ${contactId} is in`,
          message: { title: 'New contact', attachment_text: '*Ana* checked in' },
        }),
        sf('delete_sobject', 'delete', { sobject_name: 'Contact', id: pill('salesforce', 'upsert_new', 'id') }),
      ],
      { config },
    );
    const job = await fire(t, path, { email: 'ana@example.com' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const created = job.output(1) as { id: string };
    assert.match(created.id, /^003\w{15}$/);
    const found = job.output(2) as { Contact: Array<Record<string, unknown>> };
    assert.deepEqual(found.Contact, [
      { LastName: 'Silva', FirstName: 'Ana', Email: 'ana@example.com', Id: created.id },
    ]);
    const soql = salesforce
      .apiRequests()
      .map((r) => r.query.get('q'))
      .filter((q) => q?.includes('Contact'));
    assert.deepEqual(soql, ["SELECT FIELDS(ALL) FROM Contact WHERE Email = 'ana@example.com' LIMIT 150"]);
    assert.equal((job.output(3) as { Email: string }).Email, 'ana@example.com');
    assert.deepEqual(job.output(4), { id: created.id });
    assert.deepEqual(job.output(5), { id: created.id, created: false });
    const upserted = job.output(6) as { id: string; created: boolean };
    assert.equal(upserted.created, true);
    assert.deepEqual(job.output(7), {
      channel: 'C1234567890',
      ts: '1700000000.000100',
      message: {
        text: `Contact ${created.id} is in`,
        type: 'message',
        attachments: [{ title: 'New contact', text: '*Ana* checked in', mrkdwn_in: ['text'] }],
      },
    });
    assert.deepEqual(job.output(8), { id: upserted.id });
    assert.deepEqual(records(salesforce, 'Contact'), [
      {
        LastName: 'Silva',
        FirstName: 'Ana',
        Email: 'ana@example.com',
        Id: created.id,
        Title: 'Manager',
        Department: 'Front desk',
      },
    ]);
  });

  test("Salesforce's refusals are the step's error; bad input is refused before any request", async () => {
    const run = async (step: Record<string, unknown>) => {
      const { path } = await webhookRecipe(t, [step], { config });
      return fire(t, path, {});
    };
    const missing = await run(sf('create_sobject', 'c', { sobject_name: 'Contact', FirstName: 'Ana' }));
    assert.equal(missing.status, 'failed');
    assert.match(missing.error ?? '', /Required fields are missing: \[LastName\]/);
    const gone = await run(sf('get_sobject', 'g', { sobject_name: 'Contact', id: '003000000000099AAA' }));
    assert.match(gone.error ?? '', /The requested resource does not exist/);
    const before = salesforce.apiRequests().length;
    const injected = await run(sf('search_sobjects', 's', { sobject_name: 'Contact WHERE Id != null', Email: 'x' }));
    assert.match(injected.error ?? '', /is not an API name/);
    const badField = await run(sf('create_sobject', 'c', { sobject_name: 'Contact', 'Name) FROM': 'x' }));
    assert.match(badField.error ?? '', /is not a field name/);
    const badId = await run(sf('delete_sobject', 'd', { sobject_name: 'Contact', id: '../Account' }));
    assert.match(badId.error ?? '', /is not a Salesforce record ID/);
    const noKey = await run(sf('upsert_sobject', 'u', { sobject_name: 'Contact', LastName: 'X' }));
    assert.match(noKey.error ?? '', /query_field\.primary_key must name the external ID field/);
    assert.equal(salesforce.apiRequests().length, before, 'nothing reached Salesforce');
    const quoted = await run(sf('search_sobjects', 's', { sobject_name: 'Contact', Email: "x' OR Name != '" }));
    assert.equal(quoted.status, 'succeeded', quoted.error ?? '');
    assert.deepEqual(quoted.output(1), { Contact: [] });
    const empty = await run(action('slack_bot', 'post_bot_message', 'p', { channel: 'C1' }));
    assert.match(empty.error ?? '', /the message needs a text/);
  });
});
