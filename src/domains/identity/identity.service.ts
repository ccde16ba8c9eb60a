/**
 * Sign-in through an identity provider (Apple, Google, or another configured OpenID Connect
 * issuer). The ID token is verified in src/integrations/idp.ts; here a verified identity becomes an
 * account: by its (provider, subject) link when there is one, else by its email address.
 *
 * NOTE: linking by address is where accounts can be taken over, so an address only counts when the
 * provider says it verified it (email_verified true): then the identity is linked to the account
 * with that address, or a new account is created for it. An unverified or missing address never
 * creates or links anything (400), so nobody can claim an address they do not control.
 */
import { createSession, startWebSession } from '../account/index.ts';
import type { IssuedSession, WebSessionStart } from '../account/index.ts';
import { normaliseEmail } from '../account/index.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';

export interface IdpSignInOptions {
  /** an enabled provider's name (apple, google, ...); compared case-insensitively */
  provider: string;
  /** the ID token (JWT) the app got from the provider */
  idToken: string;
}

export interface IdpAccount {
  userId: number;
  /** true when this sign-in created the account */
  isNewUser: boolean;
}

/** How many times a first sign-in is retried after losing a race with a concurrent one. */
const CREATE_ATTEMPTS = 2;

/** The account of a verified identity; created (or linked by verified address) on first sign-in. */
export async function accountForIdentity(
  ctx: Context,
  options: IdpSignInOptions,
): Promise<IdpAccount> {
  const provider = options.provider.trim().toLowerCase();
  if (!ctx.idp.names.includes(provider)) {
    const enabled = ctx.idp.names.length ? ctx.idp.names.join(', ') : 'none';
    throw validationError([
      {
        loc: ['input', 'provider'],
        msg: `Unknown identity provider; enabled: ${enabled}`,
        type: 'enum',
      },
    ]);
  }
  const identity = await ctx.idp.verify(provider, options.idToken);
  for (let attempt = 1; ; attempt++) {
    const link = await ctx.prisma.identityLink.findUnique({
      where: { provider_subject: { provider, subject: identity.subject } },
      select: { userId: true },
    });
    if (link) return { userId: link.userId, isNewUser: false };
    if (!identity.email)
      throw appError('BAD_REQUEST', 'The identity token carries no email address');
    if (!identity.emailVerified)
      throw appError('BAD_REQUEST', 'The identity provider has not verified this email address');
    const email = normaliseEmail(identity.email);
    try {
      return await ctx.prisma.$transaction(async (tx) => {
        const existing = await tx.user.findUnique({ where: { email }, select: { id: true } });
        const user =
          existing ??
          (await tx.user.create({ data: { email, name: identity.name }, select: { id: true } }));
        await tx.identityLink.create({
          data: { userId: user.id, provider, subject: identity.subject, email },
        });
        return { userId: user.id, isNewUser: !existing };
      });
    } catch (e) {
      // a concurrent first sign-in created the link or the account: look again
      if ((e as { code?: string }).code !== 'P2002' || attempt >= CREATE_ATTEMPTS) throw e;
    }
  }
}

export interface IdpToken extends IssuedSession {
  isNewUser: boolean;
}

/** Native sign-in: a bearer token for the phone. */
export async function loginWithIdp(ctx: Context, options: IdpSignInOptions): Promise<IdpToken> {
  const account = await accountForIdentity(ctx, options);
  const session = await createSession(ctx, { userId: account.userId, kind: 'native' });
  return { ...session, isNewUser: account.isNewUser };
}

export interface IdpWebSession extends WebSessionStart {
  isNewUser: boolean;
}

/** Web sign-in: the session goes into the HttpOnly cookie; the answer carries the CSRF token. */
export async function webLoginWithIdp(
  ctx: Context,
  options: IdpSignInOptions,
): Promise<IdpWebSession> {
  const account = await accountForIdentity(ctx, options);
  const session = await startWebSession(ctx, account.userId);
  return { ...session, isNewUser: account.isNewUser };
}
