// Intercom: OAuth 2.0 (app.intercom.com/oauth, tokens at api.intercom.io/auth/eagle/token; tokens
// do not expire) or an access token; https://api.intercom.io/. Test: me.
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS, secret } from './common.ts';

export const intercom = saasConnector({
  provider: 'intercom',
  title: 'Intercom',
  categories: ['Customer Service', 'Marketing'],
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
            authorizationUrl: 'https://app.intercom.com/oauth',
            tokenUrl: 'https://api.intercom.io/auth/eagle/token',
            pkce: false,
          },
        },
        access_token: {
          title: 'Access token',
          fields: [secret('access_token', 'Access token')],
          auth: { type: 'bearer', field: 'access_token' },
        },
      },
    },
    baseUrl: () => 'https://api.intercom.io/',
    headers: { 'intercom-version': '2.11' },
    test: (session) => session.request({ method: 'GET', url: 'me' }),
  },
});
