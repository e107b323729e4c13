// Marketo stand-in. Endpoints follow https://experienceleague.adobe.com/en/docs/marketo-developer/marketo/rest/:
// - Authentication: client credentials at /identity/oauth/token (https://experienceleague.adobe.com/en/docs/marketo-developer/marketo/rest/authentication)
// - Describe lead: GET /rest/v1/leads/describe.json
// - Get leads by filter: GET /rest/v1/leads.json?filterType=&filterValues=
// - Errors: HTTP 200 with {"success": false, "errors": [{"code", "message"}]}; 601 invalid, 602 expired access token
import type { ServiceFixture } from './fixture.ts';
import type { StandIn, StandInRequest } from './stand-in.ts';

const unauthorized = (req: StandInRequest, standIn: StandIn) => {
  const m = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
  if (!m)
    return { json: { requestId: 'r1', success: false, errors: [{ code: '600', message: 'Access token missing' }] } };
  return standIn.accessTokens.has(m[1] as string)
    ? null
    : { json: { requestId: 'r1', success: false, errors: [{ code: '601', message: 'Access token invalid' }] } };
};

export const marketo: ServiceFixture = {
  provider: 'marketo',
  spec: {
    name: 'marketo',
    origins: ['https://123-abc-456.mktorest.com'],
    oauth: {
      authorizePath: '/unused',
      tokenPath: '/identity/oauth/token',
      reference: 'rest/authentication',
      clientAuth: 'body',
      pkce: 'optional',
      clientCredentials: true,
    },
    authenticate: unauthorized,
    routes: [
      {
        method: 'GET',
        path: '/rest/v1/leads/describe.json',
        reference: 'describe-lead',
        answer: () => ({ json: { requestId: 'r2', success: true, result: [{ id: 1, rest: { name: 'email' } }] } }),
      },
      {
        method: 'GET',
        path: '/rest/v1/leads.json',
        reference: 'get-leads-by-filter-type',
        answer: (req) =>
          req.query.get('filterType')
            ? {
                json: {
                  requestId: 'r3',
                  success: true,
                  result: [{ id: 318581, email: req.query.get('filterValues') }],
                },
              }
            : {
                json: {
                  requestId: 'r3',
                  success: false,
                  errors: [{ code: '1003', message: 'filterType not specified' }],
                },
              },
      },
    ],
  },
  input: { munchkin_id: '123-ABC-456' },
  oauth: false,
  adhoc: {
    input: {
      verb: 'get',
      path: 'v1/leads.json',
      input: { data: { filterType: 'email', filterValues: 'ana@example.com' } },
    },
    check: (body) => {
      if ((body as { result: Array<{ id: number }> }).result[0]?.id !== 318581) throw new Error(JSON.stringify(body));
    },
  },
};
