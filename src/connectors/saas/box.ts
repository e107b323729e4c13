// Box: OAuth 2.0 (account.box.com, tokens at api.box.com; refresh tokens rotate); API 2.0 under
// https://api.box.com/2.0/ (uploads on upload.box.com). Test: users/me.
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS } from './common.ts';

export const box = saasConnector({
  provider: 'box',
  title: 'Box',
  categories: ['Document/File'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: 'https://account.box.com/api/oauth2/authorize',
      tokenUrl: 'https://api.box.com/oauth2/token',
      pkce: false,
    },
    baseUrl: () => 'https://api.box.com/2.0/',
    hosts: () => ['api.box.com', 'upload.box.com'],
    test: (session) => session.request({ method: 'GET', url: 'users/me' }),
  },
});
