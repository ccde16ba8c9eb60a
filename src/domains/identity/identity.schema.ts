/** Identity-provider sign-in (Apple, Google, ...): native (bearer token) and web (cookie). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { SignInToken, SignInWebSession } from '../account/index.ts';
import { loginWithIdp, webLoginWithIdp } from './identity.service.ts';

const IdpLoginInput = builder.inputType('IdpLoginInput', {
  description: 'An ID token from an identity provider (IdpLoginIn)',
  fields: (t) => ({
    provider: t.string({
      required: true,
      description: 'apple, google, or another configured provider',
    }),
    idToken: t.string({
      required: true,
      description: 'the ID token (a JWT) the provider issued to the app',
    }),
  }),
  validate: z.object({
    provider: z.string().trim().min(1).max(40),
    idToken: z.string().min(1).max(16_384),
  }),
});

builder.mutationFields((t) => ({
  loginWithIdp: t.withAuth({ public: true }).field({
    type: SignInToken,
    description:
      "Signs in with an identity provider's ID token and answers a bearer token for the phone",
    args: { input: t.arg({ type: IdpLoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => loginWithIdp(ctx, input),
  }),
  webLoginWithIdp: t.withAuth({ public: true }).field({
    type: SignInWebSession,
    description: "Signs in a browser with an identity provider's ID token: sets the session cookie",
    args: { input: t.arg({ type: IdpLoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => webLoginWithIdp(ctx, input),
  }),
}));
