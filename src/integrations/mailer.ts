/**
 * Outgoing email through nodemailer. With SMTP_URL set, messages go to that server; without it,
 * a development outbox: each message is written as an .eml file under DATA_DIR/outbox and logged,
 * so a self-hoster can still read a sign-in code. Thin by design: callers compose the message.
 * It must never log message bodies when real SMTP is configured (they carry codes and links).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../base/config.ts';
import type { Logger } from '../base/logger.ts';
import { clock } from '../base/clock.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  /** Sends (or writes to the outbox); rejects when the SMTP server refuses. */
  send(message: MailMessage): Promise<void>;
}

const SEND_TIMEOUT_MS = 10_000;

export function createMailer(config: Config, log: Logger): Mailer {
  if (config.SMTP_URL) {
    const url = new URL(config.SMTP_URL);
    const transport = nodemailer.createTransport({
      host: url.hostname,
      port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 587),
      secure: url.protocol === 'smtps:',
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      connectionTimeout: SEND_TIMEOUT_MS,
      greetingTimeout: SEND_TIMEOUT_MS,
      socketTimeout: SEND_TIMEOUT_MS,
    });
    return {
      send: async (m) => {
        await transport.sendMail({ from: config.MAIL_FROM, ...m });
      },
    };
  }
  const outbox = path.join(config.DATA_DIR, 'outbox');
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'unix',
  });
  return {
    send: async (m) => {
      const info = await transport.sendMail({ from: config.MAIL_FROM, ...m });
      await mkdir(outbox, { recursive: true });
      const file = path.join(
        outbox,
        `${clock.now().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`,
      );
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info(
        { to: m.to, subject: m.subject, file },
        'no SMTP_URL configured: email written to the development outbox',
      );
    },
  };
}
