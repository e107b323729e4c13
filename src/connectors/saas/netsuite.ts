// NetSuite: token-based authentication (OAuth 1.0a signatures with HMAC-SHA256, the account id as
// realm) on the account's SuiteTalk REST host, https://<account>.suitetalk.api.netsuite.com/services/rest/
// (account ids like 1234567_SB1 become 1234567-sb1 in the host). Test: the record metadata catalog.
import { saasConnector } from './service.ts';
import { field, secret, text } from './common.ts';
import { StepError } from '../step-error.ts';

function accountHost(values: Readonly<Record<string, string | number | boolean>>): string {
  const account = text(values, 'account_id').toLowerCase().replace(/_/g, '-');
  if (!/^[a-z0-9-]{1,40}$/.test(account))
    throw new StepError('Bad request', 'account_id must be a NetSuite account id');
  return `${account}.suitetalk.api.netsuite.com`;
}

export const netsuite = saasConnector({
  provider: 'netsuite',
  title: 'NetSuite',
  categories: ['ERP', 'Accounting'],
  connection: {
    fields: [
      field('account_id', 'Account ID', { hint: '1234567 or 1234567_SB1' }),
      field('consumer_key', 'Consumer key'),
      secret('consumer_secret', 'Consumer secret'),
      field('token_id', 'Token ID'),
      secret('token_secret', 'Token secret'),
    ],
    auth: {
      type: 'oauth1_tba',
      consumerKey: 'consumer_key',
      consumerSecret: 'consumer_secret',
      tokenId: 'token_id',
      tokenSecret: 'token_secret',
      realm: (v) => text(v, 'account_id').toUpperCase(),
    },
    baseUrl: (state) => `https://${accountHost(state.values)}/services/rest/`,
    test: (session) => session.request({ method: 'GET', url: 'record/v1/metadata-catalog' }),
  },
});
