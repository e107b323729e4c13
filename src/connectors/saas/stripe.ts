// Stripe: the secret key as a bearer token; https://api.stripe.com/v1/ (custom actions say
// `/v1/customers/search` or `payment_intents/<id>/confirm`; both resolve). Stripe takes form
// bodies (nested keys in brackets), never JSON. Test: the balance. Named actions: stripe-actions.ts.
import type { Connector } from '../types.ts';
import { stripeActions } from './stripe-actions.ts';
import { saasConnector } from './service.ts';
import { secret } from './common.ts';
import { stripeTriggers } from './stripe-triggers.ts';

export const stripe: Connector = saasConnector({
  provider: 'stripe',
  title: 'Stripe',
  categories: ['Payments', 'Accounting'],
  connection: {
    fields: [secret('api_key', 'Secret key', { hint: 'sk_live_... or sk_test_..., or a restricted key rk_...' })],
    auth: { type: 'bearer', field: 'api_key' },
    baseUrl: () => 'https://api.stripe.com/v1/',
    hosts: () => ['api.stripe.com', 'files.stripe.com'],
    jsonBodyAsForm: true,
    test: (session) => session.request({ method: 'GET', url: 'balance' }),
  },
  actions: stripeActions(() => stripe),
  triggers: stripeTriggers(() => stripe),
});
