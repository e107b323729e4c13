// Stripe stand-in. Endpoints follow the API reference:
// - Authentication: https://docs.stripe.com/api/authentication (bearer secret key; 401 otherwise)
// - Retrieve balance: https://docs.stripe.com/api/balance/balance_retrieve
// - Create a customer: https://docs.stripe.com/api/customers/create (form-encoded body, nested keys in brackets)
// - Search customers: https://docs.stripe.com/api/customers/search
// - List all events (triggers): https://docs.stripe.com/api/events/list (newest first; created[gte],
//   ending_before, type, limit ≤ 100; {object: "list", data, has_more})
// - Errors: https://docs.stripe.com/api/errors ({"error": {"type", "message", "param"}}), 429 rate limits
import type { ServiceFixture } from './fixture.ts';
import { bearerIs, type Answer, type StandIn, type StandInRequest } from './stand-in.ts';

export const SECRET_KEY = 'sk_test_standin0123456789';

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
        answer: (req) => {
          if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
            return {
              status: 400,
              json: { error: { type: 'invalid_request_error', message: 'Invalid request: unsupported Content-Type' } },
            };
          const form = new URLSearchParams(req.body);
          const email = form.get('email');
          if (email !== null && !email.includes('@'))
            return {
              status: 400,
              json: {
                error: { type: 'invalid_request_error', message: 'Invalid email address: ' + email, param: 'email' },
              },
            };
          return {
            json: {
              id: 'cus_123',
              object: 'customer',
              email,
              name: form.get('name'),
              metadata: { plan: form.get('metadata[plan]') },
            },
          };
        },
      },
      {
        method: 'GET',
        path: '/v1/customers/search',
        reference: 'https://docs.stripe.com/api/customers/search',
        answer: (req) =>
          req.query.get('query')
            ? {
                json: { object: 'search_result', data: [{ id: 'cus_123', email: 'ana@example.com' }], has_more: false },
              }
            : {
                status: 400,
                json: {
                  error: { type: 'invalid_request_error', message: 'Missing required param: query.', param: 'query' },
                },
              },
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
      if (c.id !== 'cus_123' || c.metadata.plan !== 'pro') throw new Error(JSON.stringify(body));
    },
  },
};
