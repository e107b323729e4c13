// Freshdesk stand-in. Endpoints follow https://developers.freshdesk.com/api/:
// - Authentication: basic with the API key as user name and X as password
// - View me: GET /api/v2/agents/me
// - Filter tickets: GET /api/v2/search/tickets?query="..."
// - Errors: {"description", "errors": [{"field", "message", "code"}]}
import type { ServiceFixture } from './fixture.ts';
import { basicIs } from './stand-in.ts';

const KEY = 'fd-key-0123456789';

export const freshdesk: ServiceFixture = {
  provider: 'freshdesk',
  spec: {
    name: 'freshdesk',
    origins: ['https://acme.freshdesk.com'],
    authenticate: (req) =>
      basicIs(req, KEY, 'X', {
        status: 401,
        json: { code: 'invalid_credentials', message: 'You have to be logged in to perform this action.' },
      }),
    routes: [
      {
        method: 'GET',
        path: '/api/v2/agents/me',
        reference: '#me',
        answer: () => ({ json: { id: 1, contact: { email: 'ana@acme.example' } } }),
      },
      {
        method: 'GET',
        path: '/api/v2/search/tickets',
        reference: '#filter_tickets',
        answer: (req) =>
          /^".+"$/.test(req.query.get('query') ?? '')
            ? { json: { results: [{ id: 42, subject: 'Printer' }], total: 1 } }
            : {
                status: 400,
                json: {
                  description: 'Validation failed',
                  errors: [{ field: 'query', message: 'Given query is invalid', code: 'invalid_value' }],
                },
              },
      },
    ],
  },
  input: { domain: 'acme', api_key: KEY },
  oauth: false,
  adhoc: {
    input: { verb: 'get', path: 'search/tickets', input: { data: { query: '"priority:1"' } } },
    check: (body) => {
      if ((body as { results: Array<{ id: number }> }).results[0]?.id !== 42) throw new Error(JSON.stringify(body));
    },
  },
};
