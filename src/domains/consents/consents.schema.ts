/** Consents: give (the person, from a login session), read and withdraw (also with a scoped token). */
import { builder } from '../../graphql/builder.ts';
import type { ConsentView } from './consents.service.ts';
import { giveConsent, consents, withdrawConsent } from './consents.service.ts';

export const ConsentKind = builder.enumType('ConsentKind', {
  description: "A kind of processing that needs the person's consent",
  values: {
    meal_photo: {
      value: 'meal_photo',
      description: 'AI recognition of meal photos (sent to an AI model)',
    },
    assistant: {
      value: 'assistant',
      description:
        "The assistant: the person's messages, uploads, memory facts and the data it reads sent to an AI model",
    },
  } as const,
});

export const Consent = builder.objectRef<ConsentView>('Consent').implement({
  description: 'The state of one kind of consent',
  fields: (t) => ({
    kind: t.expose('kind', { type: ConsentKind }),
    given: t.exposeBoolean('given', { description: 'true while the consent stands' }),
    givenAt: t.expose('givenAt', {
      type: 'DateTime',
      nullable: true,
      description: 'when it was last given',
    }),
    withdrawnAt: t.expose('withdrawnAt', {
      type: 'DateTime',
      nullable: true,
      description: 'when it was withdrawn',
    }),
  }),
});

builder.queryFields((t) => ({
  consents: t.withAuth({ scope: 'consents:read' }).field({
    type: [Consent],
    description: "The caller's consents, one per kind",
    resolve: (_root, _args, ctx) => consents(ctx),
  }),
}));

builder.mutationFields((t) => ({
  // NOTE: only the person gives consent (a login session); a personal token or an agent never can.
  giveConsent: t.withAuth({ loginSession: true }).field({
    type: Consent,
    description: "Gives the caller's consent to a kind of processing",
    args: {
      kind: t.arg({
        type: ConsentKind,
        required: true,
        description: 'the kind of processing (meal_photo: AI recognition of meal photos)',
      }),
    },
    resolve: (_root, { kind }, ctx) => giveConsent(ctx, { kind }),
  }),
  withdrawConsent: t.withAuth({ scope: 'consents:write' }).field({
    type: Consent,
    description: "Withdraws the caller's consent to a kind of processing",
    args: {
      kind: t.arg({
        type: ConsentKind,
        required: true,
        description: 'the kind of processing (meal_photo: AI recognition of meal photos)',
      }),
    },
    resolve: (_root, { kind }, ctx) => withdrawConsent(ctx, { kind }),
  }),
}));
