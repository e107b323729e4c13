// Zendesk Support stand-in. Endpoints follow the Support API reference:
// - API token authentication: https://developer.zendesk.com/api-reference/introduction/security-and-auth/
//   (basic `{email}/token:{api_token}`)
// - Show self: https://developer.zendesk.com/api-reference/ticketing/users/users/#show-self
// - Create ticket: https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/#create-ticket
// - Errors: {"error": "RecordInvalid", "description", "details"}
import type { ServiceFixture } from './fixture.ts';
import { basicIs, parseJson } from './stand-in.ts';

export const zendesk: ServiceFixture = {
  provider: 'zendesk',
  spec: {
    name: 'zendesk',
    origins: ['https://acme.zendesk.com'],
    authenticate: (req) =>
      basicIs(req, 'ana@acme.example/token', 'zd-token-0123', {
        status: 401,
        json: { error: "Couldn't authenticate you" },
      }),
    routes: [
      {
        method: 'GET',
        path: '/api/v2/users/me.json',
        reference: 'users/#show-self',
        answer: () => ({ json: { user: { id: 1, email: 'ana@acme.example', role: 'admin' } } }),
      },
      {
        method: 'POST',
        path: '/api/v2/tickets.json',
        reference: 'tickets/#create-ticket',
        answer: (req) => {
          const body = parseJson(req) as { ticket?: { subject?: string; comment?: { body?: string } } } | undefined;
          if (!body?.ticket?.comment?.body)
            return {
              status: 422,
              json: {
                error: 'RecordInvalid',
                description: 'Record validation errors',
                details: { base: [{ description: 'Description: cannot be blank' }] },
              },
            };
          return { status: 201, json: { ticket: { id: 35436, subject: body.ticket.subject, status: 'new' } } };
        },
      },
    ],
  },
  input: { subdomain: 'acme', auth_type: 'api_token', email: 'ana@acme.example', api_token: 'zd-token-0123' },
  oauth: false,
  adhoc: {
    input: {
      verb: 'post',
      path: 'tickets.json',
      input: { data: { ticket: { subject: 'Help', comment: { body: 'The printer is on fire' } } } },
    },
    check: (body) => {
      if ((body as { ticket: { id: number } }).ticket.id !== 35436) throw new Error(JSON.stringify(body));
    },
  },
};
