// Stripe stand-in. Endpoints follow the API reference:
// - Authentication: https://docs.stripe.com/api/authentication (bearer secret key; 401 otherwise)
// - Retrieve balance: https://docs.stripe.com/api/balance/balance_retrieve
// - Customers: https://docs.stripe.com/api/customers/create, /update (POST /v1/customers/:id),
//   /retrieve, /list, /search (form-encoded bodies, nested keys in brackets: metadata[plan]=pro)
// - Invoice items: https://docs.stripe.com/api/invoiceitems/create (customer required; amount with
//   currency, or a price)
// - Invoices: https://docs.stripe.com/api/invoices/create (customer required; a draft that takes the
//   customer's pending invoice items; total = their sum), /retrieve
// - Charges: https://docs.stripe.com/api/charges/create (amount and currency required; at least 50
//   cents; a customer or a source; the test card token tok_chargeDeclined is declined with 402
//   card_error: https://docs.stripe.com/testing#declined-payments)
// - Pagination: https://docs.stripe.com/api/pagination (limit 1..100, starting_after, has_more)
// - Errors: https://docs.stripe.com/api/errors ({"error": {"type", "code", "message", "param"}}),
//   404 resource_missing, 429 rate limits
// - List all events (triggers): https://docs.stripe.com/api/events/list (newest first; created[gte],
//   ending_before, type, limit ≤ 100; {object: "list", data, has_more})
import type { ServiceFixture } from './fixture.ts';
import { bearerIs, type Answer, type StandIn, type StandInRequest } from './stand-in.ts';

export const SECRET_KEY = 'sk_test_standin0123456789';

type StripeObject = Record<string, unknown> & { id: string; object?: string };

const stores = new WeakMap<StandIn, Map<string, StripeObject[]>>();
/** Each stand-in's objects by resource (`customers`, `invoices`...), seeded with one customer. */
export function objects(standIn: StandIn, resource: string): StripeObject[] {
  let store = stores.get(standIn);
  if (!store) {
    // Seeded as the custom-action tests read it back from a search (id and email).
    store = new Map([['customers', [{ id: 'cus_123', email: 'ana@example.com' }]]]);
    stores.set(standIn, store);
  }
  if (!store.has(resource)) store.set(resource, []);
  return store.get(resource) as StripeObject[];
}

let sequence = 0;
const newId = (prefix: string) => `${prefix}_SB${String(++sequence).padStart(12, '0')}`;

const invalid = (message: string, param?: string, status = 400): Answer => ({
  status,
  json: { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } },
});
const missing = (kind: string, id: string, param = 'id'): Answer => ({
  status: 404,
  json: {
    error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, param },
  },
});

/** The form body (Stripe takes nothing else) with bracketed keys made objects; null when it is not a form. */
function form(req: StandInRequest): Record<string, unknown> | null {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(req.body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let at = out;
    for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
    at[parts.at(-1) as string] = value;
  }
  return out;
}
const notForm = invalid('Invalid request: unsupported Content-Type. Use application/x-www-form-urlencoded');

function withForm(req: StandInRequest, then: (body: Record<string, unknown>) => Answer): Answer {
  const body = form(req);
  return body === null ? notForm : then(body);
}

const customerOf = (standIn: StandIn, id: unknown) => objects(standIn, 'customers').find((c) => c.id === id);

function positiveInteger(value: unknown): number | null {
  const n = Number(value);
  return typeof value === 'string' && /^\d+$/.test(value) && Number.isSafeInteger(n) ? n : null;
}

/** GET /v1/<resource>: newest first, `limit` (1..100, default 10), `starting_after`. */
function list(req: StandInRequest, standIn: StandIn, resource: string): Answer {
  const limit = req.query.get('limit') === null ? 10 : positiveInteger(req.query.get('limit'));
  if (limit === null || limit < 1 || limit > 100) return invalid('Invalid integer: limit must be 1 to 100', 'limit');
  let rows = [...objects(standIn, resource)].reverse();
  const customer = req.query.get('customer');
  if (customer !== null) rows = rows.filter((r) => r.customer === customer);
  const after = req.query.get('starting_after');
  if (after !== null) {
    const at = rows.findIndex((r) => r.id === after);
    if (at < 0) return missing(resource.replace(/s$/, ''), after, 'starting_after');
    rows = rows.slice(at + 1);
  }
  return {
    json: { object: 'list', url: `/v1/${resource}`, data: rows.slice(0, limit), has_more: rows.length > limit },
  };
}

function retrieve(req: StandInRequest, standIn: StandIn, resource: string, kind: string): Answer {
  const id = req.path.split('/')[3] as string;
  const row = objects(standIn, resource).find((r) => r.id === id);
  return row ? { json: row } : missing(kind, id);
}

const ID = '[A-Za-z0-9_]+';

// Events (the `new_event` trigger's list).
export interface StripeEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: boolean;
  data: { object: Record<string, unknown> };
}
const eventStores = new WeakMap<StandIn, StripeEvent[]>();
/** The stand-in's events, oldest first (tests push to it). */
export function stripeEvents(standIn: StandIn): StripeEvent[] {
  let list = eventStores.get(standIn);
  if (!list) eventStores.set(standIn, (list = []));
  return list;
}
function listEvents(req: StandInRequest, standIn: StandIn): Answer {
  const invalid = (message: string, param: string): Answer => ({
    status: 400,
    json: { error: { type: 'invalid_request_error', message, param } },
  });
  const limit = Number(req.query.get('limit') ?? '10');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return invalid('Invalid integer: limit must be between 1 and 100', 'limit');
  const gte = req.query.get('created[gte]');
  if (gte !== null && !/^\d+$/.test(gte)) return invalid('Invalid integer: created[gte]', 'created');
  const type = req.query.get('type');
  let list = stripeEvents(standIn).filter(
    (e) => (gte === null || e.created >= Number(gte)) && (type === null || e.type === type),
  );
  const before = req.query.get('ending_before');
  if (before !== null) {
    const at = list.findIndex((e) => e.id === before);
    if (at < 0) return invalid(`No such event: '${before}'`, 'ending_before');
    // The events just after the cursor, given newest first.
    const newer = list.slice(at + 1);
    const page = newer.slice(0, limit);
    return { json: { object: 'list', url: '/v1/events', has_more: newer.length > limit, data: page.reverse() } };
  }
  const newestFirst = [...list].reverse();
  list = newestFirst.slice(0, limit);
  return { json: { object: 'list', url: '/v1/events', has_more: newestFirst.length > limit, data: list } };
}

export const stripe: ServiceFixture = {
  provider: 'stripe',
  spec: {
    name: 'stripe',
    origins: ['https://api.stripe.com'],
    authenticate: (req) =>
      bearerIs(req, SECRET_KEY, {
        status: 401,
        json: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } },
      }),
    routes: [
      { method: 'GET', path: '/v1/events', reference: 'https://docs.stripe.com/api/events/list', answer: listEvents },
      {
        method: 'GET',
        path: '/v1/balance',
        reference: 'https://docs.stripe.com/api/balance/balance_retrieve',
        answer: () => ({
          json: { object: 'balance', available: [{ amount: 1000, currency: 'usd' }], livemode: false },
        }),
      },
      {
        method: 'POST',
        path: '/v1/customers',
        reference: 'https://docs.stripe.com/api/customers/create',
        answer: (req, standIn) =>
          withForm(req, (body) => {
            if (typeof body.email === 'string' && !body.email.includes('@'))
              return invalid(`Invalid email address: ${body.email}`, 'email');
            const customer: StripeObject = {
              id: newId('cus'),
              object: 'customer',
              email: body.email ?? null,
              name: body.name ?? null,
              description: body.description ?? null,
              phone: body.phone ?? null,
              metadata: body.metadata ?? {},
              livemode: false,
            };
            objects(standIn, 'customers').push(customer);
            return { json: customer };
          }),
      },
      {
        method: 'GET',
        path: '/v1/customers/search',
        reference: 'https://docs.stripe.com/api/customers/search',
        answer: (req, standIn) => {
          const query = req.query.get('query');
          if (!query) return invalid('Missing required param: query.', 'query');
          const m = /^email:'([^']*)'$/.exec(query);
          if (!m) return invalid(`Invalid search query: ${query}`, 'query');
          const data = objects(standIn, 'customers').filter((c) => c.email === m[1]);
          return { json: { object: 'search_result', data, has_more: false } };
        },
      },
      {
        method: 'GET',
        path: '/v1/customers',
        reference: 'https://docs.stripe.com/api/customers/list',
        answer: (req, standIn) => list(req, standIn, 'customers'),
      },
      {
        method: 'GET',
        path: new RegExp(`^/v1/customers/${ID}$`),
        reference: 'https://docs.stripe.com/api/customers/retrieve',
        answer: (req, standIn) => retrieve(req, standIn, 'customers', 'customer'),
      },
      {
        method: 'POST',
        path: new RegExp(`^/v1/customers/${ID}$`),
        reference: 'https://docs.stripe.com/api/customers/update',
        answer: (req, standIn) =>
          withForm(req, (body) => {
            const id = req.path.split('/')[3] as string;
            const customer = customerOf(standIn, id);
            if (!customer) return missing('customer', id);
            const { metadata, ...rest } = body;
            Object.assign(customer, rest);
            if (metadata) customer.metadata = { ...(customer.metadata as object), ...(metadata as object) };
            return { json: customer };
          }),
      },
      {
        method: 'POST',
        path: '/v1/invoiceitems',
        reference: 'https://docs.stripe.com/api/invoiceitems/create',
        answer: (req, standIn) =>
          withForm(req, (body) => {
            if (!body.customer) return invalid('Missing required param: customer.', 'customer');
            if (!customerOf(standIn, body.customer)) return missing('customer', String(body.customer), 'customer');
            if (body.price === undefined) {
              const amount = positiveInteger(body.amount);
              if (amount === null) return invalid('Missing required param: amount.', 'amount');
              if (!body.currency) return invalid('Missing required param: currency.', 'currency');
            }
            const item: StripeObject = {
              id: newId('ii'),
              object: 'invoiceitem',
              customer: body.customer,
              amount: Number(body.amount ?? 0),
              currency: body.currency ?? 'usd',
              description: body.description ?? null,
              invoice: body.invoice ?? null,
              metadata: body.metadata ?? {},
            };
            objects(standIn, 'invoiceitems').push(item);
            return { json: item };
          }),
      },
      {
        method: 'POST',
        path: '/v1/invoices',
        reference: 'https://docs.stripe.com/api/invoices/create',
        answer: (req, standIn) =>
          withForm(req, (body) => {
            if (!body.customer) return invalid('Missing required param: customer.', 'customer');
            const customer = customerOf(standIn, body.customer);
            if (!customer) return missing('customer', String(body.customer), 'customer');
            const id = newId('in');
            const pending = objects(standIn, 'invoiceitems').filter(
              (i) => i.customer === body.customer && i.invoice === null,
            );
            for (const item of pending) item.invoice = id;
            const total = pending.reduce((sum, i) => sum + Number(i.amount), 0);
            const invoice: StripeObject = {
              id,
              object: 'invoice',
              customer: body.customer,
              customer_email: customer.email ?? null,
              customer_name: customer.name ?? null,
              status: 'draft',
              collection_method: body.collection_method ?? 'charge_automatically',
              description: body.description ?? null,
              currency: pending[0]?.currency ?? 'usd',
              total,
              amount_due: total,
              lines: { object: 'list', data: pending, has_more: false },
              metadata: body.metadata ?? {},
            };
            objects(standIn, 'invoices').push(invoice);
            return { json: invoice };
          }),
      },
      {
        method: 'GET',
        path: new RegExp(`^/v1/invoices/${ID}$`),
        reference: 'https://docs.stripe.com/api/invoices/retrieve',
        answer: (req, standIn) => retrieve(req, standIn, 'invoices', 'invoice'),
      },
      {
        method: 'GET',
        path: '/v1/invoices',
        reference: 'https://docs.stripe.com/api/invoices/list',
        answer: (req, standIn) => list(req, standIn, 'invoices'),
      },
      {
        method: 'POST',
        path: '/v1/charges',
        reference: 'https://docs.stripe.com/api/charges/create',
        answer: (req, standIn) =>
          withForm(req, (body) => {
            const amount = positiveInteger(body.amount);
            if (amount === null) return invalid('Missing required param: amount.', 'amount');
            if (!body.currency) return invalid('Missing required param: currency.', 'currency');
            if (amount < 50) return invalid('Amount must be at least $0.50 usd', 'amount');
            if (body.customer !== undefined && !customerOf(standIn, body.customer))
              return missing('customer', String(body.customer), 'customer');
            if (body.customer === undefined && body.source === undefined)
              return invalid('Must provide source or customer.');
            if (body.source === 'tok_chargeDeclined')
              return {
                status: 402,
                json: {
                  error: {
                    type: 'card_error',
                    code: 'card_declined',
                    decline_code: 'generic_decline',
                    message: 'Your card was declined.',
                  },
                },
              };
            const charge: StripeObject = {
              id: newId('ch'),
              object: 'charge',
              amount,
              currency: body.currency,
              customer: body.customer ?? null,
              description: body.description ?? null,
              receipt_email: body.receipt_email ?? null,
              paid: true,
              status: 'succeeded',
              metadata: body.metadata ?? {},
            };
            objects(standIn, 'charges').push(charge);
            return { json: charge };
          }),
      },
      {
        method: 'GET',
        path: '/v1/charges',
        reference: 'https://docs.stripe.com/api/charges/list',
        answer: (req, standIn) => list(req, standIn, 'charges'),
      },
      {
        method: 'GET',
        path: new RegExp(`^/v1/charges/${ID}$`),
        reference: 'https://docs.stripe.com/api/charges/retrieve',
        answer: (req, standIn) => retrieve(req, standIn, 'charges', 'charge'),
      },
    ],
  },
  input: { api_key: SECRET_KEY },
  oauth: false,
  adhoc: {
    input: {
      verb: 'post',
      path: '/v1/customers',
      input: { data: { email: 'ana@example.com', name: 'Ana', metadata: { plan: 'pro' } } },
    },
    check: (body) => {
      const c = body as { id: string; metadata: { plan: string } };
      if (!c.id.startsWith('cus_') || c.metadata.plan !== 'pro') throw new Error(JSON.stringify(body));
    },
  },
};
