/**
 * The shell every web page shares: one inline stylesheet, an `html` template tag that escapes
 * every interpolated value, and sendPage(), which answers a page with its security headers.
 *
 * Pages are self-contained (no scripts, images, fonts or other origins): the Content-Security-Policy
 * allows nothing but the one stylesheet below (by its sha256, so no 'unsafe-inline') and form posts
 * to this origin. Referrer-Policy no-referrer keeps a token in the page's address out of every
 * Referer. It must never interpolate a value without escaping it: only `html` results are trusted.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { FRAME_ANCESTORS_NONE, noFramingHeaders } from '../src/platform/framing.ts';

/** What the pages call the product (the sender name of its emails). */
export const PRODUCT_NAME = 'Health Platform';

/** HTML built by the `html` tag (or a constant): inserted as is. Anything else is escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '\0': '\uFFFD',
};

/** Text or attribute value -> HTML (quotes included, so it is safe inside "..." and '...'). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'\0]/g, (c) => ESCAPES[c]);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(
    typeof value === 'object'
      ? JSON.stringify(value)
      : String(value as string | number | boolean | bigint),
  );
}

/** Template tag: `html\`<p>${text}</p>\`` escapes `text`; nested `html` results and arrays of them stay. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

export interface Page {
  /** the <title> and the heading */
  title: string;
  /** what follows the heading */
  body: SafeHtml;
  /**
   * Where this page's forms may end up besides this origin (CSP `form-action` sources, from
   * formActionSource): browsers hold a form post's redirects to `form-action` too, so a form
   * answered with a redirect elsewhere (the OAuth consent back to its app) must name that target.
   */
  formActions?: readonly string[];
}

const CSS = [
  'body{margin:0;background:#f4f6f8;color:#1d2733;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'main{box-sizing:border-box;max-width:28rem;margin:3rem auto;padding:2rem;background:#fff;' +
    'border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.08)}',
  'h1{margin:0 0 1rem;font-size:1.4rem}',
  'label{display:block;margin:1rem 0 .3rem;font-weight:600}',
  'input[type=password],input[type=email],input[type=text]{box-sizing:border-box;width:100%;' +
    'padding:.6rem;font:inherit;border:1px solid #9aa5b1;border-radius:8px}',
  'button{margin-top:1.5rem;width:100%;padding:.7rem;font:inherit;font-weight:600;color:#fff;' +
    'background:#1f6feb;border:0;border-radius:8px;cursor:pointer}',
  'button.secondary{color:#1d2733;background:#e4e7eb}',
  'hr{margin:2rem 0 1rem;border:0;border-top:1px solid #e4e7eb}',
  '.families{margin:1rem 0 0;padding:0;border:0}',
  '.families legend{padding:0;font-weight:600}',
  '.family{display:flex;gap:.6rem;align-items:flex-start;margin:.4rem 0 0;padding:.5rem .6rem;' +
    'font-weight:400;border:1px solid transparent;border-radius:8px}',
  '.family input{margin:.3rem 0 0;width:1.1rem;height:1.1rem;flex:none}',
  '.family.requested{background:#fff8e1;border-color:#f0c36d}',
  '.family .asked{display:block;color:#7a5b00;font-size:.85rem}',
  '.actions{display:flex;gap:.8rem}',
  '.unverified{color:#8a1c1c;font-size:.9rem;font-weight:600}',
  '.error{padding:.6rem .8rem;background:#fdecec;color:#8a1c1c;border-radius:8px}',
  '.note{color:#52606d;font-size:.9rem}',
].join('\n');

const STYLE_SOURCE = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/**
 * The Content-Security-Policy of a page whose forms may also end up at `formActions` (sources from
 * formActionSource).
 * NOTE: nothing but this stylesheet (allowed by its hash), and form posts to this origin only
 * (plus a page's named redirect target); no framing (clickjacking), no <base> (a relative form
 * action stays ours).
 */
export function pageCsp(formActions: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_SOURCE}`,
    ["form-action 'self'", ...formActions].join(' '),
    FRAME_ANCESTORS_NONE,
    "base-uri 'none'",
  ].join('; ');
}

/** The CSP of a page whose forms stay on this origin. */
export const PAGE_CSP = pageCsp();

/**
 * The CSP `form-action` source that lets a form's redirect reach `uri`: its origin for http(s), its
 * scheme for an app's private-use scheme; null for anything that cannot be written as a source.
 */
export function formActionSource(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    // CSP host sources cannot name an IPv6 literal ([::1]): its scheme is the narrowest source
    if (url.hostname.startsWith('[')) return url.protocol;
    return /^https?:\/\/[\w.-]+(:\d+)?$/.test(url.origin) ? url.origin : null;
  }
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
}

/** The whole document of a page. */
export function renderPage(page: Page): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · ${PRODUCT_NAME}</title>
<style>${new SafeHtml(CSS)}</style>
</head>
<body>
<main>
<h1>${page.title}</h1>
${page.body}
</main>
</body>
</html>
`.value;
}

/** Answers a page with `status` and the pages' security headers (plus `headers`, e.g. Retry-After). */
export function sendPage(
  res: Response,
  status: number,
  page: Page,
  headers: Record<string, string> = {},
): void {
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      ...noFramingHeaders(pageCsp(page.formActions)),
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      ...headers,
    })
    .send(renderPage(page));
}

/** A handler answering the 405 page naming what a page path serves. */
export function methodNotAllowed(allow: string): (req: Request, res: Response) => void {
  return (_req: Request, res: Response): void =>
    sendPage(
      res,
      405,
      { title: 'Method not allowed', body: html`<p>This address serves ${allow} only.</p>` },
      { allow },
    );
}
