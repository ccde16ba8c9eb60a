/**
 * Web pages entry: the small HTML pages that links in our emails open, and a page at / for a
 * browser. Mounted by src/server/app.ts after the facades and before the 404s.
 *
 * Like the facades, it never imports Prisma, a service or a domain module and holds no business
 * rules: a form runs a persisted GraphQL operation in process (OperationStore.execute). Every page
 * is self-contained (no scripts, no other origin) and sent with its security headers (html.ts).
 */
import express from 'express';
import type { Request, Router } from 'express';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { formBody, sameOriginOnly } from './form-post.ts';
import { methodNotAllowed } from './html.ts';
import { showHome } from './home.page.ts';
import {
  NEWSLETTER_CONFIRM,
  WAITLIST_CONFIRM,
  showConfirmForm,
  submitConfirmForm,
} from './outreach-confirm.page.ts';
import { RESET_PASSWORD_PATH, showResetForm, submitResetForm } from './reset-password.page.ts';

export interface WebPagesOptions {
  operations: OperationStore;
  /** builds the GraphQL context of one request (the pages hand it a request without credentials) */
  context(req: Request): Promise<Context>;
  /** PUBLIC_URL: its origin may post the forms, besides the request's own host */
  publicUrl?: string;
}

/** The router of every page. */
export function createWebPages(options: WebPagesOptions): Router {
  const router = express.Router();
  router.get('/', showHome);
  router.get(RESET_PASSWORD_PATH, showResetForm);
  router.post(
    RESET_PASSWORD_PATH,
    sameOriginOnly(options.publicUrl),
    formBody(),
    submitResetForm(options),
  );
  router.all(RESET_PASSWORD_PATH, methodNotAllowed('GET, HEAD, POST'));
  for (const flow of [NEWSLETTER_CONFIRM, WAITLIST_CONFIRM]) {
    router.get(flow.path, showConfirmForm(flow));
    router.post(
      flow.path,
      sameOriginOnly(options.publicUrl),
      formBody(),
      submitConfirmForm(flow, options),
    );
    router.all(flow.path, methodNotAllowed('GET, HEAD, POST'));
  }
  return router;
}
