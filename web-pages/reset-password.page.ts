/**
 * The page the password-reset email links to: GET /reset-password?token=... shows a form (new
 * password twice, the token in a hidden field); POST /reset-password runs the persisted operation
 * resetPassword in process, as POST /api/auth/reset-password does, and answers a result page.
 *
 * It must never change anything on GET (mail scanners open links), never run anything but a
 * persisted operation (no Prisma, no service: the password rules and the token's single use live
 * behind the GraphQL field), never echo a password, and never answer a stack trace.
 */
import type { Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { errorInfo } from '../src/base/errors.ts';
import type { ValidationIssue } from '../src/base/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { requestIdOf } from '../src/base/logger.ts';
import { html, sendPage } from './html.ts';
import type { Page } from './html.ts';
import { withoutCredentials } from './form-post.ts';

export const RESET_PASSWORD_PATH = '/reset-password';

/** The persisted operation the form runs (src/domains/account/operations/resetPassword.graphql). */
const OPERATION = 'resetPassword';

export interface ResetPasswordPageOptions {
  operations: OperationStore;
  /** builds the GraphQL context of one request (given a request without credentials) */
  context(req: Request): Promise<Context>;
}

/** A form field's value when it was sent once as text (a repeated field arrives as an array). */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The form; `problems` (already readable sentences) are shown above it. Passwords are never refilled. */
function formPage(token: string, problems: string[] = []): Page {
  return {
    title: 'Choose a new password',
    body: html`${problems.map((p) => html`<p class="error" role="alert">${p}</p>\n`)}<form method="post" action="reset-password">
<input type="hidden" name="token" value="${token}">
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required autofocus>
<label for="confirm_password">New password again</label>
<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>
<button type="submit">Change password</button>
</form>
<p class="note">This link works once. If you did not ask for a new password, close this page: your password stays as it is.</p>`,
  };
}

const INCOMPLETE_LINK: Page = {
  title: 'This link is incomplete',
  body: html`<p>The address is missing its reset code. Open the link from the email again, or copy the whole
address from the email into the browser. If it still does not work, ask for a new link in the app
(Forgot password).</p>`,
};

const INVALID_LINK: Page = {
  title: 'This link no longer works',
  body: html`<p>It was already used, it has expired, or it is not a whole password-reset link. Nothing was
changed. Ask for a new link in the app (Forgot password) and use the newest email.</p>`,
};

const PASSWORD_CHANGED: Page = {
  title: 'Password changed',
  body: html`<p>Your new password is set. Sign in with it in the app.</p>
<p>Every device and browser that was signed in to this account has been signed out, and its personal
access tokens no longer work: sign in again where you need to.</p>`,
};

function tooManyAttempts(): Page {
  return {
    title: 'Too many attempts',
    body: html`<p>Nothing was changed. Wait a while, then open the link from the email again.</p>`,
  };
}

function failedPage(requestId: string): Page {
  return {
    title: 'Something went wrong',
    body: html`<p>Your password was not changed. Please try again in a few minutes by opening the link from the
email again.</p><p class="note">Reference: ${requestId}</p>`,
  };
}

/** GET: the form for the link's token (nothing is checked or changed yet); 400 without a token. */
export function showResetForm(req: Request, res: Response): void {
  const token = text(req.query.token);
  if (!token?.trim()) return sendPage(res, 400, INCOMPLETE_LINK);
  sendPage(res, 200, formPage(token));
}

/** Renders the answer of the operation: a result page, or the form again with the password rule broken. */
function answer(
  res: Response,
  token: string,
  error: GraphQLError | undefined,
  requestId: string,
): void {
  if (!error) return sendPage(res, 200, PASSWORD_CHANGED);
  const code = error.extensions?.code;
  if (code === 'BAD_REQUEST') return sendPage(res, 400, INVALID_LINK);
  if (code === 'VALIDATION_FAILED') {
    const issues = (error.extensions?.detail as ValidationIssue[] | undefined) ?? [];
    // a token that is not even well-formed (too long, NUL bytes) is a broken link, not a password problem
    if (issues.length === 0 || issues.some((i) => i.loc.includes('token')))
      return sendPage(res, 400, INVALID_LINK);
    return sendPage(
      res,
      422,
      formPage(
        token,
        issues.map((i) => `The new password was not accepted: ${i.msg.replace(/\.$/, '')}.`),
      ),
    );
  }
  const { status } = errorInfo(code);
  if (status === 429) {
    const retryAfter = error.extensions?.retryAfter;
    return sendPage(
      res,
      429,
      tooManyAttempts(),
      typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
    );
  }
  sendPage(res, status, status >= 500 ? failedPage(requestId) : INVALID_LINK);
}

/** POST: checks the two fields agree, then runs resetPassword with the token and the new password. */
export function submitResetForm(
  options: ResetPasswordPageOptions,
): (req: Request, res: Response) => Promise<void> {
  return async (req: Request, res: Response): Promise<void> => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const token = text(form.token);
    if (!token?.trim()) return sendPage(res, 400, INCOMPLETE_LINK);
    const newPassword = text(form.new_password);
    const confirm = text(form.confirm_password);
    if (newPassword === undefined || confirm === undefined) {
      return sendPage(res, 422, formPage(token, ['Type the new password in both fields.']));
    }
    if (newPassword !== confirm) {
      return sendPage(
        res,
        422,
        formPage(token, ['The two passwords differ. Type the same new password in both fields.']),
      );
    }
    try {
      const ctx = await options.context(withoutCredentials(req));
      const result = await options.operations.execute(
        OPERATION,
        { input: { token, newPassword } },
        ctx,
      );
      answer(res, token, result.errors[0], requestIdOf(req));
    } catch (err) {
      req.log.error({ err }, 'password reset page failed');
      sendPage(res, 500, failedPage(requestIdOf(req)));
    }
  };
}
