/**
 * Privacy requests (access, deletion, correction, other): logged in a table, announced to the team
 * (PRIVACY_TEAM_EMAIL) and acknowledged to the address given. The answer is the same whatever the
 * address; the emails go after the answer.
 */
import type { Context } from '../../graphql/context.ts';
import { normaliseEmail } from '../account/index.ts';
import type { Ack } from './outreach.shared.ts';
import { ACK, inBackground, spendIpAndAddress } from './outreach.shared.ts';

/** The kinds of privacy request (the schema's PrivacyRequestKind). */
export const PRIVACY_KINDS = ['access', 'deletion', 'correction', 'other'] as const;
export type PrivacyKind = (typeof PRIVACY_KINDS)[number];

export interface PrivacyRequestOptions {
  /** the requester's address (normalised: trimmed, lower case) */
  email: string;
  /** what they ask for */
  kind: PrivacyKind;
  /** their own words (bounded by the schema) */
  message?: string | null;
}

/** Logs a privacy request, then alerts the team and acknowledges to the requester by email. */
export async function requestPrivacy(ctx: Context, options: PrivacyRequestOptions): Promise<Ack> {
  const email = normaliseEmail(options.email);
  await spendIpAndAddress(ctx, email);
  const row = await ctx.prisma.privacyRequest.create({
    data: { email, kind: options.kind, message: options.message ?? null },
  });
  inBackground(ctx, 'privacy request emails', async () => {
    await ctx.mailer.send({
      to: ctx.config.PRIVACY_TEAM_EMAIL,
      subject: `Privacy request #${row.id}: ${row.kind}`,
      text:
        `A privacy request was received at ${row.createdAt.toISOString()}.\n\n` +
        `Request: #${row.id}\nKind: ${row.kind}\nFrom: ${email}\n\n` +
        `Message:\n${row.message ?? '(none)'}\n\n` +
        `The address is as given and not verified: confirm the requester's identity before acting.\n`,
    });
    await ctx.mailer.send({
      to: email,
      subject: 'We received your privacy request',
      text:
        `We received a privacy request (${row.kind}) for this address, reference #${row.id}.\n\n` +
        `Our team will answer at this address, and may first ask you to confirm that the request ` +
        `is yours. If you did not send it, you can ignore this email.\n`,
    });
  });
  return ACK;
}
