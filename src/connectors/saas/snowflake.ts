// Snowflake's SQL API: OAuth 2.0 through the account's own authorization server, or a programmatic
// access token (bearer, with its token type header); https://<account>.snowflakecomputing.com/api/v2/.
// Test: a statement `SELECT 1`.
import { saasConnector } from './service.ts';
import { field, hostName, OAUTH_APP_FIELDS, secret } from './common.ts';

const account = (values: Readonly<Record<string, string | number | boolean>>) =>
  hostName(values, 'account_identifier', '.snowflakecomputing.com');

export const snowflake = saasConnector({
  provider: 'snowflake',
  title: 'Snowflake',
  categories: ['Database', 'Data Warehouse'],
  connection: {
    fields: [
      field('account_identifier', 'Account identifier', { hint: 'myorg-myaccount' }),
      field('warehouse', 'Warehouse', { optional: true }),
    ],
    auth: {
      type: 'multi',
      default: 'oauth2',
      options: {
        oauth2: {
          title: 'OAuth 2.0',
          fields: OAUTH_APP_FIELDS,
          auth: {
            type: 'oauth2_authorization_code',
            authorizationUrl: (v) => `https://${account(v)}/oauth/authorize`,
            tokenUrl: (v) => `https://${account(v)}/oauth/token-request`,
            scopes: ['refresh_token'],
            clientAuth: 'basic',
          },
        },
        programmatic_access_token: {
          title: 'Programmatic access token',
          fields: [secret('access_token', 'Programmatic access token')],
          auth: { type: 'bearer', field: 'access_token' },
        },
      },
    },
    baseUrl: (state) => `https://${account(state.values)}/api/v2/`,
    // The SQL API asks which kind of token the bearer is.
    headers: (state) => ({
      'x-snowflake-authorization-token-type':
        state.values.auth_type === 'programmatic_access_token' ? 'PROGRAMMATIC_ACCESS_TOKEN' : 'OAUTH',
    }),
    test: (session) =>
      session.request({ method: 'POST', url: 'statements', body: { json: { statement: 'SELECT 1', timeout: 30 } } }),
  },
});
