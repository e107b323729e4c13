// Freshdesk: an API key as the basic user name (password `X`) on the helpdesk's domain,
// https://<domain>.freshdesk.com/api/v2/. Test: agents/me.
import { saasConnector } from './service.ts';
import { field, hostName, secret } from './common.ts';

export const freshdesk = saasConnector({
  provider: 'freshdesk',
  title: 'Freshdesk',
  categories: ['Customer Service'],
  connection: {
    fields: [
      field('domain', 'Domain', { hint: 'yourcompany (for yourcompany.freshdesk.com)' }),
      secret('api_key', 'API key'),
    ],
    auth: { type: 'basic', username: 'api_key', password: { fixed: 'X' } },
    baseUrl: (state) => `https://${hostName(state.values, 'domain', '.freshdesk.com')}/api/v2/`,
    test: (session) => session.request({ method: 'GET', url: 'agents/me' }),
  },
});
