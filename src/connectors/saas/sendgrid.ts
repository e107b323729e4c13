// SendGrid: an API key sent as a bearer token; the v3 API (https://api.sendgrid.com/v3/). Test:
// the key's scopes (GET scopes), which every key may read.
import { saasConnector } from './service.ts';
import { sendgridActions } from './sendgrid-actions.ts';
import { secret } from './common.ts';

export const sendgrid = saasConnector({
  provider: 'sendgrid',
  title: 'SendGrid',
  categories: ['Email', 'Marketing'],
  connection: {
    fields: [secret('api_key', 'API key')],
    auth: { type: 'api_key', field: 'api_key', in: 'header', name: 'Authorization', prefix: 'Bearer ' },
    baseUrl: () => 'https://api.sendgrid.com/v3/',
    test: (session) => session.request({ method: 'GET', url: 'scopes' }),
  },
  actions: sendgridActions(() => sendgrid),
});
