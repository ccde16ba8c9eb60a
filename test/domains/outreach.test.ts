/**
 * Outreach (issue 15): newsletter double opt-in and the admin's subscriber list, privacy requests,
 * the waitlist, product interests; emails read from a real SMTP server and their links followed.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/credentials.ts';
import { seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { offlinePage, useChromium } from '../harness/browser.ts';
import { fromNewIp, gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const TEAM = 'privacy-team@example.org';
const app = await startTestApp({
  SMTP_URL: smtp.url,
  PRIVACY_TEAM_EMAIL: TEAM,
  OUTREACH_REQUESTS_PER_ADDRESS_PER_HOUR: '3',
  OUTREACH_REQUESTS_PER_IP_PER_HOUR: '6',
  OUTREACH_CONFIRMS_PER_IP_PER_HOUR: '6',
});

const chromium = useChromium();

let seq = 0;
const newAddress = (what: string) => `${what}.${++seq}.${clock.ms()}@example.com`;

const post = (path: string, body: unknown, headers: Record<string, string> = fromNewIp()) =>
  app.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Runs `send`, then reads the link of the email it caused to `email`. */
async function linkFrom(email: string, send: () => Promise<Response>, path: string) {
  const since = smtp.messages.length;
  expect((await send()).status).toBe(200);
  const mail = await smtp.waitFor(email, { since });
  const match = new RegExp(`(http://[^\\s]+${path})\\?token=([\\w-]+)`).exec(mail.text)!;
  return { mail, url: `${match[1]}?token=${match[2]}`, token: match[2] };
}

/** Follows an emailed link on this app (its host in the email is PUBLIC_URL or HOST:PORT). */
const open = (url: string) => app.fetch(new URL(url).pathname + new URL(url).search);

/** Submits the page's form as a browser on this site would. */
const submit = (path: string, token: string) =>
  app.fetch(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
      ...fromNewIp(),
    },
    body: new URLSearchParams({ token }).toString(),
  });

const waitlistEntry = (email: string, product = '') =>
  app.db.prisma.waitlistEntry.findUnique({ where: { email_product: { email, product } } });

const subscriber = (email: string) =>
  app.db.prisma.newsletterSubscriber.findUnique({ where: { email } });

describe('POST /api/newsletter/subscribe (double opt-in)', () => {
  it('stays pending until the emailed page is posted; GET of the link changes nothing; a second confirm is harmless', async () => {
    const email = newAddress('news');
    const { mail, url, token } = await linkFrom(
      email,
      () => post('/api/newsletter/subscribe', { email, name: 'Ada', source: 'home' }),
      '/newsletter/confirm',
    );
    expect(mail.subject).toBe('Confirm your newsletter subscription');
    expect(await subscriber(email)).toMatchObject({
      status: 'pending',
      name: 'Ada',
      source: 'home',
    });

    const page = await open(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const body = await page.text();
    expect(body).toContain('<form method="post" action="confirm">');
    expect(body).not.toContain('<script');
    expect((await subscriber(email))?.status).toBe('pending');

    const confirmed = await submit('/newsletter/confirm', token);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Subscription confirmed');
    const row = await subscriber(email);
    expect(row?.status).toBe('confirmed');
    expect(row?.tokenHash).toBe(sha256(token));

    expect((await submit('/newsletter/confirm', token)).status).toBe(200);
    expect((await subscriber(email))?.confirmedAt).toEqual(row?.confirmedAt);
  });

  it('answers the same bytes for a new, a pending and a confirmed address; a confirmed one gets no email', async () => {
    const pending = newAddress('pending');
    const confirmed = newAddress('confirmed');
    const fresh = newAddress('fresh');
    await linkFrom(
      pending,
      () => post('/api/newsletter/subscribe', { email: pending }),
      '/newsletter/confirm',
    );
    const { token } = await linkFrom(
      confirmed,
      () => post('/api/newsletter/subscribe', { email: confirmed }),
      '/newsletter/confirm',
    );
    expect((await submit('/newsletter/confirm', token)).status).toBe(200);
    const answers = [];
    for (const email of [fresh, pending, confirmed]) {
      const res = await post('/api/newsletter/subscribe', { email });
      answers.push([res.status, await res.text()]);
    }
    expect(answers).toEqual(Array(3).fill([200, '{"ok":true}']));
    await smtp.waitFor(fresh);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.to(confirmed)).toHaveLength(1);
    expect(smtp.to(pending)).toHaveLength(2);
  });

  it('answers 400 (the page) for an unknown token and for a link without a token', async () => {
    expect((await submit('/newsletter/confirm', 'no-such-token')).status).toBe(400);
    expect((await app.fetch('/newsletter/confirm')).status).toBe(400);
  });

  it('ignores unknown fields and lower-cases the address', async () => {
    const email = newAddress('Mixed');
    const res = await post('/api/newsletter/subscribe', {
      email: email.toUpperCase(),
      color: 'red',
    });
    expect(res.status).toBe(200);
    await smtp.waitFor(email.toLowerCase());
    expect(await subscriber(email.toLowerCase())).not.toBeNull();
  });

  it('answers 422 for a malformed address, located in the body', async () => {
    const res = await rest(app, 'POST', '/api/newsletter/subscribe', {
      body: { email: 'not-an-address' },
      headers: fromNewIp(),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'email']);
  });

  it('answers 405 for GET', async () => {
    expect((await app.fetch('/api/newsletter/subscribe')).status).toBe(405);
  });
});

describe('rate limits of the unauthenticated routes', () => {
  it('limit per address (from any IP) with 429 and Retry-After, whether or not the address is known', async () => {
    const email = newAddress('limited');
    for (let i = 0; i < 3; i++)
      expect((await post('/api/waitlist/join', { email })).status).toBe(200);
    const res = await post('/api/newsletter/subscribe', { email });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ detail: { code: 'rate_limited' } });
  });

  it('limit per client IP over different addresses', async () => {
    const ip = fromNewIp();
    for (let i = 0; i < 6; i++)
      expect(
        (await post('/api/privacy/requests', { email: newAddress('ip'), kind: 'other' }, ip))
          .status,
      ).toBe(200);
    expect((await post('/api/newsletter/subscribe', { email: newAddress('ip') }, ip)).status).toBe(
      429,
    );
  });

  it('limit waitlist confirmations per client IP', async () => {
    const ip = fromNewIp();
    for (let i = 0; i < 6; i++)
      expect((await post('/api/waitlist/confirm', { token: `guess-${i}` }, ip)).status).toBe(400);
    expect((await post('/api/waitlist/confirm', { token: 'guess' }, ip)).status).toBe(429);
  });
});

describe('GET /api/newsletter/subscribers', () => {
  it('lists subscribers with status and dates, paged, to an admin', async () => {
    const email = newAddress('listed');
    await linkFrom(
      email,
      () => post('/api/newsletter/subscribe', { email }),
      '/newsletter/confirm',
    );
    const admin = await seedUser(app, { isAdmin: true });
    const all = await rest(app, 'GET', '/api/newsletter/subscribers?limit=500', {
      token: admin.token,
    });
    expect(all.status).toBe(200);
    const mine = all.body.find((s: { email: string }) => s.email === email);
    expect(mine).toMatchObject({ status: 'pending', confirmed_at: null });
    expect(new Date(mine.created_at).getTime()).toBeGreaterThan(0);
    const page = await rest(app, 'GET', '/api/newsletter/subscribers?limit=1&offset=1', {
      token: admin.token,
    });
    expect(page.body).toEqual([all.body[1]]);
  });

  it('answers 403 to a person who is not an admin and 401 without a token', async () => {
    const { token } = await seedUser(app);
    expect((await rest(app, 'GET', '/api/newsletter/subscribers', { token })).status).toBe(403);
    const anonymous = await rest(app, 'GET', '/api/newsletter/subscribers');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('checks the token before the query (401, not 422, for a bad limit without one)', async () => {
    expect((await rest(app, 'GET', '/api/newsletter/subscribers?limit=abc')).status).toBe(401);
    const admin = await seedUser(app, { isAdmin: true });
    const bad = await rest(app, 'GET', '/api/newsletter/subscribers?limit=abc', {
      token: admin.token,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'limit']);
  });
});

describe('POST /api/privacy/requests', () => {
  it('stores the request, alerts the team and acknowledges to the person, answering ok', async () => {
    const email = newAddress('privacy');
    const since = smtp.messages.length;
    const res = await post('/api/privacy/requests', {
      email,
      kind: 'deletion',
      message: 'Please erase my data',
      extra: 1,
    });
    expect([res.status, await res.text()]).toEqual([200, '{"ok":true}']);
    const rows = await app.db.prisma.privacyRequest.findMany({ where: { email } });
    expect(rows).toMatchObject([{ kind: 'deletion', message: 'Please erase my data' }]);
    const alert = await smtp.waitFor(TEAM, { since });
    expect(alert.subject).toBe(`Privacy request #${rows[0].id}: deletion`);
    expect(alert.text).toContain(email);
    expect(alert.text).toContain('Please erase my data');
    const ack = await smtp.waitFor(email, { since });
    expect(ack.subject).toBe('We received your privacy request');
  });

  it('answers the same for the address of an account and an unknown one', async () => {
    const { user } = await seedUser(app);
    const known = await post('/api/privacy/requests', { email: user.email, kind: 'access' });
    const unknown = await post('/api/privacy/requests', { email: newAddress('u'), kind: 'access' });
    expect([known.status, await known.text()]).toEqual([unknown.status, await unknown.text()]);
  });

  it('answers 422 for an unknown kind and for a message over 2000 characters', async () => {
    const email = newAddress('bad');
    const kind = await rest(app, 'POST', '/api/privacy/requests', {
      body: { email, kind: 'everything' },
      headers: fromNewIp(),
    });
    expect(kind.status).toBe(422);
    const long = await rest(app, 'POST', '/api/privacy/requests', {
      body: { email, kind: 'other', message: 'x'.repeat(2001) },
      headers: fromNewIp(),
    });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'message']);
  });
});

describe('POST /api/waitlist/join and /api/waitlist/confirm', () => {
  const join = (email: string, product?: string) =>
    linkFrom(email, () => post('/api/waitlist/join', { email, product }), '/waitlist/confirm');
  const entry = (email: string, product = '') =>
    app.db.prisma.waitlistEntry.findUnique({ where: { email_product: { email, product } } });

  it('stores a pending place with only the hash of the token; the emailed page confirms on POST, once', async () => {
    const email = newAddress('wait');
    const { url, token } = await join(email, 'premium');
    const row = await entry(email, 'premium');
    expect(row).toMatchObject({ status: 'pending', tokenHash: sha256(token) });
    expect(JSON.stringify(row)).not.toContain(token);
    const page = await open(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`value="${token}"`);
    expect((await entry(email, 'premium'))?.status).toBe('pending');
    expect((await submit('/waitlist/confirm', token)).status).toBe(200);
    expect(await entry(email, 'premium')).toMatchObject({ status: 'confirmed', tokenHash: null });
    const again = await rest(app, 'POST', '/api/waitlist/confirm', {
      body: { token },
      headers: fromNewIp(),
    });
    expect(again.status).toBe(400);
  });

  it('confirms over REST; a second use answers 400', async () => {
    const email = newAddress('rest');
    const { token } = await join(email);
    const first = await rest(app, 'POST', '/api/waitlist/confirm', {
      body: { token },
      headers: fromNewIp(),
    });
    expect([first.status, first.body]).toEqual([200, { ok: true }]);
    expect((await entry(email))?.status).toBe('confirmed');
    const second = await rest(app, 'POST', '/api/waitlist/confirm', {
      body: { token },
      headers: fromNewIp(),
    });
    expect(second.status).toBe(400);
  });

  it('refuses an expired token (400) and leaves the place pending', async () => {
    const email = newAddress('expired');
    const { token } = await join(email);
    await app.db.prisma.waitlistEntry.updateMany({
      where: { email },
      data: { tokenExpiresAt: new Date(clock.ms() - 1000) },
    });
    const res = await rest(app, 'POST', '/api/waitlist/confirm', {
      body: { token },
      headers: fromNewIp(),
    });
    expect(res.status).toBe(400);
    expect((await entry(email))?.status).toBe('pending');
  });

  it('answers 422 for a missing token and for an unknown product', async () => {
    const missing = await rest(app, 'POST', '/api/waitlist/confirm', {
      body: {},
      headers: fromNewIp(),
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'token']);
    const product = await rest(app, 'POST', '/api/waitlist/join', {
      body: { email: newAddress('p'), product: 'spaceship' },
      headers: fromNewIp(),
    });
    expect(product.status).toBe(422);
  });
});

describe('/api/product-interests', () => {
  it('records interest once per product (a repeat updates the note) and lists only the caller’s', async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    const first = await rest(app, 'POST', '/api/product-interests', {
      token: me.token,
      body: { product: 'coach', note: 'evenings' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ product: 'coach', note: 'evenings' });
    const again = await rest(app, 'POST', '/api/product-interests', {
      token: me.token,
      body: { product: 'coach', note: 'mornings', unknown: true },
    });
    expect(again.body).toMatchObject({ id: first.body.id, note: 'mornings' });
    await rest(app, 'POST', '/api/product-interests', {
      token: other.token,
      body: { product: 'kit' },
    });
    const list = await rest(app, 'GET', '/api/product-interests', { token: me.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([again.body]);
    expect(Object.keys(list.body[0]).sort()).toEqual([
      'created_at',
      'id',
      'note',
      'product',
      'updated_at',
    ]);
  });

  it('answers 401 without a token before validating the body, and 422 for an unknown product', async () => {
    const anonymous = await rest(app, 'POST', '/api/product-interests', {
      body: { product: 'nope' },
    });
    expect(anonymous.status).toBe(401);
    expect((await rest(app, 'GET', '/api/product-interests')).status).toBe(401);
    const { token } = await seedUser(app);
    const bad = await rest(app, 'POST', '/api/product-interests', {
      token,
      body: { product: 'nope' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'product']);
  });

  it('hang off me in the dashboard graph as a connection', async () => {
    const { token } = await seedUser(app);
    for (const product of ['kit', 'premium'])
      await rest(app, 'POST', '/api/product-interests', { token, body: { product } });
    const res = await gql(
      app,
      '{ me { productInterests(first: 1) { nodes { product } pageInfo { hasNextPage } } } }',
      { token },
    );
    expect(res.body.data.me.productInterests).toEqual({
      nodes: [{ product: 'kit' }],
      pageInfo: { hasNextPage: true },
    });
  });

  it('answers 405 for DELETE', async () => {
    const { token } = await seedUser(app);
    expect((await rest(app, 'DELETE', '/api/product-interests', { token })).status).toBe(405);
  });
});

describe('the emailed confirmation pages in Chromium', () => {
  it('open with nothing from elsewhere, change nothing until Confirm is pressed, then confirm', async () => {
    const news = newAddress('browser');
    const wait = newAddress('browser-wait');
    const links = [
      await linkFrom(
        news,
        () => post('/api/newsletter/subscribe', { email: news }),
        '/newsletter/confirm',
      ),
      await linkFrom(wait, () => post('/api/waitlist/join', { email: wait }), '/waitlist/confirm'),
    ];
    const { page, elsewhere } = await offlinePage(chromium.browser, app.baseUrl);
    try {
      for (const [i, link] of links.entries()) {
        const url = new URL(link.url);
        expect((await page.goto(`${app.baseUrl}${url.pathname}${url.search}`))?.status()).toBe(200);
        expect(await page.locator('h1').innerText()).toMatch(/^Confirm your/);
        const before = i === 0 ? await subscriber(news) : await waitlistEntry(wait);
        expect(before?.status).toBe('pending');
        await Promise.all([
          page.waitForNavigation(),
          page.getByRole('button', { name: 'Confirm' }).click(),
        ]);
        expect(await page.locator('main').innerText()).toContain('is confirmed');
      }
      expect((await subscriber(news))?.status).toBe('confirmed');
      expect((await waitlistEntry(wait))?.status).toBe('confirmed');
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
