// Twilio: the account SID and auth token (basic); the 2010-04-01 API under
// https://api.twilio.com/2010-04-01/Accounts/<sid>/, form bodies. Test: the account itself.
import { saasConnector } from './service.ts';
import { field, secret, text } from './common.ts';

export const twilio = saasConnector({
  provider: 'twilio',
  title: 'Twilio',
  categories: ['Communication'],
  connection: {
    fields: [field('account_sid', 'Account SID'), secret('auth_token', 'Auth token')],
    auth: { type: 'basic', username: 'account_sid', password: 'auth_token' },
    baseUrl: (state) =>
      `https://api.twilio.com/2010-04-01/Accounts/${encodeURIComponent(text(state.values, 'account_sid'))}/`,
    jsonBodyAsForm: true,
    test: (session) =>
      session.request({
        method: 'GET',
        url: `/2010-04-01/Accounts/${encodeURIComponent(text(session.state.values, 'account_sid'))}.json`,
      }),
  },
});
