/**
 * GET / for a browser: what this server is and where to go. The sharing invitation email says
 * "Sign in at PUBLIC_URL", so this is the page that link opens. API clients (anything not
 * preferring HTML: fetch, okhttp, curl) fall through to the JSON 404 they always got.
 */
import type { NextFunction, Request, Response } from 'express';
import { html, PRODUCT_NAME, sendPage } from './html.ts';

const HOME = {
  title: PRODUCT_NAME,
  body: html`<p>This is the server behind the ${PRODUCT_NAME} app. There is nothing to sign in to here:
use the app.</p>
<p><strong>Invited to see someone's health data?</strong> Open the app, sign in with the address the
invitation was sent to (or create an account with it), open <strong>Sharing</strong> and accept the
invitation. Nothing is shared until you accept.</p>
<p><strong>Forgot your password?</strong> Choose <em>Forgot password</em> in the app; the emailed link
opens a page here where you choose a new one.</p>
<p class="note">Developers: the REST API is described at <a href="api/docs">/api/docs</a>.</p>`,
};

/** The page for a browser navigating to /; anything else goes on (the JSON 404). */
export function showHome(req: Request, res: Response, next: NextFunction): void {
  if (req.accepts(['json', 'html']) !== 'html') return next();
  sendPage(res, 200, HOME, { 'cache-control': 'no-cache', vary: 'Accept' });
}
