// QuickBooks Online stand-in. Endpoints follow Intuit's references:
// - OAuth 2.0: https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0
//   (appcenter.intuit.com/connect/oauth2; tokens at oauth.platform.intuit.com with client authentication by basic;
//   the redirect back carries realmId; refresh tokens rotate)
// - CompanyInfo: https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/companyinfo
// - Query: https://developer.intuit.com/app/developer/qbo/docs/learn/explore-the-quickbooks-online-api/data-queries
// - Errors: {"Fault": {"Error": [{"Message", "Detail", "code"}], "type"}}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued } from './stand-in.ts';

export const REALM = '9130357028561234';

const fault = (status: number, message: string) => ({
  status,
  json: {
    Fault: {
      Error: [{ Message: message, Detail: message, code: String(status) }],
      type: status === 401 ? 'AUTHENTICATION' : 'ValidationFault',
    },
  },
});

export const quickbooks: ServiceFixture = {
  provider: 'quickbooks',
  spec: {
    name: 'quickbooks',
    origins: ['https://appcenter.intuit.com', 'https://oauth.platform.intuit.com', 'https://quickbooks.api.intuit.com'],
    oauth: {
      authorizePath: '/connect/oauth2',
      tokenPath: '/oauth2/v1/tokens/bearer',
      reference:
        'https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/oauth-2.0',
      clientAuth: 'basic',
      pkce: 'optional',
      callbackExtras: { realmId: REALM },
      rotateRefreshTokens: true,
    },
    authenticate: (req, standIn) => bearerIssued(req, standIn, fault(401, 'AuthenticationFailed')),
    routes: [
      {
        method: 'GET',
        path: `/v3/company/${REALM}/companyinfo/${REALM}`,
        reference: 'all-entities/companyinfo',
        answer: () => ({
          json: { CompanyInfo: { CompanyName: 'Acme Books', Id: '1' }, time: '2025-01-01T00:00:00-08:00' },
        }),
      },
      {
        method: 'GET',
        path: `/v3/company/${REALM}/query`,
        reference: 'data-queries',
        answer: (req) => {
          const q = req.query.get('query') ?? '';
          if (!/^select \* from vendor/i.test(q)) return fault(400, `Error parsing query: ${q}`);
          return {
            json: {
              QueryResponse: { Vendor: [{ Id: '56', DisplayName: 'Paper Co' }], startPosition: 1, maxResults: 1 },
            },
          };
        },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: {
      verb: 'get',
      path: 'query',
      input: { data: { query: 'select * from Vendor maxresults 1', minorversion: '75' } },
    },
    check: (body) => {
      if (
        (body as { QueryResponse: { Vendor: Array<{ DisplayName: string }> } }).QueryResponse.Vendor[0]?.DisplayName !==
        'Paper Co'
      )
        throw new Error(JSON.stringify(body));
    },
  },
};
