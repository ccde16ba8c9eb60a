/**
 * A person's browser on the OAuth host, over plain HTTP (docs/mcp-oauth.md section 7): a cookie
 * jar, manual redirects, and consent(), which walks /oauth/authorize, the sign-in page and the
 * consent page as a browser would and answers where the browser is sent back to. The pages
 * themselves are tested in headless Chromium in test/oauth/consent-page.test.ts.
 */
import type { TestApp } from './app.ts';
import { fromNewIp } from './clients.ts';

const FORM = 'application/x-www-form-urlencoded';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Decodes the HTML escapes web-pages/html.ts writes into attribute values. */
export function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The value of the first `<input name="…" value="…">` of a page, unescaped (undefined if none). */
export function inputValue(page: string, name: string): string | undefined {
  const tag = new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`).exec(page)?.[0];
  const value = tag && /\bvalue="([^"]*)"/.exec(tag)?.[1];
  return value === undefined || value === null ? undefined : unescapeHtml(value);
}

/** The families a consent page shows ticked. */
export function checkedFamilies(page: string): string[] {
  return [...page.matchAll(/<input type="checkbox" name="families" value="([^"]*)"( checked)?>/g)]
    .filter((m) => m[2])
    .map((m) => unescapeHtml(m[1]));
}

/** A browser on the OAuth host: keeps cookies, never follows redirects, comes from one client IP. */
export class OAuthBrowser {
  readonly cookies = new Map<string, string>();
  readonly ip = fromNewIp();

  constructor(readonly app: TestApp) {}

  /** The Cookie header this browser sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Requests `target` (a path, or a URL on app.mcpUrl) on the OAuth host; keeps the cookies set. */
  async fetch(target: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(target, this.app.mcpUrl);
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', BROWSER_ACCEPT);
    if (this.cookies.size && !headers.has('cookie')) headers.set('cookie', this.cookieHeader());
    for (const [name, value] of Object.entries(this.ip))
      if (!headers.has(name)) headers.set(name, value);
    const res = await this.app.mcpFetch(url.pathname + url.search, {
      ...init,
      headers,
      redirect: 'manual',
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (!value || /;\s*max-age=0\b/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Posts `fields` as a form from this host's own page (its Origin). */
  post(
    path: string,
    fields: [string, string][] | Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return this.fetch(path, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: this.app.mcpUrl, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Where a redirect answer sends the browser (resolved on the OAuth host). */
  locationOf(res: Response): URL {
    const location = res.headers.get('location');
    if (!location) throw new Error(`expected a redirect, got ${res.status}`);
    return new URL(location, new URL(res.url || this.app.mcpUrl));
  }
}

export interface ConsentOptions {
  email: string;
  password: string;
  /** the client's /oauth/authorize URL (on app.mcpUrl) */
  authorizeUrl: string;
  /** the families to tick (default: those the page shows ticked) */
  families?: string[];
  /** Approve (default) or Deny */
  approve?: boolean;
  /** the browser to use (default: a new one, signed out) */
  browser?: OAuthBrowser;
}

/**
 * Authorizes as a person in a browser would: GET the authorize URL, sign in with the password
 * form, read the ticket and CSRF token from the consent page, post Approve (or Deny). Answers the
 * final redirect: the client's redirect URI with code, state and iss (or error).
 */
export async function consent(app: TestApp, opts: ConsentOptions): Promise<URL> {
  const browser = opts.browser ?? new OAuthBrowser(app);
  const authorized = await browser.fetch(opts.authorizeUrl);
  if (authorized.status !== 302) {
    throw new Error(`authorize answered ${authorized.status}: ${await authorized.text()}`);
  }
  let next = browser.locationOf(authorized);
  // an early error redirect goes straight back to the client
  if (next.origin !== new URL(app.mcpUrl).origin || next.pathname !== '/oauth/consent') return next;
  const ticket = next.searchParams.get('ticket') ?? '';

  let page = await browser.fetch(next.href);
  let body = await page.text();
  if (page.status !== 200) throw new Error(`consent page ${page.status}: ${body}`);
  if (inputValue(body, 'csrf_token') === undefined) {
    const signedIn = await browser.post('/oauth/sign-in', {
      ticket,
      action: 'password',
      email: opts.email,
      password: opts.password,
    });
    if (signedIn.status !== 303) {
      throw new Error(`sign-in answered ${signedIn.status}: ${await signedIn.text()}`);
    }
    next = browser.locationOf(signedIn);
    page = await browser.fetch(next.href);
    body = await page.text();
    if (page.status !== 200) throw new Error(`consent page ${page.status}: ${body}`);
  }
  const csrfToken = inputValue(body, 'csrf_token');
  if (csrfToken === undefined) throw new Error(`no consent form after sign-in: ${body}`);
  const families = opts.families ?? checkedFamilies(body);
  const answered = await browser.post('/oauth/consent', [
    ['ticket', inputValue(body, 'ticket') ?? ticket],
    ['csrf_token', csrfToken],
    ...families.map((f): [string, string] => ['families', f]),
    ['action', opts.approve === false ? 'deny' : 'approve'],
  ]);
  if (answered.status !== 303) {
    throw new Error(`consent answered ${answered.status}: ${await answered.text()}`);
  }
  return browser.locationOf(answered);
}
