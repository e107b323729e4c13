// A local SMTP server that keeps every message it receives, for tests of recipes that send e-mail.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string[];
  raw: string;
}

export interface SmtpCapture {
  /** Every message received so far, in order (tests may empty it). */
  readonly mails: CapturedMail[];
  /** `smtp://127.0.0.1:<port>` of the listening server. */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on a free loopback port, without TLS or authentication. */
export async function startSmtpCapture(): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    mails,
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
