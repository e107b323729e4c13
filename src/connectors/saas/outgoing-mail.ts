// The `send_mail` of the mail services (Gmail, Outlook): the vendor's connectors take the same
// fields (to, subject, email_type, message, cc, bcc, reply_to, attachments; Gmail also from), read
// and checked here once; each service then sends them its own way (Gmail an RFC 2822 message built
// here, Outlook Graph's JSON message).
import { randomBytes } from 'node:crypto';
import { StepError } from '../step-error.ts';
import type { SchemaField } from '../definition.ts';
import { addressesOf, bytesOf, listOf, requiredText, textOf, type Plain } from './action-inputs.ts';

export type Address = { email: string; name?: string };

export interface OutgoingMail {
  to: Address[];
  subject: string;
  html: boolean;
  message: string;
  /** Read only where the service takes it (Gmail). */
  from: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  attachments: Array<{ name: string; bytes: Buffer }>;
}

/** `send_mail`'s input fields; `from` where the service takes a sender. */
export function sendMailFields(options: { from: boolean }): SchemaField[] {
  return [
    { name: 'to', label: 'To' },
    { name: 'subject', label: 'Subject' },
    {
      name: 'email_type',
      label: 'Email type',
      optional: true,
      pick_list: [
        ['Text', 'text'],
        ['HTML', 'html'],
      ],
    },
    { name: 'message', label: 'Message', optional: true },
    ...(options.from ? [{ name: 'from', label: 'From', optional: true }] : []),
    { name: 'bcc', label: 'Bcc', optional: true },
    { name: 'cc', label: 'Cc', optional: true },
    { name: 'reply_to', label: 'Reply to', optional: true },
    {
      name: 'attachments',
      type: 'array',
      of: 'object',
      optional: true,
      properties: [{ name: 'file_content' }, { name: 'file_name' }, { name: 'content_encoding', optional: true }],
    },
  ];
}

/**
 * The mail of a `send_mail` step, checked in the order the fields are read: a blank `to` or
 * `subject`, an address that is not one, an attachment without a name. An attachment's content is
 * its text as UTF-8, or base64 with `content_encoding: base64` (as File tools and the charts give a file).
 */
export function outgoingMail(input: Plain, options: { from: boolean; replyToLabel: string }): OutgoingMail {
  const to = addressesOf(input, 'to', 'To');
  if (to.length === 0) throw new StepError('Bad request', "To can't be blank");
  const subject = requiredText(input, 'Subject', 'subject');
  const html = textOf(input, 'email_type').trim().toLowerCase() === 'html';
  const from = options.from ? addressesOf(input, 'from', 'From') : [];
  const cc = addressesOf(input, 'cc', 'Cc');
  const bcc = addressesOf(input, 'bcc', 'Bcc');
  const replyTo = addressesOf(input, 'reply_to', options.replyToLabel);
  const attachments = listOf(input, 'attachments').map((item, i) => {
    const a = (typeof item === 'object' && item !== null ? item : {}) as Plain;
    const name = requiredText(a, `attachments[${i}] file name`, 'file_name', 'name', 'attachment_name');
    const content = textOf(a, 'file_content', 'content', 'attachment');
    const base64 = textOf(a, 'content_encoding').trim().toLowerCase() === 'base64';
    if (base64 && !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(content))
      throw new StepError('Bad request', `attachments[${i}] file content is not base64`);
    return { name, bytes: base64 ? Buffer.from(content, 'base64') : bytesOf(content) };
  });
  return { to, subject, html, message: textOf(input, 'message'), from, cc, bcc, replyTo, attachments };
}

/** A header value: no line breaks (a header of its own), non-ASCII as an RFC 2047 encoded word. */
function headerText(value: string, label: string): string {
  if (/[\r\n]/.test(value)) throw new StepError('Bad request', `${label} must be one line`);
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function addressHeader(list: Address[]): string {
  return list.map((a) => (a.name ? `${headerText(a.name, 'A name')} <${a.email}>` : a.email)).join(', ');
}

function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,76}/g) ?? ['']).join('\r\n');
}

/** The mail as an RFC 2822 message (RFC 2045 parts when it has attachments). */
export function mimeMessage(mail: OutgoingMail): string {
  const headers: string[] = [];
  if (mail.from.length > 0) headers.push(`From: ${addressHeader(mail.from)}`);
  headers.push(`To: ${addressHeader(mail.to)}`);
  for (const [list, name] of [
    [mail.cc, 'Cc'],
    [mail.bcc, 'Bcc'],
    [mail.replyTo, 'Reply-To'],
  ] as const) {
    if (list.length > 0) headers.push(`${name}: ${addressHeader(list)}`);
  }
  headers.push(`Subject: ${headerText(mail.subject, 'Subject')}`, 'MIME-Version: 1.0');
  const body = [
    `Content-Type: text/${mail.html ? 'html' : 'plain'}; charset=UTF-8`,
    'Content-Transfer-Encoding: base64',
    '',
    base64Lines(bytesOf(mail.message)),
  ].join('\r\n');
  if (mail.attachments.length === 0) return [...headers, body].join('\r\n');
  const attachments = mail.attachments.map((a) => ({
    name: headerText(a.name, 'A file name').replace(/"/g, "'"),
    bytes: a.bytes,
  }));
  const boundary = `sb-${randomBytes(12).toString('hex')}`;
  const parts = [
    body,
    ...attachments.map((a) =>
      [
        `Content-Type: application/octet-stream; name="${a.name}"`,
        `Content-Disposition: attachment; filename="${a.name}"`,
        'Content-Transfer-Encoding: base64',
        '',
        base64Lines(a.bytes),
      ].join('\r\n'),
    ),
  ];
  return [
    ...headers,
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    ...parts.map((p) => `--${boundary}\r\n${p}`),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}
