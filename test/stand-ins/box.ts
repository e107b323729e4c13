// Box stand-in. Endpoints follow https://developer.box.com/reference/:
// - OAuth 2.0: https://developer.box.com/guides/authentication/oauth2/ (account.box.com authorize, api.box.com/oauth2/token,
//   refresh tokens rotate)
// - Get current user: https://developer.box.com/reference/get-users-me/
// - Search: https://developer.box.com/reference/get-search/
// - Errors: {"type": "error", "status", "code", "message"}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued } from './stand-in.ts';

export const box: ServiceFixture = {
  provider: 'box',
  spec: {
    name: 'box',
    origins: ['https://account.box.com', 'https://api.box.com', 'https://upload.box.com'],
    oauth: {
      authorizePath: '/api/oauth2/authorize',
      tokenPath: '/oauth2/token',
      reference: 'guides/authentication/oauth2',
      clientAuth: 'body',
      pkce: 'optional',
      rotateRefreshTokens: true,
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, {
        status: 401,
        json: { type: 'error', status: 401, code: 'unauthorized', message: 'Unauthorized' },
      }),
    routes: [
      {
        method: 'GET',
        path: '/2.0/users/me',
        reference: 'get-users-me',
        answer: () => ({ json: { type: 'user', id: '11446498', login: 'ana@example.com' } }),
      },
      {
        method: 'GET',
        path: '/2.0/search',
        reference: 'get-search',
        answer: (req) =>
          req.query.get('query')
            ? {
                json: {
                  total_count: 1,
                  entries: [{ type: 'file', id: '12345', name: `${req.query.get('query')}.pdf` }],
                },
              }
            : { status: 400, json: { type: 'error', status: 400, code: 'bad_request', message: 'query is required' } },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: { verb: 'get', path: 'search', input: { data: { query: 'contract', limit: '1' } } },
    check: (body) => {
      if ((body as { entries: Array<{ name: string }> }).entries[0]?.name !== 'contract.pdf')
        throw new Error(JSON.stringify(body));
    },
  },
};
