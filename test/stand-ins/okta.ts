// Okta stand-in. Endpoints follow https://developer.okta.com/docs/api/:
// - API token: header `Authorization: SSWS {token}` (https://developer.okta.com/docs/guides/create-an-api-token/)
// - Get current user: https://developer.okta.com/docs/api/openapi/okta-management/management/tag/User/#tag/User/operation/getUser (me)
// - List users: https://developer.okta.com/docs/api/openapi/okta-management/management/tag/User/#tag/User/operation/listUsers
// - Errors: {"errorCode", "errorSummary", "errorLink", "errorId"}
import type { ServiceFixture } from './fixture.ts';

const TOKEN = '00standInOktaToken0123456789';

export const okta: ServiceFixture = {
  provider: 'okta',
  spec: {
    name: 'okta',
    origins: ['https://acme.okta.com'],
    authenticate: (req) =>
      req.headers.authorization === `SSWS ${TOKEN}`
        ? null
        : { status: 401, json: { errorCode: 'E0000011', errorSummary: 'Invalid token provided', errorId: 'x' } },
    routes: [
      {
        method: 'GET',
        path: '/api/v1/users/me',
        reference: 'operation/getUser',
        answer: () => ({ json: { id: '00u1', status: 'ACTIVE', profile: { login: 'ana@acme.example' } } }),
      },
      {
        method: 'GET',
        path: '/api/v1/users',
        reference: 'operation/listUsers',
        answer: (req) => ({
          json: [{ id: '00u2', profile: { login: 'bo@acme.example' }, search: req.query.get('search') }],
        }),
      },
    ],
  },
  input: { domain: 'acme.okta.com', api_token: TOKEN },
  oauth: false,
  adhoc: {
    input: { verb: 'get', path: 'users', input: { data: { search: 'status eq "ACTIVE"', limit: '1' } } },
    check: (output) => {
      const u = (output as { body: Array<{ id: string; search: string }> }).body[0];
      if (u?.id !== '00u2' || u.search !== 'status eq "ACTIVE"') throw new Error(JSON.stringify(output));
    },
  },
};
