// A real SMTP server on 127.0.0.1 (smtp-server) that keeps every message it receives, so
// tests read one-time codes out of the mail the gateway actually sent over SMTP.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './services.ts';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface SmtpCapture {
  url: string;
  messages: ReceivedMail[];
  /** waits for the next unread message to `to` that holds a six-digit code and returns the code */
  code(to: string): Promise<string>;
  /** messages received for `to` so far */
  count(to: string): number;
  close(): Promise<void>;
}

const CODE = /code is (\d{6})\b/;

export async function startSmtp(): Promise<SmtpCapture> {
  const messages: ReceivedMail[] = [];
  const read = new Set<ReceivedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  const net = await new Promise<import('node:net').Server>((resolve) => {
    const s = server.listen(0, '127.0.0.1', () => resolve(s));
  });
  const forRecipient = (to: string) => messages.filter((m) => m.to.includes(to.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${(net.address() as AddressInfo).port}`,
    messages,
    count: (to) => forRecipient(to).length,
    async code(to) {
      // notices carry no code (staff access, alerts): passed over, as a reader skims them
      const mail = await waitFor(() => forRecipient(to).find((m) => !read.has(m) && CODE.test(m.raw)), { what: `a mail with a code to ${to}` });
      read.add(mail);
      return CODE.exec(mail.raw)![1]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
