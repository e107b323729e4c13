// HubSpot stand-in. Endpoints follow:
// - OAuth: https://developers.hubspot.com/docs/api/oauth-quickstart-guide (app.hubspot.com/oauth/authorize,
//   api.hubapi.com/oauth/v1/token with client_id and client_secret in the form)
// - CRM contacts: https://developers.hubspot.com/docs/api/crm/contacts (GET /crm/v3/objects/contacts, POST to create)
// - Errors: {"status": "error", "message", "category"}
import type { ServiceFixture } from './fixture.ts';
import { bearerIssued, parseJson } from './stand-in.ts';

export const hubspot: ServiceFixture = {
  provider: 'hubspot',
  spec: {
    name: 'hubspot',
    origins: ['https://app.hubspot.com', 'https://api.hubapi.com'],
    oauth: {
      authorizePath: '/oauth/authorize',
      tokenPath: '/oauth/v1/token',
      reference: 'oauth-quickstart-guide',
      clientAuth: 'body',
      pkce: 'optional',
    },
    authenticate: (req, standIn) =>
      bearerIssued(req, standIn, {
        status: 401,
        json: { status: 'error', message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' },
      }),
    routes: [
      {
        method: 'GET',
        path: '/crm/v3/objects/contacts',
        reference: 'https://developers.hubspot.com/docs/api/crm/contacts',
        answer: () => ({ json: { results: [{ id: '51', properties: { email: 'ana@example.com' } }] } }),
      },
      {
        method: 'POST',
        path: '/crm/v3/objects/contacts',
        reference: 'https://developers.hubspot.com/docs/api/crm/contacts',
        answer: (req) => {
          const body = parseJson(req) as { properties?: { email?: string } } | undefined;
          if (!body?.properties)
            return {
              status: 400,
              json: { status: 'error', message: 'Invalid input JSON', category: 'VALIDATION_ERROR' },
            };
          return { status: 201, json: { id: '52', properties: body.properties } };
        },
      },
    ],
  },
  input: {},
  oauth: true,
  adhoc: {
    input: {
      verb: 'post',
      path: 'crm/v3/objects/contacts',
      input: { data: { properties: { email: 'bo@example.com', firstname: 'Bo' } } },
    },
    check: (body) => {
      if ((body as { id: string }).id !== '52') throw new Error(JSON.stringify(body));
    },
  },
};
