/**
 * Issue 13 (docs/mcp-oauth.md section 7): the OAuth host's sign-in and consent pages. In headless
 * Chromium with no internet (test/harness/browser.ts), from /oauth/authorize: sign in by password
 * or by emailed code, see what the app asks, approve or deny, land on the app's redirect URI (the
 * offline page records the navigation there and aborts it). Over plain HTTP: a post from another
 * site, a missing or wrong CSRF token, a stale or garbage ticket, and hostile forms answer 4xx
 * pages, never a 5xx.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signTicket } from '../../src/domains/oauth/oauth.authorize.ts';
import { seedUser } from '../factories/users.ts';
import { startFakeClientMetadata } from '../fakes/client-metadata.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { offlinePage, useChromium } from '../harness/browser.ts';
import { checkedFamilies, consent, inputValue, OAuthBrowser } from '../harness/oauth.ts';
import { pkce, REDIRECT_URI, registerTestClient } from '../harness/oauth-client.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const metadata = await startFakeClientMetadata();
const app = await startTestApp({ SMTP_URL: smtp.url }, { clientMetadataDial: metadata.dial });
const chromium = useChromium();

const STATE = 'xyz';
const CLIENT_NAME = 'Consent test client';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The /oauth/authorize URL of a fresh request of `clientId`. */
function authorizeUrlOf(
  clientId: string,
  params: Record<string, string> = {},
): { clientId: string; authorizeUrl: string } {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: STATE,
    ...params,
  });
  return { clientId, authorizeUrl: `${app.mcpUrl}/oauth/authorize?${query}` };
}

/** A registered public client (`metadata` on top) and the /oauth/authorize URL of a request of it. */
async function startAuthorization(
  metadata: Record<string, unknown> = {},
  params: Record<string, string> = {},
): Promise<{ clientId: string; authorizeUrl: string }> {
  const client = await registerTestClient(app, { client_name: CLIENT_NAME, ...metadata });
  return authorizeUrlOf(client.client_id, params);
}

/** A browser signed in on the OAuth host, holding the ticket of a fresh authorization. */
async function signedInAt(
  authorization?: Promise<{ clientId: string; authorizeUrl: string }>,
): Promise<{ browser: OAuthBrowser; ticket: string; clientId: string; page: string }> {
  const { user, password } = await seedUser(app);
  const { clientId, authorizeUrl } = await (authorization ?? startAuthorization());
  const browser = new OAuthBrowser(app);
  const started = await browser.fetch(authorizeUrl);
  expect(started.status).toBe(302);
  const ticket = browser.locationOf(started).searchParams.get('ticket')!;
  const signedIn = await browser.post('/oauth/sign-in', {
    ticket,
    action: 'password',
    email: user.email,
    password,
  });
  expect(signedIn.status).toBe(303);
  const shown = await browser.fetch(browser.locationOf(signedIn).href);
  expect(shown.status).toBe(200);
  return { browser, ticket, clientId, page: await shown.text() };
}

/** A page answer must be a whole HTML page with the pages' headers, never a stack trace. */
async function pageOf(res: Response): Promise<string> {
  expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  const body = await res.text();
  expect(body).toMatch(/^<!doctype html>/);
  expect(body).not.toMatch(/\bat .+\.ts:\d+|Error:|node_modules/);
  return body;
}

/** Clicks `selector` and answers the navigation to the app's redirect URI (aborted offline). */
async function returnedTo(page: Page, selector: string): Promise<URL> {
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().startsWith(REDIRECT_URI), { timeout: 10_000 }),
    page.click(selector),
  ]);
  return new URL(request.url());
}

/** Opens the authorize URL in Chromium and signs in with the password form. */
async function signInWithPassword(
  page: Page,
  authorizeUrl: string,
  email: string,
  password: string,
): Promise<void> {
  const opened = await page.goto(authorizeUrl);
  expect(opened?.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe('/oauth/consent');
  expect(await page.locator('h1').innerText()).toBe('Sign in to connect an app');
  await page.fill('#email', email);
  await page.fill('#password', password);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.click('form:has(#password) button'),
  ]);
  expect(answer.status()).toBe(303);
  await page.waitForSelector('input[name=csrf_token]', { state: 'attached' });
}

const scopesOfCode = async (clientId: string): Promise<string[]> =>
  (await app.db.prisma.oAuthAuthorizationCode.findFirstOrThrow({ where: { clientId } })).scopes;

describe('the consent flow in headless Chromium', () => {
  it('signs in by password, shows the app, where the browser returns and the families, and approves', async () => {
    const { user, password } = await seedUser(app);
    const { clientId, authorizeUrl } = await startAuthorization();
    const { page, elsewhere } = await offlinePage(chromium.browser, app.mcpUrl);
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    try {
      await signInWithPassword(page, authorizeUrl, user.email, password);
      expect(await page.locator('h1').innerText()).toBe('Connect an app?');
      const main = await page.locator('main').innerText();
      expect(main).toContain(CLIENT_NAME);
      expect(main).toContain('Name not verified');
      expect(await page.locator('main p strong').allInnerTexts()).toContain(
        'an app on this computer (127.0.0.1:9)',
      );
      expect(main).toContain(
        'The connection lasts up to 365 days; disconnect it at any time under Settings, Connected apps.',
      );
      expect(main).toContain(`Signed in as ${user.email}`);
      const labels = await page.locator('label.family').allInnerTexts();
      expect(labels.map((l) => l.split('\n')[0])).toEqual([
        'Read your data',
        'Change your data',
        'DNA',
        'The assistant',
        'Community',
        'Export',
        'Account changes',
      ]);
      expect(await page.locator('input[name=families]:checked').count()).toBe(1);
      expect(await page.locator('input[name=families][value=read]').isChecked()).toBe(true);
      // the inline stylesheet is allowed by its hash (a stale hash would leave the button unstyled)
      expect(
        await page.evaluate(
          () => getComputedStyle(document.querySelector('button')!).backgroundColor,
        ),
      ).toBe('rgb(31, 111, 235)');

      const back = await returnedTo(page, 'button[value=approve]');
      expect(back.origin + back.pathname).toBe(REDIRECT_URI);
      expect(back.searchParams.get('code')).toMatch(/^hdp_oac_/);
      expect(back.searchParams.get('state')).toBe(STATE);
      expect(back.searchParams.get('iss')).toBe(app.mcpUrl);
      expect(await scopesOfCode(clientId)).toContain('health:glucose:read');
      // nothing was fetched elsewhere (Playwright routes no redirect, so the app's redirect is not in
      // the list: Chromium tried 127.0.0.1:9 itself); the CSP let the redirect through
      expect(elsewhere).toEqual([]);
      expect(cspViolations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('signs in by an emailed code (a new address gets an account) and highlights what the app asked for', async () => {
    const email = `oauth.code.${clock.ms()}@example.com`;
    const { authorizeUrl } = await startAuthorization({}, { scope: 'health:dna:read' });
    const { page, elsewhere } = await offlinePage(chromium.browser, app.mcpUrl);
    try {
      await page.goto(authorizeUrl);
      await page.fill('#code_email', email);
      const since = smtp.messages.length;
      await Promise.all([page.waitForURL(/\/oauth\/sign-in$/), page.click('text=Email me a code')]);
      expect(await page.locator('h1').innerText()).toBe('Enter the code from the email');
      const mail = await smtp.waitFor(email, { since });
      const code = /\b(\d{6})\b/.exec(mail.text)![1];

      // a wrong code: the code form again, nothing signed in
      await page.fill('#code', String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
      await page.click('button[type=submit] >> text=Sign in');
      await page.waitForLoadState();
      expect(await page.locator('.error').innerText()).toContain('not right');

      await page.fill('#code', code);
      await Promise.all([
        page.waitForURL(/\/oauth\/consent\?ticket=/),
        page.click('button[type=submit] >> text=Sign in'),
      ]);
      expect(await page.locator('h1').innerText()).toBe('Connect an app?');
      expect(await page.locator('main').innerText()).toContain(`Signed in as ${email}`);
      // asked for, highlighted, never ticked
      const dna = page.locator('label.family.requested');
      expect(await dna.count()).toBe(1);
      expect(await dna.innerText()).toContain('DNA');
      expect(await dna.innerText()).toContain('The app asked for this');
      expect(await page.locator('input[name=families][value=dna]').isChecked()).toBe(false);
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('grants the DNA scopes when DNA is ticked', async () => {
    const { user, password } = await seedUser(app);
    const { clientId, authorizeUrl } = await startAuthorization();
    const { page } = await offlinePage(chromium.browser, app.mcpUrl);
    try {
      await signInWithPassword(page, authorizeUrl, user.email, password);
      await page.check('input[name=families][value=dna]');
      const back = await returnedTo(page, 'button[value=approve]');
      expect(back.searchParams.get('code')).toMatch(/^hdp_oac_/);
      const scopes = await scopesOfCode(clientId);
      expect(scopes).toEqual(expect.arrayContaining(['health:dna:read', 'health:dna:write']));
      expect(scopes).toContain('health:glucose:read');
      expect(scopes).not.toContain('account:write');
      expect(scopes).not.toContain('health:glucose:write');
    } finally {
      await page.close();
    }
  });

  it('asks again (422) when nothing is ticked, and Deny answers access_denied with the state', async () => {
    const { user, password } = await seedUser(app);
    const { clientId, authorizeUrl } = await startAuthorization();
    const { page } = await offlinePage(chromium.browser, app.mcpUrl);
    try {
      await signInWithPassword(page, authorizeUrl, user.email, password);
      await page.uncheck('input[name=families][value=read]');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button[value=approve]'),
      ]);
      expect(answer.status()).toBe(422);
      await page.waitForLoadState();
      expect(await page.locator('.error').innerText()).toContain('Tick at least one');
      expect(await page.locator('input[name=families]:checked').count()).toBe(0);

      const back = await returnedTo(page, 'button[value=deny]');
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe(STATE);
      expect(back.searchParams.get('iss')).toBe(app.mcpUrl);
      expect(back.searchParams.get('code')).toBeNull();
      expect(await app.db.prisma.oAuthAuthorizationCode.count({ where: { clientId } })).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('shows a client name with markup as text', async () => {
    const name = '<b>x</b><script>document.title="owned"</script>';
    const { user, password } = await seedUser(app);
    const { authorizeUrl } = await startAuthorization({ client_name: name });
    const { page } = await offlinePage(chromium.browser, app.mcpUrl);
    try {
      await signInWithPassword(page, authorizeUrl, user.email, password);
      expect(await page.locator('main p strong').first().innerText()).toBe(name);
      expect(await page.locator('main b, main script, script').count()).toBe(0);
      expect(await page.title()).toBe('Connect an app? · Health Platform');
    } finally {
      await page.close();
    }
  });

  it('cannot be framed by another site', async () => {
    const { browser, ticket } = await signedInAt();
    const { page } = await offlinePage(chromium.browser, app.mcpUrl);
    try {
      await page
        .context()
        .addCookies(
          [...browser.cookies].map(([name, value]) => ({ name, value, url: app.mcpUrl })),
        );
      const target = `${app.mcpUrl}/oauth/consent?ticket=${encodeURIComponent(ticket)}`;
      await page.route('http://evil.test/**', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><iframe src="${target}"></iframe>`,
        }),
      );
      await page.goto('http://evil.test/');
      await page.waitForTimeout(500);
      const framed = page.frames().find((f) => f !== page.mainFrame());
      const text = framed ? await framed.content().catch(() => '') : '';
      // neither the consent page nor the sign-in page (the cookie may stay behind in a frame)
      expect(text).not.toContain('<main>');
      expect(text).not.toContain('Health Platform');
    } finally {
      await page.close();
    }
  });
});

describe('the pages over HTTP', () => {
  it('answer with the security headers; the consent page lets its form reach only the app', async () => {
    const { browser, ticket } = await signedInAt();
    const res = await browser.fetch(`/oauth/consent?ticket=${encodeURIComponent(ticket)}`);
    expect(res.status).toBe(200);
    await pageOf(res);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' http://127.0.0.1:9;");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each([
    ['https://client.example/callback', 'client.example', 'https://client.example', ''],
    [
      'com.example.app:/oauth2redirect',
      'the app com.example.app',
      'com.example.app:',
      'we cannot verify which app that is',
    ],
    ['http://[::1]:8080/cb', 'an app on this computer ([::1]:8080)', 'http:', ''],
  ])(
    'names where the browser returns to %s and lets only that through',
    async (uri, shown, source, note) => {
      const { page, browser, ticket } = await signedInAt(
        startAuthorization({ redirect_uris: [uri] }, { redirect_uri: uri }),
      );
      expect(page).toContain(`<strong>${shown}</strong>`);
      if (note) expect(page).toContain(note);
      expect(page).toContain('The app chose this name itself');
      const res = await browser.fetch(`/oauth/consent?ticket=${encodeURIComponent(ticket)}`);
      expect(res.headers.get('content-security-policy')).toContain(`form-action 'self' ${source};`);
    },
  );

  it('says where a metadata-document client comes from', async () => {
    const path = '/consent-page/client.json';
    const clientId = metadata.clientId(path);
    metadata.serve(path, {
      body: {
        client_id: clientId,
        client_name: 'Document client',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      },
    });
    const { page } = await signedInAt(Promise.resolve(authorizeUrlOf(clientId)));
    expect(page).toContain('<strong>Document client</strong>');
    expect(page).toContain('Its details come from a document at <strong>client.example</strong>');
  });

  it('signs in by password with the session cookies of the web app, and refuses a wrong password', async () => {
    const { user, password } = await seedUser(app);
    const { authorizeUrl } = await startAuthorization();
    const browser = new OAuthBrowser(app);
    const ticket = browser
      .locationOf(await browser.fetch(authorizeUrl))
      .searchParams.get('ticket')!;
    const signIn = await pageOf(await browser.fetch(`/oauth/consent?ticket=${ticket}`));
    expect(inputValue(signIn, 'ticket')).toBe(ticket);
    expect(inputValue(signIn, 'csrf_token')).toBeUndefined();

    const wrong = await browser.post('/oauth/sign-in', {
      ticket,
      action: 'password',
      email: user.email,
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    const again = await pageOf(wrong);
    expect(again).toContain('The email or password is not right');
    expect(inputValue(again, 'email')).toBe(user.email);
    expect(again).not.toContain('not the password');
    expect(browser.cookies.size).toBe(0);

    const right = await browser.post('/oauth/sign-in', {
      ticket,
      action: 'password',
      email: user.email,
      password,
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(`consent?ticket=${encodeURIComponent(ticket)}`);
    const session = right.headers.getSetCookie().find((c) => c.startsWith('hdp_session='));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    const sessions = await app.db.prisma.session.count({
      where: { userId: user.id, kind: 'web', revokedAt: null },
    });
    expect(sessions).toBe(1);
  });

  it('consent() of the harness approves and denies', async () => {
    const { user, password } = await seedUser(app);
    const approved = await consent(app, {
      email: user.email,
      password,
      authorizeUrl: (await startAuthorization()).authorizeUrl,
      families: ['read', 'export'],
    });
    expect(approved.searchParams.get('code')).toMatch(/^hdp_oac_/);
    expect(approved.searchParams.get('state')).toBe(STATE);
    const denied = await consent(app, {
      email: user.email,
      password,
      authorizeUrl: (await startAuthorization()).authorizeUrl,
      approve: false,
    });
    expect(denied.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a consent posted from another site (403), and one without or with a wrong CSRF token (403)', async () => {
    const { browser, ticket, clientId, page } = await signedInAt();
    const csrf = inputValue(page, 'csrf_token')!;
    expect(checkedFamilies(page)).toEqual(['read']);
    const fields = { ticket, csrf_token: csrf, families: 'read', action: 'approve' };

    for (const headers of [
      { origin: 'https://evil.example' } as Record<string, string>,
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { origin: app.mcpUrl, 'sec-fetch-site': 'same-site' },
    ]) {
      const res = await browser.post('/oauth/consent', fields, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      await pageOf(res);
    }
    for (const csrfToken of [undefined, '', 'wrong', `${csrf}x`, csrf.toUpperCase()]) {
      const { csrf_token: _, ...rest } = fields;
      const res = await browser.post(
        '/oauth/consent',
        csrfToken === undefined ? rest : { ...rest, csrf_token: csrfToken },
      );
      expect(res.status, String(csrfToken)).toBe(403);
      expect(await pageOf(res)).toContain('This form could not be checked');
    }
    expect(await app.db.prisma.oAuthAuthorizationCode.count({ where: { clientId } })).toBe(0);

    const ok = await browser.post('/oauth/consent', fields);
    expect(ok.status).toBe(303);
    expect(browser.locationOf(ok).searchParams.get('code')).toMatch(/^hdp_oac_/);
  });

  it('answers 400 pages for a missing, stale or garbage ticket', async () => {
    const { browser, ticket, clientId, page } = await signedInAt();
    const csrf = inputValue(page, 'csrf_token')!;
    vi.spyOn(Date, 'now').mockReturnValue(clock.ms() - 11 * 60_000);
    const stale = await signTicket(app.config.jwtSecret, {
      clientId,
      redirectUri: REDIRECT_URI,
      redirectUriGiven: true,
      codeChallenge: pkce().challenge,
      state: STATE,
      resource: `${app.mcpUrl}/mcp`,
      requested: [],
      issuer: app.mcpUrl,
    });
    vi.restoreAllMocks();
    const altered = ticket.slice(0, -4) + (ticket.endsWith('AAAA') ? 'BBBB' : 'AAAA');

    expect((await browser.fetch('/oauth/consent')).status).toBe(400);
    expect(await pageOf(await browser.fetch('/oauth/consent?ticket=%20'))).toContain(
      'missing the app',
    );
    for (const bad of [stale, altered, 'garbage', 'a.b.c', 'x'.repeat(9000)]) {
      const shown = await browser.fetch(`/oauth/consent?ticket=${encodeURIComponent(bad)}`);
      expect(shown.status, bad.slice(0, 20)).toBe(400);
      expect(await pageOf(shown)).toContain('Go back to the app and connect again');
      for (const action of ['approve', 'deny']) {
        const posted = await browser.post('/oauth/consent', {
          ticket: bad,
          csrf_token: csrf,
          families: 'read',
          action,
        });
        expect(posted.status, `${action} ${bad.slice(0, 20)}`).toBe(400);
        await pageOf(posted);
      }
    }
    expect(await app.db.prisma.oAuthAuthorizationCode.count({ where: { clientId } })).toBe(0);
  });

  it('sends a signed-out consent post to sign in, and answers 405 for other methods', async () => {
    const { browser, ticket, page } = await signedInAt();
    const signedOut = new OAuthBrowser(app);
    const res = await signedOut.post('/oauth/consent', {
      ticket,
      csrf_token: inputValue(page, 'csrf_token')!,
      families: 'read',
      action: 'approve',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`consent?ticket=${encodeURIComponent(ticket)}`);
    for (const [path, method] of [
      ['/oauth/consent', 'PUT'],
      ['/oauth/consent', 'DELETE'],
      ['/oauth/sign-in', 'GET'],
    ]) {
      const answer = await browser.fetch(path, { method });
      expect(answer.status, `${method} ${path}`).toBe(405);
      await pageOf(answer);
    }
  });

  it('never answers a 5xx to hostile forms', async () => {
    const { browser, ticket, clientId, page } = await signedInAt();
    const csrf = inputValue(page, 'csrf_token')!;
    const FORM = 'application/x-www-form-urlencoded';
    const raw = (path: string, body: string, contentType = FORM): Promise<Response> =>
      browser.fetch(path, {
        method: 'POST',
        headers: { 'content-type': contentType, origin: app.mcpUrl },
        body,
      });
    const t = encodeURIComponent(ticket);
    const c = encodeURIComponent(csrf);
    const bodies: [string, string, string?][] = [
      ['/oauth/consent', `ticket=${t}&ticket=${t}&csrf_token=${c}&families=read&action=approve`],
      [
        '/oauth/consent',
        `ticket=${t}&csrf_token=${c}&csrf_token=${c}&families=read&action=approve`,
      ],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families=read&action=approve&action=deny`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families=read%00&action=approve`],
      ['/oauth/consent', `ticket=${t}%00&csrf_token=${c}&families=read&action=approve`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}%00&families=read&action=approve`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families=read&action=approve%00`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families[]=read&action=approve`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families[x]=read&action=approve`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families=${'x'.repeat(5000)}&action=approve`],
      ['/oauth/consent', `ticket=${'x'.repeat(15_000)}&csrf_token=${c}&action=approve`],
      ['/oauth/consent', `ticket=${'x'.repeat(40_000)}&csrf_token=${c}&action=approve`],
      [
        '/oauth/consent',
        `ticket=${t}&csrf_token=${c}${'&families=read'.repeat(30)}&action=approve`,
      ],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families=read&action=approve&x=%ZZ`],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&families=%C3%28&action=approve`],
      [
        '/oauth/consent',
        JSON.stringify({ ticket, csrf_token: csrf, action: 'approve' }),
        'application/json',
      ],
      ['/oauth/consent', `ticket=${t}&csrf_token=${c}&action=approve`, `${FORM}; charset=latin9`],
      ['/oauth/consent', ''],
      ['/oauth/sign-in', `ticket=${t}&action=password&email=a%00b@example.com&password=x%00y`],
      ['/oauth/sign-in', `ticket=${t}&action=password&email=${'a'.repeat(9000)}&password=x`],
      [
        '/oauth/sign-in',
        `ticket=${t}&action=password&email=a@example.com&email=b@example.com&password=x`,
      ],
      ['/oauth/sign-in', `ticket=${t}&action=code-start&email=not-an-address`],
      ['/oauth/sign-in', `ticket=${t}&action=code-start&email=%00`],
      [
        '/oauth/sign-in',
        `ticket=${t}&action=code-verify&email=a@example.com&code=${'9'.repeat(5000)}`,
      ],
      ['/oauth/sign-in', `ticket=${t}&action=code-verify&email=a@example.com&code=12%0034`],
      ['/oauth/sign-in', `ticket=${t}&action=elsewhere`],
      ['/oauth/sign-in', `action=password&email=a@example.com&password=x`],
      ['/oauth/sign-in', `ticket[]=${t}&action=password`],
    ];
    for (const [path, body, contentType] of bodies) {
      const res = await raw(path, body, contentType);
      const label = `${path} ${body.slice(0, 80)}`;
      expect(res.status, label).toBeGreaterThanOrEqual(300);
      expect(res.status, label).toBeLessThan(500);
      if (res.status !== 303) await pageOf(res);
    }
    for (const query of [
      `ticket=${t}&ticket=${t}`,
      `ticket[]=${t}`,
      `ticket=%00`,
      `ticket=${'x'.repeat(20_000)}`,
      `ticket=%ZZ`,
    ]) {
      const res = await browser.fetch(`/oauth/consent?${query}`);
      expect(res.status, query.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.status, query.slice(0, 40)).toBeLessThan(500);
    }
    // the hostile posts that carried the right fields may have approved; none granted another family
    const codes = await app.db.prisma.oAuthAuthorizationCode.findMany({ where: { clientId } });
    for (const code of codes) expect(code.scopes).not.toContain('health:dna:read');
  });
});
