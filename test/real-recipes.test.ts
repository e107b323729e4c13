// The real recipes of test/fixtures/recipes (exported from a live workspace of the vendor):
// imported unchanged, started, and called through the gateway as the API endpoints they back.
// The recipe functions they call reach outside services in the original; here each is a small
// local recipe function whose result is the JSON in the environment property stub_<name>, so a
// test picks each branch by setting properties.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { numbered } from './recipes.ts';

const ROOT = new URL('./fixtures/recipes/dewy-resort/', import.meta.url).pathname;
const RECIPES = `${ROOT}orchestrator-recipes/`;
const ENDPOINTS = `${ROOT}manager-collection/`;

let t: TestApp;
let apiToken: string;
const recipeIds = new Map<string, number>();
const urls = new Map<string, string>();

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/** Every recipe function the fixtures call, by the name in their flow_id reference. */
function calledFunctions(): string[] {
  const names = new Set<string>();
  const visit = (step: Record<string, unknown>) => {
    const input = step.input as Record<string, unknown> | undefined;
    if (step.provider === 'workato_recipe_function' && typeof input?.flow_id === 'object')
      names.add((input.flow_id as { name: string }).name);
    for (const child of (step.block as Record<string, unknown>[] | undefined) ?? []) visit(child);
  };
  for (const file of readdirSync(RECIPES))
    visit((JSON.parse(readFileSync(RECIPES + file, 'utf8')) as { code: Record<string, unknown> }).code);
  return [...names].sort();
}

function stubCode(name: string): Record<string, unknown> {
  const property = `_dp('${JSON.stringify({ pill_type: 'account_property', property_name: `stub_${slug(name)}` })}')`;
  return numbered({
    keyword: 'trigger',
    provider: 'workato_recipe_function',
    name: 'execute',
    as: 'call',
    input: { parameters_schema_json: '[]', result_schema_json: '[]' },
    block: [
      {
        keyword: 'action',
        provider: 'workato_recipe_function',
        name: 'return_result',
        as: 'ret',
        input: { result: `=${property}.parse_json` },
      },
    ],
  });
}

/** Set what each named stub returns (JSON text; anything else makes the stub's job fail). */
async function stubs(results: Record<string, unknown>): Promise<void> {
  const properties = Object.fromEntries(
    Object.entries(results).map(([name, value]) => [
      `stub_${slug(name)}`,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  const res = await t.call('POST', '/api/properties', { body: { properties } });
  assert.equal(res.status, 200, res.text);
}

async function call(
  recipe: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.app.inject({
    method: 'POST',
    url: urls.get(recipe) as string,
    headers: { 'api-token': apiToken, 'content-type': 'application/json' },
    payload: body,
  });
  return { status: res.statusCode, body: res.body === '' ? {} : (JSON.parse(res.body) as Record<string, unknown>) };
}

before(async () => {
  t = await createTestApp();
  const folder = await t.call('POST', '/api/folders', { body: { name: 'atomic-salesforce-recipes' } });
  for (const name of calledFunctions()) {
    const res = await t.call('POST', '/api/recipes', {
      body: { recipe: { name, code: JSON.stringify(stubCode(name)), folder_id: folder.body.id } },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((await t.call('PUT', `/api/recipes/${res.body.id}/start`)).body, { success: true });
  }
  for (const file of readdirSync(RECIPES)) {
    const text = readFileSync(RECIPES + file, 'utf8');
    const res = await t.call('POST', '/api/recipes', { raw: text, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200, `${file}: ${res.text}`);
    recipeIds.set(file.replace('.recipe.json', ''), res.body.id);
  }
  const collectionDoc = JSON.parse(readFileSync(`${ENDPOINTS}api_collection.json`, 'utf8')) as {
    name: string;
    version: string;
  };
  const collection = await t.call('POST', '/api/api_collections', {
    body: { name: collectionDoc.name, version: collectionDoc.version },
  });
  assert.equal(collection.status, 200, collection.text);
  const endpoints = readdirSync(ENDPOINTS)
    .filter((f) => f.endsWith('.api_endpoint.json'))
    .map(
      (f) =>
        JSON.parse(readFileSync(ENDPOINTS + f, 'utf8')) as {
          name: string;
          method: string;
          path: string;
          recipe_name: string;
        },
    );
  // One recipe of the fixtures has no endpoint file in this collection; it gets one like the others.
  endpoints.push({
    name: 'Submit guest service request',
    method: 'POST',
    path: 'submit-guest-service-request',
    recipe_name: 'submit_guest_service_request',
  });
  for (const e of endpoints) {
    const flowId = recipeIds.get(e.recipe_name);
    if (flowId === undefined) continue; // two endpoint files name recipes that are not among the fixtures
    await t.call('PUT', `/api/recipes/${flowId}/start`);
    const res = await t.call('POST', `/api/api_collections/${collection.body.id}/api_endpoints`, {
      body: { name: e.name, method: e.method, path: e.path, flow_id: flowId },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((await t.call('PUT', `/api/api_endpoints/${res.body.id}/enable`)).status, 200);
    urls.set(e.recipe_name, new URL(res.body.url).pathname);
  }
  const client = await t.call('POST', '/api/api_clients', { body: { name: 'Dewy resort front desk' } });
  const profile = await t.call('POST', '/api/api_access_profiles', {
    body: {
      name: 'front desk',
      api_client_id: client.body.id,
      api_collection_ids: [collection.body.id],
      auth_type: 'token',
    },
  });
  assert.equal(profile.status, 200, profile.text);
  apiToken = profile.body.secret;
});
after(() => t.close());

describe('real recipes: import and start', () => {
  test('all nine import unchanged and start; every one backs an enabled endpoint', async () => {
    assert.equal(recipeIds.size, 9);
    for (const [file, id] of recipeIds) {
      const recipe = await t.call('GET', `/api/recipes/${id}`);
      const original = JSON.parse(readFileSync(`${RECIPES}${file}.recipe.json`, 'utf8')) as {
        code: unknown;
        name: string;
      };
      assert.deepEqual(JSON.parse(recipe.body.code), original.code, file);
      assert.equal(recipe.body.name, original.name);
      assert.equal(recipe.body.running, true, file);
      assert.ok(urls.has(file), file);
    }
  });

  test('a recipe that calls a function that does not exist does not start', async () => {
    const doc = JSON.parse(readFileSync(`${RECIPES}check_in_guest.recipe.json`, 'utf8')) as Record<string, unknown>;
    const text = JSON.stringify(doc).replaceAll('"name":"Update room status"', '"name":"Update room status v2"');
    const res = await t.call('POST', '/api/recipes', { raw: text, headers: { 'content-type': 'application/json' } });
    const start = await t.call('PUT', `/api/recipes/${res.body.id}/start`);
    assert.equal(start.body.success, false);
    assert.deepEqual(start.body.code_errors, [
      [13, [['Recipe', 'Update room status v2', 'does not name a recipe of this environment', 'flow_id']]],
    ]);
  });
});

const contact = {
  found: true,
  id: 'C-1',
  email: 'ana@example.com',
  first_name: 'Ana',
  last_name: 'Lima',
  contact_type: 'Guest',
};
const booking = {
  booking_id: 'B-1',
  booking_number: 'BK-001',
  room_id: 'R-1',
  room_number: '101',
  room_status: 'Vacant',
  floor: 1,
  room_type: 'Double',
  opportunity_id: 'O-1',
  check_out_date: '2026-01-20',
};
const ok = { success: true };

describe('check_in_guest through the gateway', () => {
  test('guest not found: 404 GUEST_NOT_FOUND', async () => {
    await stubs({ 'Search contact by email': { found: false } });
    const res = await call('check_in_guest', { guest_email: 'nobody@example.com' });
    assert.equal(res.status, 404);
    assert.equal(res.body.error_code, 'GUEST_NOT_FOUND');
    assert.equal(res.body.success, false);
    assert.match(String(res.body.error_message), /nobody@example.com does not exist/);
  });

  test('no reservation: 404; several: 409; room not vacant: 409', async () => {
    await stubs({ 'Search contact by email': contact, 'Search booking by contact and date': { bookings: [] } });
    const none = await call('check_in_guest', { guest_email: 'ana@example.com', check_in_date: '2026-01-15' });
    assert.equal(none.status, 404);
    assert.equal(none.body.error_code, 'RESERVATION_NOT_FOUND');
    assert.match(String(none.body.details), /contact_id: C-1, check_in_date: 2026-01-15/);

    await stubs({ 'Search booking by contact and date': { bookings: [booking, { ...booking, booking_id: 'B-2' }] } });
    const many = await call('check_in_guest', { guest_email: 'ana@example.com' });
    assert.equal(many.status, 409);
    assert.equal(many.body.error_code, 'MULTIPLE_RESERVATIONS');

    await stubs({ 'Search booking by contact and date': { bookings: [{ ...booking, room_status: 'Occupied' }] } });
    const busy = await call('check_in_guest', { guest_email: 'ana@example.com' });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error_code, 'ROOM_NOT_VACANT');
    assert.equal(busy.body.error_message, 'Room 101 is not available for check-in (current status: Occupied)');
  });

  test('checked in: 200 with the booking, after three updates', async () => {
    await stubs({
      'Search contact by email': contact,
      'Search booking by contact and date': { bookings: [booking] },
      'Update booking status': ok,
      'Update room status': ok,
      'Update opportunity stage': ok,
    });
    const res = await call('check_in_guest', {
      guest_email: 'ana@example.com',
      check_in_date: '2026-01-15',
      payment_id: 'ch_1',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.booking_number, 'BK-001');
    assert.equal(res.body.room_number, '101');
    const jobs = await t.call('GET', `/api/recipes/${recipeIds.get('check_in_guest')}/jobs?per_page=1`);
    const detail = await t.call('GET', `/api/recipes/${recipeIds.get('check_in_guest')}/jobs/${jobs.body.items[0].id}`);
    assert.deepEqual(
      detail.body.lines.map((l: { recipe_line_number: number }) => l.recipe_line_number),
      [0, 2, 5, 12, 13, 14, 15],
    );
    // The function's job knows who called it.
    const update = await t.call('GET', `/api/recipes?adapter_names_any=workato_recipe_function&per_page=100`);
    const updateRoom = update.body.items.find((r: { name: string }) => r.name === 'Update room status');
    const calls = await t.call('GET', `/api/recipes/${updateRoom.id}/jobs?per_page=1`);
    assert.equal(calls.body.items[0].calling_recipe_id, recipeIds.get('check_in_guest'));
    assert.equal(calls.body.items[0].calling_job_id, jobs.body.items[0].id);
  });

  test('a function that fails: the catch answers 500 SALESFORCE_ERROR', async () => {
    await stubs({ 'Search contact by email': 'not json' });
    const res = await call('check_in_guest', { guest_email: 'ana@example.com' });
    assert.equal(res.status, 500);
    assert.equal(res.body.error_code, 'SALESFORCE_ERROR');
    assert.match(String(res.body.error_message), /Search contact by email/);
  });
});

describe('the other recipes through the gateway', () => {
  test('upsert_contact_by_email: found 200, created 201', async () => {
    await stubs({ 'Search contact by email': contact });
    const found = await call('upsert_contact_by_email', { email: 'ana@example.com' });
    assert.equal(found.status, 200);
    assert.equal(found.body.contact_id, 'C-1');
    await stubs({
      'Search contact by email': { found: false },
      'Upsert contact': { id: 'C-9', email: 'new@example.com' },
    });
    const created = await call('upsert_contact_by_email', {
      email: 'new@example.com',
      first_name: 'New',
      last_name: 'Guest',
      contact_type: 'Guest',
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.contact_id, 'C-9');
  });

  test('create_booking_orchestrator: missing fields 400, room taken 409, booked 201', async () => {
    const missing = await call('create_booking_orchestrator', { guest_email: 'ana@example.com' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error_code, 'REQUIRED_FIELDS_MISSING');
    const request = {
      guest_email: 'ana@example.com',
      guest_first_name: 'Ana',
      guest_last_name: 'Lima',
      room_number: '101',
      check_in_date: '2026-02-01',
      check_out_date: '2026-02-03',
      booking_external_id: 'ext-1',
      number_of_guests: 2,
    };
    await stubs({
      'Search contact by email': contact,
      'Search room by number': { found: true, id: 'R-1', floor: 1 },
      'Search bookings by room and dates': { has_conflicts: true },
    });
    const taken = await call('create_booking_orchestrator', request);
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error_code, 'ROOM_ALREADY_BOOKED');
    await stubs({
      'Search bookings by room and dates': { has_conflicts: false },
      'Create opportunity': { opportunity_id: 'O-7' },
      'Upsert booking': { booking_id: 'B-7', booking_number: 'BK-7' },
    });
    const booked = await call('create_booking_orchestrator', request);
    assert.equal(booked.status, 201, JSON.stringify(booked.body));
    assert.equal(booked.body.booking_id, 'B-7');
  });

  test('manage_booking_orchestrator: unknown booking 400, updated 200', async () => {
    await stubs({ 'Search booking by external ID': { found: null } });
    const unknown = await call('manage_booking_orchestrator', { external_id: 'ext-x' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error_code, 'BOOKING_NOT_FOUND');
    await stubs({
      'Search booking by external ID': { found: true, check_in_date: '2026-02-01', check_out_date: '2026-02-03' },
      'Upsert booking': { booking_id: 'B-1', booking_number: 'BK-001', created: false },
    });
    const updated = await call('manage_booking_orchestrator', { external_id: 'ext-1', number_of_guests: 3 });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.booking_number, 'BK-001');
  });

  test('manage_cases_orchestrator: upserted 200, failed upsert 400', async () => {
    await stubs({
      'Search case by token': { found: false },
      'Search contact by email': contact,
      'Upsert case': { case_id: 'CS-1', case_number: '0001', created: true, status: 'New' },
    });
    const res = await call('manage_cases_orchestrator', {
      idempotency_token: 'tok-1',
      guest_email: 'ana@example.com',
      subject: 'Towels',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.case_number, '0001');
    await stubs({ 'Upsert case': {} });
    const failed = await call('manage_cases_orchestrator', { idempotency_token: 'tok-2' });
    assert.equal(failed.status, 400);
    assert.equal(failed.body.error_code, 'UPSERT_FAILED');
  });

  test('process_guest_checkout: paid 200, 3-D Secure 202, declined 402 (the guest check is as the recipe has it)', async () => {
    const request = {
      guest_email: 'ana@example.com',
      guest_name: 'Ana Lima',
      amount: 25000,
      payment_method_id: 'pm_1',
      room_number: '101',
      idempotency_token: 'tok',
    };
    await stubs({
      'Search contact by email': { found: false, id: 'C-1' },
      'Create Stripe customer': { customer_id: 'cus_1' },
      'Create Stripe payment intent': { payment_intent_id: 'pi_1' },
      'Confirm Stripe payment': { status: 'succeeded', charge_id: 'ch_1' },
      'Search booking by contact and date': { bookings: [booking] },
      'Update booking status': ok,
      'Update room status': ok,
      'Update opportunity stage': ok,
    });
    const paid = await call('process_guest_checkout', request);
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.transaction_id, 'ch_1');
    await stubs({
      'Confirm Stripe payment': {
        status: 'requires_action',
        next_action_type: 'redirect_to_url',
        next_action_url: 'https://3ds.example',
      },
    });
    const action = await call('process_guest_checkout', request);
    assert.equal(action.status, 202);
    assert.equal(action.body.next_action_url, 'https://3ds.example');
    await stubs({ 'Confirm Stripe payment': { status: 'requires_payment_method', error_code: 'card_declined' } });
    const declined = await call('process_guest_checkout', request);
    assert.equal(declined.status, 402);
    assert.equal(declined.body.payment_error, 'card_declined');
    await stubs({ 'Search contact by email': contact });
    assert.equal((await call('process_guest_checkout', request)).status, 404);
  });

  test('submit_guest_service_request and submit_maintenance_request: 201', async () => {
    await stubs({
      'Search contact by email': contact,
      'Search room by number': { found: true, id: 'R-1', status: 'Occupied' },
      'Upsert case': { case_id: 'CS-2', case_number: '0002', created: true, status: 'New' },
    });
    const guest = await call('submit_guest_service_request', {
      idempotency_token: 't1',
      guest_email: 'ana@example.com',
      room_number: '101',
      type: 'Housekeeping',
      priority: 'Low',
      description: 'Towels',
    });
    assert.equal(guest.status, 201, JSON.stringify(guest.body));
    assert.equal(guest.body.case_number, '0002');
    await stubs({ 'Search contact by email': { ...contact, contact_type: 'Staff' } });
    const maintenance = await call('submit_maintenance_request', {
      idempotency_token: 't2',
      manager_email: 'boss@example.com',
      room_number: '101',
      type: 'Plumbing',
      priority: 'High',
      description: 'Leak',
    });
    assert.equal(maintenance.status, 201, JSON.stringify(maintenance.body));
    await stubs({ 'Search room by number': { found: false } });
    const noRoom = await call('submit_maintenance_request', {
      idempotency_token: 't3',
      manager_email: 'boss@example.com',
      room_number: '999',
    });
    assert.equal(noRoom.status, 400);
    assert.equal(noRoom.body.error_code, 'ROOM_NOT_FOUND');
  });

  test('compensate_checkout_failure: refunded and reverted 200, not refundable 422', async () => {
    await stubs({
      'Retrieve Stripe payment status': { status: 'succeeded', charge_id: 'ch_1' },
      'Search contact by email': contact,
      'Create Stripe refund': { refund_id: 're_1', amount: 25000, status: 'succeeded' },
      'Search booking by contact and date': { bookings: [booking] },
      'Update booking status': ok,
      'Update room status': ok,
      'Update opportunity stage': ok,
    });
    const refunded = await call('compensate_checkout_failure', {
      payment_intent_id: 'pi_1',
      guest_email: 'ana@example.com',
      idempotency_token: 'tok',
      reason: 'checkout failed',
    });
    assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
    assert.equal(refunded.body.refund_id, 're_1');
    assert.match(String(refunded.body.message), /reverted successfully/);
    await stubs({ 'Retrieve Stripe payment status': { status: 'requires_payment_method' } });
    const refused = await call('compensate_checkout_failure', {
      payment_intent_id: 'pi_2',
      guest_email: 'ana@example.com',
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error_code, 'PAYMENT_NOT_REFUNDABLE');
  });

  test("a stopped recipe's endpoint answers 404; a call without a token 401", async () => {
    const id = recipeIds.get('manage_cases_orchestrator') as number;
    await t.call('PUT', `/api/recipes/${id}/stop`);
    assert.equal((await call('manage_cases_orchestrator', {})).status, 404);
    await t.call('PUT', `/api/recipes/${id}/start`);
    const anonymous = await t.app.inject({ method: 'POST', url: urls.get('check_in_guest') as string, payload: {} });
    assert.equal(anonymous.statusCode, 401);
  });
});

describe('real recipes as test cases', () => {
  test('check_in_guest: test cases with mocked recipe functions pass, one per branch, through a run request', async () => {
    const id = recipeIds.get('check_in_guest') as number;
    const result = (value: unknown) => ({ result: value });
    const cases = [
      {
        name: 'Guest not found',
        trigger_output: { request: { guest_email: 'nobody@example.com' } },
        mocks: [{ step: 'search_contact', output: result({ found: false }) }],
        expectations: [
          { step: 'return_guest_not_found', ran: true },
          { step: 'search_booking', ran: false },
        ],
      },
      {
        name: 'Room not vacant',
        trigger_output: { request: { guest_email: 'ana@example.com' } },
        mocks: [
          { step: 'search_contact', output: result(contact) },
          { step: 'search_booking', output: result({ bookings: [{ ...booking, room_status: 'Occupied' }] }) },
        ],
        expectations: [
          { step: 'return_room_not_vacant', ran: true },
          { step: 'update_booking', ran: false },
        ],
      },
      {
        name: 'Checked in',
        trigger_output: {
          request: { guest_email: 'ana@example.com', check_in_date: '2026-01-15', payment_id: 'ch_1' },
        },
        mocks: [
          { step: 'search_contact', output: result(contact) },
          { step: 'search_booking', output: result({ bookings: [booking] }) },
          { step: 'update_booking', output: result(ok) },
          { step: 'update_room', output: result(ok) },
          { step: 'update_opportunity', output: result(ok) },
        ],
        expectations: [
          { step: 'return_success', ran: true },
          { step: 'update_room', ran: true },
          { job_status: 'succeeded' },
        ],
      },
      {
        name: 'Salesforce down',
        trigger_output: { request: { guest_email: 'ana@example.com' } },
        mocks: [{ step: 'search_contact', error: { type: 'Recipe function error', message: 'Salesforce is down' } }],
        expectations: [
          { step: 'search_contact', failed: true, error_contains: 'Salesforce' },
          { step: 'return_error', ran: true },
        ],
      },
    ];
    for (const body of cases) {
      const res = await t.call('POST', `/api/recipes/${id}/test_cases`, { body });
      assert.equal(res.status, 200, res.text);
    }
    const started = await t.call('POST', '/api/test_cases/run_requests', { body: { recipe_id: id } });
    assert.equal(started.status, 200, started.text);
    let run = started.body.data;
    for (let i = 0; i < 400 && run.status !== 'completed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      run = (await t.call('GET', `/api/test_cases/run_requests/${run.id}`)).body.data;
    }
    assert.deepEqual(
      run.results.map((r: { test_case: { name: string }; status: string; failure?: string }) => [
        r.test_case.name,
        r.status,
        r.failure,
      ]),
      cases.map((c) => [c.name, 'succeeded', undefined]),
    );
    // 11 of the 13 steps that do something (the trigger and the actions): the answers of the two
    // branches without a test case (no reservation, several reservations) did not run.
    assert.equal(run.coverage.value, 84.6);
  });
});
