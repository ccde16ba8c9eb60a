/** Accounts: the User type, profile reads and updates, register, password login, session list. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { IssuedSession, SessionView } from './account.service.ts';
import { listSessions, loginWithPassword, registerUser, updateProfile } from './account.service.ts';

export const User = builder.prismaObject('User', {
  description: 'A person with an account (UserOut)',
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    timezone: t.exposeString('timezone', { nullable: true, description: 'IANA time zone, e.g. Europe/Berlin' }),
    country: t.exposeString('country', { nullable: true, description: 'ISO 3166-1 alpha-2' }),
    glucoseUnit: t.exposeString('glucoseUnit', { description: 'mg/dL or mmol/L (display only)' }),
    dateOfBirth: t.exposeString('dateOfBirth', { nullable: true }),
    sex: t.exposeString('sex', { nullable: true }),
    heightCm: t.exposeFloat('heightCm', { nullable: true }),
    weightKg: t.exposeFloat('weightKg', { nullable: true }),
    diabetesType: t.exposeString('diabetesType', { nullable: true }),
    goals: t.exposeStringList('goals'),
    onboardingCompleted: t.exposeBoolean('onboardingCompleted'),
    onboardingStep: t.exposeInt('onboardingStep'),
    profilePhotoUrl: t.exposeString('profilePhotoUrl', { nullable: true }),
    isAdmin: t.exposeBoolean('isAdmin'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const AuthToken = builder.objectRef<IssuedSession>('AuthToken').implement({
  description: 'A bearer token for the phone (TokenOut)',
  fields: (t) => ({
    accessToken: t.exposeString('token'),
    tokenType: t.string({ resolve: () => 'bearer' }),
    expiresIn: t.exposeInt('expiresIn', { description: 'seconds until the token expires' }),
  }),
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
    current: t.exposeBoolean('current', { description: 'true for the session making this request' }),
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

const UpdateProfileInput = builder.inputType('UpdateProfileInput', {
  description: 'Profile fields to change (UserUpdate); absent fields stay, null clears',
  fields: (t) => ({
    name: t.string(),
    timezone: t.string({ description: 'IANA time zone' }),
    country: t.string({ description: 'ISO 3166-1 alpha-2' }),
    glucoseUnit: t.string({ description: 'mg/dL or mmol/L' }),
    dateOfBirth: t.string({ description: 'YYYY-MM-DD' }),
    sex: t.string({ description: 'female, male or other' }),
    heightCm: t.float(),
    weightKg: t.float(),
    diabetesType: t.string({ description: 'none, type1, type2, gestational, prediabetes or other' }),
    goals: t.stringList(),
  }),
  validate: z.object({
    name: z.string().trim().max(120).nullish(),
    timezone: z.string().max(64).nullish(),
    country: z.string().regex(/^[A-Z]{2}$/, 'use an ISO 3166-1 alpha-2 code').nullish(),
    glucoseUnit: z.enum(['mg/dL', 'mmol/L']).nullish(),
    dateOfBirth: z.iso.date().nullish(),
    sex: z.enum(['female', 'male', 'other']).nullish(),
    heightCm: z.number().min(30).max(300).nullish(),
    weightKg: z.number().min(1).max(700).nullish(),
    diabetesType: z.enum(['none', 'type1', 'type2', 'gestational', 'prediabetes', 'other']).nullish(),
    goals: z.array(z.string().min(1).max(60)).max(20).nullish(),
  }),
});

const OnboardingInput = builder.inputType('OnboardingInput', {
  fields: (t) => ({
    onboardingStep: t.int(),
    onboardingCompleted: t.boolean(),
  }),
  validate: z.object({ onboardingStep: z.number().int().min(0).max(100).nullish(), onboardingCompleted: z.boolean().nullish() }),
});

builder.queryFields((t) => ({
  me: t.withAuth({ scope: 'profile:read' }).prismaField({
    type: 'User',
    description: 'The caller\'s profile',
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: ctx.principal.userId } }),
  }),
  sessions: t.withAuth({ scope: 'account:read' }).field({
    type: [Session],
    description: 'The caller\'s live login sessions, newest first',
    resolve: (_root, _args, ctx) => listSessions(ctx),
  }),
}));

builder.mutationFields((t) => ({
  register: t.withAuth({ public: true }).prismaField({
    type: 'User',
    description: 'Creates an account with a password',
    args: { input: t.arg({ type: RegisterInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => registerUser(ctx, input, query),
  }),
  login: t.withAuth({ public: true }).field({
    type: AuthToken,
    description: 'Password login for the phone: answers a bearer token',
    args: { input: t.arg({ type: LoginInput, required: true }) },
    resolve: (_root, { input }, ctx) => loginWithPassword(ctx, input),
  }),
  updateProfile: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: 'Changes the caller\'s profile',
    args: { input: t.arg({ type: UpdateProfileInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      updateProfile(ctx, { changes: input }, query),
  }),
  updateOnboarding: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: 'Records onboarding progress',
    args: { input: t.arg({ type: OnboardingInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      updateProfile(ctx, { changes: input }, query),
  }),
}));
