// Airtable: a personal access token (bearer) or OAuth 2.0 (PKCE required, client authentication by
// basic); https://api.airtable.com/v0/. Test: meta/whoami.
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS, secret } from './common.ts';

export const airtable = saasConnector({
  provider: 'airtable',
  title: 'Airtable',
  categories: ['Spreadsheets', 'Database'],
  connection: {
    fields: [],
    auth: {
      type: 'multi',
      default: 'personal_access_token',
      options: {
        personal_access_token: {
          title: 'Personal access token',
          fields: [secret('personal_access_token', 'Personal access token')],
          auth: { type: 'bearer', field: 'personal_access_token' },
        },
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: 'https://airtable.com/oauth2/v1/authorize',
            tokenUrl: 'https://airtable.com/oauth2/v1/token',
            scopes: ['data.records:read', 'data.records:write', 'schema.bases:read', 'user.email:read'],
            clientAuth: 'basic',
          },
        },
      },
    },
    baseUrl: () => 'https://api.airtable.com/v0/',
    test: (session) => session.request({ method: 'GET', url: 'meta/whoami' }),
  },
});
