/**
 * The consent page of the OAuth host (docs/mcp-oauth.md section 7): GET /oauth/consent?ticket=...
 * shows, to the signed-in visitor, what an app asks for (oauthAuthorizationRequest): its name,
 * marked not verified, where the browser returns, and the scope families as checkboxes; without a
 * live web session it shows the sign-in page instead. POST /oauth/consent runs
 * approveOAuthAuthorization or denyOAuthAuthorization and sends the browser back to the app (303).
 *
 * NOTE: unlike the emailed-link pages, these act as the signed-in visitor: the context carries the
 * session cookie (never an Authorization header), and a post must carry the session's CSRF token in
 * its `csrf_token` field, which authenticate() checks as it checks the API's CSRF header. A forged
 * cross-site post cannot know it; the same-origin check before it is defence in depth.
 *
 * It must never decide what is granted (the families, their scopes, the ticket's checks and the
 * code live behind the GraphQL fields), and never answer a stack trace.
 */
import type { Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import type { ValidationIssue } from '../src/base/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import { cookieOnly } from './form-post.ts';
import { formActionSource, html, sendPage } from './html.ts';
import type { Page } from './html.ts';
import {
  consentLocation,
  EXPIRED_REQUEST,
  sendCrash,
  sendFailure,
  signInPage,
  text,
  ticketOf,
  UNREADABLE_FORM,
} from './oauth-sign-in.page.ts';
import type { OAuthPageOptions } from './oauth-sign-in.page.ts';

/** One family as oauthAuthorizationRequest answers it. */
interface FamilyView {
  id: string;
  label: string;
  scopes: string[];
  ticked: boolean;
  requested: boolean;
}

/** What oauthAuthorizationRequest answers (src/domains/oauth/oauth.authorize.ts). */
interface AuthorizationRequestView {
  clientId: string;
  clientName: string;
  clientKind: string;
  redirectUri: string;
  redirectTarget: string;
  redirectKind: string;
  families: FamilyView[];
}

/** Everything the consent page shows. */
interface Consent {
  ticket: string;
  csrfToken: string;
  /** who is signed in */
  email: string;
  request: AuthorizationRequestView;
}

const FORBIDDEN_FORM: Page = {
  title: 'This form could not be checked',
  body: html`<p>Nothing was shared. The page may have been open from an earlier sign-in, or the form came
from another site. Go back to the app and connect again.</p>`,
};

/** The host a client ID metadata document URL names ('' when it is not a URL). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Where the browser returns, in words: the emphasised part and what follows it. */
function returnTarget(request: AuthorizationRequestView): ReturnType<typeof html> {
  const target = request.redirectTarget;
  if (request.redirectKind === 'loopback') {
    return html`<strong>an app on this computer (${target})</strong>`;
  }
  if (request.redirectKind === 'app') {
    return html`<strong>the app ${target}</strong> (an app on this device that opens ${target}:
addresses; we cannot verify which app that is)`;
  }
  return html`<strong>${target}</strong>`;
}

/** The consent page; `ticked` (the families of a refused post) overrides the defaults. */
function consentPage(
  consent: Consent,
  options: { ticked?: ReadonlySet<string>; problems?: readonly string[] } = {},
): Page {
  const { request } = consent;
  const origin =
    request.clientKind === 'cimd'
      ? html`<p class="note">Its details come from a document at <strong>${hostOf(request.clientId)}</strong>.</p>`
      : html`<p class="note">The app chose this name itself when it registered.</p>`;
  const families = request.families.map((f) => {
    const checked = options.ticked ? options.ticked.has(f.id) : f.ticked;
    return html`<label class="family${f.requested ? ' requested' : ''}"><input type="checkbox" name="families" value="${f.id}"${checked ? html` checked` : ''}>
<span>${f.label}${f.requested ? html`<span class="asked">The app asked for this</span>` : ''}</span></label>
`;
  });
  const redirect = formActionSource(request.redirectUri);
  return {
    title: 'Connect an app?',
    formActions: redirect ? [redirect] : [],
    body: html`<p><strong>${request.clientName}</strong> wants to use your account.
<span class="unverified">Name not verified.</span></p>
${origin}<p>When you answer, your browser goes back to ${returnTarget(request)}.</p>
${(options.problems ?? []).map((p) => html`<p class="error" role="alert">${p}</p>\n`)}<form method="post" action="consent">
<input type="hidden" name="ticket" value="${consent.ticket}">
<input type="hidden" name="csrf_token" value="${consent.csrfToken}">
<fieldset class="families">
<legend>What it may do</legend>
${families}</fieldset>
<p class="note">The connection lasts up to 365 days; disconnect it at any time under Settings, Connected apps.</p>
<div class="actions">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button>
</div>
</form>
<p class="note">Signed in as ${consent.email}.</p>`,
  };
}

type Loaded =
  | { kind: 'consent'; consent: Consent }
  | { kind: 'sign-in' }
  | { kind: 'error'; error: GraphQLError };

/** Who is signed in (webSession) and what the ticket asks (oauthAuthorizationRequest). */
async function loadConsent(
  options: OAuthPageOptions,
  ctx: Context,
  ticket: string,
): Promise<Loaded> {
  const session = await options.operations.execute('webSession', {}, ctx);
  const web = session.data?.webSession as
    | { csrfToken: string | null; user: { email: string } }
    | null
    | undefined;
  if (session.errors.length || !web?.csrfToken) return { kind: 'sign-in' };
  const asked = await options.operations.execute('oauthAuthorizationRequest', { ticket }, ctx);
  const error = asked.errors[0];
  if (error?.extensions?.code === 'UNAUTHENTICATED') return { kind: 'sign-in' };
  if (error) return { kind: 'error', error };
  const request = asked.data?.oauthAuthorizationRequest as AuthorizationRequestView;
  return {
    kind: 'consent',
    consent: { ticket, csrfToken: web.csrfToken, email: web.user.email, request },
  };
}

/** GET: the consent page for the signed-in visitor, else the sign-in page; 400 without a ticket. */
export function showConsent(
  options: OAuthPageOptions,
): (req: Request, res: Response) => Promise<void> {
  return async (req: Request, res: Response): Promise<void> => {
    const ticket = ticketOf(res);
    try {
      const ctx = await options.context(cookieOnly(req));
      const loaded = await loadConsent(options, ctx, ticket);
      if (loaded.kind === 'sign-in') return sendPage(res, 200, signInPage(ticket));
      if (loaded.kind === 'error') return sendFailure(req, res, loaded.error);
      sendPage(res, 200, consentPage(loaded.consent));
    } catch (err) {
      sendCrash(req, res, err, 'OAuth consent page');
    }
  };
}

/** The ticked families of a post: text values only (a hostile form may send anything). */
function familiesOf(value: unknown): string[] {
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  return values.filter((v): v is string => typeof v === 'string').slice(0, 20);
}

/** Whether a thrown error is authenticate()'s refusal of a missing or wrong CSRF token. */
function isForbidden(err: unknown): boolean {
  return (err as GraphQLError | undefined)?.extensions?.code === 'FORBIDDEN';
}

/** Answers a refused approval: the page again for "tick at least one", else a failure page. */
async function refusedApproval(
  options: OAuthPageOptions,
  req: Request,
  res: Response,
  ctx: Context,
  ticket: string,
  families: string[],
  error: GraphQLError,
): Promise<void> {
  const issues = error.extensions?.detail as ValidationIssue[] | undefined;
  if (error.extensions?.code !== 'VALIDATION_FAILED') return sendFailure(req, res, error);
  // located issues: a malformed ticket or family value (NUL bytes, too long), not the person's choice
  if (Array.isArray(issues) && issues.length) {
    const ticketIssue = issues.some((i) => i.loc[0] === 'ticket');
    return sendPage(res, 400, ticketIssue ? EXPIRED_REQUEST : UNREADABLE_FORM);
  }
  const loaded = await loadConsent(options, ctx, ticket);
  if (loaded.kind === 'sign-in') return void res.redirect(303, consentLocation(ticket));
  if (loaded.kind === 'error') return sendFailure(req, res, loaded.error);
  sendPage(
    res,
    422,
    consentPage(loaded.consent, { ticked: new Set(families), problems: [error.message] }),
  );
}

/** POST: Approve or Deny, as the signed-in visitor with the form's CSRF token; 303 back to the app. */
export function submitConsent(
  options: OAuthPageOptions,
): (req: Request, res: Response) => Promise<void> {
  return async (req: Request, res: Response): Promise<void> => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const ticket = ticketOf(res);
    const action = text(form.action);
    if (action !== 'approve' && action !== 'deny') return sendPage(res, 400, UNREADABLE_FORM);
    try {
      let ctx: Context;
      try {
        // NOTE: the form's field stands in for the CSRF header: '' when absent, never the header
        ctx = await options.context(cookieOnly(req), text(form.csrf_token) ?? '');
      } catch (err) {
        if (isForbidden(err)) return sendPage(res, 403, FORBIDDEN_FORM);
        throw err;
      }
      const families = familiesOf(form.families);
      const result =
        action === 'approve'
          ? await options.operations.execute('approveOAuthAuthorization', { ticket, families }, ctx)
          : await options.operations.execute('denyOAuthAuthorization', { ticket }, ctx);
      const error = result.errors[0];
      if (error?.extensions?.code === 'UNAUTHENTICATED') {
        // the session ended since the page was shown: sign in again, then decide
        return void res.redirect(303, consentLocation(ticket));
      }
      if (error && action === 'approve') {
        return await refusedApproval(options, req, res, ctx, ticket, families, error);
      }
      if (error) return sendFailure(req, res, error);
      const answer = (result.data?.approveOAuthAuthorization ??
        result.data?.denyOAuthAuthorization) as { redirectTo: string };
      res.set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.redirect(303, answer.redirectTo);
    } catch (err) {
      sendCrash(req, res, err, 'OAuth consent answer');
    }
  };
}
