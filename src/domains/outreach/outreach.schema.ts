/**
 * Outreach: newsletter (double opt-in; admins list subscribers), privacy requests, the waitlist,
 * and a signed-in person's product interests.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { ProductInterestView } from './outreach.interests.ts';
import { PRODUCT_KEYS, productInterests, recordProductInterest } from './outreach.interests.ts';
import {
  confirmNewsletter,
  newsletterSubscribers,
  subscribeNewsletter,
} from './outreach.newsletter.ts';
import type { SubscriberView } from './outreach.newsletter.ts';
import { PRIVACY_KINDS, requestPrivacy } from './outreach.privacy.ts';
import type { Ack } from './outreach.shared.ts';
import { confirmWaitlist, joinWaitlist } from './outreach.waitlist.ts';

const email = z.email({ message: 'value is not a valid email address' }).max(254);
const token = z.string().min(1).max(200);
/** Longest privacy-request message and product-interest note. */
const MESSAGE_MAX = 2000;
const NOTE_MAX = 500;
/** Subscribers per page of the admin list. */
const SUBSCRIBERS_PAGE_DEFAULT = 100;
const SUBSCRIBERS_PAGE_MAX = 500;

const OutreachAck = builder.objectRef<Ack>('OutreachAck').implement({
  description: 'The answer {"ok": true}',
  fields: (t) => ({ ok: t.exposeBoolean('ok') }),
});

const ProductKey = builder.enumType('ProductKey', {
  description: 'A product one can wait for or be interested in',
  values: {
    kit: { value: 'kit', description: 'the sensor starter kit' },
    premium: { value: 'premium', description: 'the premium subscription' },
    coach: { value: 'coach', description: 'one-to-one coaching' },
  } as const,
});

const PrivacyRequestKind = builder.enumType('PrivacyRequestKind', {
  description: 'What a privacy request asks for',
  values: {
    access: { value: 'access', description: 'a copy of the data held about the person' },
    deletion: { value: 'deletion', description: 'erasure of the data held about the person' },
    correction: { value: 'correction', description: 'correction of inaccurate data' },
    other: { value: 'other', description: 'anything else (objection, restriction, a question)' },
  } as const,
});

const SubscriberStatus = builder.enumType('SubscriberStatus', {
  description: 'Where a double opt-in stands',
  values: {
    pending: { value: 'pending', description: 'the emailed link is not confirmed yet' },
    confirmed: { value: 'confirmed', description: 'the address confirmed the subscription' },
  } as const,
});

const NewsletterSubscriber = builder.objectRef<SubscriberView>('NewsletterSubscriber').implement({
  description: 'A newsletter subscriber (NewsletterSubscriberOut)',
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    source: t.exposeString('source', { nullable: true }),
    status: t.field({
      type: SubscriberStatus,
      resolve: (s) => s.status as 'pending' | 'confirmed',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'when it subscribed' }),
    confirmedAt: t.expose('confirmedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'when the emailed link was confirmed (null while pending)',
    }),
  }),
});

export const ProductInterest = builder.objectRef<ProductInterestView>('ProductInterest').implement({
  description: "The caller's interest in a product (ProductInterestOut)",
  fields: (t) => ({
    id: t.exposeInt('id'),
    product: t.field({ type: ProductKey, resolve: (p) => p.product as 'kit' }),
    note: t.exposeString('note', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const NewsletterSubscribeInput = builder.inputType('NewsletterSubscribeInput', {
  description: 'An address to subscribe to the newsletter (NewsletterSubscribeIn)',
  fields: (t) => ({
    email: t.string({ required: true }),
    name: t.string({ description: 'how to greet the subscriber' }),
    source: t.string({ description: 'where the sign-up came from (a page, a campaign)' }),
  }),
  validate: z.object({
    email,
    name: z.string().trim().max(100).nullish(),
    source: z.string().trim().max(100).nullish(),
  }),
});

const ConfirmNewsletterInput = builder.inputType('ConfirmNewsletterInput', {
  description: 'The token of an emailed newsletter confirmation link',
  fields: (t) => ({ token: t.string({ required: true, description: 'the token from the link' }) }),
  validate: z.object({ token }),
});

const PrivacyRequestInput = builder.inputType('PrivacyRequestInput', {
  description: 'A privacy request (PrivacyRequestIn)',
  fields: (t) => ({
    email: t.string({ required: true, description: 'where the team answers' }),
    kind: t.field({ type: PrivacyRequestKind, required: true }),
    message: t.string({
      description: `details in the person's words (at most ${MESSAGE_MAX} characters)`,
    }),
  }),
  validate: z.object({
    email,
    kind: z.enum(PRIVACY_KINDS),
    message: z.string().max(MESSAGE_MAX).nullish(),
  }),
});

const JoinWaitlistInput = builder.inputType('JoinWaitlistInput', {
  description: 'An address for a waitlist (JoinWaitlistIn)',
  fields: (t) => ({
    email: t.string({ required: true }),
    product: t.field({ type: ProductKey, description: 'the product waited for; none: any' }),
  }),
  validate: z.object({ email, product: z.enum(PRODUCT_KEYS).nullish() }),
});

const ConfirmWaitlistInput = builder.inputType('ConfirmWaitlistInput', {
  description: 'The token of an emailed waitlist confirmation link (ConfirmWaitlistIn)',
  fields: (t) => ({ token: t.string({ required: true, description: 'the token from the link' }) }),
  validate: z.object({ token }),
});

const ProductInterestInput = builder.inputType('ProductInterestInput', {
  description: 'Interest in a product (ProductInterestIn)',
  fields: (t) => ({
    product: t.field({ type: ProductKey, required: true }),
    note: t.string({
      description: `a note (at most ${NOTE_MAX} characters); a repeat replaces it`,
    }),
  }),
  validate: z.object({ product: z.enum(PRODUCT_KEYS), note: z.string().max(NOTE_MAX).nullish() }),
});

builder.queryFields((t) => ({
  newsletterSubscribers: t.withAuth({ admin: true }).field({
    type: [NewsletterSubscriber],
    description: 'One page of every newsletter subscriber, oldest first (admins only)',
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: SUBSCRIBERS_PAGE_DEFAULT,
        description: `subscribers per page (1..${SUBSCRIBERS_PAGE_MAX})`,
        validate: z.number().int().min(1).max(SUBSCRIBERS_PAGE_MAX),
      }),
      offset: t.arg.int({
        required: true,
        defaultValue: 0,
        description: 'subscribers skipped',
        validate: z.number().int().min(0).max(10_000_000),
      }),
    },
    resolve: (_root, args, ctx) => newsletterSubscribers(ctx, args),
  }),
  productInterests: t.withAuth({ loginSession: true }).field({
    type: [ProductInterest],
    description: "The caller's product interests, oldest first",
    resolve: (_root, _args, ctx) => productInterests(ctx),
  }),
}));

builder.mutationFields((t) => ({
  subscribeNewsletter: t.withAuth({ public: true }).field({
    type: OutreachAck,
    description:
      'Subscribes an address (double opt-in: emails a confirmation link); always answers ok',
    args: { input: t.arg({ type: NewsletterSubscribeInput, required: true }) },
    resolve: (_root, { input }, ctx) => subscribeNewsletter(ctx, input),
  }),
  confirmNewsletter: t.withAuth({ public: true }).field({
    type: OutreachAck,
    description:
      'Confirms a newsletter subscription with the emailed token; confirming twice is harmless',
    args: { input: t.arg({ type: ConfirmNewsletterInput, required: true }) },
    resolve: (_root, { input }, ctx) => confirmNewsletter(ctx, input),
  }),
  requestPrivacy: t.withAuth({ public: true }).field({
    type: OutreachAck,
    description:
      'Logs a privacy request, alerts the team and acknowledges by email; always answers ok',
    args: { input: t.arg({ type: PrivacyRequestInput, required: true }) },
    resolve: (_root, { input }, ctx) => requestPrivacy(ctx, input),
  }),
  joinWaitlist: t.withAuth({ public: true }).field({
    type: OutreachAck,
    description: 'Puts an address on a waitlist (emails a confirmation link); always answers ok',
    args: { input: t.arg({ type: JoinWaitlistInput, required: true }) },
    resolve: (_root, { input }, ctx) => joinWaitlist(ctx, input),
  }),
  confirmWaitlist: t.withAuth({ public: true }).field({
    type: OutreachAck,
    description: 'Confirms a waitlist place with the emailed single-use token',
    args: { input: t.arg({ type: ConfirmWaitlistInput, required: true }) },
    resolve: (_root, { input }, ctx) => confirmWaitlist(ctx, input),
  }),
  recordProductInterest: t.withAuth({ loginSession: true }).field({
    type: ProductInterest,
    description: "Records the caller's interest in a product; repeating it updates the note",
    args: { input: t.arg({ type: ProductInterestInput, required: true }) },
    resolve: (_root, { input }, ctx) => recordProductInterest(ctx, input),
  }),
}));
