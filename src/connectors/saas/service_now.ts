// ServiceNow: basic authentication (a user of the instance) or OAuth 2.0 through the instance's
// oauth_auth.do / oauth_token.do; the Table API under https://<instance>.service-now.com/api/now/.
// Test: one row of sys_user.
import { saasConnector } from './service.ts';
import { field, hostName, OAUTH_APP_FIELDS, secret } from './common.ts';

const instance = (values: Readonly<Record<string, string | number | boolean>>) =>
  hostName(values, 'instance_name', '.service-now.com');

export const serviceNow = saasConnector({
  provider: 'service_now',
  title: 'ServiceNow',
  categories: ['Customer Service', 'IT Service Management'],
  connection: {
    fields: [field('instance_name', 'Instance name', { hint: 'yourinstance (for yourinstance.service-now.com)' })],
    auth: {
      type: 'multi',
      default: 'basic',
      options: {
        basic: {
          title: 'Username and password',
          fields: [field('username', 'Username'), secret('password', 'Password')],
          auth: { type: 'basic', username: 'username', password: 'password' },
        },
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: (v) => `https://${instance(v)}/oauth_auth.do`,
            tokenUrl: (v) => `https://${instance(v)}/oauth_token.do`,
            scopes: ['useraccount'],
          },
        },
      },
    },
    baseUrl: (state) => `https://${instance(state.values)}/api/now/`,
    test: (session) => session.request({ method: 'GET', url: 'table/sys_user', query: { sysparm_limit: 1 } }),
  },
});
