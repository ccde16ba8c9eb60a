/**
 * Issue 11, item 8: the page the reset email links to. In headless Chromium with no internet
 * (test/harness/browser.ts): open the emailed link, choose a password, sign in with it. Over plain
 * HTTP: GET changes nothing, a post from another site is refused, the form comes back on a broken
 * rule, and hostile input answers 4xx pages, never a 5xx.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { BROWSER_ACCEPT, offlinePage, useChromium } from '../harness/browser.ts';
import { fromNewIp, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });

const chromium = useChromium();

const FORM = 'application/x-www-form-urlencoded';

/**
 * Asks for a reset through the API and returns the emailed link, moved onto the test server (the
 * email's base is PUBLIC_URL, or HOST:PORT when unset; only its path and query are ours to test).
 */
async function resetLink(email: string): Promise<string> {
  const since = smtp.messages.length;
  const asked = await rest(app, 'POST', '/api/auth/forgot-password', {
    body: { email },
    headers: fromNewIp(),
  });
  expect(asked.status).toBe(200);
  const mail = await smtp.waitFor(email, { since });
  const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
  expect(link.pathname).toBe('/reset-password');
  expect(link.searchParams.get('token')).toMatch(/^[\w-]{43}$/);
  return `${app.baseUrl}${link.pathname}${link.search}`;
}

const tokenOf = (link: string): string => new URL(link).searchParams.get('token')!;

const loginStatus = async (email: string, password: string): Promise<number> =>
  (await rest(app, 'POST', '/api/auth/login', { body: { email, password }, headers: fromNewIp() }))
    .status;

/** Posts the form as a browser would, with `fields` url-encoded (or a raw body). */
function postForm(
  fields: Record<string, string> | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.fetch('/reset-password', {
    method: 'POST',
    headers: { 'content-type': FORM, accept: BROWSER_ACCEPT, ...headers },
    body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  });
}

const fields = (
  token: string,
  password = 'a brand new password',
  confirm = password,
): Record<string, string> => ({
  token,
  new_password: password,
  confirm_password: confirm,
});

/** A page answer must be a whole HTML page with the pages' headers, never a stack trace. */
async function pageOf(res: Response): Promise<string> {
  expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  const body = await res.text();
  expect(body).toMatch(/^<!doctype html>/);
  expect(body).not.toMatch(/\bat .+\.ts:\d+|Error:|node_modules/);
  return body;
}

/** Fills the page's two fields and submits; returns the status of the answer to the post. */
async function submit(page: Page, password: string, confirm = password): Promise<number> {
  await page.fill('#new_password', password);
  await page.fill('#confirm_password', confirm);
  const [answer] = await Promise.all([
    page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url() === `${app.baseUrl}/reset-password`,
    ),
    page.click('button[type=submit]'),
  ]);
  await page.waitForLoadState();
  return answer.status();
}

describe('the reset link in headless Chromium', () => {
  it('opens a self-contained form; the new password works, the old one no longer does, the link works once', async () => {
    const email = `web.${clock.ms()}@example.com`;
    const registered = await rest(app, 'POST', '/api/auth/register', {
      body: { email, password: 'the old password', name: 'Web' },
      headers: fromNewIp(),
    });
    expect(registered.status).toBeLessThan(300);
    const link = await resetLink(email);

    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    try {
      const opened = await page.goto(link);
      expect(opened?.status()).toBe(200);
      const headers = opened!.headers();
      expect(headers['content-security-policy']).toMatch(
        /default-src 'none'; style-src 'sha256-[\w+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'/,
      );
      expect(headers['referrer-policy']).toBe('no-referrer');
      expect(headers['cache-control']).toBe('no-store');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(await page.locator('h1').innerText()).toBe('Choose a new password');
      expect(await page.locator('input[name=token]').inputValue()).toBe(tokenOf(link));
      // the inline stylesheet is allowed by its hash (a stale hash would leave the button unstyled)
      expect(
        await page.evaluate(
          () => getComputedStyle(document.querySelector('button')!).backgroundColor,
        ),
      ).toBe('rgb(31, 111, 235)');

      // two different passwords: the form again, nothing used up
      expect(await submit(page, 'first try password', 'second try password')).toBe(422);
      expect(await page.locator('.error').innerText()).toContain('The two passwords differ');
      // a password the schema refuses: its rule on the form again
      expect(await submit(page, 'short')).toBe(422);
      expect(await page.locator('.error').innerText()).toContain('at least 8 characters');

      expect(await submit(page, 'my new browser password')).toBe(200);
      expect(await page.locator('h1').innerText()).toBe('Password changed');
      expect(await page.locator('main').innerText()).toContain('signed out');

      expect(await loginStatus(email, 'my new browser password')).toBe(200);
      expect(await loginStatus(email, 'the old password')).toBe(401);

      // the same link again: the form opens (GET checks nothing), the post says the link is spent
      expect((await page.goto(link))?.status()).toBe(200);
      expect(await submit(page, 'yet another password')).toBe(400);
      expect(await page.locator('h1').innerText()).toBe('This link no longer works');
      expect(await loginStatus(email, 'my new browser password')).toBe(200);

      expect(elsewhere).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('works for a visitor signed in to the web app (the session cookie does not get in the way)', async () => {
    const { user, password } = await seedUser(app);
    const link = await resetLink(user.email);
    const web = await rest(app, 'POST', '/api/auth/web/login', {
      body: { email: user.email, password },
      headers: fromNewIp(),
    });
    expect(web.status).toBe(200);
    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    try {
      const cookies = web.headers.getSetCookie().map((c) => {
        const [name, ...rest] = c.split(';')[0].split('=');
        return { name, value: rest.join('='), url: app.baseUrl };
      });
      expect(cookies.length).toBeGreaterThan(0);
      await page.context().addCookies(cookies);
      await page.goto(link);
      expect(await submit(page, 'changed while signed in')).toBe(200);
      expect(await loginStatus(user.email, 'changed while signed in')).toBe(200);
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('a forged cross-site post in headless Chromium', () => {
  it('is refused with 403, whether the forging page sends its origin or hides it (Origin: null)', async () => {
    const { user, password } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    for (const meta of ['', '<meta name="referrer" content="no-referrer">']) {
      const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
      // another site, served by the browser itself (routes registered later take precedence)
      await page.route('http://evil.test/**', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html>${meta}<form method="post" action="${app.baseUrl}/reset-password">
            <input name="token" value="${token}"><input name="new_password" value="stolen password">
            <input name="confirm_password" value="stolen password"><button>go</button></form>`,
        }),
      );
      try {
        await page.goto('http://evil.test/');
        const [answer] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.click('button'),
        ]);
        expect(answer.status(), meta || 'with origin').toBe(403);
        expect(elsewhere).toEqual([]);
      } finally {
        await page.close();
      }
    }
    expect(await loginStatus(user.email, 'stolen password')).toBe(401);
    expect(await loginStatus(user.email, password)).toBe(200);
  });
});

describe('GET /reset-password', () => {
  it('never changes anything, however often and however it is fetched (mail scanners prefetch links)', async () => {
    const { user, password } = await seedUser(app);
    const link = await resetLink(user.email);
    const path = link.slice(app.baseUrl.length);
    for (const accept of [BROWSER_ACCEPT, '*/*', 'application/json']) {
      const res = await app.fetch(path, { headers: { accept } });
      expect(res.status).toBe(200);
      await pageOf(res);
    }
    expect((await app.fetch(path, { method: 'HEAD' })).status).toBe(200);
    expect(await loginStatus(user.email, password)).toBe(200);
    const row = await app.db.prisma.passwordResetToken.findFirstOrThrow({
      where: { userId: user.id },
    });
    expect(row.usedAt).toBeNull();
    // and the token still does its job
    expect((await postForm(fields(tokenOf(link)))).status).toBe(200);
    expect(await loginStatus(user.email, 'a brand new password')).toBe(200);
  });

  it('answers 400 "link is incomplete" without a token, with a blank one, or with two', async () => {
    for (const query of ['', '?token=', '?token=%20%20', '?token=a&token=b', '?other=1']) {
      const res = await app.fetch(`/reset-password${query}`, {
        headers: { accept: BROWSER_ACCEPT },
      });
      expect(res.status, query).toBe(400);
      expect(await pageOf(res)).toContain('This link is incomplete');
    }
  });

  it('escapes the token it echoes into the form', async () => {
    const res = await app.fetch(
      `/reset-password?token=${encodeURIComponent('"><script>alert(1)</script>&amp;')}`,
    );
    const body = await pageOf(res);
    expect(res.status).toBe(200);
    expect(body).not.toContain('<script>');
    expect(body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;"');
  });
});

describe('POST /reset-password', () => {
  it('refuses a post from another origin with a 403 page, and changes nothing', async () => {
    const { user, password } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    const forged: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'http://127.0.0.1.evil.example' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'not a url' },
    ];
    for (const headers of forged) {
      const res = await postForm(fields(token, 'stolen password'), headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await pageOf(res)).toContain('This form came from another site');
    }
    expect(await loginStatus(user.email, password)).toBe(200);
    expect(await loginStatus(user.email, 'stolen password')).toBe(401);
    // the token was not used: this server's own origin may post it
    const own = await postForm(fields(token), {
      origin: app.baseUrl,
      'sec-fetch-site': 'same-origin',
    });
    expect(own.status).toBe(200);
    expect(await pageOf(own)).toContain('Password changed');
  });

  it('accepts Origin: null from its own page (no-referrer makes browsers send it) when Sec-Fetch-Site says same-origin', async () => {
    const { user } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    const res = await postForm(fields(token), { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(200);
  });

  it('shows the form again with 422 for a password the schema refuses, keeping the token usable', async () => {
    const { user, password } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    for (const weak of ['short', '', 'x'.repeat(257)]) {
      const res = await postForm(fields(token, weak));
      expect(res.status, weak.slice(0, 10)).toBe(422);
      const body = await pageOf(res);
      expect(body).toContain('<form method="post" action="reset-password">');
      expect(body).toContain(`name="token" value="${token}"`);
      expect(body).toContain('The new password was not accepted');
    }
    expect(await loginStatus(user.email, password)).toBe(200);
    expect((await postForm(fields(token))).status).toBe(200);
  });

  it('shows the form again with 422 when the two fields differ or one is missing, changing nothing', async () => {
    const { user, password } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    const differ = await postForm(fields(token, 'a brand new password', 'a brand new passw0rd'));
    expect(differ.status).toBe(422);
    expect(await pageOf(differ)).toContain('The two passwords differ');
    const missing = await postForm({ token, new_password: 'a brand new password' });
    expect(missing.status).toBe(422);
    expect(await pageOf(missing)).toContain('in both fields');
    expect(await loginStatus(user.email, password)).toBe(200);
    expect((await postForm(fields(token))).status).toBe(200);
  });

  it('answers 400 "no longer works" for an unknown, used or expired token', async () => {
    const { user } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    for (const bad of ['not-a-token', 'x'.repeat(201)]) {
      const res = await postForm(fields(bad));
      expect(res.status, bad.slice(0, 10)).toBe(400);
      expect(await pageOf(res)).toContain('This link no longer works');
    }
    await app.db.prisma.passwordResetToken.updateMany({
      where: { userId: user.id },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const expired = await postForm(fields(token));
    expect(expired.status).toBe(400);
    expect(await pageOf(expired)).toContain('This link no longer works');
  });

  it('answers hostile input with 4xx pages, never a 5xx', async () => {
    const { user, password } = await seedUser(app);
    const token = tokenOf(await resetLink(user.email));
    const pw = 'a brand new password';
    // [case, body, expected status, extra headers]
    const cases: [string, string, number, Record<string, string>?][] = [
      ['NUL in the token', `token=${token}%00&new_password=${pw}&confirm_password=${pw}`, 400],
      [
        'NUL in the password',
        `token=${token}&new_password=abc%00defghij&confirm_password=abc%00defghij`,
        422,
      ],
      [
        '1 MB body',
        `token=${token}&new_password=${'a'.repeat(1024 * 1024)}&confirm_password=x`,
        413,
      ],
      ['broken percent-encoding', `token=%E0%A4%A&new_password=%zz%&confirm_password=%zz%`, 400],
      [
        'broken percent-encoding in the password',
        `token=${token}&new_password=%E0%A4%Azzzzzzzz&confirm_password=%E0%A4%Azzzzzzzz`,
        400,
      ],
      [
        'token twice',
        `token=${token}&token=${token}&new_password=${pw}&confirm_password=${pw}`,
        400,
      ],
      [
        'password twice',
        `token=${token}&new_password=${pw}&new_password=${pw}&confirm_password=${pw}`,
        422,
      ],
      ['many fields', Array.from({ length: 50 }, (_, i) => `f${i}=1`).join('&'), 413],
      ['no body', '', 400],
      ['JSON body', JSON.stringify(fields(token, pw)), 400, { 'content-type': 'application/json' }],
      [
        'multipart body',
        '--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc\r\n--x--\r\n',
        400,
        { 'content-type': 'multipart/form-data; boundary=x' },
      ],
      [
        'latin-1 charset',
        `token=${token}&new_password=${pw}&confirm_password=${pw}`,
        415,
        { 'content-type': `${FORM}; charset=latin1` },
      ],
      ['gzip that is not', `token=${token}`, 400, { 'content-encoding': 'gzip' }],
    ];
    for (const [name, body, status, headers] of cases) {
      const res = await postForm(body, headers);
      expect(res.status, name).toBe(status);
      await pageOf(res);
    }
    // bytes that are not UTF-8 (browsers percent-encode everything)
    const latin1 = await app.fetch('/reset-password', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: Buffer.concat([
        Buffer.from(`token=${token}&new_password=`),
        Buffer.from([0xe9, 0xe9, 0xe9, 0xe9, 0xe9, 0xe9, 0xe9, 0xe9]),
        Buffer.from('&confirm_password=x'),
      ]),
    });
    expect(latin1.status).toBe(400);
    const put = await app.fetch('/reset-password', {
      method: 'PUT',
      headers: { 'content-type': FORM },
      body: 'token=x',
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    // none of it changed the password or spent the token
    expect(await loginStatus(user.email, password)).toBe(200);
    expect((await postForm(fields(token))).status).toBe(200);
  });
});
