// Airtable stand-in. Endpoints follow https://airtable.com/developers/web/api:
// - Personal access tokens: bearer (https://airtable.com/developers/web/api/authentication)
// - Who am I: https://airtable.com/developers/web/api/get-user-id-scopes
// - List records: https://airtable.com/developers/web/api/list-records
// - Errors: {"error": {"type", "message"}}
import type { ServiceFixture } from './fixture.ts';
import { bearerIs } from './stand-in.ts';

const PAT = 'patStandIn.0123456789abcdef';

export const airtable: ServiceFixture = {
  provider: 'airtable',
  spec: {
    name: 'airtable',
    origins: ['https://api.airtable.com', 'https://airtable.com'],
    authenticate: (req) =>
      bearerIs(req, PAT, {
        status: 401,
        json: { error: { type: 'AUTHENTICATION_REQUIRED', message: 'Authentication required' } },
      }),
    routes: [
      {
        method: 'GET',
        path: '/v0/meta/whoami',
        reference: 'get-user-id-scopes',
        answer: () => ({ json: { id: 'usrAna', scopes: ['data.records:read'] } }),
      },
      {
        method: 'GET',
        path: '/v0/appBase1/Orders',
        reference: 'list-records',
        answer: (req) => ({
          json: {
            records: [{ id: 'rec1', fields: { Name: 'Order 1' }, createdTime: '2025-01-01T00:00:00.000Z' }],
            formula: req.query.get('filterByFormula'),
          },
        }),
      },
    ],
  },
  input: { auth_type: 'personal_access_token', personal_access_token: PAT },
  oauth: false,
  adhoc: {
    input: {
      verb: 'get',
      path: 'appBase1/Orders',
      input: { data: { filterByFormula: "{Status}='Open'", maxRecords: '1' } },
    },
    check: (body) => {
      const b = body as { records: Array<{ id: string }>; formula: string };
      if (b.records[0]?.id !== 'rec1' || b.formula !== "{Status}='Open'") throw new Error(JSON.stringify(body));
    },
  },
};
