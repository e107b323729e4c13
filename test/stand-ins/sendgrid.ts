// SendGrid stand-in. Endpoints follow the v3 API reference:
// - Authentication: https://www.twilio.com/docs/sendgrid/api-reference/how-to-use-the-sendgrid-v3-api/authentication
//   (Authorization: Bearer <API key>)
// - API key scopes: https://www.twilio.com/docs/sendgrid/api-reference/api-key-permissions/retrieve-a-list-of-scopes-for-which-this-user-has-access
// - Mail send: https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send (202, empty body)
// - Add or update contacts: https://www.twilio.com/docs/sendgrid/api-reference/contacts/add-or-update-a-contact
//   (PUT /v3/marketing/contacts, 202 {job_id}; each contact needs an email or another identifier)
// - Errors: {"errors": [{"message", "field", "help"}]}
import type { ServiceFixture } from './fixture.ts';
import { bearerIs, parseJson, type StandIn } from './stand-in.ts';

export interface SendgridData {
  /** Mail Send bodies accepted. */
  mail: Array<Record<string, unknown>>;
  contacts: Array<{ list_ids: string[]; contact: Record<string, unknown> }>;
}

const sendgridData = new WeakMap<StandIn, SendgridData>();

export function sendgridOf(standIn: StandIn): SendgridData {
  let d = sendgridData.get(standIn);
  if (!d) sendgridData.set(standIn, (d = { mail: [], contacts: [] }));
  return d;
}

const fieldError = (field: string, message: string) => ({ status: 400, json: { errors: [{ field, message }] } });

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
        answer: (req, standIn) => {
          const body = parseJson(req) as
            | {
                personalizations?: Array<{ to?: Array<{ email?: string }> }>;
                from?: { email?: string };
                subject?: string;
                content?: Array<{ type?: string; value?: string }>;
                template_id?: string;
              }
            | undefined;
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
          const to = body.personalizations.flatMap((p) => p.to ?? []);
          if (to.length === 0 || to.some((r) => !/^[^@\s]+@[^@\s]+$/.test(r.email ?? '')))
            return fieldError('personalizations.0.to', 'Does not contain a valid address.');
          if (!body.template_id && !body.subject)
            return fieldError(
              'subject',
              'The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.',
            );
          if (!body.template_id && !body.content?.length)
            return fieldError(
              'content',
              'Unless a valid template_id is provided, the content parameter is required. There must be at least one defined content block.',
            );
          sendgridOf(standIn).mail.push(body as Record<string, unknown>);
          return { status: 202, headers: { 'x-message-id': 'msg-202' }, text: '' };
        },
      },
      {
        method: 'PUT',
        path: '/v3/marketing/contacts',
        reference: 'https://www.twilio.com/docs/sendgrid/api-reference/contacts/add-or-update-a-contact',
        answer: (req, standIn) => {
          const body = parseJson(req) as { list_ids?: unknown; contacts?: unknown } | undefined;
          if (!Array.isArray(body?.contacts) || body.contacts.length === 0 || body.contacts.length > 30000)
            return fieldError('contacts', 'contacts is required and must hold 1 to 30,000 contacts');
          if (
            body.list_ids !== undefined &&
            (!Array.isArray(body.list_ids) || body.list_ids.some((id) => typeof id !== 'string'))
          )
            return fieldError('list_ids', 'list_ids must be an array of strings');
          for (const [i, c] of (body.contacts as Array<Record<string, unknown>>).entries())
            if (typeof c?.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(c.email))
              return fieldError(`contacts[${i}].email`, 'email is required and must be a valid email address');
          const data = sendgridOf(standIn);
          for (const contact of body.contacts as Array<Record<string, unknown>>)
            data.contacts.push({ list_ids: (body.list_ids as string[] | undefined) ?? [], contact });
          return { status: 202, json: { job_id: `job-${data.contacts.length}` } };
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
