/**
 * A real SMTP server in process (smtp-server: no auth, no TLS, an ephemeral port) that keeps every
 * message it receives, parsed with mailparser. Tests start the app with
 * `startTestApp({ SMTP_URL: smtp.url })` and read the delivered message (a code, a reset link), so
 * the app's real nodemailer transport is exercised end to end. Closed after the test file.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll } from 'vitest';
import { clock } from '../../src/base/clock.ts';

export interface ReceivedMail {
  /** envelope recipients, lower-case */
  to: string[];
  from: string;
  subject: string;
  text: string;
}

export interface FakeSmtp {
  /** smtp://127.0.0.1:<port> for SMTP_URL */
  url: string;
  /** every message received so far, oldest first */
  messages: ReceivedMail[];
  /** The first message to `address` received after `since` messages (waits up to `timeoutMs`). */
  waitFor(address: string, options?: { since?: number; timeoutMs?: number }): Promise<ReceivedMail>;
  /** Messages to `address` received so far. */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: mail.subject ?? '',
            text: mail.text ?? '',
          });
          for (const wake of waiters) wake();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const to = (address: string): ReceivedMail[] =>
    messages.filter((m) => m.to.includes(address.toLowerCase()));

  const smtp: FakeSmtp = {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to,
    async waitFor(address, options = {}) {
      const since = options.since ?? 0;
      const find = (): ReceivedMail | undefined =>
        messages.slice(since).find((m) => m.to.includes(address.toLowerCase()));
      const deadline = clock.ms() + (options.timeoutMs ?? 5_000);
      for (let found = find(); ; found = find()) {
        if (found) return found;
        const left = deadline - clock.ms();
        if (left <= 0)
          throw new Error(`no email to ${address} within ${options.timeoutMs ?? 5_000} ms`);
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  afterAll(() => smtp.close());
  return smtp;
}
