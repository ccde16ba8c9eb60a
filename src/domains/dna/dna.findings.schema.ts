/**
 * DNA findings of issue 35: the ancestry estimate (a background job) and named calculators, the
 * maternal and paternal haplogroups, runs of homozygosity, the painting data and its findings, and
 * the story. Resolvers unpack, call the service of the same name and return; the rules are in
 * dna.findings.ts and dna.reports.ts.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import type { AncestryAnswer, AncestryCalculator, AncestryEstimate } from './dna.ancestry.ts';
import {
  STORY_ITEMS,
  dnaCalculator,
  dnaDeepTime,
  dnaPainting,
  dnaPaintingFindings,
  dnaParentsRelated,
  dnaStory,
} from './dna.findings.ts';
import type {
  CalculatorRun,
  DeepTimeRead,
  DeepTimeView,
  DnaStory,
  PaintingFindings,
  PaintingRead,
  ParentsRelatedRead,
  YReadingView,
} from './dna.findings.ts';
import { MarkerRefusal, Proportion } from './dna.family.schema.ts';
import type {
  AgeEstimate,
  LineSupport,
  MtCandidate,
  MtHaplogroupResult,
  MtPathStep,
  YCladeAge,
} from './dna.haplogroups.ts';
import type { HomozygosityReport, PaintedChromosome } from './dna.relatives.ts';
import type { Segment } from './dna.relatives.runs.ts';
import { ReportJob } from './dna.reports.schema.ts';
import { dnaAncestry, startDnaAncestry } from './dna.reports.ts';
import type { AncestryResult, DnaReportRead } from './dna.reports.ts';

// ---------------------------------------------------------------------------------------------
// ancestry

const estimated = (a: AncestryAnswer): AncestryEstimate | null =>
  a.status === 'estimated' ? a : null;

const Ancestry = builder.objectRef<AncestryAnswer>('DnaAncestryAnswer').implement({
  description: 'Continental ancestry proportions, or a refusal with the reason',
  fields: (t) => ({
    status: t.exposeString('status', { description: 'estimated or refused' }),
    calculator: t.exposeString('calculator'),
    reason: t.string({
      nullable: true,
      description: 'why refused: too_few_markers or sub_continental',
      resolve: (a) => (a.status === 'refused' ? a.reason : null),
    }),
    proportions: t.field({
      type: [Proportion],
      nullable: true,
      description: 'largest first',
      resolve: (a) => estimated(a)?.proportions ?? null,
    }),
    markersUsed: t.exposeInt('markersUsed', { nullable: true }),
    markersInPanel: t.exposeInt('markersInPanel'),
    markersMissing: t.int({
      nullable: true,
      description: 'panel markers absent or not called',
      resolve: (a) => estimated(a)?.skipped.missing ?? null,
    }),
    markersStrandAmbiguous: t.int({
      nullable: true,
      description: 'A/T or C/G markers left out (strand cannot be checked)',
      resolve: (a) => estimated(a)?.skipped.strandAmbiguous ?? null,
    }),
    resamples: t.int({
      nullable: true,
      description:
        'bootstrap resamples behind the intervals: 0 since issue 46 (profile-likelihood ' +
        'intervals), 200 in older reports',
      resolve: (a) => estimated(a)?.interval.resamples ?? null,
    }),
    note: t.exposeString('note', { description: 'what was estimated and how to read it' }),
  }),
});

const Calculator = builder.objectRef<AncestryCalculator>('DnaAncestryCalculator').implement({
  description: 'A named ancestry calculator',
  fields: (t) => ({
    name: t.exposeString('name'),
    panels: t.exposeStringList('panels'),
    description: t.exposeString('description'),
  }),
});

const CalculatorRunOut = builder.objectRef<CalculatorRun>('DnaCalculatorRun').implement({
  description: 'A calculator run now, and the calculators there are',
  fields: (t) => ({
    result: t.field({ type: Ancestry, nullable: true, resolve: (r) => r.result }),
    calculators: t.field({ type: [Calculator], resolve: (r) => r.calculators }),
    refusedNames: t.exposeStringList('refusedNames', {
      description: 'population-level names: answered with the reason they are refused',
    }),
    note: t.exposeString('note'),
  }),
});

const AncestryRead = builder.objectRef<DnaReportRead<AncestryResult>>('DnaAncestry').implement({
  description: 'The ancestry estimate: its job, and when done the proportions',
  fields: (t) => ({
    report: t.field({ type: ReportJob, nullable: true, resolve: (r) => r.report }),
    ancestry: t.field({
      type: Ancestry,
      nullable: true,
      resolve: (r) => r.result?.ancestry ?? null,
    }),
    next: t.exposeString('next', { description: 'what to do next' }),
  }),
});

// ---------------------------------------------------------------------------------------------
// deep time

const MtCandidateOut = builder.objectRef<MtCandidate>('DnaMtCandidate').implement({
  description: 'A maternal haplogroup scored against the file (Haplogrep-style)',
  fields: (t) => ({
    haplogroup: t.exposeString('haplogroup'),
    quality: t.exposeFloat('quality', { description: '0..1, Kulczynski measure' }),
    expectedTested: t.exposeInt('expectedTested'),
    found: t.exposeInt('found'),
    missing: t.exposeStringList('missing', {
      description: 'expected, not found (empty over OAuth)',
    }),
    extra: t.exposeStringList('extra', { description: 'found, not expected (empty over OAuth)' }),
    untestedExpected: t.exposeInt('untestedExpected'),
  }),
});

const MtStep = builder.objectRef<MtPathStep>('DnaMtPathStep').implement({
  description: 'One branch from the mitochondrial root to the haplogroup',
  fields: (t) => ({
    haplogroup: t.exposeString('haplogroup'),
    mutations: t.exposeStringList('mutations'),
    tested: t.exposeInt('tested', {
      description:
        'readings that count for support: tested, not at a hotspot, not reversed further down the path',
    }),
    present: t.exposeInt('present', { description: 'of those, reading derived' }),
    absent: t.exposeInt('absent', { description: 'of those, not reading derived' }),
  }),
});

const Support = builder.objectRef<LineSupport>('DnaLineSupport').implement({
  description:
    'How far the file supports a line: the levels (mtDNA branches, Y backbone clades with an SNP) from the root to the best fit',
  fields: (t) => ({
    levels: t.exposeInt('levels', {
      description: 'confirmed levels in the run that supports the answer (0: nothing supported)',
    }),
    required: t.exposeInt('required', {
      description: 'confirmed levels a node needs in one run, counting its own (MT 3, Y 2)',
    }),
    pathLevels: t.exposeInt('pathLevels', { description: 'levels from the root to the best fit' }),
    testedPositions: t.exposeInt('testedPositions', {
      description: 'readings at those levels (MT positions, Y SNPs)',
    }),
    confirmedLevels: t.exposeStringList('confirmedLevels', {
      description:
        'levels reading mostly derived (Y: BT when the other side of the root split reads ancestral)',
    }),
    missingLevels: t.exposeStringList('missingLevels', { description: 'levels with no reading' }),
    contradictedLevels: t.exposeStringList('contradictedLevels', {
      description: 'levels reading mostly not derived',
    }),
  }),
});

const Maternal = builder.objectRef<MtHaplogroupResult>('DnaMaternalLine').implement({
  description: 'The maternal line (mtDNA, PhyloTree 17)',
  fields: (t) => ({
    status: t.exposeString('status', {
      description:
        'called (best is supported), partial (only deepestSupported, above it), not_determined or no_mt_data',
    }),
    best: t.field({
      type: MtCandidateOut,
      nullable: true,
      description: 'the best fit by score; the answer only when called',
      resolve: (m) => m.best,
    }),
    deepestSupported: t.exposeString('deepestSupported', {
      nullable: true,
      description: 'the answer: the deepest node on the best fit’s path the file supports',
    }),
    support: t.field({ type: Support, resolve: (m) => m.support }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'why the best fit is not called (null when called)',
    }),
    path: t.field({ type: [MtStep], resolve: (m) => m.path }),
    runnersUp: t.field({ type: [MtCandidateOut], resolve: (m) => m.runnersUp }),
    positionsTested: t.exposeInt('positionsTested'),
    variantsSeen: t.exposeInt('variantsSeen'),
    callsIgnored: t.exposeInt('callsIgnored'),
    tree: t.exposeString('tree'),
    notes: t.exposeStringList('notes'),
  }),
});

const Age = builder.objectRef<AgeEstimate>('DnaAgeEstimate').implement({
  description: 'An age with its 95% interval, years before present',
  fields: (t) => ({
    years: t.exposeInt('years'),
    low: t.exposeInt('low'),
    high: t.exposeInt('high'),
  }),
});

const CladeAge = builder.objectRef<YCladeAge>('DnaYCladeAge').implement({
  description: 'YFull’s ages of a Y clade',
  fields: (t) => ({
    yfull: t.exposeString('yfull'),
    formed: t.field({ type: Age, nullable: true, resolve: (a) => a.formed }),
    tmrca: t.field({ type: Age, nullable: true, resolve: (a) => a.tmrca }),
    source: t.exposeString('source'),
  }),
});

const YReading = builder.objectRef<YReadingView>('DnaYReading').implement({
  description: 'A Y backbone SNP that disagrees with the answer',
  fields: (t) => ({
    clade: t.exposeString('clade'),
    snp: t.exposeString('snp'),
    rsid: t.exposeString('rsid'),
    call: t.exposeString('call', { nullable: true, description: 'null over OAuth' }),
    state: t.exposeString('state', { description: 'derived, ancestral or unclear' }),
  }),
});

const Paternal = builder.objectRef<DeepTimeView['paternal']>('DnaPaternalLine').implement({
  description: 'The paternal line (Y backbone, YFull ages)',
  fields: (t) => ({
    status: t.exposeString('status', {
      description:
        'called (bestFit is supported), partial (only clade, above it), not_determined or no_y_data',
    }),
    clade: t.exposeString('clade', {
      nullable: true,
      description: 'the answer: the deepest backbone clade the calls support',
    }),
    bestFit: t.exposeString('bestFit', {
      nullable: true,
      description: 'the clade the derived calls point to',
    }),
    support: t.field({ type: Support, resolve: (p) => p.support }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'why the best fit is not called (null when called or without Y data)',
    }),
    path: t.exposeStringList('path'),
    derivedSupport: t.exposeInt('derivedSupport'),
    ancestralOnPath: t.exposeInt('ancestralOnPath'),
    snpsTested: t.exposeInt('snpsTested'),
    notIn: t.exposeStringList('notIn'),
    conflicts: t.field({ type: [YReading], resolve: (p) => p.conflicts }),
    age: t.field({ type: CladeAge, nullable: true, resolve: (p) => p.age }),
    notes: t.exposeStringList('notes'),
  }),
});

const DeepTimeReportOut = builder.objectRef<DeepTimeView>('DnaDeepTimeReport').implement({
  description: 'Both lines, with what they can and cannot say',
  fields: (t) => ({
    maternal: t.field({ type: Maternal, resolve: (r) => r.maternal }),
    paternal: t.field({ type: Paternal, resolve: (r) => r.paternal }),
    notes: t.exposeStringList('notes'),
    sources: t.exposeStringList('sources'),
  }),
});

const DeepTime = builder.objectRef<DeepTimeRead>('DnaDeepTime').implement({
  description: 'The maternal and paternal haplogroups',
  fields: (t) => ({
    report: t.field({ type: DeepTimeReportOut, nullable: true, resolve: (r) => r.report }),
    genotypesShown: t.exposeBoolean('genotypesShown', {
      description: 'false over OAuth: the variants and calls behind the haplogroups are left out',
    }),
    note: t.exposeString('note'),
  }),
});

// ---------------------------------------------------------------------------------------------
// runs of homozygosity and painting

const SegmentOut = builder.objectRef<Segment>('DnaSegment').implement({
  description: 'A stretch of a chromosome: a shared segment or a run of homozygosity',
  fields: (t) => ({
    start: t.exposeInt('start', { description: 'first position, bp' }),
    end: t.exposeInt('end', { description: 'last position, bp' }),
    startCm: t.exposeFloat('startCm'),
    endCm: t.exposeFloat('endCm'),
    lengthCm: t.float({ resolve: (s) => s.cM }),
    snps: t.exposeInt('snps', { description: 'markers in it' }),
  }),
});

type RunsChromosome = HomozygosityReport['chromosomes'][number];
const RunsChromosomeOut = builder.objectRef<RunsChromosome>('DnaRunsChromosome').implement({
  description: 'One autosome’s runs of homozygosity',
  fields: (t) => ({
    chromosome: t.exposeString('chromosome'),
    lengthCm: t.exposeFloat('lengthCm'),
    totalCm: t.exposeFloat('totalCm'),
    runs: t.field({ type: [SegmentOut], resolve: (c) => c.runs }),
  }),
});

const Homozygosity = builder.objectRef<HomozygosityReport>('DnaHomozygosity').implement({
  description: 'Runs of homozygosity of 4 cM or more',
  fields: (t) => ({
    markers: t.exposeInt('markers', { description: 'autosomal markers called' }),
    coveredCm: t.exposeFloat('coveredCm'),
    minRunCm: t.float({ resolve: (r) => r.thresholds.minRunCm }),
    runs: t.exposeInt('runs'),
    totalCm: t.exposeFloat('totalCm'),
    longestCm: t.exposeFloat('longestCm'),
    share: t.exposeFloat('share', { description: 'totalCm / coveredCm' }),
    level: t.exposeString('level', { description: 'none, some, notable or extensive' }),
    wording: t.exposeString('wording'),
    chromosomes: t.field({ type: [RunsChromosomeOut], resolve: (r) => r.chromosomes }),
  }),
});

const ParentsRelated = builder.objectRef<ParentsRelatedRead>('DnaParentsRelated').implement({
  description: 'Runs of homozygosity in plain words (short runs are normal)',
  fields: (t) => ({
    status: t.exposeString('status', { description: 'measured, too_few_markers or no_genome' }),
    report: t.field({ type: Homozygosity, nullable: true, resolve: (r) => r.report }),
    refusal: t.field({ type: MarkerRefusal, nullable: true, resolve: (r) => r.refusal }),
    note: t.exposeString('note'),
  }),
});

type PaintedRelative = PaintedChromosome['relatives'][number];
const PaintedRelativeOut = builder.objectRef<PaintedRelative>('DnaPaintedRelative').implement({
  description: 'What one relative shares on a chromosome',
  fields: (t) => ({
    relative: t.exposeString('relative', { description: 'the relative link id' }),
    halfIdentical: t.field({ type: [SegmentOut], resolve: (r) => r.halfIdentical }),
    fullyIdentical: t.field({ type: [SegmentOut], resolve: (r) => r.fullyIdentical }),
  }),
});

const Painted = builder.objectRef<PaintedChromosome>('DnaPaintedChromosome').implement({
  description: 'One autosome to draw',
  fields: (t) => ({
    chromosome: t.exposeString('chromosome'),
    lengthCm: t.exposeFloat('lengthCm'),
    runsOfHomozygosity: t.field({ type: [SegmentOut], resolve: (c) => c.runsOfHomozygosity }),
    relatives: t.field({ type: [PaintedRelativeOut], resolve: (c) => c.relatives }),
  }),
});

const PaintedWho = builder.objectRef<PaintingRead['relatives'][number]>('DnaPaintedWho').implement({
  description: 'A relative drawn in the painting',
  fields: (t) => ({
    id: t.exposeString('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
  }),
});

const NotAvailable = builder
  .objectRef<PaintingRead['ancestryPainting']>('DnaAncestryPainting')
  .implement({
    description: 'Ancestry painting: not available, with the reason',
    fields: (t) => ({
      available: t.exposeBoolean('available'),
      reason: t.exposeString('reason'),
    }),
  });

const Painting = builder.objectRef<PaintingRead>('DnaPainting').implement({
  description: 'Painting data: per autosome the runs of homozygosity and each relative’s segments',
  fields: (t) => ({
    chromosomes: t.field({ type: [Painted], resolve: (p) => p.chromosomes }),
    relatives: t.field({ type: [PaintedWho], resolve: (p) => p.relatives }),
    homozygosity: t.exposeString('homozygosity', {
      description: 'measured, too_few_markers or no_genome',
    }),
    ancestryPainting: t.field({ type: NotAvailable, resolve: (p) => p.ancestryPainting }),
    note: t.exposeString('note'),
  }),
});

const Findings = builder.objectRef<PaintingFindings>('DnaPaintingFindings').implement({
  description: 'What the painting shows, in sentences',
  fields: (t) => ({
    findings: t.exposeStringList('findings'),
    ancestryPainting: t.field({ type: NotAvailable, resolve: (p) => p.ancestryPainting }),
  }),
});

// ---------------------------------------------------------------------------------------------
// the story

const LeftOut = builder.objectRef<DnaStory['leftOut'][number]>('DnaStoryLeftOut').implement({
  description: 'A picked item not in the text, and why',
  fields: (t) => ({
    item: t.exposeString('item'),
    reason: t.exposeString('reason'),
  }),
});

const Story = builder.objectRef<DnaStory>('DnaStory').implement({
  description: 'A short text of picked findings; nothing is sent',
  fields: (t) => ({
    text: t.exposeString('text'),
    included: t.exposeStringList('included'),
    leftOut: t.field({ type: [LeftOut], resolve: (s) => s.leftOut }),
    note: t.exposeString('note'),
  }),
});

const StoryItem = builder.enumType('DnaStoryItem', {
  description: 'A finding a story can tell',
  values: enumValues(STORY_ITEMS),
});

const reportId = z.string().trim().min(1).max(64);

builder.queryFields((t) => ({
  dnaAncestry: t.withAuth({ scope: 'health:dna:read' }).field({
    type: AncestryRead,
    description: 'The ancestry estimate (newest, or report_id) with its status and next step',
    args: {
      reportId: t.arg.string({
        description: 'a report id from dna_ancestry_start; omit for the newest',
        validate: reportId,
      }),
    },
    resolve: (_root, args, ctx) => dnaAncestry(ctx, args),
  }),
  dnaCalculator: t.withAuth({ scope: 'health:dna:read' }).field({
    type: CalculatorRunOut,
    description: 'Runs a named ancestry calculator now',
    args: {
      calculator: t.arg.string({
        description: 'a calculator name (default continental-combined)',
        validate: z.string().trim().min(1).max(60),
      }),
    },
    resolve: (_root, args, ctx) => dnaCalculator(ctx, args),
  }),
  dnaDeepTime: t.withAuth({ scope: 'health:dna:read' }).field({
    type: DeepTime,
    description: 'The maternal and paternal haplogroups',
    resolve: (_root, _args, ctx) => dnaDeepTime(ctx),
  }),
  dnaParentsRelated: t.withAuth({ scope: 'health:dna:read' }).field({
    type: ParentsRelated,
    description: 'Runs of homozygosity in cM, in plain words',
    resolve: (_root, _args, ctx) => dnaParentsRelated(ctx),
  }),
  dnaPainting: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Painting,
    description: 'Per-chromosome painting data: runs of homozygosity and relatives’ segments',
    resolve: (_root, _args, ctx) => dnaPainting(ctx),
  }),
  dnaPaintingFindings: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Findings,
    description: 'What the painting shows, in sentences',
    resolve: (_root, _args, ctx) => dnaPaintingFindings(ctx),
  }),
  dnaStory: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Story,
    description: 'A short text of the findings the person picks; sends nothing',
    args: {
      include: t.arg({
        type: [StoryItem],
        description: `what to tell: ${STORY_ITEMS.join(', ')} (default ancestry, maternal_line, paternal_line; medicines only when picked)`,
        validate: z.array(z.enum(STORY_ITEMS)).max(STORY_ITEMS.length * 2),
      }),
    },
    resolve: (_root, args, ctx) => dnaStory(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  startDnaAncestry: t.withAuth({ scope: 'health:dna:write' }).field({
    type: ReportJob,
    description:
      'Starts the continental ancestry estimate in the background, or answers the one already made',
    resolve: (_root, _args, ctx) => startDnaAncestry(ctx),
  }),
}));
