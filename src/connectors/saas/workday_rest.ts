// Workday REST: the tenant's API client (OAuth 2.0 authorization code, with the tenant's own
// authorization and token endpoints), or an integration user's refresh token given in the
// connection (then no redirect); requests go to the tenant's REST API endpoint. Test: one worker.
import { saasConnector } from './service.ts';
import { field, secret, urlField } from './common.ts';

export const workdayRest = saasConnector({
  provider: 'workday_rest',
  title: 'Workday REST',
  categories: ['HR'],
  connection: {
    fields: [
      field('rest_api_endpoint', 'REST API endpoint', {
        hint: 'https://wd2-impl-services1.workday.com/ccx/api/v1/yourtenant',
      }),
      field('authorization_endpoint', 'Authorization endpoint'),
      field('token_endpoint', 'Token endpoint'),
      field('client_id', 'Client ID'),
      secret('client_secret', 'Client secret'),
      secret('refresh_token', 'Refresh token', {
        optional: true,
        hint: 'For an integration system user: no redirect then',
      }),
    ],
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: (v) => urlField(v, 'authorization_endpoint'),
      tokenUrl: (v) => urlField(v, 'token_endpoint'),
      refreshTokenField: 'refresh_token',
      clientAuth: 'basic',
    },
    baseUrl: (state) => `${urlField(state.values, 'rest_api_endpoint')}/`,
    test: (session) => session.request({ method: 'GET', url: 'workers', query: { limit: 1 } }),
  },
});
