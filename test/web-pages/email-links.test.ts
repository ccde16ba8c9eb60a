/**
 * Issue 11, item 8: every link an email of ours contains opens a working page. The app runs with
 * PUBLIC_URL (the base of emailed links) and a real SMTP server; each emailed link is opened on the
 * test server by its path. Also GET / : a page for a browser, the JSON 404 for API clients as before.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import type { ReceivedMail } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { BROWSER_ACCEPT, offlinePage, useChromium } from '../harness/browser.ts';
import { fromNewIp, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const PUBLIC_URL = 'http://health.example.test:8000';
const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url, PUBLIC_URL });

const chromium = useChromium();

/** Every http(s) address in a mail's text, without the sentence punctuation after it. */
function linksIn(mail: ReceivedMail): string[] {
  return [...mail.text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) =>
    m[0].replace(/[.,;:!?)]+$/, ''),
  );
}

/** The same address on the test server (it serves what PUBLIC_URL names). */
function onTestServer(link: string): string {
  expect(link.startsWith(PUBLIC_URL), link).toBe(true);
  const url = new URL(link);
  return `${app.baseUrl}${url.pathname}${url.search}`;
}

/** Sends one email of each kind the server sends; answers them by kind. */
async function sendEveryEmail(): Promise<
  Record<'invitation' | 'reset' | 'code' | 'newsletter' | 'waitlist' | 'privacy', ReceivedMail>
> {
  const owner = await seedUser(app, { name: 'Owner' });
  const invitee = `invitee.${clock.ms()}@example.com`;
  let since = smtp.messages.length;
  expect(
    (await rest(app, 'POST', '/api/auth/share', { token: owner.token, body: { email: invitee } }))
      .status,
  ).toBe(200);
  const invitation = await smtp.waitFor(invitee, { since });
  since = smtp.messages.length;
  expect(
    (
      await rest(app, 'POST', '/api/auth/forgot-password', {
        body: { email: owner.user.email },
        headers: fromNewIp(),
      })
    ).status,
  ).toBe(200);
  const reset = await smtp.waitFor(owner.user.email, { since });
  since = smtp.messages.length;
  expect(
    (
      await rest(app, 'POST', '/api/auth/email/start', {
        body: { email: invitee },
        headers: fromNewIp(),
      })
    ).status,
  ).toBe(200);
  const code = await smtp.waitFor(invitee, { since });
  /** One public outreach request (issue 15) and the email it sends to `invitee`. */
  const outreach = async (path: string, body: Record<string, string>): Promise<ReceivedMail> => {
    since = smtp.messages.length;
    const res = await rest(app, 'POST', path, {
      body: { email: invitee, ...body },
      headers: fromNewIp(),
    });
    expect(res.status).toBe(200);
    return smtp.waitFor(invitee, { since });
  };
  const newsletter = await outreach('/api/newsletter/subscribe', {});
  const waitlist = await outreach('/api/waitlist/join', {});
  const privacy = await outreach('/api/privacy/requests', { kind: 'access' });
  return { invitation, reset, code, newsletter, waitlist, privacy };
}

describe('links in emails', () => {
  it('every link of every email the server sends opens a 200 HTML page in a browser', async () => {
    const mails = await sendEveryEmail();
    expect(linksIn(mails.invitation)).toEqual([PUBLIC_URL]);
    expect(linksIn(mails.reset)).toHaveLength(1);
    expect(linksIn(mails.reset)[0]).toMatch(/\/reset-password\?token=[\w-]{43}$/);
    expect(linksIn(mails.code)).toEqual([]);
    expect(linksIn(mails.newsletter)[0]).toMatch(/\/newsletter\/confirm\?token=[\w-]{43}$/);
    expect(linksIn(mails.waitlist)[0]).toMatch(/\/waitlist\/confirm\?token=[\w-]{43}$/);
    expect(linksIn(mails.privacy)).toEqual([]);
    for (const [kind, mail] of Object.entries(mails)) {
      for (const link of linksIn(mail)) {
        const res = await fetch(onTestServer(link), { headers: { accept: BROWSER_ACCEPT } });
        expect(res.status, `${kind}: ${link}`).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      }
    }
  });

  it('the invitation link opens a page in Chromium that says how to accept, with nothing from elsewhere', async () => {
    const { invitation } = await sendEveryEmail();
    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    try {
      const res = await page.goto(onTestServer(linksIn(invitation)[0]));
      expect(res?.status()).toBe(200);
      const text = await page.locator('main').innerText();
      expect(text).toContain('Sharing');
      expect(text).toContain('accept the invitation');
      expect(
        await page.evaluate(() => getComputedStyle(document.querySelector('main')!).maxWidth),
      ).toBe('448px');
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the reset form may be posted with PUBLIC_URL as its origin (behind a proxy that rewrites Host)', async () => {
    const { user } = await seedUser(app);
    const since = smtp.messages.length;
    await rest(app, 'POST', '/api/auth/forgot-password', {
      body: { email: user.email },
      headers: fromNewIp(),
    });
    const token = /token=([\w-]+)/.exec((await smtp.waitFor(user.email, { since })).text)![1];
    const body = new URLSearchParams({
      token,
      new_password: 'behind a proxy',
      confirm_password: 'behind a proxy',
    }).toString();
    const post = (origin: string) =>
      app.fetch('/reset-password', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body,
      });
    expect((await post('http://health.example.test:8001')).status).toBe(403);
    expect((await post(PUBLIC_URL)).status).toBe(200);
  });
});

describe('GET /', () => {
  it('answers a browser with a small self-contained page', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await app.fetch('/', { method, headers: { accept: BROWSER_ACCEPT } });
      expect(res.status, method).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('vary')).toMatch(/Accept/);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      if (method === 'GET') {
        const body = await res.text();
        expect(body).not.toMatch(/<script|<img|<link|https?:\/\//);
        expect(body).toContain('Health Platform');
      }
    }
  });

  it('answers API clients the JSON 404 they always got', async () => {
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'application/json, text/plain, */*',
    ]) {
      const res = await app.fetch('/', { headers: accept ? { accept } : {} });
      expect(res.status, accept).toBe(404);
      expect(await res.json()).toEqual({ detail: 'Not Found' });
    }
    expect((await rest(app, 'POST', '/', { body: {} })).status).toBe(404);
  });
});
