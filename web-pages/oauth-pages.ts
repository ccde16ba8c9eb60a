/**
 * The OAuth host's pages (docs/mcp-oauth.md section 7): sign-in and consent, mounted by
 * src/oauth-host/host.ts for its origin. Like web-pages/server.ts, it holds no behaviour of its
 * own: each form runs a persisted GraphQL operation in process (OperationStore.execute).
 *
 * NOTE: unlike the emailed-link pages, these act as the signed-in visitor (the session cookie; a
 * consent post carries the session's CSRF token in a field). Every post passes the same-origin
 * check and the small form parser first.
 */
import express from 'express';
import type { Request, Router } from 'express';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { formBody, sameOriginOnly } from './form-post.ts';
import { methodNotAllowed } from './html.ts';
import { showConsent, submitConsent } from './oauth-consent.page.ts';
import { CONSENT_PATH, SIGN_IN_PATH, submitSignIn, ticketChecked } from './oauth-sign-in.page.ts';

export interface OAuthPagesOptions {
  operations: OperationStore;
  /**
   * builds the GraphQL context of one request, with its cookie; `csrfToken` (a form's field)
   * stands in for the CSRF header when given
   */
  context(req: Request, csrfToken?: string): Promise<Context>;
  /** the OAuth host's public origin: its forms may be posted from there */
  publicUrl: string;
  /** longest ticket /oauth/authorize signs (MAX_TICKET_CHARS of the oauth domain) */
  maxTicketChars: number;
}

/** What a refused OAuth form tells the visitor to do next. */
const OAUTH_HINT = 'Go back to the app and connect again.';
/** The consent form's fields (ticket, csrf_token, action, one per family) with room to spare. */
const OAUTH_FORM_FIELDS = 20;

/** The router of the sign-in and consent pages. */
export function createOAuthPages(options: OAuthPagesOptions): Router {
  const router = express.Router();
  const ticket = ticketChecked(options.maxTicketChars);
  const posted = [
    sameOriginOnly(options.publicUrl, OAUTH_HINT),
    formBody({ parameterLimit: OAUTH_FORM_FIELDS, hint: OAUTH_HINT }),
    ticket,
  ];
  router.get(CONSENT_PATH, ticket, showConsent(options));
  router.post(CONSENT_PATH, ...posted, submitConsent(options));
  router.all(CONSENT_PATH, methodNotAllowed('GET, HEAD, POST'));
  router.post(SIGN_IN_PATH, ...posted, submitSignIn(options));
  router.all(SIGN_IN_PATH, methodNotAllowed('POST'));
  return router;
}
