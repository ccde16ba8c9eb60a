/**
 * Labs (issue 36): a blood report read into a draft, reports saved, changed, deleted and listed,
 * markers over time, the summary and the FHIR bundle. Resolvers unpack, call the service of the
 * same name and return; the rules are in labs.reports.ts, labs.markers.ts, labs.summary.ts,
 * labs.parse.ts and labs.fhir.ts.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import { labsFhir } from './labs.fhir.ts';
import { bloodMarker, bloodMarkers } from './labs.markers.ts';
import type { MarkerHistory, MarkerList, MarkerPoint, MarkerSummary } from './labs.markers.ts';
import { MAX_REPORT_BYTES, parseBloodReport } from './labs.parse.ts';
import type { DraftMarkerView, LabDraftView } from './labs.parse.ts';
import {
  MAX_REPORT_MARKERS,
  MAX_REPORTS_PAGE,
  bloodReport,
  bloodReports,
  createBloodReport,
  deleteBloodReport,
  updateBloodReport,
} from './labs.reports.ts';
import type {
  BloodReportDeleted,
  BloodReportsPage,
  LabReportView,
  LabResultView,
  RangeView,
} from './labs.reports.ts';
import { bloodSummary } from './labs.summary.ts';
import type { GlycationGap, LabsSummary } from './labs.summary.ts';
import type { UnitValue } from './labs.types.ts';
import type { LabMarkerDef } from './labs.types.ts';

const FLAGS = ['H', 'L', 'HH', 'LL', 'A'] as const;

const Quantity = builder.objectRef<UnitValue>('LabQuantity').implement({
  description: 'A value with its UCUM unit',
  fields: (t) => ({
    value: t.exposeFloat('value'),
    unit: t.exposeString('unit', { description: 'UCUM' }),
  }),
});

const Range = builder.objectRef<RangeView>('LabRange').implement({
  description: "The range a value is read against: the report's own, or a labelled fallback",
  fields: (t) => ({
    low: t.exposeFloat('low', { nullable: true }),
    high: t.exposeFloat('high', { nullable: true }),
    unit: t.exposeString('unit', { description: 'UCUM unit of low and high' }),
    text: t.exposeString('text'),
    origin: t.exposeString('origin', { description: 'report, or typical adult range' }),
    source: t.exposeString('source', {
      nullable: true,
      description: 'the guideline a fallback range comes from',
    }),
  }),
});

const Result = builder.objectRef<LabResultView>('LabResult').implement({
  description: 'One value of a blood report',
  fields: (t) => ({
    id: t.exposeString('id'),
    markerId: t.exposeString('markerId'),
    loinc: t.exposeString('loinc', {
      description: 'LOINC code of the value: its unit and qualifier (1558-6 fasting glucose)',
    }),
    name: t.exposeString('name'),
    qualifier: t.exposeString('qualifier', {
      nullable: true,
      description:
        'what the report said of the test: fasting (glucose), calculated (LDL cholesterol), or null',
    }),
    category: t.exposeString('category'),
    value: t.exposeFloat('value'),
    unit: t.exposeString('unit', { description: 'UCUM, as reported' }),
    converted: t.field({
      type: Quantity,
      nullable: true,
      description: 'the value in the other common unit',
      resolve: (r) => r.converted,
    }),
    range: t.field({ type: Range, nullable: true, resolve: (r) => r.range }),
    flag: t.exposeString('flag', { nullable: true, description: 'H, L, HH, LL or A' }),
    outOfRange: t.exposeString('outOfRange', { nullable: true, description: 'high or low' }),
  }),
});

const Report = builder.objectRef<LabReportView>('LabReport').implement({
  description: 'A blood test report',
  fields: (t) => ({
    id: t.exposeString('id'),
    drawnOn: t.exposeString('drawnOn', { description: 'YYYY-MM-DD in time_zone' }),
    timeZone: t.exposeString('timeZone'),
    lab: t.exposeString('lab', { nullable: true }),
    source: t.exposeString('source', { description: 'pdf_text, ocr or typed' }),
    note: t.exposeString('note', { nullable: true }),
    results: t.field({ type: [Result], resolve: (r) => r.results }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ReportsPage = builder.objectRef<BloodReportsPage>('LabReportsPage').implement({
  description: 'Blood reports, newest draw first',
  fields: (t) => ({
    reports: t.field({ type: [Report], resolve: (p) => p.reports }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass as cursor for older reports',
    }),
    timeZone: t.exposeString('timeZone'),
  }),
});

const Deleted = builder.objectRef<BloodReportDeleted>('LabReportDeleted').implement({
  description: 'A deleted blood report',
  fields: (t) => ({
    deleted: t.exposeBoolean('deleted'),
    id: t.exposeString('id'),
    values: t.exposeInt('values', { description: 'values deleted with it' }),
  }),
});

const SourceLine = builder.objectRef<DraftMarkerView['source']>('LabSourceLine').implement({
  description: 'The line of the report a value was read from',
  fields: (t) => ({ text: t.exposeString('text'), page: t.exposeInt('page') }),
});

const Draft = builder.objectRef<DraftMarkerView>('LabDraftMarker').implement({
  description: 'A value read from a report: a draft until saved',
  fields: (t) => ({
    markerId: t.exposeString('markerId'),
    loinc: t.exposeString('loinc'),
    name: t.exposeString('name'),
    qualifier: t.exposeString('qualifier', {
      nullable: true,
      description:
        'what the printed name says of the test (fasting, calculated): save it with the value',
    }),
    value: t.exposeFloat('value'),
    unit: t.exposeString('unit', { description: 'UCUM, as printed' }),
    converted: t.field({ type: Quantity, nullable: true, resolve: (m) => m.converted }),
    range: t.field({ type: Range, nullable: true, resolve: (m) => m.range }),
    flag: t.exposeString('flag', { nullable: true }),
    confidence: t.exposeFloat('confidence', { description: '0..1' }),
    needsConfirmation: t.exposeBoolean('needsConfirmation', {
      description: 'read by OCR or unusual: ask the person to check it',
    }),
    source: t.field({ type: SourceLine, resolve: (m) => m.source }),
  }),
});

const DraftOut = builder.objectRef<LabDraftView>('LabDraft').implement({
  description: 'A report read into a draft: nothing is saved',
  fields: (t) => ({
    source: t.exposeString('source', { description: 'pdf_text or ocr' }),
    pages: t.exposeInt('pages'),
    drawnOn: t.exposeString('drawnOn', { nullable: true }),
    lab: t.exposeString('lab', { nullable: true }),
    markers: t.field({ type: [Draft], resolve: (d) => d.markers }),
    unrecognised: t.exposeStringList('unrecognised', {
      description: 'result-like lines no known marker matched',
    }),
    next: t.exposeString('next'),
  }),
});

const Point = builder.objectRef<MarkerPoint>('LabMarkerPoint').implement({
  description: 'A marker’s value on one report',
  fields: (t) => ({
    reportId: t.exposeString('reportId'),
    drawnOn: t.exposeString('drawnOn'),
    loinc: t.exposeString('loinc', { description: 'LOINC code of the value' }),
    qualifier: t.exposeString('qualifier', {
      nullable: true,
      description:
        'what the report said of the test: fasting (glucose), calculated (LDL cholesterol), or null',
    }),
    value: t.exposeFloat('value', { description: 'as the report printed it' }),
    unit: t.exposeString('unit'),
    primary: t.field({ type: Quantity, nullable: true, resolve: (p) => p.primary }),
    other: t.field({ type: Quantity, nullable: true, resolve: (p) => p.other }),
    range: t.field({ type: Range, nullable: true, resolve: (p) => p.range }),
    flag: t.exposeString('flag', { nullable: true }),
    outOfRange: t.exposeString('outOfRange', { nullable: true }),
    change: t.exposeFloat('change', {
      nullable: true,
      description: 'minus the previous value, in the primary unit',
    }),
    changeInUnit: t.exposeFloat('changeInUnit', {
      nullable: true,
      description: 'minus the previous value, in this value’s unit (% : percentage points)',
    }),
  }),
});

const Summary = builder.objectRef<MarkerSummary>('LabMarkerSummary').implement({
  description: 'A marker with its latest value and trend',
  fields: (t) => ({
    markerId: t.exposeString('markerId'),
    loinc: t.exposeString('loinc'),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    count: t.exposeInt('count'),
    latest: t.field({ type: Point, resolve: (m) => m.latest }),
    trend: t.exposeString('trend', { nullable: true, description: 'up, down or stable' }),
  }),
});

const VocabularyMarker = builder.objectRef<LabMarkerDef>('LabVocabularyMarker').implement({
  description: 'A marker the platform reads',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    loinc: t.exposeString('loinc'),
    category: t.exposeString('category'),
    units: t.stringList({ resolve: (m) => m.units.map((u) => u.ucum) }),
    qualifiers: t.stringList({
      description:
        'what a report may say of the test (fasting, calculated): LabValueInput.qualifier',
      resolve: (m) => (m.qualifiers ?? []).map((q) => q.id),
    }),
  }),
});

const MarkerListOut = builder.objectRef<MarkerList>('LabMarkerList').implement({
  description: 'The person’s markers, and every marker the platform reads',
  fields: (t) => ({
    markers: t.field({ type: [Summary], resolve: (l) => l.markers }),
    vocabulary: t.field({ type: [VocabularyMarker], resolve: (l) => l.vocabulary }),
  }),
});

const History = builder.objectRef<MarkerHistory>('LabMarkerHistory').implement({
  description: 'One marker over time, in both common units',
  fields: (t) => ({
    markerId: t.exposeString('markerId'),
    loinc: t.exposeString('loinc'),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    units: t.exposeStringList('units'),
    points: t.field({ type: [Point], resolve: (h) => h.points }),
    trend: t.exposeString('trend', { nullable: true }),
    timeZone: t.exposeString('timeZone'),
    note: t.exposeString('note'),
  }),
});

const Gap = builder.objectRef<GlycationGap>('LabGlycationGap').implement({
  description: 'The latest HbA1c beside the CGM’s GMI over the 90 days before the draw',
  fields: (t) => ({
    hba1cPercent: t.exposeFloat('hba1cPercent'),
    drawnOn: t.exposeString('drawnOn'),
    gmiPercent: t.exposeFloat('gmiPercent', { nullable: true }),
    gapPercent: t.exposeFloat('gapPercent', { nullable: true, description: 'HbA1c - GMI' }),
    readings: t.exposeInt('readings'),
    coveragePct: t.exposeFloat('coveragePct'),
    windowFrom: t.string({ resolve: (g) => g.window.from }),
    windowTo: t.string({ resolve: (g) => g.window.to }),
    words: t.exposeString('words'),
  }),
});

const SummaryOut = builder.objectRef<LabsSummary>('LabsSummary').implement({
  description: 'Out-of-range markers, what changed, and HbA1c beside the CGM',
  fields: (t) => ({
    outOfRange: t.field({ type: [Summary], resolve: (s) => s.outOfRange }),
    changed: t.field({ type: [Summary], resolve: (s) => s.changed }),
    glycationGap: t.field({ type: Gap, nullable: true, resolve: (s) => s.glycationGap }),
    words: t.exposeStringList('words'),
    timeZone: t.exposeString('timeZone'),
  }),
});

const drawnOn = z
  .string()
  .refine((s) => isLocalDate(s) && s >= '1900-01-01' && s <= '2100-12-31', {
    message: 'not a date YYYY-MM-DD between 1900 and 2100',
  })
  .meta({ format: 'date' });

const LabValueInput = builder.inputType('LabValueInput', {
  description: 'One value of a report',
  fields: (t) => ({
    markerId: t.string({ required: true, description: 'a marker id of the vocabulary' }),
    value: t.float({ required: true, description: 'the value as reported, in unit' }),
    unit: t.string({ required: true, description: 'as reported, e.g. mg/dL, mmol/L, %' }),
    qualifier: t.string({
      description:
        'what the report says of the test, as the draft answers it: fasting (glucose), calculated (LDL cholesterol)',
    }),
    refLow: t.float({ description: "the report's own range, in unit" }),
    refHigh: t.float({ description: "the report's own upper limit, in unit" }),
    refText: t.string({ description: 'the range as printed' }),
    flag: t.string({ description: 'H, L, HH, LL or A, as flagged' }),
    sourceLine: t.string({ description: 'the line it was read from' }),
  }),
  validate: z.object({
    markerId: z.string().trim().min(1).max(60),
    value: z.number().finite().min(-1_000_000).max(1_000_000),
    unit: z.string().trim().min(1).max(30),
    qualifier: z.string().trim().min(1).max(30).nullish(),
    refLow: z.number().finite().min(-1_000_000).max(1_000_000).nullish(),
    refHigh: z.number().finite().min(-1_000_000).max(1_000_000).nullish(),
    refText: z.string().max(100).nullish(),
    flag: z.enum(FLAGS).nullish(),
    sourceLine: z.string().max(500).nullish(),
  }),
});

const markersList = z.array(z.unknown()).min(1).max(MAX_REPORT_MARKERS);

const CreateInput = builder.inputType('CreateBloodReportInput', {
  description: 'A report to save: from a parsed draft the person checked, or typed',
  fields: (t) => ({
    drawnOn: t.string({ required: true, description: 'YYYY-MM-DD, the date drawn' }),
    lab: t.string({ description: "the laboratory's name" }),
    source: t.string({ description: 'pdf_text, ocr or typed (default typed)' }),
    note: t.string({ description: "the person's note" }),
    markers: t.field({
      type: [LabValueInput],
      required: true,
      description: `the values, 1..${MAX_REPORT_MARKERS}`,
    }),
  }),
  validate: z.object({
    drawnOn,
    lab: z.string().trim().max(200).nullish(),
    source: z.enum(['pdf_text', 'ocr', 'typed']).nullish(),
    note: z.string().max(2000).nullish(),
    markers: markersList,
  }),
});

const UpdateInput = builder.inputType('UpdateBloodReportInput', {
  description: 'Changes to a report: fields left out stay; markers replaces every value',
  fields: (t) => ({
    drawnOn: t.string({ description: 'YYYY-MM-DD, the date drawn' }),
    lab: t.string({ description: "the laboratory's name; null clears it" }),
    note: t.string({ description: "the person's note; null clears it" }),
    markers: t.field({
      type: [LabValueInput],
      description: `replaces every value, 1..${MAX_REPORT_MARKERS}`,
    }),
  }),
  validate: z.object({
    drawnOn: drawnOn.nullish(),
    lab: z.string().trim().max(200).nullish(),
    note: z.string().max(2000).nullish(),
    markers: markersList.nullish(),
  }),
});

const reportId = z.string().trim().min(1).max(64);
/** base64 of MAX_REPORT_BYTES, with room for line breaks and a data: prefix */
const MAX_BASE64 = Math.ceil((MAX_REPORT_BYTES * 4) / 3) + 4096;

builder.queryFields((t) => ({
  bloodReports: t.withAuth({ scope: 'health:labs:read' }).field({
    type: ReportsPage,
    description: 'Blood reports with their values, newest draw first',
    args: {
      limit: t.arg.int({
        description: `1..${MAX_REPORTS_PAGE} (default 20)`,
        validate: z.number().int().min(1).max(MAX_REPORTS_PAGE).nullish(),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page',
        validate: z.string().max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => bloodReports(ctx, args),
  }),
  bloodReport: t.withAuth({ scope: 'health:labs:read' }).field({
    type: Report,
    description: 'One blood report',
    args: {
      id: t.arg.string({ required: true, description: 'the report id', validate: reportId }),
    },
    resolve: (_root, args, ctx) => bloodReport(ctx, args),
  }),
  bloodMarkers: t.withAuth({ scope: 'health:labs:read' }).field({
    type: MarkerListOut,
    description: 'Every marker with its latest value and trend, and the vocabulary',
    resolve: (_root, _args, ctx) => bloodMarkers(ctx),
  }),
  bloodMarker: t.withAuth({ scope: 'health:labs:read' }).field({
    type: History,
    description: 'One marker’s history in both units with each report’s range',
    args: {
      markerId: t.arg.string({
        required: true,
        description: 'a marker id, e.g. hba1c, ldl_cholesterol',
        validate: z.string().trim().min(1).max(60),
      }),
    },
    resolve: (_root, args, ctx) => bloodMarker(ctx, args),
  }),
  bloodSummary: t.withAuth({ scope: 'health:labs:read' }).field({
    type: SummaryOut,
    description: 'Out-of-range markers, what changed, HbA1c beside the CGM',
    resolve: (_root, _args, ctx) => bloodSummary(ctx),
  }),
  labsFhir: t.withAuth({ scope: 'health:labs:read' }).field({
    type: 'JSON',
    description: 'The blood reports as a FHIR R4 collection Bundle',
    resolve: (_root, _args, ctx) => labsFhir(ctx),
  }),
}));

builder.mutationFields((t) => ({
  parseBloodReport: t.withAuth({ scope: 'health:labs:write' }).field({
    type: DraftOut,
    description: 'Reads a report file into a draft of values; saves nothing',
    args: {
      file: t.arg.string({
        required: true,
        description: 'the PDF, JPEG or PNG as base64, at most 3 MB',
        validate: z.string().min(1).max(MAX_BASE64),
      }),
    },
    resolve: (_root, args, ctx) => parseBloodReport(ctx, args),
  }),
  createBloodReport: t.withAuth({ scope: 'health:labs:write' }).field({
    type: Report,
    description: 'Saves a blood report with its values',
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_root, { input }, ctx) => createBloodReport(ctx, input),
  }),
  updateBloodReport: t.withAuth({ scope: 'health:labs:write' }).field({
    type: Report,
    description: 'Changes a blood report',
    args: {
      id: t.arg.string({ required: true, description: 'the report id', validate: reportId }),
      input: t.arg({ type: UpdateInput, required: true }),
    },
    resolve: (_root, { id, input }, ctx) => updateBloodReport(ctx, { id, ...input }),
  }),
  deleteBloodReport: t.withAuth({ scope: 'health:labs:write' }).field({
    type: Deleted,
    description: 'Deletes a blood report and its values',
    args: {
      id: t.arg.string({ required: true, description: 'the report id', validate: reportId }),
    },
    resolve: (_root, args, ctx) => deleteBloodReport(ctx, args),
  }),
}));
