/**
 * Accounts: register, password login (app, web, admin), emailed sign-in codes, web sessions,
 * session list and revocation, forgotten passwords, account deletion. The User type and the
 * profile fields are in src/domains/profile/profile.schema.ts.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { deleteAccount } from './account.deletion.ts';
import type { AccountDeletion } from './account.deletion.ts';
import { startEmailCode, verifyEmailCode, verifyEmailCodeWeb } from './account.email-codes.ts';
import { adminLogin, webLogin, login, register } from './account.login.ts';
import { forgotPassword, resetPassword } from './account.password-reset.ts';
import {
  webSession,
  sessions,
  webLogout,
  revokeAllSessions,
  revokeSession,
} from './account.sessions.ts';
import type {
  IssuedSession,
  SessionView,
  WebSessionStart,
  WebSessionView,
} from './account.sessions.ts';
import type { Ack } from './account.shared.ts';

export const AuthToken = builder.objectRef<IssuedSession>('AuthToken').implement({
  description: 'A bearer token for the phone (TokenOut)',
  fields: (t) => ({
    accessToken: t.exposeString('token'),
    tokenType: t.string({ resolve: () => 'bearer' }),
    expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the token expires' }),
  }),
});

/** A bearer token from a sign-in that may create the account: emailed code or identity provider. */
export const SignInToken = builder
  .objectRef<IssuedSession & { isNewUser: boolean }>('SignInToken')
  .implement({
    description:
      'A bearer token from an emailed-code or identity-provider sign-in (EmailCodeTokenOut, TokenOut with is_new_user)',
    fields: (t) => ({
      accessToken: t.exposeString('token'),
      tokenType: t.string({ resolve: () => 'bearer' }),
      expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the token expires' }),
      isNewUser: t.exposeBoolean('isNewUser', {
        description: 'true when this sign-in created the account',
      }),
    }),
  });

export const WebSession = builder.objectRef<WebSessionView>('WebSession').implement({
  description:
    'A signed-in session as the web app sees it (WebSessionOut); the token itself is only in the HttpOnly cookie',
  fields: (t) => ({
    user: t.prismaField({
      type: 'User',
      resolve: (query, session, _args, ctx) =>
        ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: session.userId } }),
    }),
    csrfToken: t.exposeString('csrfToken', {
      nullable: true,
      description:
        'send it as X-CSRF-Token on state-changing cookie requests; null for a bearer (phone) session',
    }),
    expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the session expires' }),
  }),
});

/** A web session from a sign-in that may create the account: emailed code or identity provider. */
export const SignInWebSession = builder
  .objectRef<WebSessionStart & { isNewUser: boolean }>('SignInWebSession')
  .implement({
    description:
      'A web session from an emailed-code or identity-provider sign-in (EmailCodeWebSessionOut, WebSessionOut); the token is only in the HttpOnly cookie',
    fields: (t) => ({
      user: t.prismaField({
        type: 'User',
        resolve: (query, session, _args, ctx) =>
          ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: session.userId } }),
      }),
      csrfToken: t.exposeString('csrfToken', {
        description: 'send it as X-CSRF-Token on state-changing cookie requests',
      }),
      isNewUser: t.exposeBoolean('isNewUser', {
        description: 'true when this sign-in created the account',
      }),
      expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the session expires' }),
    }),
  });

export const AuthAck = builder.objectRef<Ack>('AuthAck').implement({
  description: 'The answer {"ok": true}',
  fields: (t) => ({ ok: t.exposeBoolean('ok') }),
});

export const Session = builder.objectRef<SessionView>('Session').implement({
  description: 'A login session (phone bearer token or web cookie)',
  fields: (t) => ({
    id: t.exposeString('id'),
    kind: t.exposeString('kind', { description: 'native or web' }),
    userAgent: t.exposeString('userAgent', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    current: t.exposeBoolean('current', {
      description: 'true for the session making this request',
    }),
  }),
});

export const AccountDeletionResult = builder
  .objectRef<AccountDeletion>('AccountDeletion')
  .implement({
    description: 'The answer of an account deletion',
    fields: (t) => ({
      deleted: t.exposeBoolean('deleted'),
      removedRows: t.exposeInt('removedRows', {
        description: 'rows removed besides the account itself',
      }),
    }),
  });

const email = z.email({ message: 'value is not a valid email address' }).max(254);
const password = z.string().min(8, 'password must have at least 8 characters').max(256);

// Each input is validated as one zod object, so every bad field is reported at once
// (per-field validators stop at the first failure).
const RegisterInput = builder.inputType('RegisterInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    password: t.string({ required: true }),
    name: t.string(),
  }),
  validate: z.object({ email, password, name: z.string().trim().max(120).nullish() }),
});

const LoginInput = builder.inputType('LoginInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    password: t.string({ required: true }),
  }),
  validate: z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(256) }),
});

const EmailCodeStartInput = builder.inputType('EmailCodeStartInput', {
  description: 'Where to send a sign-in code (EmailCodeStartIn)',
  fields: (t) => ({ email: t.string({ required: true }) }),
  validate: z.object({ email }),
});

const EmailCodeVerifyInput = builder.inputType('EmailCodeVerifyInput', {
  description: 'An emailed sign-in code (EmailCodeVerifyIn)',
  fields: (t) => ({
    email: t.string({ required: true }),
    code: t.string({ required: true, description: 'the six digits from the email' }),
  }),
  validate: z.object({ email, code: z.string().min(1).max(16) }),
});

const ForgotPasswordInput = builder.inputType('ForgotPasswordInput', {
  description: 'The address of the account whose password was forgotten (ForgotPasswordIn)',
  fields: (t) => ({ email: t.string({ required: true }) }),
  validate: z.object({ email }),
});

const ResetPasswordInput = builder.inputType('ResetPasswordInput', {
  description: 'A new password with the token of an emailed reset link (ResetPasswordIn)',
  fields: (t) => ({
    token: t.string({ required: true, description: 'the token from the emailed link' }),
    newPassword: t.string({ required: true }),
  }),
  validate: z.object({ token: z.string().min(1).max(200), newPassword: password }),
});

builder.queryFields((t) => ({
  webSession: t.withAuth({ loginSession: true }).field({
    type: WebSession,
    description:
      'The current login session: who is signed in, and (for a cookie session) its CSRF token',
    resolve: (_root, _args, ctx) => webSession(ctx),
  }),
  sessions: t.withAuth({ scope: 'account:read' }).field({
    type: [Session],
    description: "The caller's live login sessions, newest first",
    resolve: (_root, _args, ctx) => sessions(ctx),
  }),
}));

builder.mutationFields((t) => ({
  register: t.withAuth({ public: true }).prismaField({
    type: 'User',
    description: 'Creates an account with a password',
    args: { input: t.arg({ type: RegisterInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => register(ctx, input, query),
  }),
  login: t.withAuth({ public: true }).field({
    type: AuthToken,
    description: 'Password login for the phone: answers a bearer token',
    args: { input: t.arg({ type: LoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => login(ctx, input),
  }),
  webLogin: t.withAuth({ public: true }).field({
    type: WebSession,
    description: 'Password login for the web: sets the HttpOnly session cookie',
    args: { input: t.arg({ type: LoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => webLogin(ctx, input),
  }),
  adminLogin: t.withAuth({ public: true }).field({
    type: AuthToken,
    description: 'Password login for the admin panel: a bearer token of an admin account',
    args: { input: t.arg({ type: LoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => adminLogin(ctx, input),
  }),
  startEmailCode: t.withAuth({ public: true }).field({
    type: AuthAck,
    description: 'Emails a six-digit sign-in code; answers ok for any well-formed address',
    args: { input: t.arg({ type: EmailCodeStartInput, required: true }) },
    resolve: (_root, { input }, ctx) => startEmailCode(ctx, input),
  }),
  verifyEmailCode: t.withAuth({ public: true }).field({
    type: SignInToken,
    description: 'Signs in with an emailed code for the phone: answers a bearer token',
    args: { input: t.arg({ type: EmailCodeVerifyInput, required: true }) },
    resolve: (_root, { input }, ctx) => verifyEmailCode(ctx, input),
  }),
  verifyEmailCodeWeb: t.withAuth({ public: true }).field({
    type: SignInWebSession,
    description: 'Signs in with an emailed code for the web: sets the HttpOnly session cookie',
    args: { input: t.arg({ type: EmailCodeVerifyInput, required: true }) },
    resolve: (_root, { input }, ctx) => verifyEmailCodeWeb(ctx, input),
  }),
  webLogout: t.withAuth({ public: true }).field({
    type: AuthAck,
    description: 'Ends the web session of the cookie, if any, and clears the cookies',
    resolve: (_root, _args, ctx) => webLogout(ctx),
  }),
}));

builder.mutationFields((t) => ({
  revokeAllSessions: t.withAuth({ scope: 'account:write' }).field({
    type: AuthAck,
    description: "Ends every login session and personal token of the account (the caller's too)",
    resolve: (_root, _args, ctx) => revokeAllSessions(ctx),
  }),
  revokeSession: t.withAuth({ scope: 'account:write' }).field({
    type: Session,
    description: "Signs one of the caller's sessions out",
    args: {
      sid: t.arg.string({
        required: true,
        description: "the session's id (from the session list)",
        validate: z.string().min(1).max(64),
      }),
    },
    resolve: (_root, { sid }, ctx) => revokeSession(ctx, { sid }),
  }),
  forgotPassword: t.withAuth({ public: true }).field({
    type: AuthAck,
    description: 'Emails a password-reset link if the address has an account; always answers ok',
    args: { input: t.arg({ type: ForgotPasswordInput, required: true }) },
    resolve: (_root, { input }, ctx) => forgotPassword(ctx, input),
  }),
  resetPassword: t.withAuth({ public: true }).field({
    type: AuthAck,
    description: 'Sets a new password with an emailed reset token; ends every session and token',
    args: { input: t.arg({ type: ResetPasswordInput, required: true }) },
    resolve: (_root, { input }, ctx) => resetPassword(ctx, input),
  }),
  deleteAccount: t.withAuth({ scope: 'account:write' }).field({
    type: AccountDeletionResult,
    description: "Permanently deletes the caller's account and everything stored for it",
    resolve: (_root, _args, ctx) => deleteAccount(ctx),
  }),
}));
