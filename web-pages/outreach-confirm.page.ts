/**
 * The pages the newsletter and waitlist confirmation emails link to:
 * GET /newsletter/confirm?token=... and GET /waitlist/confirm?token=... show a one-button form (the
 * token in a hidden field); POST to the same path runs the persisted operation (confirmNewsletter,
 * confirmWaitlist) in process and answers a result page.
 *
 * It must never change anything on GET (mail scanners open links), never run anything but a
 * persisted operation (the token's single use and expiry live behind the GraphQL field), and never
 * answer a stack trace.
 */
import type { Request, Response } from 'express';
import { errorInfo } from '../src/base/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { requestIdOf } from '../src/base/logger.ts';
import { withoutCredentials } from './form-post.ts';
import { html, sendPage } from './html.ts';
import type { Page } from './html.ts';

export interface ConfirmPageOptions {
  operations: OperationStore;
  /** builds the GraphQL context of one request (given a request without credentials) */
  context(req: Request): Promise<Context>;
}

/** One emailed confirmation: its path, the operation its form runs, and its words. */
export interface ConfirmFlow {
  /** the page's path (the emailed link's path) */
  path: string;
  /** the persisted operation run on POST with `{input: {token}}` */
  operation: string;
  /** what is confirmed, e.g. "your newsletter subscription" */
  what: string;
  /** the result page's title */
  done: string;
}

export const NEWSLETTER_CONFIRM: ConfirmFlow = {
  path: '/newsletter/confirm',
  operation: 'confirmNewsletter',
  what: 'your newsletter subscription',
  done: 'Subscription confirmed',
};

export const WAITLIST_CONFIRM: ConfirmFlow = {
  path: '/waitlist/confirm',
  operation: 'confirmWaitlist',
  what: 'your place on the waitlist',
  done: 'You are on the waitlist',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function formPage(flow: ConfirmFlow, token: string): Page {
  const action = flow.path.slice(flow.path.lastIndexOf('/') + 1);
  return {
    title: `Confirm ${flow.what}`,
    body: html`<form method="post" action="${action}">
<input type="hidden" name="token" value="${token}">
<button type="submit">Confirm</button>
</form>
<p class="note">Nothing happens until you press Confirm. If you did not ask for this, close this page.</p>`,
  };
}

const INCOMPLETE_LINK: Page = {
  title: 'This link is incomplete',
  body: html`<p>The address is missing its confirmation code. Open the link from the email again, or copy the
whole address from the email into the browser.</p>`,
};

const INVALID_LINK: Page = {
  title: 'This link no longer works',
  body: html`<p>It was already used, it has expired, or it is not a whole confirmation link. Nothing was
changed. Ask again for a new link and use the newest email.</p>`,
};

const TOO_MANY: Page = {
  title: 'Too many attempts',
  body: html`<p>Nothing was changed. Wait a while, then open the link from the email again.</p>`,
};

function failedPage(requestId: string): Page {
  return {
    title: 'Something went wrong',
    body: html`<p>Nothing was confirmed. Please try again in a few minutes by opening the link from the email
again.</p><p class="note">Reference: ${requestId}</p>`,
  };
}

/** GET: the form for the link's token (nothing is checked or changed yet); 400 without a token. */
export function showConfirmForm(flow: ConfirmFlow): (req: Request, res: Response) => void {
  return (req, res) => {
    const token = text(req.query.token);
    if (!token?.trim()) return sendPage(res, 400, INCOMPLETE_LINK);
    sendPage(res, 200, formPage(flow, token));
  };
}

/** POST: runs the flow's operation with the token and renders its answer. */
export function submitConfirmForm(
  flow: ConfirmFlow,
  options: ConfirmPageOptions,
): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const token = text(((req.body ?? {}) as Record<string, unknown>).token);
    if (!token?.trim()) return sendPage(res, 400, INCOMPLETE_LINK);
    try {
      const ctx = await options.context(withoutCredentials(req));
      const result = await options.operations.execute(flow.operation, { input: { token } }, ctx);
      const error = result.errors[0];
      if (!error)
        return sendPage(res, 200, {
          title: flow.done,
          body: html`<p>Thank you: ${flow.what} is confirmed. You can close this page.</p>`,
        });
      const code = error.extensions?.code;
      if (code === 'BAD_REQUEST' || code === 'VALIDATION_FAILED')
        return sendPage(res, 400, INVALID_LINK);
      const { status } = errorInfo(code);
      if (status === 429) {
        const retryAfter = error.extensions?.retryAfter;
        return sendPage(
          res,
          429,
          TOO_MANY,
          typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
        );
      }
      sendPage(res, status, status >= 500 ? failedPage(requestIdOf(req)) : INVALID_LINK);
    } catch (err) {
      req.log.error({ err }, 'confirmation page failed');
      sendPage(res, 500, failedPage(requestIdOf(req)));
    }
  };
}
