/**
 * What every form post of the web pages passes before its handler: a same-origin check (403 page),
 * a small url-encoded body parser that answers its failures as pages (never the JSON error of the
 * API, never a 5xx), and a request view without the visitor's credentials for the GraphQL context.
 *
 * NOTE: the forms are CSRF-safe because each carries an unguessable secret from an email (the
 * reset token): a forged cross-site post cannot know it. The origin check is defence in depth.
 */
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { html, sendPage } from './html.ts';

/** Largest form body: two passwords of up to 256 characters and a token, percent-encoded, fit. */
export const FORM_BODY_LIMIT = '16kb';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * body-parser `verify` hook: refuses (400) a body that is not UTF-8 or whose percent-encoding is
 * malformed or not UTF-8, which the parser would otherwise decode leniently into a password nobody
 * typed. Browsers never send either.
 */
function refuseBrokenEncoding(_req: unknown, _res: unknown, body: Buffer): void {
  try {
    decodeURIComponent(strictUtf8.decode(body).replace(/\+/g, ' '));
  } catch {
    throw Object.assign(new Error('malformed percent-encoding'), { status: 400 });
  }
}

/** A form parser allowing `parameterLimit` fields (more answer 413). */
const formParser = (parameterLimit: number): RequestHandler =>
  express.urlencoded({
    extended: false,
    limit: FORM_BODY_LIMIT,
    parameterLimit,
    verify: refuseBrokenEncoding,
  });

/** What a refused form page tells the visitor to do next (the emailed-link pages' default). */
export const EMAILED_LINK_HINT =
  'Open the link from the email again and send the form from that page.';

/**
 * Whether a form post comes from another site. Browsers send `Sec-Fetch-Site` (same-origin for our
 * own form) and `Origin`. Our pages' Referrer-Policy (no-referrer) makes a browser send
 * `Origin: null` even for our own form, so `null` alone proves nothing: it is refused only when
 * `Sec-Fetch-Site` says the post came from elsewhere. A named origin must be this server's
 * (its Host, as sent or as forwarded by a trusted proxy, or PUBLIC_URL's origin).
 */
function fromAnotherSite(req: Request, publicOrigin: string | null): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.get('origin');
  if (origin === undefined || origin === 'null' || origin === publicOrigin) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  const own = [req.get('host'), req.host]
    .filter((h): h is string => !!h)
    .map((h) => h.toLowerCase());
  return !own.includes(host);
}

/**
 * 403 page for a form posted from another site; the handler (and the operation) never runs. `hint`
 * says what to do next.
 */
export function sameOriginOnly(
  publicUrl: string | undefined,
  hint: string = EMAILED_LINK_HINT,
): RequestHandler {
  const publicOrigin = publicUrl ? new URL(publicUrl).origin : null;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!fromAnotherSite(req, publicOrigin)) return next();
    sendPage(res, 403, {
      title: 'This form came from another site',
      body: html`<p>Nothing was changed. ${hint}</p>`,
    });
  };
}

export interface FormBodyOptions {
  /** most fields a form may have (default 10) */
  parameterLimit?: number;
  /** what the error page tells the visitor to do next */
  hint?: string;
}

/**
 * Reads an application/x-www-form-urlencoded body (req.body; undefined for any other type). A body
 * over FORM_BODY_LIMIT answers 413, an unsupported charset 415, anything else unreadable 400: as pages.
 */
export function formBody(options: FormBodyOptions = {}): RequestHandler {
  const parseForm = formParser(options.parameterLimit ?? 10);
  const hint = options.hint ?? EMAILED_LINK_HINT;
  return (req: Request, res: Response, next: NextFunction): void => {
    parseForm(req, res, (err?: unknown) => {
      if (!err) return next();
      const given = (err as { status?: unknown }).status;
      const status = typeof given === 'number' && given >= 400 && given < 500 ? given : 400;
      const title = status === 413 ? 'The form was too large' : 'The form could not be read';
      sendPage(res, status, { title, body: html`<p>Nothing was changed. ${hint}</p>` });
    });
  };
}

/** The request with `hidden` headers (lower case) answered as absent. */
function withoutHeaders(req: Request, hidden: ReadonlySet<string>): Request {
  const get = (name: string): string | string[] | undefined =>
    hidden.has(name.toLowerCase()) ? undefined : req.get(name);
  return Object.create(req, { get: { value: get }, header: { value: get } }) as Request;
}

const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'cookie']);
const BEARER_HEADER: ReadonlySet<string> = new Set(['authorization']);

/**
 * The request as the GraphQL context should see it: without Authorization and Cookie.
 *
 * NOTE: a page acts for whoever holds the emailed secret, never as the signed-in visitor. A web
 * session cookie would otherwise make the context demand the API's CSRF header (which a plain
 * form cannot send) and refuse the post, and no operation run from a page may use the visitor's session.
 */
export function withoutCredentials(req: Request): Request {
  return withoutHeaders(req, CREDENTIAL_HEADERS);
}

/**
 * The request as a page acting for the signed-in visitor sees it (the OAuth consent page): the
 * session cookie, never an Authorization header (only a browser's web session may approve).
 */
export function cookieOnly(req: Request): Request {
  return withoutHeaders(req, BEARER_HEADER);
}
