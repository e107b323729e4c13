// Okta: an API token (header `Authorization: SSWS <token>`) on the organization's domain; the
// management API under https://<domain>/api/v1/. Test: users/me.
import { saasConnector } from './service.ts';
import { field, hostName, secret } from './common.ts';

export const okta = saasConnector({
  provider: 'okta',
  title: 'Okta',
  categories: ['Identity'],
  connection: {
    fields: [field('domain', 'Okta domain', { hint: 'yourcompany.okta.com' }), secret('api_token', 'API token')],
    auth: { type: 'api_key', field: 'api_token', in: 'header', name: 'Authorization', prefix: 'SSWS ' },
    baseUrl: (state) => `https://${hostName(state.values, 'domain')}/api/v1/`,
    test: (session) => session.request({ method: 'GET', url: 'users/me' }),
  },
});
