// Workday REST stand-in. Endpoints follow Workday's REST API and its OAuth 2.0 API clients
// (https://community.workday.com/sites/default/files/file-hosting/restapi/index.html; the tenant's authorization,
// token and REST API endpoints are shown on its View API Clients page): an integration system user's refresh
// token given in the connection is exchanged at the token endpoint (basic client auth) for an access token.
// - Workers: GET /ccx/api/v1/{tenant}/workers ({"total", "data": [...]})
// - Errors: {"error", "errors": [{"error"}]}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, type StandIn } from './stand-in.ts';

export const HOST = 'https://wd2-impl-services1.workday.com';

export const workdayRest: ServiceFixture & { seed(standIn: StandIn): string } = {
  provider: 'workday_rest',
  spec: {
    name: 'workday_rest',
    origins: [HOST],
    oauth: {
      authorizePath: '/acme/authorize',
      tokenPath: '/ccx/oauth2/acme/token',
      reference: 'View API Clients',
      clientAuth: 'basic',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, {
        status: 401,
        json: { error: 'invalid access token', errors: [{ error: 'invalid access token' }] },
      }),
    routes: [
      {
        method: 'GET',
        path: '/ccx/api/v1/acme/workers',
        reference: 'restapi/index.html#staffing/v6/get-/workers',
        answer: (req) => ({
          json: { total: 1, data: [{ id: 'w1', descriptor: 'Ana', search: req.query.get('search') }] },
        }),
      },
    ],
  },
  input: {
    rest_api_endpoint: `${HOST}/ccx/api/v1/acme`,
    authorization_endpoint: `${HOST}/acme/authorize`,
    token_endpoint: `${HOST}/ccx/oauth2/acme/token`,
  },
  oauth: false,
  /** The integration user's refresh token the administrator copies from Workday. */
  seed(standIn) {
    const token = `rt-isu-${Math.random().toString(16).slice(2)}`;
    standIn.refreshTokens.add(token);
    return token;
  },
  adhoc: {
    input: { verb: 'get', path: 'workers', input: { data: { search: 'Ana', limit: '1' } } },
    check: (body) => {
      if ((body as { data: Array<{ id: string; search: string }> }).data[0]?.search !== 'Ana')
        throw new Error(JSON.stringify(body));
    },
  },
};
