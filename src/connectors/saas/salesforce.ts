// Salesforce (contract 22 §1): OAuth 2.0 authorization code through login.salesforce.com (or a
// sandbox's test.salesforce.com); the REST API lives on the instance the token reply names
// (`instance_url`). Base URL: <instance>/services/data/v60.0/, so `sobjects/Account` and
// `/services/data/v58.0/query` both resolve. Test: the version's resource list.
// Named actions: salesforce-actions.ts.
import type { Connector } from '../types.ts';
import { salesforceActions } from './salesforce-actions.ts';
import { salesforceTriggers } from './salesforce-triggers.ts';
import { saasConnector } from './service.ts';
import { field, fromAuthorization, OAUTH_APP_FIELDS, text } from './common.ts';

export const API_VERSION = 'v60.0';

const login = (values: Readonly<Record<string, string | number | boolean>>) =>
  text(values, 'environment') === 'sandbox' ? 'https://test.salesforce.com' : 'https://login.salesforce.com';

export const salesforce: Connector = saasConnector({
  provider: 'salesforce',
  title: 'Salesforce',
  categories: ['CRM', 'Sales'],
  connection: {
    fields: [
      field('environment', 'Environment', {
        optional: true,
        control_type: 'select',
        pick_list: [
          ['Production', 'production'],
          ['Sandbox', 'sandbox'],
        ],
        default: 'production',
      }),
      ...OAUTH_APP_FIELDS,
    ],
    auth: {
      type: 'oauth2_authorization_code',
      authorizationUrl: (v) => `${login(v)}/services/oauth2/authorize`,
      tokenUrl: (v) => `${login(v)}/services/oauth2/token`,
      scopes: ['api', 'refresh_token'],
      keepFromToken: ['instance_url'],
    },
    baseUrl: (state) =>
      `${fromAuthorization(state, 'instance_url', 'instance URL').replace(/\/+$/, '')}/services/data/${API_VERSION}/`,
    test: (session) => session.request({ method: 'GET', url: '' }),
  },
  actions: salesforceActions(() => salesforce),
  triggers: salesforceTriggers(() => salesforce),
});
