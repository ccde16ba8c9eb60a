/**
 * The sign-in page of the OAuth host (docs/mcp-oauth.md section 7): GET /oauth/consent shows it when
 * the browser has no live web session; its forms POST to /oauth/sign-in, which runs the persisted
 * operations of the app's own web sign-in (webLogin; startEmailCode then verifyEmailCodeWeb) in
 * process, copies their response cookies onto the answer, and sends the browser back to the consent
 * page (303). The authorization ticket rides along in a hidden field throughout.
 *
 * Also the bits both OAuth pages share: paths, the failure pages, reading a form field.
 *
 * It must never hold a sign-in rule of its own (limits, code checks and the session live behind
 * the GraphQL fields), never echo a password or a code, and never answer a stack trace. Sign-in
 * runs without the visitor's credentials (a stale session cookie must not demand a CSRF token of a
 * sign-in form).
 */
import type { Request, RequestHandler, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { errorInfo } from '../src/base/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { requestIdOf } from '../src/base/logger.ts';
import { withoutCredentials } from './form-post.ts';
import { html, PRODUCT_NAME, sendPage } from './html.ts';
import type { Page, SafeHtml } from './html.ts';

export const CONSENT_PATH = '/oauth/consent';
export const SIGN_IN_PATH = '/oauth/sign-in';

/** Longest e-mail address the forms pass on (the schema has its own rule; this keeps echoes small). */
const MAX_EMAIL_CHARS = 320;

export interface OAuthPageOptions {
  operations: OperationStore;
  /** the GraphQL context of a request; `csrfToken` stands in for the CSRF header (a form's field) */
  context(req: Request, csrfToken?: string): Promise<Context>;
}

/** A form or query field's value when it was sent once as text (a repeated field is an array). */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The ticket of a page request, as `ticketChecked` read it. */
export function ticketOf(res: Response): string {
  return res.locals.ticket as string;
}

/**
 * Reads the ticket (a GET's query, a post's field) before a page runs: 400 when it is missing, or
 * longer than any /oauth/authorize signs (a sign-in would otherwise go ahead and answer a Location
 * header no proxy buffers).
 */
export function ticketChecked(maxChars: number): RequestHandler {
  return (req, res, next) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const ticket = text(req.method === 'POST' ? form.ticket : req.query.ticket);
    if (!ticket?.trim()) return sendPage(res, 400, INCOMPLETE_REQUEST);
    if (ticket.length > maxChars) return sendPage(res, 400, EXPIRED_REQUEST);
    res.locals.ticket = ticket;
    next();
  };
}

/** The consent page of `ticket`, relative to either OAuth page (both live under /oauth/). */
export function consentLocation(ticket: string): string {
  return `consent?ticket=${encodeURIComponent(ticket)}`;
}

export const INCOMPLETE_REQUEST: Page = {
  title: 'This request is incomplete',
  body: html`<p>The address is missing the app's authorization request. Go back to the app and connect
again.</p>`,
};

export const EXPIRED_REQUEST: Page = {
  title: 'This request no longer works',
  body: html`<p>It has expired (requests last 10 minutes), it was already answered, or it is not a whole
authorization request. Nothing was shared. Go back to the app and connect again.</p>`,
};

export const UNREADABLE_FORM: Page = {
  title: 'The form could not be read',
  body: html`<p>Nothing was changed. Go back to the app and connect again.</p>`,
};

function failedPage(requestId: string): Page {
  return {
    title: 'Something went wrong',
    body: html`<p>Nothing was shared. Please go back to the app and connect again in a few minutes.</p>
<p class="note">Reference: ${requestId}</p>`,
  };
}

/**
 * An operation error no form can fix, as a page: 429 with Retry-After, 400 for a request that no
 * longer works, the error table's status otherwise (5xx with the request id, never a stack).
 */
export function sendFailure(req: Request, res: Response, error: GraphQLError): void {
  const { status } = errorInfo(error.extensions?.code);
  if (status === 429) {
    const retryAfter = error.extensions?.retryAfter;
    return sendPage(
      res,
      429,
      {
        title: 'Too many attempts',
        body: html`<p>Nothing was changed. Wait a while, then go back to the app and connect again.</p>`,
      },
      typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
    );
  }
  if (status >= 500) return sendPage(res, status, failedPage(requestIdOf(req)));
  sendPage(res, status === 401 || status === 403 ? status : 400, EXPIRED_REQUEST);
}

/** A thrown failure (a bug, the database down) as a 500 page; logged with its stack. */
export function sendCrash(req: Request, res: Response, err: unknown, what: string): void {
  req.log.error({ err }, `${what} failed`);
  sendPage(res, 500, failedPage(requestIdOf(req)));
}

function problemsOf(problems: readonly string[]): SafeHtml[] {
  return problems.map((p) => html`<p class="error" role="alert">${p}</p>\n`);
}

/** The sign-in page: password, or an emailed code. The email is refilled, a password never. */
export function signInPage(ticket: string, email = '', problems: readonly string[] = []): Page {
  return {
    title: 'Sign in to connect an app',
    body: html`<p>An app asks to connect to your ${PRODUCT_NAME} account. Sign in first; you then see
what it asks for and decide.</p>
${problemsOf(problems)}<form method="post" action="sign-in">
<input type="hidden" name="ticket" value="${ticket}">
<input type="hidden" name="action" value="password">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" value="${email}" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<hr>
<form method="post" action="sign-in">
<input type="hidden" name="ticket" value="${ticket}">
<input type="hidden" name="action" value="code-start">
<label for="code_email">Or sign in with a code sent to</label>
<input id="code_email" name="email" type="email" autocomplete="email" value="${email}" required>
<button type="submit" class="secondary">Email me a code</button>
</form>`,
  };
}

/** The page asking for the emailed code. */
export function codePage(ticket: string, email: string, problems: readonly string[] = []): Page {
  return {
    title: 'Enter the code from the email',
    body: html`<p>If ${email} has an account or can have one, a six-digit code is on its way there. It
works once, for 10 minutes.</p>
${problemsOf(problems)}<form method="post" action="sign-in">
<input type="hidden" name="ticket" value="${ticket}">
<input type="hidden" name="action" value="code-verify">
<input type="hidden" name="email" value="${email}">
<label for="code">Code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required autofocus>
<button type="submit">Sign in</button>
</form>
<form method="get" action="consent">
<input type="hidden" name="ticket" value="${ticket}">
<button type="submit" class="secondary">Sign in another way</button>
</form>`,
  };
}

/** Sign-in succeeded: the operation's cookies, then back to the consent page. */
function signedIn(res: Response, ctx: Context, ticket: string): void {
  for (const cookie of ctx.responseCookies) res.append('set-cookie', cookie);
  res.redirect(303, consentLocation(ticket));
}

/** Runs one sign-in operation without the visitor's credentials; answers its first error. */
async function run(
  options: OAuthPageOptions,
  req: Request,
  name: string,
  input: Record<string, string>,
): Promise<{ ctx: Context; error: GraphQLError | undefined }> {
  const ctx = await options.context(withoutCredentials(req));
  const result = await options.operations.execute(name, { input }, ctx);
  return { ctx, error: result.errors[0] };
}

/** One post of the sign-in form: what every action reads, the ticket and email already taken out. */
interface SignInPost {
  options: OAuthPageOptions;
  req: Request;
  res: Response;
  form: Record<string, unknown>;
  ticket: string;
  /** the email field, trimmed and cut to MAX_EMAIL_CHARS ('' when absent) */
  email: string;
}

/** Action `password`: runs webLogin; a wrong email or password shows the sign-in page again. */
async function signInWithPassword(post: SignInPost): Promise<void> {
  const { options, req, res, form, ticket, email } = post;
  const password = text(form.password);
  if (!email || !password) {
    return sendPage(res, 422, signInPage(ticket, email, ['Type your email and password.']));
  }
  const { ctx, error } = await run(options, req, 'webLogin', { email, password });
  if (!error) return signedIn(res, ctx, ticket);
  const code = error.extensions?.code;
  if (code === 'UNAUTHENTICATED' || code === 'VALIDATION_FAILED') {
    return sendPage(
      res,
      code === 'UNAUTHENTICATED' ? 401 : 422,
      signInPage(ticket, email, ['The email or password is not right. Try again.']),
    );
  }
  return sendFailure(req, res, error);
}

/** Action `code-start`: runs startEmailCode, then shows the page asking for the emailed code. */
async function sendSignInCode(post: SignInPost): Promise<void> {
  const { options, req, res, ticket, email } = post;
  if (!email) return sendPage(res, 422, signInPage(ticket, '', ['Type your email.']));
  const { error } = await run(options, req, 'startEmailCode', { email });
  if (!error) return sendPage(res, 200, codePage(ticket, email));
  if (error.extensions?.code === 'VALIDATION_FAILED') {
    return sendPage(
      res,
      422,
      signInPage(ticket, email, ['That is not an email address we can send a code to.']),
    );
  }
  return sendFailure(req, res, error);
}

/** Action `code-verify`: runs verifyEmailCodeWeb; a wrong or expired code asks for it again. */
async function signInWithCode(post: SignInPost): Promise<void> {
  const { options, req, res, form, ticket, email } = post;
  const code = (text(form.code) ?? '').trim();
  if (!email) return sendPage(res, 422, signInPage(ticket, '', ['Type your email.']));
  if (!code) return sendPage(res, 422, codePage(ticket, email, ['Type the code.']));
  const { ctx, error } = await run(options, req, 'verifyEmailCodeWeb', { email, code });
  if (!error) return signedIn(res, ctx, ticket);
  const errorCode = error.extensions?.code;
  if (errorCode === 'BAD_REQUEST' || errorCode === 'VALIDATION_FAILED') {
    return sendPage(
      res,
      errorCode === 'BAD_REQUEST' ? 400 : 422,
      codePage(ticket, email, [
        'That code is not right or has expired. Check the newest email, or ask for a new code.',
      ]),
    );
  }
  return sendFailure(req, res, error);
}

/** POST /oauth/sign-in: `action` password, code-start or code-verify, each with the ticket. */
export function submitSignIn(
  options: OAuthPageOptions,
): (req: Request, res: Response) => Promise<void> {
  return async (req: Request, res: Response): Promise<void> => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const ticket = ticketOf(res);
    const email = (text(form.email) ?? '').trim().slice(0, MAX_EMAIL_CHARS);
    const action = text(form.action);
    const post: SignInPost = { options, req, res, form, ticket, email };
    try {
      if (action === 'password') return await signInWithPassword(post);
      if (action === 'code-start') return await sendSignInCode(post);
      if (action === 'code-verify') return await signInWithCode(post);
      sendPage(res, 400, UNREADABLE_FORM);
    } catch (err) {
      sendCrash(req, res, err, 'OAuth sign-in page');
    }
  };
}
