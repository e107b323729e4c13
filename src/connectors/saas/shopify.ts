// Shopify: a custom app's Admin API access token (header X-Shopify-Access-Token) or OAuth 2.0 on
// the shop's own host; the Admin REST API under https://<shop>.myshopify.com/admin/api/2024-10/.
// Test: shop.json.
import { saasConnector } from './service.ts';
import { field, hostName, OAUTH_APP_FIELDS, secret } from './common.ts';

export const SHOPIFY_API_VERSION = '2024-10';
const shop = (values: Readonly<Record<string, string | number | boolean>>) =>
  hostName(values, 'shop', '.myshopify.com');

export const shopify = saasConnector({
  provider: 'shopify',
  title: 'Shopify',
  categories: ['E-commerce'],
  connection: {
    fields: [field('shop', 'Shop name', { hint: 'yourshop (for yourshop.myshopify.com)' })],
    auth: {
      type: 'multi',
      default: 'access_token',
      options: {
        access_token: {
          title: 'Admin API access token',
          fields: [secret('access_token', 'Admin API access token')],
          auth: { type: 'api_key', field: 'access_token', in: 'header', name: 'X-Shopify-Access-Token' },
        },
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: (v) => `https://${shop(v)}/admin/oauth/authorize`,
            tokenUrl: (v) => `https://${shop(v)}/admin/oauth/access_token`,
            scopes: ['read_orders', 'write_orders', 'read_products', 'write_products', 'read_customers'],
            scopeSeparator: ',',
            pkce: false,
          },
        },
      },
    },
    baseUrl: (state) => `https://${shop(state.values)}/admin/api/${SHOPIFY_API_VERSION}/`,
    test: (session) => session.request({ method: 'GET', url: 'shop.json' }),
  },
});
