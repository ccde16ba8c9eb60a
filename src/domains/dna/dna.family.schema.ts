/**
 * DNA relatives (issue 35): invitations, acceptance, what each side shares, removal, the comparison
 * of two genomes and what the comparisons say together, and a relative's ancestry beside the
 * caller's. Resolvers unpack, call the service of the same name and return; the rules are in
 * dna.family.ts (and dna.findings.ts for the ancestry comparison).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import {
  acceptDnaRelative,
  dnaFamilyInsights,
  dnaRelative,
  dnaRelatives,
  inviteDnaRelative,
  removeDnaRelative,
  updateDnaRelative,
} from './dna.family.ts';
import type {
  ComparisonFindings,
  DnaRelativeRead,
  DnaRelativeRemoved,
  DnaRelativeView,
  FamilyInsights,
  FamilyMember,
} from './dna.family.ts';
import { compareDnaRelativeAncestry } from './dna.findings.ts';
import type { AncestryDifference, RelativeAncestry } from './dna.findings.ts';
import type { RelativesRefusal } from './dna.relatives.ts';
import type { DnaShares, SharedFindings } from './dna.shared.ts';
import type { AncestryProportion } from './dna.ancestry.ts';

export const Proportion = builder.objectRef<AncestryProportion>('DnaAncestryProportion').implement({
  description:
    'One continental group’s share with its interval (the five hold the true shares together 95% of the time)',
  fields: (t) => ({
    superpopulation: t.exposeString('superpopulation', {
      description: 'AFR, AMR, EAS, EUR or SAS (1000 Genomes)',
    }),
    name: t.exposeString('name'),
    proportion: t.exposeFloat('proportion', { description: '0..1; the five sum to 1' }),
    low: t.exposeFloat('low'),
    high: t.exposeFloat('high'),
  }),
});

const Shares = builder.objectRef<DnaShares>('DnaShares').implement({
  description: 'What one side lets the other see beyond relatedness (which is always compared)',
  fields: (t) => ({
    ancestry: t.exposeBoolean('ancestry', { description: 'continental ancestry proportions' }),
    haplogroups: t.exposeBoolean('haplogroups', {
      description: 'maternal and paternal haplogroups',
    }),
  }),
});

export const Relative = builder.objectRef<DnaRelativeView>('DnaRelative').implement({
  description: 'A DNA relative link as the caller sees it: pending or accepted',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'pass it as id to the other dna_family tools' }),
    role: t.exposeString('role', { description: 'inviter or invitee: the caller’s side' }),
    status: t.exposeString('status', { description: 'pending or accepted' }),
    email: t.exposeString('email', { description: 'the other person’s address' }),
    name: t.exposeString('name', {
      nullable: true,
      description: 'the other person’s name once they accepted',
    }),
    myShares: t.field({ type: Shares, resolve: (r) => r.myShares }),
    theirShares: t.field({ type: Shares, resolve: (r) => r.theirShares }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true }),
    next: t.exposeString('next', { description: 'what happens next' }),
  }),
});

type Markers = ComparisonFindings['markers'];
const ComparedMarkers = builder.objectRef<Markers>('DnaComparedMarkers').implement({
  description: 'How many markers the two files have in common',
  fields: (t) => ({
    overlapping: t.exposeInt('overlapping', { description: 'in both files, called or not' }),
    compared: t.exposeInt('compared', { description: 'called in both and comparable' }),
    strandMismatches: t.exposeInt('strandMismatches', {
      description: 'calls that cannot be one site (strand or allele naming), left out',
    }),
    floor: t.exposeInt('floor', { description: 'fewest compared markers a comparison needs' }),
  }),
});

const Comparison = builder.objectRef<ComparisonFindings>('DnaComparison').implement({
  description:
    'Two genomes compared: shared segments over the genetic map and a degree range, never one relationship',
  fields: (t) => ({
    build: t.exposeString('build', { description: 'the positions’ build' }),
    markers: t.field({ type: ComparedMarkers, resolve: (c) => c.markers }),
    coveredCm: t.exposeFloat('coveredCm', { description: 'cM covered by the compared markers' }),
    sharedCm: t.exposeFloat('sharedCm', {
      description: 'half-identical cM in segments of 7 cM or more',
    }),
    longestCm: t.exposeFloat('longestCm'),
    segments: t.exposeInt('segments'),
    fullyIdenticalCm: t.exposeFloat('fullyIdenticalCm'),
    halfIdenticalShare: t.exposeFloat('halfIdenticalShare'),
    fullyIdenticalShare: t.exposeFloat('fullyIdenticalShare'),
    kinship: t.exposeFloat('kinship', { description: 'from the segments' }),
    markerKinship: t.exposeFloat('markerKinship', {
      description: 'KING-robust, from marker counts (a cross-check)',
    }),
    degrees: t.exposeStringList('degrees', {
      description:
        'the degree range, closest first: identical, parent_child, full_sibling, second, third, distant, unrelated',
    }),
    meanings: t.exposeStringList('meanings', { description: 'what each degree can mean' }),
    summary: t.exposeString('summary'),
  }),
});

export const MarkerRefusal = builder.objectRef<RelativesRefusal>('DnaMarkerRefusal').implement({
  description: 'Too few markers to read: the count and the floor',
  fields: (t) => ({
    compared: t.exposeInt('compared'),
    overlapping: t.exposeInt('overlapping'),
    floor: t.exposeInt('floor'),
    reason: t.exposeString('reason'),
  }),
});

const Theirs = builder.objectRef<SharedFindings>('DnaSharedFindings').implement({
  description: 'A relative’s ancestry and haplogroups, as far as they share them',
  fields: (t) => ({
    ancestry: t.field({
      type: [Proportion],
      nullable: true,
      description: 'their continental shares (null: not shared or no estimate)',
      resolve: (f) => f.ancestry,
    }),
    maternalHaplogroup: t.exposeString('maternalHaplogroup', { nullable: true }),
    paternalHaplogroup: t.exposeString('paternalHaplogroup', { nullable: true }),
    note: t.exposeString('note'),
  }),
});

const RelativeRead = builder.objectRef<DnaRelativeRead>('DnaRelativeRead').implement({
  description: 'One relative with the comparison of your genomes, or why there is none',
  fields: (t) => ({
    relative: t.field({ type: Relative, resolve: (r) => r.relative }),
    status: t.exposeString('status', {
      description: 'compared, too_few_markers, not_accepted or no_genome',
    }),
    comparison: t.field({ type: Comparison, nullable: true, resolve: (r) => r.comparison }),
    refusal: t.field({ type: MarkerRefusal, nullable: true, resolve: (r) => r.refusal }),
    theirs: t.field({
      type: Theirs,
      nullable: true,
      description: 'what they chose to show you beyond relatedness (null: nothing)',
      resolve: (r) => r.theirs,
    }),
    note: t.exposeString('note'),
  }),
});

const Removed = builder.objectRef<DnaRelativeRemoved>('DnaRelativeRemoved').implement({
  description: 'A relative link ended: the comparison is deleted',
  fields: (t) => ({
    removed: t.exposeBoolean('removed'),
    note: t.exposeString('note'),
  }),
});

const Member = builder.objectRef<FamilyMember>('DnaFamilyMember').implement({
  description: 'An accepted relative in the family insights',
  fields: (t) => ({
    id: t.exposeString('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    status: t.exposeString('status', { description: 'compared, too_few_markers or no_genome' }),
    sharedCm: t.exposeFloat('sharedCm', { nullable: true }),
    longestCm: t.exposeFloat('longestCm', { nullable: true }),
    degrees: t.exposeStringList('degrees'),
  }),
});

const Insights = builder.objectRef<FamilyInsights>('DnaFamilyInsights').implement({
  description: 'What the comparisons say together',
  fields: (t) => ({
    relatives: t.field({ type: [Member], resolve: (r) => r.relatives }),
    pending: t.exposeInt('pending', { description: 'invitations waiting for an answer' }),
    insights: t.exposeStringList('insights', { description: 'plain sentences' }),
  }),
});

const Difference = builder.objectRef<AncestryDifference>('DnaAncestryDifference').implement({
  description: 'One continental group, both people',
  fields: (t) => ({
    superpopulation: t.exposeString('superpopulation'),
    name: t.exposeString('name'),
    mine: t.exposeFloat('mine'),
    theirs: t.exposeFloat('theirs'),
    difference: t.exposeFloat('difference', { description: 'theirs - mine' }),
    overlapping: t.exposeBoolean('overlapping', {
      description: 'the 95% intervals overlap: the shares cannot be told apart',
    }),
  }),
});

const RelativeAncestryOut = builder.objectRef<RelativeAncestry>('DnaRelativeAncestry').implement({
  description: 'A relative’s continental ancestry beside yours, where both of you share it',
  fields: (t) => ({
    relative: t.field({ type: Relative, resolve: (r) => r.relative }),
    status: t.exposeString('status', {
      description: 'compared, not_shared, not_accepted, no_genome or refused',
    }),
    groups: t.field({ type: [Difference], resolve: (r) => r.groups }),
    note: t.exposeString('note'),
  }),
});

const relativeId = z.string().trim().min(1).max(64);

builder.queryFields((t) => ({
  dnaRelatives: t.withAuth({ scope: 'health:dna:read' }).field({
    type: [Relative],
    description: 'Every DNA relative link: invited, inviting, pending or accepted',
    resolve: (_root, _args, ctx) => dnaRelatives(ctx),
  }),
  dnaRelative: t.withAuth({ scope: 'health:dna:read' }).field({
    type: RelativeRead,
    description: 'One relative with the comparison of your genomes',
    args: {
      id: t.arg.string({ required: true, description: 'the link id', validate: relativeId }),
    },
    resolve: (_root, args, ctx) => dnaRelative(ctx, args),
  }),
  dnaFamilyInsights: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Insights,
    description: 'What the comparisons with relatives say together',
    resolve: (_root, _args, ctx) => dnaFamilyInsights(ctx),
  }),
}));

const shareArgs = (t: PothosArgs) => ({
  shareAncestry: t.arg.boolean({
    description: 'let them see your continental ancestry (omit: unchanged, or off when new)',
  }),
  shareHaplogroups: t.arg.boolean({
    description: 'let them see your maternal and paternal haplogroups (omit: unchanged, or off)',
  }),
});
type PothosArgs = Parameters<Parameters<typeof builder.mutationFields>[0]>[0];

builder.mutationFields((t) => ({
  inviteDnaRelative: t.withAuth({ scope: 'health:dna:write' }).field({
    type: Relative,
    description: 'Invites someone by email to compare DNA (nothing compared until they accept)',
    args: {
      email: t.arg.string({
        required: true,
        description: 'their email address',
        validate: z.email({ message: 'value is not a valid email address' }).max(254),
      }),
      ...shareArgs(t),
    },
    resolve: (_root, args, ctx) => inviteDnaRelative(ctx, args),
  }),
  acceptDnaRelative: t.withAuth({ scope: 'health:dna:write' }).field({
    type: Relative,
    description: 'Accepts a DNA invitation addressed to you',
    args: {
      id: t.arg.string({ required: true, description: 'the invitation id', validate: relativeId }),
      ...shareArgs(t),
    },
    resolve: (_root, args, ctx) => acceptDnaRelative(ctx, args),
  }),
  updateDnaRelative: t.withAuth({ scope: 'health:dna:write' }).field({
    type: Relative,
    description: 'Changes what you share with a relative beyond relatedness',
    args: {
      id: t.arg.string({ required: true, description: 'the link id', validate: relativeId }),
      ...shareArgs(t),
    },
    resolve: (_root, args, ctx) => updateDnaRelative(ctx, args),
  }),
  removeDnaRelative: t.withAuth({ scope: 'health:dna:write' }).field({
    type: Removed,
    description: 'Ends a relative link (or declines an invitation); deletes the comparison',
    args: {
      id: t.arg.string({ required: true, description: 'the link id', validate: relativeId }),
    },
    resolve: (_root, args, ctx) => removeDnaRelative(ctx, args),
  }),
  compareDnaRelativeAncestry: t.withAuth({ scope: 'health:dna:write' }).field({
    type: RelativeAncestryOut,
    description: 'A relative’s continental ancestry beside yours, where both of you share it',
    args: {
      id: t.arg.string({ required: true, description: 'the link id', validate: relativeId }),
    },
    resolve: (_root, args, ctx) => compareDnaRelativeAncestry(ctx, args),
  }),
}));
