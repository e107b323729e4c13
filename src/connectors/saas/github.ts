// GitHub: OAuth app (github.com/login/oauth; the token reply is JSON when asked) or a personal
// access token; the REST API at https://api.github.com/ (a User-Agent is required). Test: user.
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS, secret } from './common.ts';

export const github = saasConnector({
  provider: 'github',
  title: 'GitHub',
  categories: ['Developer Tools'],
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
            authorizationUrl: 'https://github.com/login/oauth/authorize',
            tokenUrl: 'https://github.com/login/oauth/access_token',
            scopes: ['repo', 'read:org', 'user'],
          },
        },
        personal_access_token: {
          title: 'Personal access token',
          fields: [secret('personal_access_token', 'Personal access token')],
          auth: { type: 'bearer', field: 'personal_access_token' },
        },
      },
    },
    baseUrl: () => 'https://api.github.com/',
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    test: (session) => session.request({ method: 'GET', url: 'user' }),
  },
});
