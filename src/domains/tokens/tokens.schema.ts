/** Personal access tokens: create (native login only), list and revoke (login sessions). */
import { z } from 'zod';
import { SCOPES } from '../../auth/scopes.ts';
import type { Scope } from '../../auth/scopes.ts';
import { builder } from '../../graphql/builder.ts';
import type { CreatedPersonalToken, PersonalTokenView } from './tokens.service.ts';
import { createPersonalToken, personalTokens, revokePersonalToken } from './tokens.service.ts';
import { clock } from '../../base/clock.ts';

export const PersonalToken = builder.objectRef<PersonalTokenView>('PersonalToken').implement({
  description: 'A personal access token (its secret is never shown again)',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    scopes: t.exposeStringList('scopes'),
    hint: t.exposeString('hint', { description: 'the first characters of the secret' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const CreatedToken = builder
  .objectRef<CreatedPersonalToken>('CreatedPersonalToken')
  .implement({
    description: 'A new personal token with its secret, shown this once',
    fields: (t) => ({
      id: t.exposeInt('id'),
      name: t.exposeString('name'),
      scopes: t.exposeStringList('scopes'),
      hint: t.exposeString('hint'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      token: t.exposeString('token', {
        description: 'the secret: send as Authorization: Bearer <token>',
      }),
    }),
  });

const CreatePersonalTokenInput = builder.inputType('CreatePersonalTokenInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    scopes: t.stringList({
      required: true,
      description: 'scopes from the catalogue, e.g. profile:read',
    }),
    expiresAt: t.field({ type: 'DateTime', description: 'optional expiry, in the future' }),
  }),
  validate: z.object({
    name: z.string().trim().min(1).max(100),
    scopes: z
      .array(z.enum(SCOPES, { message: `unknown scope; valid scopes: ${SCOPES.join(', ')}` }))
      .min(1, 'choose at least one scope'),
    expiresAt: z
      .date()
      .refine((d) => d.getTime() > clock.ms(), 'expires_at must be in the future')
      .nullish(),
  }),
});

builder.queryFields((t) => ({
  personalTokens: t.withAuth({ loginSession: true }).field({
    type: [PersonalToken],
    description: "The caller's active personal tokens",
    resolve: (_root, _args, ctx) => personalTokens(ctx),
  }),
}));

builder.mutationFields((t) => ({
  createPersonalToken: t.withAuth({ nativeSession: true }).field({
    type: CreatedToken,
    description: 'Creates a personal token; only from the phone app (a native login)',
    args: { input: t.arg({ type: CreatePersonalTokenInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      createPersonalToken(ctx, {
        name: input.name,
        scopes: input.scopes as Scope[],
        expiresAt: input.expiresAt,
      }),
  }),
  revokePersonalToken: t.withAuth({ loginSession: true }).field({
    type: PersonalToken,
    description: "Revokes one of the caller's personal tokens",
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, ctx) => revokePersonalToken(ctx, { id }),
  }),
}));
