// Shopify stand-in. Endpoints follow the Admin REST API reference (https://shopify.dev/docs/api/admin-rest):
// - Custom app access token: header X-Shopify-Access-Token (https://shopify.dev/docs/api/usage/authentication)
// - Shop: https://shopify.dev/docs/api/admin-rest/2024-10/resources/shop
// - Orders: https://shopify.dev/docs/api/admin-rest/2024-10/resources/order#get-orders
// - Errors: {"errors": "[API] Invalid API key or access token (unrecognized login or wrong password)"}
import type { ServiceFixture } from './fixture.ts';

const TOKEN = 'shpat_standin0123456789';

export const shopify: ServiceFixture = {
  provider: 'shopify',
  spec: {
    name: 'shopify',
    origins: ['https://acme.myshopify.com'],
    authenticate: (req) =>
      req.headers['x-shopify-access-token'] === TOKEN
        ? null
        : {
            status: 401,
            json: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' },
          },
    routes: [
      {
        method: 'GET',
        path: '/admin/api/2024-10/shop.json',
        reference: 'resources/shop',
        answer: () => ({ json: { shop: { id: 1, name: 'Acme Shop', myshopify_domain: 'acme.myshopify.com' } } }),
      },
      {
        method: 'GET',
        path: '/admin/api/2024-10/orders.json',
        reference: 'resources/order#get-orders',
        answer: (req) => ({
          json: { orders: [{ id: 450789469, name: '#1001', financial_status: req.query.get('financial_status') }] },
        }),
      },
    ],
  },
  input: { shop: 'acme', auth_type: 'access_token', access_token: TOKEN },
  oauth: false,
  adhoc: {
    input: { verb: 'get', path: 'orders.json', input: { data: { status: 'any', financial_status: 'paid' } } },
    check: (body) => {
      const o = (body as { orders: Array<{ name: string; financial_status: string }> }).orders[0];
      if (o?.name !== '#1001' || o.financial_status !== 'paid') throw new Error(JSON.stringify(body));
    },
  },
};
