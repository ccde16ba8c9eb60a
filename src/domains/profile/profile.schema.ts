/**
 * The person's profile: the User type (UserOut), reading and changing profile fields and
 * onboarding progress, and the profile photo (upload or base64).
 */
import type { InputFieldBuilder } from '@pothos/core';
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isTimeZone } from '../../platform/time-zones.ts';
import { me, setProfilePhoto, updateProfile } from './profile.service.ts';

export const User = builder.prismaObject('User', {
  description: 'A person with an account (UserOut)',
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    timezone: t.exposeString('timezone', {
      nullable: true,
      description: 'IANA time zone, e.g. Europe/Berlin',
    }),
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

/** Onboarding progress: its own input, and part of a profile update (the legacy PATCH /me sends it). */
const onboardingFields = (
  t: InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>,
) => ({
  onboardingStep: t.int({ description: 'the onboarding step the person is at (0..100)' }),
  onboardingCompleted: t.boolean({ description: 'whether onboarding is complete' }),
});
const onboardingRules = {
  onboardingStep: z.number().int().min(0).max(100).nullish(),
  onboardingCompleted: z.boolean().nullish(),
};

const UpdateProfileInput = builder.inputType('UpdateProfileInput', {
  description: 'Profile fields to change (UserUpdate); absent fields stay, null clears',
  fields: (t) => ({
    name: t.string({ description: 'the name the app shows (at most 120 characters)' }),
    timezone: t.string({ description: 'IANA time zone name, e.g. Europe/Berlin' }),
    country: t.string({ description: 'ISO 3166-1 alpha-2' }),
    glucoseUnit: t.string({ description: 'mg/dL or mmol/L' }),
    dateOfBirth: t.string({ description: 'YYYY-MM-DD' }),
    sex: t.string({ description: 'female, male or other' }),
    heightCm: t.float({ description: 'height, cm (30..300)' }),
    weightKg: t.float({ description: 'weight, kg (1..700)' }),
    diabetesType: t.string({
      description: 'none, type1, type2, gestational, prediabetes or other',
    }),
    goals: t.stringList({ description: "the person's goals, as short texts (up to 20)" }),
    ...onboardingFields(t),
  }),
  validate: z.object({
    name: z.string().trim().max(120).nullish(),
    timezone: z
      .string()
      .max(64)
      .refine(isTimeZone, 'use an IANA time zone name, e.g. Europe/Berlin')
      .nullish(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'use an ISO 3166-1 alpha-2 code')
      .nullish(),
    glucoseUnit: z.enum(['mg/dL', 'mmol/L']).nullish(),
    dateOfBirth: z.iso.date().nullish(),
    sex: z.enum(['female', 'male', 'other']).nullish(),
    heightCm: z.number().min(30).max(300).nullish(),
    weightKg: z.number().min(1).max(700).nullish(),
    diabetesType: z
      .enum(['none', 'type1', 'type2', 'gestational', 'prediabetes', 'other'])
      .nullish(),
    goals: z.array(z.string().min(1).max(60)).max(20).nullish(),
    ...onboardingRules,
  }),
});

const OnboardingInput = builder.inputType('OnboardingInput', {
  fields: (t) => onboardingFields(t),
  validate: z.object(onboardingRules),
});

const ProfilePhotoDataInput = builder.inputType('ProfilePhotoDataInput', {
  description: 'A profile photo sent inline',
  fields: (t) => ({
    data: t.string({ required: true, description: 'the image, base64-encoded' }),
    contentType: t.string({
      required: true,
      description: 'image/jpeg, image/png, image/webp or image/heic',
    }),
  }),
  validate: z.object({
    data: z.base64({ message: 'data must be base64' }),
    contentType: z.string().trim().min(1).max(100),
  }),
});

builder.queryFields((t) => ({
  me: t.withAuth({ scope: 'profile:read' }).prismaField({
    type: 'User',
    description:
      "The caller's profile, and the dashboard graph: the person's data as connections on it (meals, glucoseReadings, ...), each with its root field's scope; while viewing as, the data is the owner's and the account lists the caller's own (docs/graphql.md)",
    resolve: (query, _root, _args, ctx) => me(ctx, query),
  }),
}));

builder.mutationFields((t) => ({
  updateProfile: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: "Changes the caller's profile",
    args: { input: t.arg({ type: UpdateProfileInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => updateProfile(ctx, { changes: input }, query),
  }),
  updateOnboarding: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: 'Records onboarding progress',
    args: { input: t.arg({ type: OnboardingInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => updateProfile(ctx, { changes: input }, query),
  }),
  setProfilePhoto: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: "Sets the caller's profile photo from an uploaded file",
    args: { file: t.arg({ type: 'File', required: true }) },
    resolve: (query, _root, { file }, ctx) =>
      setProfilePhoto(ctx, { file, argument: 'file' }, query),
  }),
  setProfilePhotoData: t.withAuth({ scope: 'profile:write' }).prismaField({
    type: 'User',
    description: "Sets the caller's profile photo from base64 data",
    args: { input: t.arg({ type: ProfilePhotoDataInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => {
      const file = new Blob([Buffer.from(input.data, 'base64')], { type: input.contentType });
      return setProfilePhoto(ctx, { file, argument: 'data' }, query);
    },
  }),
}));
