// Gmail's named actions as the vendor's recipes store them: `send_mail` (to, subject, email_type,
// message, from, cc, bcc, reply_to, attachments; output id, thread_id, label_ids) and
// `download_attachment` (id, attachmentId; output content_bytes), from the vendor's connector
// page; `search_messages` and `get_message` as the vendor's Gmail MCP server names its search and
// read skills. Over the Gmail API v1: users.messages.send (an RFC 2822 message, base64url in
// `raw`), users.messages.attachments.get, users.messages.list and users.messages.get
// (https://developers.google.com/gmail/api/reference/rest/v1/users.messages).
import { StepError } from '../step-error.ts';
import type { ActionDef, Connector } from '../types.ts';
import { contentOf, countOf, listOf, requiredText, saasAction, textOf, type Plain } from './action-inputs.ts';
import { mimeMessage, outgoingMail, sendMailFields } from './outgoing-mail.ts';

/** Gmail message and attachment ids (URL-safe; attachment ids are long). */
const GMAIL_ID = /^[A-Za-z0-9_-]{1,2048}$/;

function gmailId(input: Plain, label: string, ...keys: string[]): string {
  const id = requiredText(input, label, ...keys);
  if (!GMAIL_ID.test(id))
    throw new StepError('Bad request', `${label} ${JSON.stringify(id.slice(0, 60))} is not a Gmail ID`);
  return id;
}

function header(message: unknown, name: string): string | null {
  const headers = (message as { payload?: { headers?: Array<{ name?: string; value?: string }> } } | null)?.payload
    ?.headers;
  return headers?.find((h) => h.name?.toLowerCase() === name.toLowerCase())?.value ?? null;
}

/** Gmail's search words from the structured fields, or the raw query as given. */
function searchQuery(input: Plain): string {
  const raw = textOf(input, 'raw_query').trim();
  const words: string[] = [];
  const quote = (v: string) => (/[\s"]/.test(v) ? `"${v.replace(/"/g, '')}"` : v);
  const keywords = textOf(input, 'keywords').trim();
  if (keywords) words.push(keywords);
  for (const key of ['from', 'to'] as const) {
    const value = textOf(input, key).trim();
    if (value) words.push(`${key}:${quote(value)}`);
  }
  for (const label of listOf(input, 'labels')) words.push(`label:${quote(String(label))}`);
  if (String(input.has_attachments) === 'true') words.push('has:attachment');
  if (raw && words.length > 0)
    throw new StepError('Bad request', 'raw_query cannot be combined with the structured search fields');
  return raw || words.join(' ');
}

/** `search_messages`: the list's messages, each read for its headers (at most 50 a page). */
function searchMessages(self: () => Connector): ActionDef {
  return saasAction(
    'Search messages',
    self,
    {
      inputFields: [
        'keywords',
        'from',
        'to',
        'labels',
        'has_attachments',
        'limit',
        'raw_query',
        'pageToken',
        'includeSpamTrash',
      ].map((name) => ({ name, optional: true })),
      outputFields: [
        { name: 'messages', type: 'array', of: 'object' },
        { name: 'nextPageToken' },
        { name: 'resultSizeEstimate', type: 'integer' },
        { name: 'has_more', type: 'boolean' },
      ],
    },
    async (input, session) => {
      const s = await session();
      const query: Record<string, string | number | boolean> = { maxResults: countOf(input, 'limit', 20, 50) };
      const q = searchQuery(input);
      if (q) query.q = q;
      const pageToken = textOf(input, 'pageToken').trim();
      if (pageToken) query.pageToken = pageToken;
      if (String(input.includeSpamTrash) === 'true') query.includeSpamTrash = true;
      const res = await s.request({ method: 'GET', url: 'me/messages', query });
      const list = (res.body ?? {}) as {
        messages?: Array<{ id: string; threadId: string }>;
        nextPageToken?: string;
        resultSizeEstimate?: number;
      };
      const messages = [];
      for (const m of list.messages ?? []) {
        if (!GMAIL_ID.test(String(m.id))) throw new StepError('Bad response', 'the list holds a message without an ID');
        const one = await s.request({
          method: 'GET',
          url: `me/messages/${m.id}`,
          query: { format: 'metadata', metadataHeaders: ['Subject', 'From', 'Cc', 'Bcc', 'Date'] },
        });
        messages.push({
          messageId: m.id,
          threadId: m.threadId,
          subject: header(one.body, 'Subject'),
          sender: header(one.body, 'From'),
          cc: header(one.body, 'Cc'),
          bcc: header(one.body, 'Bcc'),
          timestamp: header(one.body, 'Date'),
        });
      }
      return {
        messages,
        nextPageToken: list.nextPageToken ?? null,
        resultSizeEstimate: list.resultSizeEstimate ?? messages.length,
        has_more: typeof list.nextPageToken === 'string' && list.nextPageToken !== '',
      };
    },
  );
}

export function gmailActions(self: () => Connector): Record<string, ActionDef> {
  return {
    send_mail: saasAction(
      'Send email',
      self,
      {
        required: [
          { path: 'to', label: 'To' },
          { path: 'subject', label: 'Subject' },
        ],
        inputFields: sendMailFields({ from: true }),
        outputFields: [{ name: 'id' }, { name: 'thread_id' }, { name: 'label_ids', type: 'array', of: 'string' }],
      },
      async (input, session) => {
        const mail = outgoingMail(input, { from: true, replyToLabel: 'Reply-To' });
        const raw = Buffer.from(mimeMessage(mail), 'utf8').toString('base64url');
        const res = await (
          await session()
        ).request({ method: 'POST', url: 'me/messages/send', body: { json: { raw } } });
        const sent = (res.body ?? {}) as { id?: unknown; threadId?: unknown; labelIds?: unknown };
        return { id: sent.id ?? null, thread_id: sent.threadId ?? null, label_ids: sent.labelIds ?? [] };
      },
    ),
    download_attachment: saasAction(
      'Download attachment',
      self,
      {
        required: [
          { path: 'id', label: 'Email ID' },
          { path: 'attachmentId', label: 'Attachment ID' },
        ],
        inputFields: [
          { name: 'id', label: 'Email ID' },
          { name: 'attachmentId', label: 'Attachment ID' },
        ],
        outputFields: [{ name: 'content_bytes' }, { name: 'size', type: 'integer' }],
      },
      async (input, session) => {
        const id = gmailId(input, 'Email ID', 'id');
        const attachment = gmailId(input, 'Attachment ID', 'attachmentId', 'attachment_id');
        const res = await (
          await session()
        ).request({ method: 'GET', url: `me/messages/${id}/attachments/${attachment}` });
        const body = (res.body ?? {}) as { data?: unknown; size?: unknown };
        if (typeof body.data !== 'string') throw new StepError('Bad response', 'the attachment has no data');
        const bytes = Buffer.from(body.data, 'base64url');
        return { content_bytes: contentOf(bytes), size: typeof body.size === 'number' ? body.size : bytes.length };
      },
    ),
    search_messages: searchMessages(self),
    get_message: saasAction(
      'Get message',
      self,
      {
        required: [{ path: 'messageId', label: 'Message ID' }],
        inputFields: [{ name: 'messageId', label: 'Message ID' }],
        outputFields: [
          'id',
          'threadId',
          'labelIds',
          'snippet',
          'payload',
          'sizeEstimate',
          'historyId',
          'internalDate',
        ].map((name) => ({ name })),
      },
      async (input, session) => {
        const id = gmailId(input, 'Message ID', 'messageId');
        const res = await (
          await session()
        ).request({ method: 'GET', url: `me/messages/${id}`, query: { format: 'full' } });
        return res.body;
      },
    ),
  };
}
