/**
 * A request authenticated just before its account was deleted can reach a write after the user row
 * is gone: the write's foreign key (or an update of the user row) fails with an unexpected error.
 * What that request gets is what a deleted account's credential gets, UNAUTHENTICATED (401), never
 * INTERNAL (issue 29). The account is looked up only when an execution ended with an unexpected
 * error, once, so no other request pays for it.
 */
import { GraphQLError } from 'graphql';
import { appError } from '../base/errors.ts';
import type { Context } from './context.ts';

/** An error that is not deliberate: it is (or, once masked, was) answered as INTERNAL. */
function unexpected(error: GraphQLError): boolean {
  if (error.extensions?.code === 'INTERNAL') return true;
  const original = error.originalError;
  return !!original && !(original instanceof GraphQLError);
}

/**
 * `errors`, with each unexpected one replaced by UNAUTHENTICATED when the caller's account no
 * longer exists; unchanged otherwise (and when the lookup itself fails).
 */
export async function withAccountGone(
  ctx: Pick<Context, 'principal' | 'prisma'>,
  errors: readonly GraphQLError[],
): Promise<readonly GraphQLError[]> {
  const userId = ctx.principal?.userId;
  if (userId === undefined || !errors.some(unexpected)) return errors;
  try {
    if ((await ctx.prisma.user.count({ where: { id: userId } })) > 0) return errors;
  } catch {
    return errors; // the database did not answer: the errors stay what they are
  }
  return errors.map((error) =>
    unexpected(error)
      ? appError('UNAUTHENTICATED', 'Not authenticated: the account no longer exists')
      : error,
  );
}
