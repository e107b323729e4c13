// Zendesk Support: an API token with the agent's e-mail (basic `email/token:<token>`) or OAuth 2.0
// on the account's own subdomain; https://<subdomain>.zendesk.com/api/v2/. Test: users/me.json.
import { saasConnector } from './service.ts';
import { field, hostName, OAUTH_APP_FIELDS, secret } from './common.ts';

const site = (values: Readonly<Record<string, string | number | boolean>>) =>
  hostName(values, 'subdomain', '.zendesk.com');

export const zendesk = saasConnector({
  provider: 'zendesk',
  title: 'Zendesk',
  categories: ['Customer Service'],
  connection: {
    fields: [field('subdomain', 'Subdomain', { hint: 'yourcompany (for yourcompany.zendesk.com)' })],
    auth: {
      type: 'multi',
      default: 'api_token',
      options: {
        api_token: {
          title: 'API token',
          fields: [field('email', 'Agent email'), secret('api_token', 'API token')],
          auth: { type: 'basic', username: 'email', usernameSuffix: '/token', password: 'api_token' },
        },
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: (v) => `https://${site(v)}/oauth/authorizations/new`,
            tokenUrl: (v) => `https://${site(v)}/oauth/tokens`,
            scopes: ['read', 'write'],
          },
        },
      },
    },
    baseUrl: (state) => `https://${site(state.values)}/api/v2/`,
    test: (session) => session.request({ method: 'GET', url: 'users/me.json' }),
  },
});
