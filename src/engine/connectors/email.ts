// email/send_mail (20 §10.9): a message sent through the server's SMTP settings (SMTP_URL,
// SMTP_FROM); the vendor sends through its own mail service, with no connection. Recipients are
// checked before anything is sent; a refusal of the SMTP server is the step's error.
import { MailDeliveryError } from '../../mail/mailer.ts';
import { hashGet, newHash, toRubyString } from '../../recipe/formula/values.ts';
import { StepError, type Connector } from './types.ts';

const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;
const MAX_RECIPIENTS = 50;
const MAX_BODY_CHARS = 1_000_000;

function recipients(value: string): string[] {
  const list = value
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (list.length === 0) throw new StepError('Bad request', 'to must name at least one recipient');
  if (list.length > MAX_RECIPIENTS)
    throw new StepError('Bad request', `to names ${list.length} recipients; at most ${MAX_RECIPIENTS}`);
  const bad = list.find((a) => !ADDRESS.test(a));
  if (bad) throw new StepError('Bad request', `to: ${JSON.stringify(bad).slice(0, 100)} is not an e-mail address`);
  return list;
}

export const email: Connector = {
  provider: 'email',
  title: 'Email',
  needsConnection: false,
  reachesOutside: true,
  triggers: {},
  actions: {
    send_mail: {
      title: 'Send email',
      required: [
        { path: 'to', label: 'To' },
        { path: 'subject', label: 'Subject' },
      ],
      async run(input, sc) {
        const to = recipients(toRubyString(hashGet(input, 'to')));
        const subject = toRubyString(hashGet(input, 'subject'))
          .replace(/[\r\n]+/g, ' ')
          .slice(0, 998);
        const body = toRubyString(hashGet(input, 'body'));
        if (body.length > MAX_BODY_CHARS)
          throw new StepError('Bad request', `body is longer than ${MAX_BODY_CHARS} characters`);
        const html = toRubyString(hashGet(input, 'email_type')).toLowerCase() === 'html';
        const mailer = sc.ctx.mailer;
        if (!mailer) throw new StepError('Email error', 'this server sends no e-mail: SMTP_URL is not set');
        try {
          await mailer.send({
            to: to.map((address) => ({ name: '', address })),
            subject,
            text: html ? body.replace(/<[^>]*>/g, '') : body,
            ...(html ? { html: body } : {}),
          });
        } catch (error) {
          if (error instanceof MailDeliveryError) throw new StepError('Email error', error.summary);
          throw error;
        }
        return newHash([
          ['to', to.join(', ')],
          ['subject', subject],
        ]);
      },
    },
  },
};
