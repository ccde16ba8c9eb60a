/** Identity-provider sign-in (Apple, Google, ...): native (bearer token) and web (cookie). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { IdpToken, IdpWebSession } from './identity.service.ts';
import { signInWithIdp, webSignInWithIdp } from './identity.service.ts';

export const IdpTokenRef = builder.objectRef<IdpToken>('IdpToken').implement({
  description: 'A bearer token from an identity-provider sign-in (TokenOut with is_new_user)',
  fields: (t) => ({
    accessToken: t.exposeString('token'),
    tokenType: t.string({ resolve: () => 'bearer' }),
    expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the token expires' }),
    isNewUser: t.exposeBoolean('isNewUser', { description: 'true when this sign-in created the account' }),
  }),
});

export const IdpWebSessionRef = builder.objectRef<IdpWebSession>('IdpWebSession').implement({
  description: 'A web session from an identity-provider sign-in (WebSessionOut); the token is only in the HttpOnly cookie',
  fields: (t) => ({
    user: t.prismaField({
      type: 'User',
      resolve: (query, session, _args, ctx) => ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: session.userId } }),
    }),
    csrfToken: t.exposeString('csrfToken', { description: 'send it as X-CSRF-Token on state-changing requests' }),
    expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the session expires' }),
    isNewUser: t.exposeBoolean('isNewUser', { description: 'true when this sign-in created the account' }),
  }),
});

const IdpLoginInput = builder.inputType('IdpLoginInput', {
  description: 'An ID token from an identity provider (IdpLoginIn)',
  fields: (t) => ({
    provider: t.string({ required: true, description: 'apple, google, or another configured provider' }),
    idToken: t.string({ required: true, description: 'the ID token (a JWT) the provider issued to the app' }),
  }),
  validate: z.object({
    provider: z.string().trim().min(1).max(40),
    idToken: z.string().min(1).max(16_384),
  }),
});

builder.mutationFields((t) => ({
  loginWithIdp: t.withAuth({ public: true }).field({
    type: IdpTokenRef,
    description: 'Signs in with an identity provider\'s ID token and answers a bearer token for the phone',
    args: { input: t.arg({ type: IdpLoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => signInWithIdp(ctx, input),
  }),
  webLoginWithIdp: t.withAuth({ public: true }).field({
    type: IdpWebSessionRef,
    description: 'Signs in a browser with an identity provider\'s ID token: sets the session cookie',
    args: { input: t.arg({ type: IdpLoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => webSignInWithIdp(ctx, input),
  }),
}));
