// Intercom stand-in. Endpoints follow https://developers.intercom.com/docs/references/rest-api/api.intercom.io/:
// - OAuth: https://developers.intercom.com/docs/build-an-integration/learn-more/authentication/setting-up-oauth
//   (app.intercom.com/oauth, api.intercom.io/auth/eagle/token)
// - Identify an admin (me); Search contacts (POST /contacts/search)
// - Errors: {"type": "error.list", "errors": [{"code", "message"}]}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson } from './stand-in.ts';

export const intercom: ServiceFixture = {
  provider: 'intercom',
  spec: {
    name: 'intercom',
    origins: ['https://app.intercom.com', 'https://api.intercom.io'],
    oauth: {
      authorizePath: '/oauth',
      tokenPath: '/auth/eagle/token',
      reference: 'setting-up-oauth',
      clientAuth: 'body',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, {
        status: 401,
        json: { type: 'error.list', errors: [{ code: 'unauthorized', message: 'Access Token Invalid' }] },
      }),
    routes: [
      {
        method: 'GET',
        path: '/me',
        reference: 'Admins/identifyAdmin',
        answer: () => ({ json: { type: 'admin', id: '991', email: 'ana@acme.example' } }),
      },
      {
        method: 'POST',
        path: '/contacts/search',
        reference: 'Contacts/SearchContacts',
        answer: (req) => {
          const body = parseJson(req) as { query?: { field?: string } } | undefined;
          if (!body?.query?.field)
            return {
              status: 400,
              json: { type: 'error.list', errors: [{ code: 'parameter_invalid', message: 'query is invalid' }] },
            };
          return {
            json: { type: 'list', data: [{ type: 'contact', id: 'c1', email: 'bo@example.com' }], total_count: 1 },
          };
        },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: {
      verb: 'post',
      path: 'contacts/search',
      input: { data: { query: { field: 'email', operator: '=', value: 'bo@example.com' } } },
    },
    check: (body) => {
      if ((body as { data: Array<{ id: string }> }).data[0]?.id !== 'c1') throw new Error(JSON.stringify(body));
    },
  },
};
