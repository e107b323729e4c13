// Asana: OAuth 2.0 (app.asana.com/-/oauth_authorize) or a personal access token (bearer); API 1.0
// under https://app.asana.com/api/1.0/. Test: users/me.
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS, secret } from './common.ts';

export const asana = saasConnector({
  provider: 'asana',
  title: 'Asana',
  categories: ['Project Management'],
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
            authorizationUrl: 'https://app.asana.com/-/oauth_authorize',
            tokenUrl: 'https://app.asana.com/-/oauth_token',
          },
        },
        personal_access_token: {
          title: 'Personal access token',
          fields: [secret('personal_access_token', 'Personal access token')],
          auth: { type: 'bearer', field: 'personal_access_token' },
        },
      },
    },
    baseUrl: () => 'https://app.asana.com/api/1.0/',
    test: (session) => session.request({ method: 'GET', url: 'users/me' }),
  },
});
