// SendGrid's named actions: `send_email` (to, cc, bcc, from, from_name, reply_to, subject, content,
// content_type, template_id, dynamic_template_data; output message_id) over Mail Send
// (https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send: 202 with X-Message-Id),
// and `add_contact` (email, first_name, last_name, address and phone fields, list_ids,
// custom_fields; output job_id) over Add or Update a Contact
// (https://www.twilio.com/docs/sendgrid/api-reference/contacts/add-or-update-a-contact: PUT
// /v3/marketing/contacts, 202 with a job ID).
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { addressesOf, listOf, objectOf, saasAction, textOf, type Plain } from './action-inputs.ts';

const CONTACT_FIELDS = [
  'first_name',
  'last_name',
  'address_line_1',
  'address_line_2',
  'city',
  'state_province_region',
  'postal_code',
  'country',
  'phone_number',
] as const;

function single(input: Plain, key: string, label: string): { email: string; name?: string } | null {
  const list = addressesOf(input, key, label);
  if (list.length > 1) throw new StepError('Bad request', `${label} takes one e-mail address`);
  return list[0] ?? null;
}

export function sendgridActions(self: () => Connector): Record<string, ActionDef> {
  return {
    send_email: saasAction(
      'Send email',
      self,
      {
        required: [
          { path: 'to', label: 'To' },
          { path: 'from', label: 'From' },
        ],
        inputFields: [
          { name: 'to', label: 'To' },
          { name: 'from', label: 'From' },
          ...['from_name', 'cc', 'bcc', 'reply_to', 'subject', 'content', 'content_type', 'template_id'].map(
            (name) => ({
              name,
              optional: true,
            }),
          ),
          { name: 'dynamic_template_data', type: 'object', optional: true },
        ],
        outputFields: [{ name: 'message_id' }],
      },
      async (input, session) => {
        const to = addressesOf(input, 'to', 'To');
        if (to.length === 0) throw new StepError('Bad request', "To can't be blank");
        const from = single(input, 'from', 'From');
        if (from === null) throw new StepError('Bad request', "From can't be blank");
        const fromName = textOf(input, 'from_name').trim();
        const personalization: Plain = { to };
        const cc = addressesOf(input, 'cc', 'Cc');
        if (cc.length > 0) personalization.cc = cc;
        const bcc = addressesOf(input, 'bcc', 'Bcc');
        if (bcc.length > 0) personalization.bcc = bcc;
        const templateId = textOf(input, 'template_id').trim();
        const data = objectOf(input, 'dynamic_template_data');
        if (Object.keys(data).length > 0) personalization.dynamic_template_data = data;
        const body: Plain = {
          personalizations: [personalization],
          from: fromName ? { ...from, name: fromName } : from,
        };
        const subject = textOf(input, 'subject');
        if (subject) body.subject = subject;
        const replyTo = single(input, 'reply_to', 'Reply to');
        if (replyTo) body.reply_to = replyTo;
        if (templateId) body.template_id = templateId;
        const content = textOf(input, 'content');
        if (content) {
          const type = textOf(input, 'content_type').trim().toLowerCase();
          body.content = [
            { type: type === 'html' || type === 'text/html' ? 'text/html' : 'text/plain', value: content },
          ];
        }
        if (!templateId && (!subject || !content))
          throw new StepError('Bad request', 'an e-mail needs a subject and content, or a template_id');
        const res = await (await session()).request({ method: 'POST', url: 'mail/send', body: { json: body } });
        return { message_id: res.headers['x-message-id'] ?? null };
      },
    ),
    add_contact: saasAction(
      'Add or update contact',
      self,
      {
        required: [{ path: 'email', label: 'Email' }],
        inputFields: [
          { name: 'email', label: 'Email' },
          ...CONTACT_FIELDS.map((name) => ({ name, optional: true })),
          { name: 'list_ids', optional: true, hint: 'Comma-separated list IDs' },
          { name: 'custom_fields', type: 'object', optional: true },
        ],
        outputFields: [{ name: 'job_id' }],
      },
      async (input, session) => {
        const email = single(input, 'email', 'Email');
        if (email === null) throw new StepError('Bad request', "Email can't be blank");
        const contact: Plain = { email: email.email };
        for (const key of CONTACT_FIELDS) {
          const value = textOf(input, key).trim();
          if (value) contact[key] = value;
        }
        const custom = objectOf(input, 'custom_fields');
        if (Object.keys(custom).length > 0) contact.custom_fields = custom;
        const listIds = listOf(input, 'list_ids').map(String);
        const body: Plain = { contacts: [contact], ...(listIds.length > 0 ? { list_ids: listIds } : {}) };
        const res = await (await session()).request({ method: 'PUT', url: 'marketing/contacts', body: { json: body } });
        return { job_id: (res.body as { job_id?: unknown } | null)?.job_id ?? null };
      },
    ),
  };
}
