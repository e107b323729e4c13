// HubSpot: OAuth 2.0 (app.hubspot.com, tokens at api.hubapi.com) or a private app's access token
// (bearer); https://api.hubapi.com/. Test: one contact (crm/v3/objects/contacts).
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS, secret } from './common.ts';

export const hubspot = saasConnector({
  provider: 'hubspot',
  title: 'HubSpot',
  categories: ['CRM', 'Marketing'],
  connection: {
    fields: [],
    auth: {
      type: 'multi',
      default: 'oauth2',
      options: {
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: 'https://app.hubspot.com/oauth/authorize',
            tokenUrl: 'https://api.hubapi.com/oauth/v1/token',
            scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'],
            pkce: false,
          },
        },
        private_app: {
          title: 'Private app access token',
          fields: [secret('access_token', 'Access token')],
          auth: { type: 'bearer', field: 'access_token' },
        },
      },
    },
    baseUrl: () => 'https://api.hubapi.com/',
    test: (session) => session.request({ method: 'GET', url: 'crm/v3/objects/contacts', query: { limit: 1 } }),
  },
});
