/**
 * Relatives (issue 35): two people who both opt in compare their genomes. One invites the other by
 * email (`inviteDnaRelative`); the invitee accepts (`acceptDnaRelative`); each side chooses what of
 * theirs the other may see beyond relatedness (`updateDnaRelative`: continental ancestry, maternal
 * and paternal haplogroups); either side ends it (`removeDnaRelative`), which deletes the row and
 * the comparison with it. Reads: the list, one relative with the comparison (`dnaRelative`), and
 * what the comparisons say together (`dnaFamilyInsights`).
 *
 * - The comparison (dna.relatives.ts) is made on first read after acceptance and kept sealed for
 *   the pair of uploads it read; a new upload by either person makes it again on the next read.
 * - It must never compare anyone who has not accepted, nor show a side's ancestry or haplogroups
 *   that side has not shared; another person's relative id answers 404.
 * - An invitation names only an address: whether that address has an account is never told (the
 *   answer is the same), so the invitation cannot be used to find who is on the platform. The
 *   invitation email names the inviter, not DNA results.
 * - Relatedness is findings (segments, cM, a degree range), never a genotype, so it is the same over
 *   OAuth; view-as never reaches it (dnaOwnerOf).
 */
import { appError, validationError } from '../../base/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { DnaRelative } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { normaliseEmail } from '../account/index.ts';
import { dnaOwnerOf } from './dna.access.ts';
import { genomeSummaryOf, openGenome } from './dna.genome.ts';
import { columnsOf } from './dna.relatives.markers.ts';
import { compareGenomes, DEGREE_MEANINGS } from './dna.relatives.ts';
import type { RelativesComparison, RelativesRefusal } from './dna.relatives.ts';
import { decryptGenome, encryptGenome, genomeKey } from './dna.store.ts';
import { sharedFindings } from './dna.shared.ts';
import type { DnaShares, SharedFindings } from './dna.shared.ts';
import { genomeDeps } from './dna.upload.ts';
import { clock } from '../../base/clock.ts';

/** Invitations a person may send in any 24 hours (each one sends an email). */
export const MAX_DNA_INVITATIONS_PER_DAY = 10;
/** Relatives (pending or accepted) a person may have at once. */
export const MAX_DNA_RELATIVES = 50;

/** The invitations sent, per person (a 24-hour window from the first). */
const INVITATION_RULE: LimitRule = {
  name: 'dna:invitations',
  points: MAX_DNA_INVITATIONS_PER_DAY,
  seconds: 86_400,
};
/** First key of the transaction-scoped advisory lock that serialises one person's invitations. */
const INVITE_LOCK = 0x444e_4152; // "DNAR"

/** A relative as the caller sees the link. */
export interface DnaRelativeView {
  id: string;
  /** the caller's side: inviter or invitee */
  role: 'inviter' | 'invitee';
  /** pending (waiting for the invitee) or accepted */
  status: 'pending' | 'accepted';
  /** the other person's address: the one invited, or the inviter's */
  email: string;
  /** the other person's name, once accepted (null before, and when they gave none) */
  name: string | null;
  myShares: DnaShares;
  theirShares: DnaShares;
  createdAt: Date;
  acceptedAt: Date | null;
  /** what happens next, in words */
  next: string;
}

/** A comparison of two genomes, as answered (per-chromosome segments are the painting's). */
export type ComparisonFindings = Omit<RelativesComparison, 'chromosomes'>;

/** One relative with the comparison, or why there is none yet. */
export interface DnaRelativeRead {
  relative: DnaRelativeView;
  /** compared, too_few_markers, not_accepted or no_genome */
  status: 'compared' | 'too_few_markers' | 'not_accepted' | 'no_genome';
  comparison: ComparisonFindings | null;
  refusal: RelativesRefusal | null;
  /** what they chose to show you (ancestry, haplogroups), or null */
  theirs: SharedFindings | null;
  note: string;
}

export type Caller = { id: number; email: string; name: string | null };
export type Row = DnaRelative & {
  inviter: { email: string; name: string | null };
  invitee: { email: string; name: string | null } | null;
};

const withPeople = {
  inviter: { select: { email: true, name: true } },
  invitee: { select: { email: true, name: true } },
} as const;

/** The credential's own person (never a view-as owner: dnaOwnerOf). */
export async function caller(ctx: AuthedContext): Promise<Caller> {
  const id = dnaOwnerOf(ctx);
  return ctx.prisma.user.findUniqueOrThrow({
    where: { id },
    select: { id: true, email: true, name: true },
  });
}

/** The links the caller is a side of: as inviter, as invitee, or invited by address, unclaimed. */
function sideOf(me: Caller): Prisma.DnaRelativeWhereInput {
  return {
    OR: [{ inviterId: me.id }, { inviteeId: me.id }, { inviteeId: null, inviteeEmail: me.email }],
  };
}

const notFound = () =>
  appError('NOT_FOUND', 'No relative with this id: list yours with dna_family_list.');

/** The caller's link `id`, or 404. */
export async function linkOf(ctx: AuthedContext, me: Caller, id: string): Promise<Row> {
  const row = await ctx.prisma.dnaRelative.findFirst({
    where: { AND: [{ id }, sideOf(me)] },
    include: withPeople,
  });
  if (!row) throw notFound();
  return row;
}

function nextOf(role: 'inviter' | 'invitee', status: string): string {
  if (status === 'pending') {
    return role === 'inviter'
      ? 'Waiting for them to accept (they sign in with that address and accept it). Nothing is compared until then.'
      : 'Accept it with dna_family_accept to compare your DNA, or decline with dna_family_remove.';
  }
  return 'Read the comparison with dna_family_read; choose what else you share with dna_family_update.';
}

/** The link as the caller (`me`) sees it. */
export function viewOf(row: Row, me: Caller): DnaRelativeView {
  const role = row.inviterId === me.id ? 'inviter' : 'invitee';
  const accepted = row.status === 'accepted';
  const inviterShares = { ancestry: row.inviterAncestry, haplogroups: row.inviterHaplogroups };
  const inviteeShares = { ancestry: row.inviteeAncestry, haplogroups: row.inviteeHaplogroups };
  return {
    id: row.id,
    role,
    status: accepted ? 'accepted' : 'pending',
    email: role === 'inviter' ? row.inviteeEmail : row.inviter.email,
    // NOTE: nothing about the invitee's account shows before they accept (see the header)
    name: role === 'inviter' ? (accepted ? (row.invitee?.name ?? null) : null) : row.inviter.name,
    myShares: role === 'inviter' ? inviterShares : inviteeShares,
    theirShares: role === 'inviter' ? inviteeShares : inviterShares,
    createdAt: row.createdAt,
    acceptedAt: row.acceptedAt,
    next: nextOf(role, row.status),
  };
}

export interface InviteDnaRelativeOptions {
  /** the relative's address; they sign in (or sign up) with it to accept */
  email: string;
  /** what the caller shares with them beyond relatedness; default nothing */
  shareAncestry?: boolean | null;
  shareHaplogroups?: boolean | null;
}

/**
 * Invites the owner of `email` to compare DNA and emails them. Calling it again for the same
 * address answers the existing link. 422 for the caller's own address; 429 over the daily
 * invitations or the number of relatives; 502 when the email cannot be sent (nothing is kept).
 */
export async function inviteDnaRelative(
  ctx: AuthedContext,
  options: InviteDnaRelativeOptions,
): Promise<DnaRelativeView> {
  const me = await caller(ctx);
  const email = normaliseEmail(options.email);
  if (email === me.email) {
    throw validationError([
      { loc: ['email'], msg: 'You cannot compare DNA with yourself', type: 'value_error' },
    ]);
  }
  const { row, created } = await ctx.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${INVITE_LOCK}::int, ${me.id}::int)`;
    const invitee = await tx.user.findUnique({ where: { email }, select: { id: true } });
    const existing = await tx.dnaRelative.findFirst({
      where: {
        OR: [
          { inviterId: me.id, inviteeEmail: email },
          ...(invitee
            ? [
                { inviterId: me.id, inviteeId: invitee.id },
                { inviterId: invitee.id, inviteeId: me.id },
              ]
            : []),
          { inviter: { email }, inviteeId: null, inviteeEmail: me.email },
        ],
      },
      include: withPeople,
    });
    if (existing) return { row: existing, created: false };
    const all = await tx.dnaRelative.count({ where: sideOf(me) });
    if (all >= MAX_DNA_RELATIVES) {
      throw appError(
        'RATE_LIMITED',
        `At most ${MAX_DNA_RELATIVES} relatives at once: remove one with dna_family_remove first.`,
        { detail: { code: 'too_many_relatives', limit: MAX_DNA_RELATIVES } },
      );
    }
    // NOTE: counted as sent, not as rows kept: removing an invitation gives no send back
    const sent = await ctx.limits.take(INVITATION_RULE, String(me.id));
    if (!sent.allowed) {
      throw appError(
        'RATE_LIMITED',
        `At most ${MAX_DNA_INVITATIONS_PER_DAY} DNA invitations in 24 hours; try again after ${sent.resetAt.toISOString()}.`,
        {
          detail: { code: 'rate_limited', limit: MAX_DNA_INVITATIONS_PER_DAY },
          retryAfter: sent.retryAfterSeconds,
        },
      );
    }
    const created = await tx.dnaRelative.create({
      include: withPeople,
      data: {
        inviterId: me.id,
        inviteeId: invitee?.id ?? null,
        inviteeEmail: email,
        inviterAncestry: options.shareAncestry ?? false,
        inviterHaplogroups: options.shareHaplogroups ?? false,
      },
    });
    return { row: created, created: true };
  });
  if (created) {
    try {
      await sendInvitation(ctx, me, row);
    } catch (err) {
      ctx.log.warn({ err, relativeId: row.id }, 'dna invitation could not be sent');
      await ctx.prisma.dnaRelative.delete({ where: { id: row.id } });
      await ctx.limits.refund(INVITATION_RULE, String(me.id));
      throw appError('UPSTREAM_FAILED', 'The invitation email could not be sent; try again later.');
    }
  }
  return viewOf(row, me);
}

async function sendInvitation(ctx: AuthedContext, me: Caller, row: Row): Promise<void> {
  const who = me.name ? `${me.name} (${me.email})` : me.email;
  const where = ctx.config.PUBLIC_URL ? ` at ${ctx.config.PUBLIC_URL}` : '';
  await ctx.mailer.send({
    to: row.inviteeEmail,
    subject: `${me.name ?? me.email} invites you to compare DNA`,
    text: [
      `${who} invited you to compare your DNA with theirs, to see how you are related.`,
      '',
      `Sign in${where} with this address (or create an account with it), upload your raw DNA file`,
      `in the app, open DNA > Family and accept invitation ${row.id}. Nothing is compared or`,
      'shared until you accept, and either of you can end it at any time, which deletes the comparison.',
      '',
      'If you did not expect this email, ignore it.',
    ].join('\n'),
  });
}

export interface RelativeIdOptions {
  /** the relative link's id (dna_family_list) */
  id: string;
}

export interface AcceptDnaRelativeOptions extends RelativeIdOptions {
  shareAncestry?: boolean | null;
  shareHaplogroups?: boolean | null;
}

/**
 * Accepts an invitation addressed to the caller. Idempotent: an accepted one answers as it is.
 * 404 unless the caller is its invitee (by account, or by address while unclaimed).
 */
export async function acceptDnaRelative(
  ctx: AuthedContext,
  options: AcceptDnaRelativeOptions,
): Promise<DnaRelativeView> {
  const me = await caller(ctx);
  const asInvitee: Prisma.DnaRelativeWhereInput = {
    OR: [{ inviteeId: me.id }, { inviteeId: null, inviteeEmail: me.email }],
  };
  // NOTE: the invitee filter is part of the update, so nobody else can claim the invitation
  await ctx.prisma.dnaRelative.updateMany({
    where: { AND: [{ id: options.id, status: 'pending' }, asInvitee] },
    data: {
      status: 'accepted',
      inviteeId: me.id,
      acceptedAt: clock.now(),
      ...(options.shareAncestry != null ? { inviteeAncestry: options.shareAncestry } : {}),
      ...(options.shareHaplogroups != null ? { inviteeHaplogroups: options.shareHaplogroups } : {}),
    },
  });
  const row = await ctx.prisma.dnaRelative.findFirst({
    where: { AND: [{ id: options.id }, asInvitee] },
    include: withPeople,
  });
  if (!row) throw notFound();
  return viewOf(row, me);
}

export interface UpdateDnaRelativeOptions extends RelativeIdOptions {
  /** let them see my continental ancestry; omitted: unchanged */
  shareAncestry?: boolean | null;
  /** let them see my maternal and paternal haplogroups; omitted: unchanged */
  shareHaplogroups?: boolean | null;
}

/** Changes what the caller shares with a relative (their own side only). */
export async function updateDnaRelative(
  ctx: AuthedContext,
  options: UpdateDnaRelativeOptions,
): Promise<DnaRelativeView> {
  const me = await caller(ctx);
  const row = await linkOf(ctx, me, options.id);
  const side = row.inviterId === me.id ? 'inviter' : 'invitee';
  const data: Prisma.DnaRelativeUpdateInput = {};
  if (options.shareAncestry != null) data[`${side}Ancestry`] = options.shareAncestry;
  if (options.shareHaplogroups != null) data[`${side}Haplogroups`] = options.shareHaplogroups;
  const updated = await ctx.prisma.dnaRelative.update({
    where: { id: row.id },
    data,
    include: withPeople,
  });
  return viewOf(updated, me);
}

export interface DnaRelativeRemoved {
  removed: boolean;
  note: string;
}

/**
 * Ends a link from either side (an invitee declines a pending one this way): the row and the
 * comparison are deleted. 404 for another person's id; a second call answers 404 too, since
 * nothing is left.
 */
export async function removeDnaRelative(
  ctx: AuthedContext,
  options: RelativeIdOptions,
): Promise<DnaRelativeRemoved> {
  const me = await caller(ctx);
  const { count } = await ctx.prisma.dnaRelative.deleteMany({
    where: { AND: [{ id: options.id }, sideOf(me)] },
  });
  if (count === 0) throw notFound();
  return {
    removed: true,
    note: 'Ended: the comparison is deleted and neither of you sees the other any more.',
  };
}

/** Every relative of the caller (invited, inviting, pending or accepted), newest first. */
export async function dnaRelatives(ctx: AuthedContext): Promise<DnaRelativeView[]> {
  const me = await caller(ctx);
  const rows = await ctx.prisma.dnaRelative.findMany({
    where: sideOf(me),
    include: withPeople,
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
  });
  return rows.map((r) => viewOf(r, me));
}

/** What a comparison read answers: the findings or why there are none. */
export type ComparisonOutcome =
  | { status: 'compared'; comparison: RelativesComparison }
  | { status: 'too_few_markers'; refusal: RelativesRefusal }
  | { status: 'not_accepted' | 'no_genome'; who?: 'me' | 'them' };

/**
 * The comparison of an accepted link's two genomes: the kept one when it read the current uploads,
 * else made now (about a second for two 640,000-marker genomes) and kept sealed.
 */
export async function comparisonOf(
  ctx: AuthedContext,
  row: DnaRelative,
  me: number,
): Promise<ComparisonOutcome> {
  if (row.status !== 'accepted' || row.inviteeId === null) return { status: 'not_accepted' };
  const deps = genomeDeps(ctx);
  const [a, b] = await Promise.all([
    genomeSummaryOf(deps, row.inviterId),
    genomeSummaryOf(deps, row.inviteeId),
  ]);
  if (!a || !b) {
    const mine = row.inviterId === me ? a : b;
    return { status: 'no_genome', who: mine ? 'them' : 'me' };
  }
  const key = `${a.uploadedAt.toISOString()}|${b.uploadedAt.toISOString()}`;
  const sealKey = genomeKey(ctx.config);
  let result: RelativesComparison | RelativesRefusal;
  if (row.comparison && row.comparedFor === key) {
    const plain = decryptGenome(Buffer.from(row.comparison), sealKey).toString('utf8');
    result = JSON.parse(plain) as RelativesComparison | RelativesRefusal;
  } else {
    const [first, second] = await Promise.all([
      openGenome(deps, row.inviterId),
      openGenome(deps, row.inviteeId),
    ]);
    if (!first || !second) return { status: 'no_genome', who: first ? 'them' : 'me' };
    result = compareGenomes(columnsOf(first.calls), columnsOf(second.calls));
    const sealed = encryptGenome(Buffer.from(JSON.stringify(result), 'utf8'), sealKey);
    // NOTE: a link removed meanwhile updates nothing (deleted is deleted)
    await ctx.prisma.dnaRelative.updateMany({
      where: { id: row.id },
      data: { comparison: new Uint8Array(sealed), comparedFor: key },
    });
  }
  return result.status === 'compared'
    ? { status: 'compared', comparison: result }
    : { status: 'too_few_markers', refusal: result };
}

const WAITING = {
  not_accepted: 'Not compared: the invitation has not been accepted yet.',
  me: 'Not compared: upload your raw DNA file in the app first.',
  them: 'Not compared: they have not uploaded a raw DNA file yet.',
};

/** One relative with the comparison of your genomes (made now if not yet), or why there is none. */
export async function dnaRelative(
  ctx: AuthedContext,
  options: RelativeIdOptions,
): Promise<DnaRelativeRead> {
  const me = await caller(ctx);
  const row = await linkOf(ctx, me, options.id);
  const relative = viewOf(row, me);
  const outcome = await comparisonOf(ctx, row, me.id);
  const theirId = row.inviterId === me.id ? row.inviteeId : row.inviterId;
  const theirs =
    relative.status === 'accepted' && theirId !== null
      ? await sharedFindings(ctx, theirId, relative.theirShares)
      : null;
  const base = { relative, comparison: null, refusal: null, theirs };
  if (outcome.status === 'compared') {
    const { chromosomes: _drawn, ...comparison } = outcome.comparison;
    return {
      ...base,
      status: 'compared',
      comparison,
      note: `${comparison.summary} The segments per chromosome are in dna_painting_read.`,
    };
  }
  if (outcome.status === 'too_few_markers') {
    return {
      ...base,
      status: 'too_few_markers',
      refusal: outcome.refusal,
      note: outcome.refusal.reason,
    };
  }
  const note =
    outcome.status === 'not_accepted' ? WAITING.not_accepted : WAITING[outcome.who ?? 'me'];
  return { ...base, status: outcome.status, note };
}

/** The caller's accepted links with their comparisons (made where needed), for the summaries. */
export async function comparedRelatives(
  ctx: AuthedContext,
): Promise<{ me: Caller; rows: { view: DnaRelativeView; outcome: ComparisonOutcome }[] }> {
  const me = await caller(ctx);
  const rows = await ctx.prisma.dnaRelative.findMany({
    where: { AND: [sideOf(me), { status: 'accepted' }] },
    include: withPeople,
    orderBy: [{ acceptedAt: 'asc' }, { id: 'asc' }],
  });
  const out = [];
  // one at a time: each may open two genomes
  for (const row of rows) {
    out.push({ view: viewOf(row, me), outcome: await comparisonOf(ctx, row, me.id) });
  }
  return { me, rows: out };
}

/** A relative in the family insights. */
export interface FamilyMember {
  id: string;
  email: string;
  name: string | null;
  status: DnaRelativeRead['status'];
  sharedCm: number | null;
  longestCm: number | null;
  degrees: string[];
}

/** What the comparisons say together. */
export interface FamilyInsights {
  relatives: FamilyMember[];
  pending: number;
  /** plain sentences; each says what it cannot tell */
  insights: string[];
}

/** Where two relatives' segments with the caller overlap by at least this many cM, it is said. */
const OVERLAP_CM = 7;

/**
 * What the accepted comparisons say together: each relative closest first, and where two relatives
 * share the same stretch with the caller (they may share that line; only their own comparison can
 * tell). Never a relationship label: degree ranges only.
 */
export async function dnaFamilyInsights(ctx: AuthedContext): Promise<FamilyInsights> {
  const { me, rows } = await comparedRelatives(ctx);
  const pending = await ctx.prisma.dnaRelative.count({
    where: { AND: [sideOf(me), { status: 'pending' }] },
  });
  const members = rows.map(({ view, outcome }) => {
    const c = outcome.status === 'compared' ? outcome.comparison : null;
    return {
      member: {
        id: view.id,
        email: view.email,
        name: view.name,
        status: outcome.status,
        sharedCm: c?.sharedCm ?? null,
        longestCm: c?.longestCm ?? null,
        degrees: c?.degrees ?? [],
      } satisfies FamilyMember,
      comparison: c,
    };
  });
  members.sort((a, b) => (b.member.sharedCm ?? -1) - (a.member.sharedCm ?? -1));
  return {
    relatives: members.map((m) => m.member),
    pending,
    insights: insightsOf(members, pending),
  };
}

type Compared = { member: FamilyMember; comparison: RelativesComparison | null };

function insightsOf(members: Compared[], pending: number): string[] {
  const out: string[] = [];
  const compared = members.filter((m) => m.comparison);
  if (members.length === 0) {
    out.push('No accepted relative yet: invite one with dna_family_invite.');
  }
  const closest = compared[0];
  if (closest?.comparison) {
    const c = closest.comparison;
    out.push(
      `Closest: ${label(closest.member)}, ${Math.round(c.sharedCm)} cM shared, which fits ${c.degrees
        .map((d) => DEGREE_MEANINGS[d])
        .join('; or ')}.`,
    );
  }
  const waiting = members.length - compared.length;
  if (waiting > 0) {
    out.push(
      `${waiting} accepted relative${waiting === 1 ? ' is' : 's are'} not compared (no DNA file on one side, or too few shared markers): dna_family_read says which.`,
    );
  }
  if (pending > 0)
    out.push(`${pending} invitation${pending === 1 ? '' : 's'} waiting for an answer.`);
  out.push(...overlaps(compared));
  return out;
}

const label = (m: FamilyMember) => (m.name ? `${m.name} (${m.email})` : m.email);

/** Stretches two relatives both share with the caller (a hint, not a finding about them). */
function overlaps(compared: Compared[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < compared.length; i++) {
    for (let j = i + 1; j < compared.length; j++) {
      const a = compared[i].comparison?.chromosomes ?? [];
      const b = compared[j].comparison?.chromosomes ?? [];
      const where: string[] = [];
      for (let c = 0; c < Math.min(a.length, b.length); c++) {
        for (const s of a[c].halfIdentical) {
          for (const t of b[c].halfIdentical) {
            const cm = Math.min(s.endCm, t.endCm) - Math.max(s.startCm, t.startCm);
            if (cm >= OVERLAP_CM)
              where.push(`chromosome ${a[c].chromosome} (${Math.round(cm)} cM)`);
          }
        }
      }
      if (where.length) {
        out.push(
          `${label(compared[i].member)} and ${label(compared[j].member)} both share DNA with you on ${where.slice(0, 5).join(', ')}: they may be related to you through the same line, but only a comparison between the two of them can tell (overlapping segments can also come from different parents).`,
        );
      }
    }
  }
  return out;
}
