// Salesforce stand-in. Endpoints follow the REST API Developer Guide:
// - OAuth 2.0 web server flow: https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm
//   (authorize and token on login.salesforce.com; the token reply carries instance_url)
// - Resources by version: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_discoveryresource.htm
// - Query: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm
// - Errors: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
//   ([{"message": ..., "errorCode": ...}], 401 INVALID_SESSION_ID when the token expired)
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, type StandInSpec } from './stand-in.ts';

export const INSTANCE = 'https://acme.my.salesforce.com';

export const spec: StandInSpec = {
  name: 'salesforce',
  origins: ['https://login.salesforce.com', 'https://test.salesforce.com', INSTANCE],
  oauth: {
    authorizePath: '/services/oauth2/authorize',
    tokenPath: '/services/oauth2/token',
    reference: 'https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm',
    clientAuth: 'either',
    pkce: 'optional',
    tokenExtras: () => ({
      instance_url: INSTANCE,
      id: `${INSTANCE}/id/00D/005`,
      issued_at: String(Date.now()),
      signature: 'sig',
    }),
  },
  authenticate: (req, standIn) =>
    bearerIssued(req, standIn, {
      status: 401,
      json: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }],
    }),
  routes: [
    {
      method: 'GET',
      path: '/services/data/v60.0/',
      reference: 'resources_discoveryresource.htm',
      answer: () => ({
        json: {
          sobjects: '/services/data/v60.0/sobjects',
          query: '/services/data/v60.0/query',
          limits: '/services/data/v60.0/limits',
        },
      }),
    },
    {
      method: 'GET',
      path: /^\/services\/data\/v\d+\.\d+\/query\/?$/,
      reference: 'resources_query.htm',
      answer: (req) => {
        const q = req.query.get('q') ?? '';
        if (!/^\s*select\s.+\sfrom\s+\w+/i.test(q))
          return {
            status: 400,
            json: [{ message: `unexpected token: '${q.split(/\s+/)[0] ?? ''}'`, errorCode: 'MALFORMED_QUERY' }],
          };
        return {
          json: {
            totalSize: 1,
            done: true,
            records: [
              {
                attributes: { type: 'Account', url: '/services/data/v60.0/sobjects/Account/001A' },
                Id: '001A',
                Name: 'Acme',
              },
            ],
          },
        };
      },
    },
  ],
};

export const fixture: ServiceFixture = {
  provider: 'salesforce',
  spec,
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'query', input: { data: { q: 'SELECT Id, Name FROM Account LIMIT 1' } } },
    check: (body) => {
      const b = body as { records: Array<{ Name: string }> };
      if (b.records[0]?.Name !== 'Acme') throw new Error(`unexpected body ${JSON.stringify(body)}`);
    },
  },
};
