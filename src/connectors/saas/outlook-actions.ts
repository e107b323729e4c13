// Microsoft Outlook's named actions as the vendor's connector lists them: `send_mail` (to,
// subject, email_type, message, cc, bcc, reply_to, attachments) over Graph's sendMail
// (https://learn.microsoft.com/en-us/graph/api/user-sendmail: 202, no body), and
// `get_attachments` ("Download email attachments": message_id; output attachments with their
// content) over list attachments (https://learn.microsoft.com/en-us/graph/api/message-list-attachments,
// pages by @odata.nextLink).
import { collect, nextUrlInBody } from '../http/pagination.ts';
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { contentOf, requiredText, saasAction, type Plain } from './action-inputs.ts';
import { outgoingMail, sendMailFields } from './outgoing-mail.ts';

/** Graph message IDs (base64 with URL-safe characters). */
const MESSAGE_ID = /^[A-Za-z0-9=_+/-]{1,1024}$/;

const recipients = (list: Array<{ email: string; name?: string }>) =>
  list.map((a) => ({ emailAddress: a.name ? { address: a.email, name: a.name } : { address: a.email } }));

export function outlookActions(self: () => Connector): Record<string, ActionDef> {
  return {
    send_mail: saasAction(
      'Send email',
      self,
      {
        required: [
          { path: 'to', label: 'To' },
          { path: 'subject', label: 'Subject' },
        ],
        inputFields: sendMailFields({ from: false }),
        outputFields: [],
      },
      async (input, session) => {
        const mail = outgoingMail(input, { from: false, replyToLabel: 'Reply to' });
        const message: Plain = {
          subject: mail.subject,
          body: { contentType: mail.html ? 'HTML' : 'Text', content: mail.message },
          toRecipients: recipients(mail.to),
        };
        if (mail.cc.length > 0) message.ccRecipients = recipients(mail.cc);
        if (mail.bcc.length > 0) message.bccRecipients = recipients(mail.bcc);
        if (mail.replyTo.length > 0) message.replyTo = recipients(mail.replyTo);
        const attachments = mail.attachments.map((a) => ({
          '@odata.type': '#microsoft.graph.fileAttachment',
          name: a.name,
          contentBytes: a.bytes.toString('base64'),
        }));
        if (attachments.length > 0) message.attachments = attachments;
        await (
          await session()
        ).request({ method: 'POST', url: 'me/sendMail', body: { json: { message, saveToSentItems: true } } });
        return {};
      },
    ),
    get_attachments: saasAction(
      'Download email attachments',
      self,
      {
        required: [{ path: 'message_id', label: 'Message ID' }],
        inputFields: [{ name: 'message_id', label: 'Message ID' }],
        outputFields: [
          {
            name: 'attachments',
            type: 'array',
            of: 'object',
            properties: ['id', 'name', 'content_type', 'size', 'is_inline', 'content'].map((name) => ({ name })),
          },
        ],
      },
      async (input, session) => {
        const id = requiredText(input, 'Message ID', 'message_id', 'id');
        if (!MESSAGE_ID.test(id))
          throw new StepError(
            'Bad request',
            `Message ID ${JSON.stringify(id.slice(0, 60))} is not an Outlook message ID`,
          );
        const items = await collect(
          await session(),
          { method: 'GET', url: `me/messages/${encodeURIComponent(id)}/attachments` },
          nextUrlInBody(['@odata.nextLink']),
          ['value'],
        );
        const attachments = items.map((item) => {
          const a = (item ?? {}) as Record<string, unknown>;
          return {
            id: a.id ?? null,
            name: a.name ?? null,
            content_type: a.contentType ?? null,
            size: a.size ?? null,
            is_inline: a.isInline === true,
            content: typeof a.contentBytes === 'string' ? contentOf(Buffer.from(a.contentBytes, 'base64')) : null,
          };
        });
        return { attachments };
      },
    ),
  };
}
