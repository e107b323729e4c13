// SendGrid stand-in. Endpoints follow the v3 API reference:
// - Authentication: https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication
//   (Authorization: Bearer <API key>)
// - API key scopes: https://www.twilio.com/docs/sendgrid/api-reference/api-key-permissions/retrieve-a-list-of-scopes-for-which-this-user-has-access
// - Mail send: https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send (202, empty body)
// - Errors: {"errors": [{"message", "field", "help"}]}
import type { ServiceFixture } from './fixture.ts';
import { bearerIs, parseJson } from './stand-in.ts';

export const API_KEY = 'SG.stand-in-key.0123456789';

export const sendgrid: ServiceFixture = {
  provider: 'sendgrid',
  spec: {
    name: 'sendgrid',
    origins: ['https://api.sendgrid.com'],
    authenticate: (req) =>
      bearerIs(req, API_KEY, {
        status: 401,
        json: {
          errors: [{ field: null, message: 'The provided authorization grant is invalid, expired, or revoked' }],
        },
      }),
    routes: [
      {
        method: 'GET',
        path: '/v3/scopes',
        reference: 'api-key-permissions/retrieve-a-list-of-scopes-for-which-this-user-has-access',
        answer: () => ({ json: { scopes: ['mail.send', 'scopes.read'] } }),
      },
      {
        method: 'POST',
        path: '/v3/mail/send',
        reference: 'https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send',
        answer: (req) => {
          const body = parseJson(req) as
            { personalizations?: unknown[]; from?: { email?: string }; subject?: string } | undefined;
          if (!body?.personalizations?.length)
            return {
              status: 400,
              json: {
                errors: [
                  {
                    field: 'personalizations',
                    message: 'The personalizations field is required and must have at least one personalization.',
                  },
                ],
              },
            };
          if (!body.from?.email)
            return {
              status: 400,
              json: { errors: [{ field: 'from.email', message: 'The from email does not contain a valid address.' }] },
            };
          return { status: 202, headers: { 'x-message-id': 'msg-202' }, text: '' };
        },
      },
    ],
  },
  input: { api_key: API_KEY },
  oauth: false,
  adhoc: {
    input: {
      verb: 'post',
      request_type: 'json',
      response_type: 'json',
      path: 'mail/send',
      input: {
        data: {
          personalizations: [{ to: [{ email: 'ana@example.com' }] }],
          from: { email: 'ops@example.com' },
          subject: 'Hello',
          content: [{ type: 'text/plain', value: 'Hi' }],
        },
      },
      response_headers: '[{"name":"X-Message-Id","type":"string"}]',
    },
    check: (output) => {
      // A 202 without a body: the body reads as null; the header asked for is kept.
      const o = output as { body: unknown; headers: Record<string, string> };
      if (o.body !== null || o.headers['X-Message-Id'] !== 'msg-202') throw new Error(JSON.stringify(output));
    },
  },
};
