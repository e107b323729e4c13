// Zoom: OAuth 2.0 (zoom.us/oauth, client authentication by basic); API v2 under
// https://api.zoom.us/v2/. Test: users/me.
import { saasConnector } from './service.ts';
import { OAUTH_APP_FIELDS } from './common.ts';

export const zoom = saasConnector({
  provider: 'zoom',
  title: 'Zoom',
  categories: ['Communication', 'Collaboration'],
  connection: {
    fields: OAUTH_APP_FIELDS,
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: 'https://zoom.us/oauth/authorize',
      tokenUrl: 'https://zoom.us/oauth/token',
      clientAuth: 'basic',
    },
    baseUrl: () => 'https://api.zoom.us/v2/',
    test: (session) => session.request({ method: 'GET', url: 'users/me' }),
  },
});
