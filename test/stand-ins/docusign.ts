// DocuSign stand-in. Endpoints follow the eSignature REST API reference:
// - Authorization code grant: https://developers.docusign.com/platform/auth/authcode/ (account.docusign.com/oauth/auth and
//   /oauth/token with basic client auth)
// - User info: https://developers.docusign.com/platform/auth/reference/user-info/ (accounts with base_uri)
// - Accounts: GET /restapi/v2.1/accounts/{accountId}
// - List envelopes: https://developers.docusign.com/docs/esign-rest-api/reference/envelopes/envelopes/liststatuschanges/
// - Errors: {"errorCode", "message"}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued } from './stand-in.ts';

const ACCOUNT = 'a1b2c3d4-0000-1111-2222-333344445555';
const BASE = 'https://na3.docusign.net';

export const docusign: ServiceFixture = {
  provider: 'docusign',
  spec: {
    name: 'docusign',
    origins: ['https://account.docusign.com', BASE],
    oauth: {
      authorizePath: '/oauth/auth',
      tokenPath: '/oauth/token',
      reference: 'platform/auth/authcode',
      clientAuth: 'basic',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, {
        status: 401,
        json: { errorCode: 'USER_AUTHENTICATION_FAILED', message: 'One or both of Username and Password are invalid.' },
      }),
    routes: [
      {
        method: 'GET',
        path: '/oauth/userinfo',
        reference: 'platform/auth/reference/user-info',
        answer: () => ({
          json: {
            sub: 'u1',
            accounts: [{ account_id: ACCOUNT, is_default: true, account_name: 'Acme', base_uri: BASE }],
          },
        }),
      },
      {
        method: 'GET',
        path: `/restapi/v2.1/accounts/${ACCOUNT}`,
        reference: 'accounts',
        answer: () => ({ json: { accountIdGuid: ACCOUNT, accountName: 'Acme' } }),
      },
      {
        method: 'GET',
        path: `/restapi/v2.1/accounts/${ACCOUNT}/envelopes`,
        reference: 'envelopes/liststatuschanges',
        answer: (req) =>
          req.query.get('from_date')
            ? { json: { envelopes: [{ envelopeId: 'env-1', status: 'completed' }], resultSetSize: '1' } }
            : {
                status: 400,
                json: {
                  errorCode: 'INVALID_REQUEST_PARAMETER',
                  message: 'The request contained at least one invalid parameter. from_date is required.',
                },
              },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'envelopes', input: { data: { from_date: '2025-01-01' } } },
    check: (body) => {
      if ((body as { envelopes: Array<{ envelopeId: string }> }).envelopes[0]?.envelopeId !== 'env-1')
        throw new Error(JSON.stringify(body));
    },
  },
};
