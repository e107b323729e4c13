// Outgoing e-mail. One implementation, SMTP through nodemailer, used when SMTP_URL is set; without
// it there is no mailer and callers record what they would have sent (see member_invitations).
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: { name: string; address: string } | Array<{ name: string; address: string }>;
  subject: string;
  text: string;
  /** Sent as the HTML part, with `text` as the plain alternative. */
  html?: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message; rejects with MailDeliveryError. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A message the SMTP server refused or could not take; `summary` is safe to store and log. */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
  readonly summary: string;

  constructor(summary: string) {
    super(summary);
    this.summary = summary;
  }
}

/** How long to wait for the SMTP server at each step before giving up (the caller is waiting). */
const SMTP_TIMEOUT_MS = 10_000;

export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  // nodemailer is loaded with the first message: most servers send none for hours, if ever.
  let transport: Transporter | undefined;
  const transportOf = async () => {
    const { default: nodemailer } = await import('nodemailer');
    transport ??= nodemailer.createTransport({
      url: options.url,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
      // nodemailer's own logging would print the SMTP dialogue, AUTH included.
      logger: false,
      debug: false,
    });
    return transport;
  };
  return {
    async send(message) {
      try {
        await (
          await transportOf()
        ).sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html !== undefined ? { html: message.html } : {}),
        });
      } catch (error) {
        throw new MailDeliveryError(summariseSmtpError(error));
      }
    },
    close() {
      transport?.close();
    },
  };
}

/**
 * What went wrong, without anything secret: the error code, the SMTP reply code and the first
 * line of the server's reply or of the error message (neither carries the credentials).
 */
export function summariseSmtpError(error: unknown): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    responseCode?: unknown;
    response?: unknown;
    message?: unknown;
  };
  const parts = [typeof e.code === 'string' ? e.code : 'ERROR'];
  if (typeof e.responseCode === 'number') parts.push(String(e.responseCode));
  const detail = typeof e.response === 'string' ? e.response : typeof e.message === 'string' ? e.message : '';
  const firstLine = detail.split(/\r?\n/)[0]?.trim().slice(0, 200) ?? '';
  return firstLine ? `${parts.join(' ')}: ${firstLine}` : parts.join(' ');
}
