// The custom action as the vendor's exported recipes write it (contract 22 §2): a path absolute on
// the service's host (`/v1/customers/search` against Stripe's base URL https://api.stripe.com/v1/),
// `input.schema` and `input.data` as a JSON string and values with datapills, an `output` schema,
// and later steps reading the answer's fields at the top of the step's output
// (`data` → current item → `id`), through a recipe job against the Stripe stand-in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { action, condition, CURRENT, dp, fire, log, pill, webhookRecipe } from './recipes.ts';
import { startStandIn, type StandIn } from './stand-ins/stand-in.ts';
import { stripe, SECRET_KEY } from './stand-ins/stripe.ts';

let t: TestApp;
let standIn: StandIn;
let connectionId: number;

before(async () => {
  standIn = await startStandIn(stripe.spec);
  t = await createTestApp({ env: { CONNECTOR_ORIGINS: JSON.stringify(standIn.origins()) } });
  const created = await t.call('POST', '/api/connections', {
    body: { name: 'Stripe', provider: 'stripe', input: { api_key: SECRET_KEY } },
  });
  assert.equal(created.body.authorization_status, 'success', created.text);
  connectionId = created.body.id;
});
after(async () => {
  await t.close();
  await standIn.close();
});

const searchSchema = JSON.stringify([
  { name: 'query', type: 'string', optional: false, label: 'Query', details: { real_name: 'query' } },
  { name: 'limit', type: 'string', optional: true, label: 'Limit', details: { real_name: 'limit' } },
]);
const outputSchema = JSON.stringify([
  {
    name: 'data',
    type: 'array',
    of: 'object',
    properties: [
      { name: 'id', type: 'string' },
      { name: 'email', type: 'string' },
    ],
  },
  { name: 'total_count', type: 'integer' },
]);

function searchStep(email: string): Record<string, unknown> {
  return action('stripe', '__adhoc_http_action', 'search_customer', {
    mnemonic: 'Search customers',
    path: '/v1/customers/search',
    verb: 'get',
    response_type: 'json',
    input: { schema: searchSchema, data: { query: `email:'${email}'`, limit: '1' } },
    output: outputSchema,
  });
}

describe('__adhoc_http_action as exported recipes write it', () => {
  test("a search by a path on the service's host, its answer's fields read by the next steps", async () => {
    const found = pill('stripe', 'search_customer', 'data', CURRENT, 'id');
    const { path } = await webhookRecipe(
      t,
      [
        searchStep(`#{${dp('workato_webhooks', 'hook', 'payload', 'email')}}`),
        {
          keyword: 'if',
          input: condition('present', found),
          block: [log('found', `customer ${found}`)],
        },
      ],
      {
        config: JSON.stringify([
          { keyword: 'application', provider: 'workato_webhooks', account_id: null },
          { keyword: 'application', provider: 'stripe', account_id: connectionId },
        ]),
      },
    );
    const job = await fire(t, path, { email: 'ana@example.com' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const sent = standIn.apiRequests().at(-1);
    assert.equal(sent?.path, '/v1/customers/search');
    assert.equal(sent?.query.get('query'), "email:'ana@example.com'");
    assert.equal(sent?.query.get('limit'), '1');
    assert.equal(sent?.headers.authorization, `Bearer ${SECRET_KEY}`);
    assert.deepEqual(job.output(1), {
      object: 'search_result',
      data: [{ id: 'cus_123', email: 'ana@example.com' }],
      has_more: false,
    });
    assert.deepEqual(job.output(3), { message: 'customer cus_123' });
  });

  test("a path off the service's hosts is refused; the service's error is the step's", async () => {
    const config = JSON.stringify([
      { keyword: 'application', provider: 'workato_webhooks', account_id: null },
      { keyword: 'application', provider: 'stripe', account_id: connectionId },
    ]);
    const off = await webhookRecipe(
      t,
      [action('stripe', '__adhoc_http_action', 'x', { verb: 'get', path: 'https://example.org/v1/balance' })],
      { config },
    );
    const refused = await fire(t, off.path, {});
    assert.equal(refused.status, 'failed');
    assert.match(refused.error ?? '', /https:\/\/example\.org is outside the stripe connection's hosts/);
    const missing = await webhookRecipe(
      t,
      [action('stripe', '__adhoc_http_action', 'x', { verb: 'get', path: '/v1/customers/search' })],
      { config },
    );
    const failed = await fire(t, missing.path, {});
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /Missing required param: query\./);
  });
});
