/**
 * Whose rows a field of the `User` type reads, in the dashboard graph (docs/graphql.md).
 *
 * The graph's data fields (`me { meals ... }`) answer exactly what their root fields answer: the
 * person's data reads `readerUserId(ctx)` (the owner's while the credential views as a grantee),
 * the caller's own account (grants, sessions, tokens, consents) reads `principal.userId`. A `User`
 * object is reached elsewhere too (`viewedProfile`, a sign-in answer), so each field first checks
 * that its object is a person whose rows the credential may read that way; any other person
 * answers NOT_FOUND, like another person's row in a service.
 */
import { readerUserId } from '../auth/principal.ts';
import { appError } from '../base/errors.ts';
import type { AuthedContext } from './context.ts';

/** The person's data on `user`: allowed for the caller's own object and the person viewed. */
export function assertPersonData(ctx: AuthedContext, user: { id: number }): void {
  if (user.id !== ctx.principal.userId && user.id !== readerUserId(ctx)) throw notFound();
}

/** The caller's own account (grants, sessions, tokens, consents): allowed on the caller's object only. */
export function assertOwnAccount(ctx: AuthedContext, user: { id: number }): void {
  if (user.id !== ctx.principal.userId) throw notFound();
}

function notFound(): Error {
  return appError('NOT_FOUND', "Not found: the data of a person this credential doesn't read");
}
