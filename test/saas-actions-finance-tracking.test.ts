// Named actions as the vendor's recipes store them (contract 22 §3), each through a recipe job
// against its stand-in: Salesforce's SOQL search (paged through nextRecordsUrl), a Slack bot's reply
// in a thread, Jira issues (create, update, get, search), Stripe customers, invoice items, invoices
// and charges, QuickBooks customers, invoices, vendors, bills and accounts. Then what issue 32 asks
// of bad input: the service's 4xx message in the step's error, a 429 waited out, a 5xx, a
// timeout, an answer that is not JSON, an expired token refreshed once, a revoked one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type TestApp } from './helpers.ts';
import { action, CURRENT, fire, pill, webhookRecipe, type StepDoc } from './recipes.ts';
import { CLIENT_ID, CLIENT_SECRET, startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { connectThroughConsole } from './stand-ins/connect.ts';
import { records, setQueryBatchSize, spec as salesforceSpec } from './stand-ins/salesforce.ts';
import { messages, slackBot as slackFixture } from './stand-ins/slack.ts';
import { issues, jira as jiraFixture } from './stand-ins/jira.ts';
import { objects, stripe as stripeFixture } from './stand-ins/stripe.ts';
import { entities, quickbooks as quickbooksFixture } from './stand-ins/quickbooks.ts';

const TIMEOUT_MS = 300;

let t: TestApp;
const standIns: Record<string, StandIn> = {};
let config: string;

async function connect(provider: string, input: Record<string, string> | null): Promise<number> {
  if (input !== null) {
    const created = await t.call('POST', '/api/connections', { body: { name: provider, provider, input } });
    assert.equal(created.body.authorization_status, 'success', created.text);
    return created.body.id as number;
  }
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
  standIns.salesforce = await startStandIn(salesforceSpec);
  standIns.slack = await startStandIn(slackFixture.spec);
  standIns.jira = await startStandIn(jiraFixture.spec);
  standIns.stripe = await startStandIn(stripeFixture.spec);
  standIns.quickbooks = await startStandIn(quickbooksFixture.spec);
  const origins = Object.assign({}, ...Object.values(standIns).map((s) => s.origins())) as Record<string, string>;
  t = await createTestApp({
    env: { CONNECTOR_ORIGINS: JSON.stringify(origins) },
    engine: { limits: { httpTimeoutMs: TIMEOUT_MS, connectorStepMs: 4000 } },
  });
  config = JSON.stringify([
    { keyword: 'application', provider: 'workato_webhooks', account_id: null },
    { keyword: 'application', provider: 'salesforce', account_id: await connect('salesforce', null) },
    { keyword: 'application', provider: 'slack_bot', account_id: await connect('slack_bot', null) },
    { keyword: 'application', provider: 'jira', account_id: await connect('jira', jiraFixture.input) },
    { keyword: 'application', provider: 'stripe', account_id: await connect('stripe', stripeFixture.input) },
    { keyword: 'application', provider: 'quickbooks', account_id: await connect('quickbooks', null) },
  ]);
});
after(async () => {
  await t.close();
  for (const standIn of Object.values(standIns)) await standIn.close();
});

const hook = (...path: string[]) => pill('workato_webhooks', 'hook', 'payload', ...path);

async function run(steps: StepDoc[], payload: Record<string, unknown> = {}) {
  const { path } = await webhookRecipe(t, steps, { config });
  return fire(t, path, payload);
}

describe('Salesforce SOQL search and a Slack reply in a thread through recipe jobs', () => {
  test('search_sobjects_soql reads every page of the answer; the bot replies in the thread of its message', async () => {
    const sf = standIns.salesforce as StandIn;
    for (const [i, name] of ['Avery', 'Blake', 'Casey', 'Drew', 'Emery'].entries())
      records(sf, 'Lead').push({ Id: `00Q00000000000${i}AAA`, LastName: name, Status: i % 2 ? 'Closed' : 'Open' });
    setQueryBatchSize(sf, 2);
    const { path } = await webhookRecipe(
      t,
      [
        action('salesforce', 'search_sobjects_soql', 'leads', {
          sobject_name: 'Lead',
          query: `Status = '${hook('status')}' OR LastName LIKE 'D%'`,
          field_list: 'LastName, Status',
          limit: '150',
        }),
        action('slack_bot', 'post_bot_message', 'post', { channel: 'C0LEADS', text: 'Open leads' }),
        action('slack_bot', 'post_bot_reply_v2', 'reply', {
          channel: pill('slack_bot', 'post', 'channel'),
          thread_ts: pill('slack_bot', 'post', 'ts'),
          text: `First: ${pill('salesforce', 'leads', 'Lead', CURRENT, 'LastName')}`,
          reply_broadcast: 'true',
        }),
      ],
      { config },
    );
    const job = await fire(t, path, { status: 'Open' });
    setQueryBatchSize(sf, 2000);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.deepEqual(job.output(1), {
      Lead: [
        { Id: '00Q000000000000AAA', LastName: 'Avery', Status: 'Open' },
        { Id: '00Q000000000002AAA', LastName: 'Casey', Status: 'Open' },
        { Id: '00Q000000000003AAA', LastName: 'Drew', Status: 'Closed' },
        { Id: '00Q000000000004AAA', LastName: 'Emery', Status: 'Open' },
      ],
    });
    const queries = sf.apiRequests().filter((r) => r.path.includes('/query'));
    assert.equal(queries.length, 2, 'a second page through nextRecordsUrl');
    assert.equal(
      queries[0]?.query.get('q'),
      "SELECT LastName, Status FROM Lead WHERE Status = 'Open' OR LastName LIKE 'D%' LIMIT 150",
    );
    assert.match(queries[1]?.path ?? '', /^\/services\/data\/v60\.0\/query\/01g\w+-2$/);
    const [parent, reply] = messages(standIns.slack as StandIn).slice(-2);
    assert.deepEqual(reply, {
      channel: 'C0LEADS',
      ts: reply?.ts,
      text: 'First: Avery',
      thread_ts: parent?.ts,
      reply_broadcast: true,
    });
    assert.deepEqual(job.output(3), {
      channel: 'C0LEADS',
      ts: reply?.ts,
      thread_ts: parent?.ts,
      message: { text: 'First: Avery', type: 'message', thread_ts: parent?.ts },
    });
  });

  test('bad SOQL inputs are refused before any request; a malformed clause is Salesforce’s error', async () => {
    const sf = standIns.salesforce as StandIn;
    const before = sf.apiRequests().length;
    const soql = (input: Record<string, unknown>) =>
      run([action('salesforce', 'search_sobjects_soql', 's', { sobject_name: 'Lead', ...input })]);
    assert.match(
      (await soql({ limit: '2001', field_list: 'Id' })).error ?? '',
      /limit must be a whole number from 0 to 2000/,
    );
    assert.match((await soql({ limit: '201' })).error ?? '', /limit must be a whole number from 0 to 200/);
    assert.match((await soql({ offset: '-1' })).error ?? '', /offset must be a whole number/);
    assert.match((await soql({ field_list: 'Id, Name FROM Account --' })).error ?? '', /is not a field name/);
    assert.match((await soql({ sobject_name: 'Lead; DELETE' })).error ?? '', /is not an API name/);
    assert.equal(sf.apiRequests().length, before, 'nothing reached Salesforce');
    const malformed = await soql({ query: 'Status = ' });
    assert.equal(malformed.status, 'failed');
    assert.match(malformed.lines[1]?.error ?? '', /^400 Bad request: unexpected condition in Status =/);
    const reply = await run([
      action('slack_bot', 'post_bot_reply', 'r', { channel: 'C1', text: 'hi', thread_ts: 'x' }),
    ]);
    assert.match(reply.error ?? '', /thread_ts "x" is not a message timestamp/);
  });
});

describe('Jira issues through recipe jobs', () => {
  test('create an issue, update it, read it and find it by JQL and by fields', async () => {
    const key = pill('jira', 'create', 'key');
    const job = await run(
      [
        action('jira', 'create_issue', 'create', {
          project_key: 'OPS',
          issue_type: 'Bug',
          summary: hook('title'),
          description: 'Line one\nLine two',
          labels: 'printer, urgent',
          customfield_10010: 'blue',
        }),
        action('jira', 'update_issue', 'update', { issue_key: key, priority: 'High', summary: 'Printer smoking' }),
        action('jira', 'get_issue', 'get', { issue_key: key }),
        action('jira', 'search_issues_by_JQL', 'jql', { jql: 'project = OPS ORDER BY created DESC', max_results: '1' }),
        action('jira', 'search_issues', 'fields', { project_key: 'OPS', summary: 'smoking' }),
      ],
      { title: 'Printer jammed' },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const created = job.output(1) as { id: string; key: string; self: string };
    assert.match(created.key, /^OPS-\d+$/);
    const issue = issues(standIns.jira as StandIn).find((i) => i.key === created.key);
    assert.deepEqual(issue?.fields.description, {
      type: 'doc',
      version: 1,
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'Line one' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'Line two' }] },
      ],
    });
    assert.deepEqual(issue?.fields.labels, ['printer', 'urgent']);
    assert.equal(issue?.fields.customfield_10010, 'blue');
    const updated = job.output(2) as Record<string, unknown>;
    assert.equal(updated.key, created.key);
    assert.equal(updated.summary, 'Printer smoking');
    assert.deepEqual(updated.priority, { name: 'High' });
    assert.deepEqual((updated.fields as Record<string, unknown>).issuetype, { name: 'Bug' });
    assert.deepEqual(job.output(3), updated);
    const byJql = job.output(4) as { issues: Array<{ key: string }> };
    assert.equal(byJql.issues.length, 1, 'max_results caps the answer');
    const byFields = job.output(5) as { issues: Array<{ key: string; summary: string }> };
    assert.deepEqual(
      byFields.issues.map((i) => [i.key, i.summary]),
      [[created.key, 'Printer smoking']],
    );
    const searches = (standIns.jira as StandIn).apiRequests().filter((r) => r.path.endsWith('/search/jql'));
    assert.equal(searches.at(-1)?.query.get('jql'), 'project = "OPS" AND summary ~ "smoking" ORDER BY created DESC');
    assert.equal(searches.at(-1)?.query.get('fields'), '*navigable');
  });

  test("Jira's refusal names the field; a search reads every page through nextPageToken", async () => {
    const refused = await run([
      action('jira', 'create_issue', 'c', { project_key: 'NOPE', issue_type: 'Task', summary: 'x' }),
    ]);
    assert.equal(refused.status, 'failed');
    assert.equal(refused.lines[1]?.error, '400 Bad request: project: valid project is required');
    const missing = await run([action('jira', 'get_issue', 'g', { issue_key: 'OPS-999' })]);
    assert.equal(
      missing.lines[1]?.error,
      '404 Not found: Issue does not exist or you do not have permission to see it.',
    );
    const list = issues(standIns.jira as StandIn);
    for (let i = 0; i < 120; i++)
      list.push({ id: String(20000 + i), key: `OPS-${500 + i}`, fields: { summary: `bulk ${i}` } });
    const all = await run([action('jira', 'search_issues_by_JQL', 's', { jql: 'project = OPS', max_results: '110' })]);
    assert.equal(all.status, 'succeeded', all.error ?? '');
    assert.equal((all.output(1) as { issues: unknown[] }).issues.length, 110);
    const bad = await run([action('jira', 'update_issue', 'u', { issue_key: 'OPS-1; DROP', summary: 'x' })]);
    assert.match(bad.error ?? '', /is not an issue key or ID/);
  });
});

describe('Stripe customers, invoices and charges through recipe jobs', () => {
  test('create a customer, update it, bill an invoice item on an invoice, charge it, read and list', async () => {
    const customer = pill('stripe', 'customer', 'id');
    const job = await run(
      [
        action('stripe', 'create_customer', 'customer', {
          email: hook('email'),
          name: 'Ana Silva',
          metadata: [{ key: 'guest_id', value: 'G-7' }],
        }),
        action('stripe', 'update_customer', 'update', { id: customer, phone: '+351 21 000 0000' }),
        action('stripe', 'create_invoice_item', 'item', {
          customer,
          amount: '4500',
          currency: 'EUR',
          description: 'Two nights',
        }),
        action('stripe', 'create_invoice', 'invoice', {
          customer,
          collection_method: 'send_invoice',
          days_until_due: '14',
        }),
        action('stripe', 'create_charge', 'charge', { customer, amount: '4500', currency: 'eur', description: 'Stay' }),
        action('stripe', 'get_object_by_id', 'get', { object: 'invoice', id: pill('stripe', 'invoice', 'id') }),
        action('stripe', 'list_objects', 'list', { object: 'charge', customer, limit: '5' }),
      ],
      { email: 'ana.silva@example.com' },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const created = job.output(1) as Record<string, unknown>;
    assert.match(String(created.id), /^cus_/);
    assert.deepEqual(created.metadata, { guest_id: 'G-7' });
    assert.equal((job.output(2) as { phone: string }).phone, '+351 21 000 0000');
    const sent = (standIns.stripe as StandIn).apiRequests().find((r) => r.path === '/v1/invoiceitems');
    assert.equal(sent?.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(sent?.body)), {
      customer: created.id,
      description: 'Two nights',
      amount: '4500',
      currency: 'eur',
    });
    const invoice = job.output(4) as { id: string; total: number; collection_method: string };
    assert.equal(invoice.total, 4500);
    assert.equal(invoice.collection_method, 'send_invoice');
    assert.equal((job.output(5) as { status: string }).status, 'succeeded');
    assert.deepEqual(job.output(6), objects(standIns.stripe as StandIn, 'invoices').at(-1));
    assert.deepEqual(
      (job.output(7) as { data: Array<{ amount: number }> }).data.map((c) => c.amount),
      [4500],
    );
  });

  test("a declined card is Stripe's message; list_objects follows has_more; bad amounts are refused first", async () => {
    const declined = await run([
      action('stripe', 'create_charge', 'c', { amount: '2000', currency: 'usd', source: 'tok_chargeDeclined' }),
    ]);
    assert.equal(declined.status, 'failed');
    assert.equal(declined.lines[1]?.error, '402 HTTP 402: Your card was declined.');
    const missing = await run([action('stripe', 'create_invoice', 'i', { customer: 'cus_nobody' })]);
    assert.equal(missing.lines[1]?.error, "404 Not found: No such customer: 'cus_nobody'");
    for (let i = 0; i < 130; i++)
      objects(standIns.stripe as StandIn, 'customers').push({ id: `cus_bulk${i}`, object: 'customer' });
    const listed = await run([action('stripe', 'list_objects', 'l', { object: 'customer', limit: '120' })]);
    assert.equal(listed.status, 'succeeded', listed.error ?? '');
    const data = (listed.output(1) as { data: Array<{ id: string }> }).data;
    assert.equal(data.length, 120);
    assert.equal(data[0]?.id, 'cus_bulk129');
    assert.equal(new Set(data.map((c) => c.id)).size, 120, 'no customer twice across pages');
    const before = (standIns.stripe as StandIn).apiRequests().length;
    const cents = await run([
      action('stripe', 'create_charge', 'c', { amount: '12.50', currency: 'usd', customer: 'cus_123' }),
    ]);
    assert.match(cents.error ?? '', /amount must be a whole number/);
    const object = await run([action('stripe', 'get_object_by_id', 'g', { object: 'account', id: 'acct_1' })]);
    assert.match(object.error ?? '', /object must be one of customer, invoice/);
    assert.equal((standIns.stripe as StandIn).apiRequests().length, before);
  });
});

describe('QuickBooks Online customers, invoices, vendors, bills and accounts through recipe jobs', () => {
  test('create a customer and invoice them; find the customer; a vendor, a bill on an account', async () => {
    const job = await run(
      [
        action('quickbooks', 'create_customer', 'customer', {
          DisplayName: hook('name'),
          PrimaryEmailAddr: { Address: hook('email') },
        }),
        action('quickbooks', 'create_invoice', 'invoice', {
          CustomerRef: { value: pill('quickbooks', 'customer', 'Id') },
          Line: [
            {
              Amount: 150,
              DetailType: 'SalesItemLineDetail',
              Description: 'Consulting',
              SalesItemLineDetail: { ItemRef: { value: '1' } },
            },
          ],
        }),
        action('quickbooks', 'search_customers', 'found', { DisplayName: hook('name') }),
        action('quickbooks', 'get_invoice', 'read', { id: pill('quickbooks', 'invoice', 'Id') }),
        action('quickbooks', 'create_vendor', 'vendor', { DisplayName: "O'Brien Supplies" }),
        action('quickbooks', 'search_accounts', 'accounts', { AccountType: 'Expense' }),
        action('quickbooks', 'create_bill', 'bill', {
          VendorRef: { value: pill('quickbooks', 'vendor', 'Id') },
          Line: [
            {
              Amount: 80,
              DetailType: 'AccountBasedExpenseLineDetail',
              AccountBasedExpenseLineDetail: {
                AccountRef: { value: pill('quickbooks', 'accounts', 'Account', CURRENT, 'Id') },
              },
            },
          ],
        }),
        action('quickbooks', 'search_vendors', 'vendors', { DisplayName: "O'Brien Supplies" }),
        action('quickbooks', 'get_customer', 'customer_again', { id: pill('quickbooks', 'customer', 'Id') }),
        action('quickbooks', 'search_invoices', 'invoices', {
          CustomerRef: '',
          DocNumber: pill('quickbooks', 'invoice', 'DocNumber'),
        }),
      ],
      { name: 'Ana Silva', email: 'ana@example.com' },
    );
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const customer = job.output(1) as { Id: string; DisplayName: string };
    assert.equal(customer.DisplayName, 'Ana Silva');
    const invoice = job.output(2) as { Id: string; TotalAmt: number; CustomerRef: { value: string } };
    assert.equal(invoice.TotalAmt, 150);
    assert.equal(invoice.CustomerRef.value, customer.Id);
    assert.deepEqual(job.output(3), { Customer: [entities(standIns.quickbooks as StandIn, 'Customer').at(-1)] });
    assert.deepEqual(job.output(4), invoice);
    assert.deepEqual(
      (job.output(6) as { Account: Array<{ Name: string }> }).Account.map((a) => a.Name),
      ['Office Expenses'],
    );
    assert.equal((job.output(7) as { TotalAmt: number }).TotalAmt, 80);
    assert.equal((job.output(8) as { Vendor: unknown[] }).Vendor.length, 1);
    assert.deepEqual(job.output(9), customer);
    assert.deepEqual(job.output(10), { Invoice: [invoice] });
    const sent = (standIns.quickbooks as StandIn).apiRequests();
    const search = sent.find((r) => r.path.endsWith('/query') && r.query.get('query')?.includes('Vendor'));
    assert.equal(
      search?.query.get('query'),
      "select * from Vendor where DisplayName = 'O\\'Brien Supplies' startposition 1 maxresults 100",
    );
    assert.ok(
      sent
        .filter((r) => r.path.startsWith('/v3/') && !r.path.includes('/companyinfo/'))
        .every((r) => r.query.get('minorversion') === '75'),
    );
  });

  test("QuickBooks' faults are the step's error: a duplicate name, a reference to nothing", async () => {
    const duplicate = await run([action('quickbooks', 'create_vendor', 'v', { DisplayName: 'Paper Co' })]);
    assert.equal(duplicate.status, 'failed');
    assert.equal(
      duplicate.lines[1]?.error,
      '400 Bad request: Duplicate Name Exists Error (The name supplied already exists. : Paper Co) [code 6240]',
    );
    const nobody = await run([
      action('quickbooks', 'create_invoice', 'i', {
        CustomerRef: { value: '999' },
        Line: [{ Amount: 1, DetailType: 'SalesItemLineDetail' }],
      }),
    ]);
    assert.equal(
      nobody.lines[1]?.error,
      '400 Bad request: Invalid Reference Id (Invalid Reference Id : Customer assigned to this transaction has been deleted or does not exist) [code 2500]',
    );
    const bills = entities(standIns.quickbooks as StandIn, 'Bill');
    for (let i = 0; i < 1005; i++) bills.push({ Id: String(50_000 + i), VendorRef: { value: '56' }, TotalAmt: i });
    const paged = await run([action('quickbooks', 'search_bills', 'b', { limit: '1003' })]);
    assert.equal(paged.status, 'succeeded', paged.error ?? '');
    assert.equal((paged.output(1) as { Bill: unknown[] }).Bill.length, 1003);
    const queries = (standIns.quickbooks as StandIn)
      .apiRequests()
      .map((r) => r.query.get('query'))
      .filter((q) => q?.startsWith('select * from Bill'));
    assert.deepEqual(queries, [
      'select * from Bill startposition 1 maxresults 1000',
      'select * from Bill startposition 1001 maxresults 3',
    ]);
    const field = await run([action('quickbooks', 'search_customers', 's', { 'DisplayName = 1 or 1': 'x' })]);
    assert.match(field.error ?? '', /is not a QuickBooks field name/);
  });
});

describe('bad answers and tokens (issue 32, "Bad input")', () => {
  const jiraGet = () => run([action('jira', 'get_issue', 'g', { issue_key: 'OPS-1' })]);

  test('a 429 is waited out as Retry-After says; a 5xx, a timeout and an answer that is not JSON fail the step', async () => {
    const jira = standIns.jira as StandIn;
    let before = jira.apiRequests().length;
    jira.enqueue({ status: 429, headers: { 'retry-after': '1' }, json: { errorMessages: ['Rate limit exceeded.'] } });
    const waited = await jiraGet();
    assert.equal(waited.status, 'succeeded', waited.error ?? '');
    assert.equal((waited.output(1) as { summary: string }).summary, 'Printer on fire');
    assert.equal(jira.apiRequests().length - before, 2);

    jira.enqueue({ status: 500, json: { errorMessages: ['Internal server error'] } });
    const broken = await run([
      action('jira', 'create_issue', 'c', { project_key: 'OPS', issue_type: 'Task', summary: 'x' }),
    ]);
    assert.equal(broken.status, 'failed');
    assert.equal(broken.errorType, 'Server error');
    assert.equal(broken.lines[1]?.error, '500 Server error: Internal server error');

    before = jira.apiRequests().length;
    jira.enqueue({ delayMs: TIMEOUT_MS * 3, json: {} }, { delayMs: TIMEOUT_MS * 3, json: {} });
    const slow = await jiraGet();
    assert.equal(slow.status, 'failed');
    assert.equal(slow.errorType, 'Timeout');
    assert.match(slow.lines[1]?.error ?? '', /^no answer from acme\.atlassian\.net within \d+ ms$/);

    jira.enqueue({ headers: { 'content-type': 'text/html' }, text: '<html>Atlassian maintenance</html>' });
    const html = await jiraGet();
    assert.equal(html.errorType, 'Bad response');
    assert.equal(html.lines[1]?.error, '200 answer is not JSON (text/html): <html>Atlassian maintenance</html>');
  });

  test('an expired token is refreshed once and the step goes on; a revoked grant fails naming the connection', async () => {
    const qbo = standIns.quickbooks as StandIn;
    const search = () => run([action('quickbooks', 'search_vendors', 'v', { DisplayName: 'Paper Co' })]);
    qbo.expireAccessTokens();
    const refreshes = () => qbo.requests.filter((r) => r.path === '/oauth2/v1/tokens/bearer').length;
    const before = refreshes();
    const refreshed = await search();
    assert.equal(refreshed.status, 'succeeded', refreshed.error ?? '');
    assert.equal(refreshes() - before, 1);
    assert.deepEqual(
      (refreshed.output(1) as { Vendor: Array<{ DisplayName: string }> }).Vendor[0]?.DisplayName,
      'Paper Co',
    );
    qbo.expireAccessTokens();
    qbo.revokeRefreshTokens();
    const revoked = await search();
    assert.equal(revoked.status, 'failed');
    assert.match(
      revoked.error ?? '',
      /the quickbooks connection "quickbooks" \(id \d+\) could not get a new access token/,
    );
    assert.equal(refreshes() - before, 2, 'one refresh tried, not more');
  });
});
