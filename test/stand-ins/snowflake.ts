// Snowflake SQL API stand-in. Endpoints follow https://docs.snowflake.com/en/developer-guide/sql-api/:
// - OAuth: https://docs.snowflake.com/en/user-guide/oauth-custom (<account>.snowflakecomputing.com/oauth/authorize and
//   /oauth/token-request with basic client auth); the token type header X-Snowflake-Authorization-Token-Type: OAUTH
// - Submit a statement: https://docs.snowflake.com/en/developer-guide/sql-api/reference#post-api-v2-statements
// - Errors: {"code", "message", "sqlState"}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson } from './stand-in.ts';

export const snowflake: ServiceFixture = {
  provider: 'snowflake',
  spec: {
    name: 'snowflake',
    origins: ['https://myorg-acme.snowflakecomputing.com'],
    oauth: {
      authorizePath: '/oauth/authorize',
      tokenPath: '/oauth/token-request',
      reference: 'user-guide/oauth-custom',
      clientAuth: 'basic',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      req.headers['x-snowflake-authorization-token-type'] !== 'OAUTH'
        ? { status: 401, json: { code: '390101', message: 'Authorization token type is required.' } }
        : bearerIssued(req, standIn, { status: 401, json: { code: '390303', message: 'Invalid OAuth access token.' } }),
    routes: [
      {
        method: 'POST',
        path: '/api/v2/statements',
        reference: 'sql-api/reference#post-api-v2-statements',
        answer: (req) => {
          const body = parseJson(req) as { statement?: string } | undefined;
          if (!body?.statement)
            return { status: 400, json: { code: '391901', message: 'statement is required', sqlState: '42601' } };
          return {
            json: {
              code: '090001',
              statementHandle: 'h1',
              message: 'Statement executed successfully.',
              data: [['1']],
              resultSetMetaData: { numRows: 1 },
            },
          };
        },
      },
    ],
  },
  input: { account_identifier: 'myorg-acme' },
  oauth: true,
  adhoc: {
    input: {
      verb: 'post',
      path: 'statements',
      input: { data: { statement: 'select 1', timeout: 30 } },
    },
    check: (body) => {
      if ((body as { statementHandle: string }).statementHandle !== 'h1') throw new Error(JSON.stringify(body));
    },
  },
};
