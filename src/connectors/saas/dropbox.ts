// Dropbox: OAuth 2.0 with offline access (a refresh token); API v2 RPC endpoints are POSTs under
// https://api.dropboxapi.com/2/ (content endpoints on content.dropboxapi.com). Test:
// users/get_current_account (a POST without a body).
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS } from './common.ts';

export const dropbox = saasConnector({
  provider: 'dropbox',
  title: 'Dropbox',
  categories: ['Document/File'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: 'https://www.dropbox.com/oauth2/authorize',
      tokenUrl: 'https://api.dropboxapi.com/oauth2/token',
      authorizationParams: { token_access_type: 'offline' },
    },
    baseUrl: () => 'https://api.dropboxapi.com/2/',
    hosts: () => ['api.dropboxapi.com', 'content.dropboxapi.com'],
    test: (session) => session.request({ method: 'POST', url: 'users/get_current_account' }),
  },
});
