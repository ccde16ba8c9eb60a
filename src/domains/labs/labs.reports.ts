/**
 * Blood test reports (issue 36): created from a parsed draft or typed values, updated, deleted
 * (tombstones the phone pulls) and listed. Each value is one marker of the curated vocabulary
 * (labs.vocabulary.ts) in a unit valid for it; an answer shows it also in the marker's other common
 * unit, with the report's own range first and, only when the report printed none, a fallback
 * labelled "typical adult range" with its source.
 *
 * Ownership is part of every query (another person's report id answers 404); reads use the
 * person's data (`readerUserId`), so a grantee viewing as an owner reads the owner's reports, and
 * writes are the credential's own person's. Writes go through the sync clock: the phone syncs
 * `lab_reports` and `lab_results` (labs.synced.ts).
 */
import { randomUUID } from 'node:crypto';
import { appError, validationError } from '../../base/errors.ts';
import type { ValidationIssue } from '../../base/errors.ts';
import { readerUserId } from '../../auth/principal.ts';
import type { DbTx } from '../../db/client.ts';
import type { LabReport, LabResult } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { syncedWrite } from '../../platform/sync-clock.ts';
import { personZone } from '../profile/index.ts';
import type { LabMarkerDef, MarkerQualifier, UnitValue } from './labs.types.ts';
import { convertValue } from './labs.units.ts';
import { plausibilityIssue, unknownUnit } from './labs.value-rules.ts';
import {
  codingOf,
  convertToOther,
  markerById,
  qualifierById,
  qualifierOfCode,
  unitOf,
} from './labs.vocabulary.ts';

/** Values a report may hold. */
export const MAX_REPORT_MARKERS = 100;
/** Reports a list answers at most at once. */
export const MAX_REPORTS_PAGE = 50;

/** The range a value is read against, and where it comes from. */
export interface RangeView {
  low: number | null;
  high: number | null;
  /** UCUM unit of low and high */
  unit: string;
  text: string;
  /** report: printed on the report; typical adult range: the fallback (see source) */
  origin: 'report' | 'typical adult range';
  /** the guideline a fallback comes from, or null for the report's own */
  source: string | null;
}

/** One value of a report. */
export interface LabResultView {
  id: string;
  markerId: string;
  /** the LOINC code of the value as stored: its unit's and qualifier's (1558-6 fasting glucose) */
  loinc: string;
  /** that code's LOINC long common name */
  loincName: string;
  name: string;
  /** what the report said of the test ("fasting", "calculated"), or null */
  qualifier: string | null;
  category: string;
  value: number;
  unit: string;
  /** the value in the marker's other common unit, or null */
  converted: UnitValue | null;
  range: RangeView | null;
  /** the report's flag (H, L, HH, LL, A) */
  flag: string | null;
  /** high or low against the range, or null (in range, or no range) */
  outOfRange: 'high' | 'low' | null;
}

/** A report as answered. */
export interface LabReportView {
  id: string;
  /** YYYY-MM-DD in timeZone */
  drawnOn: string;
  timeZone: string;
  lab: string | null;
  source: string;
  note: string | null;
  results: LabResultView[];
  createdAt: Date;
}

/** A value as given to create or update a report. */
export interface LabValueInput {
  /** the vocabulary's marker id ("glucose"; blood_marker_list lists them) */
  markerId: string;
  value: number;
  /** the unit as reported (UCUM or a common spelling: "mg/dL", "mmol/L", "%") */
  unit: string;
  /**
   * what the report says of the test, as a draft answers it: "fasting" (glucose), "calculated"
   * (LDL cholesterol); it selects the stored LOINC code, and a fasting range for glucose
   */
  qualifier?: string | null;
  /** the report's own range, in `unit` */
  refLow?: number | null;
  refHigh?: number | null;
  refText?: string | null;
  /** H, L, HH, LL or A, as flagged */
  flag?: string | null;
  /** the line it was read from, when parsed */
  sourceLine?: string | null;
}

export interface CreateBloodReportOptions {
  /** the date the sample was drawn, YYYY-MM-DD in the person's time zone */
  drawnOn: string;
  lab?: string | null;
  /** pdf_text, ocr or typed (default typed) */
  source?: string | null;
  note?: string | null;
  markers: LabValueInput[];
}

export interface UpdateBloodReportOptions {
  id: string;
  drawnOn?: string | null;
  lab?: string | null;
  note?: string | null;
  /** replaces every value of the report when given */
  markers?: LabValueInput[] | null;
}

const notFound = () =>
  appError('NOT_FOUND', 'No blood report with this id: list yours with blood_reports_list.');

/**
 * A value's range: the report's own, else the labelled fallback (primary unit) of its qualifier
 * (the fasting range of a fasting glucose), else the marker's. A glucose not known to be fasting
 * gets no fallback: the guideline's range is for fasting plasma glucose only (issue 47).
 */
export function rangeOf(
  def: LabMarkerDef,
  row: Pick<LabResult, 'refLow' | 'refHigh' | 'refText' | 'unit' | 'loinc'>,
): RangeView | null {
  if (row.refLow !== null || row.refHigh !== null) {
    return {
      low: row.refLow,
      high: row.refHigh,
      unit: row.unit,
      text: row.refText ?? rangeText(row.refLow, row.refHigh),
      origin: 'report',
      source: null,
    };
  }
  const fallback = qualifierOfCode(def, row.loinc)?.fallbackRange ?? def.fallbackRange;
  if (!fallback) return null;
  return {
    low: fallback.low,
    high: fallback.high,
    unit: def.units[0].ucum,
    text: rangeText(fallback.low, fallback.high),
    origin: 'typical adult range',
    source: fallback.source,
  };
}

const rangeText = (low: number | null, high: number | null): string =>
  low !== null && high !== null ? `${low}-${high}` : low !== null ? `>= ${low}` : `<= ${high}`;

/** high, low or null against the range. */
export function outOfRangeOf(
  def: LabMarkerDef,
  value: number,
  unit: string,
  range: RangeView | null,
): 'high' | 'low' | null {
  if (!range) return null;
  const v = convertValue(def, value, unit, range.unit);
  if (v === null) return null;
  if (range.high !== null && v > range.high) return 'high';
  if (range.low !== null && v < range.low) return 'low';
  return null;
}

/** One stored value as answered. */
export function resultView(row: LabResult): LabResultView {
  const def = markerById(row.markerId);
  if (!def) {
    // a marker removed from the vocabulary since: the value as stored, nothing derived
    return {
      id: row.id,
      markerId: row.markerId,
      loinc: row.loinc,
      loincName: row.markerId,
      name: row.markerId,
      qualifier: null,
      category: 'other',
      value: row.value,
      unit: row.unit,
      converted: null,
      range: null,
      flag: row.flag,
      outOfRange: null,
    };
  }
  const range = rangeOf(def, row);
  // the code again from the stored one's qualifier and the unit: a value stored before issue 47
  // (or pushed by the phone) in mmol/L with the mass code is answered with the molar one
  const qualifier = qualifierOfCode(def, row.loinc);
  const coding = codingOf(def, row.unit, qualifier);
  return {
    id: row.id,
    markerId: row.markerId,
    loinc: coding.loinc,
    loincName: coding.loincName,
    name: def.name,
    qualifier: qualifier?.id ?? null,
    category: def.category,
    value: row.value,
    unit: row.unit,
    converted: convertToOther(def, row.value, row.unit),
    range,
    flag: row.flag,
    outOfRange: outOfRangeOf(def, row.value, row.unit, range),
  };
}

function reportView(report: LabReport, results: LabResult[], zone: string): LabReportView {
  return {
    id: report.id,
    drawnOn: report.drawnOn,
    timeZone: zone,
    lab: report.lab,
    source: report.source,
    note: report.note,
    results: results.map(resultView),
    createdAt: report.createdAt,
  };
}

/** A value checked against the vocabulary, with its marker, UCUM unit and qualifier. */
type CheckedValue = LabValueInput & {
  def: LabMarkerDef;
  ucum: string;
  qualifierDef: MarkerQualifier | null;
};

/**
 * Checks the values against the vocabulary: known marker, a unit of it, a plausible value, a
 * qualifier of it.
 */
function checkedValues(markers: LabValueInput[]): CheckedValue[] {
  const issues: ValidationIssue[] = [];
  const out = markers.flatMap((m, i) => {
    const def = markerById(m.markerId);
    if (!def) {
      issues.push({
        loc: ['markers', i, 'marker_id'],
        msg: `Unknown marker "${m.markerId}": blood_marker_list lists the markers read.`,
        type: 'value_error',
      });
      return [];
    }
    const ucum = unitOf(def, m.unit);
    if (!ucum) {
      issues.push({
        loc: ['markers', i, 'unit'],
        msg: unknownUnit(def, m.unit),
        type: 'value_error',
      });
      return [];
    }
    const implausible = plausibilityIssue(def, m.value, ucum);
    if (implausible) {
      issues.push({ loc: ['markers', i, 'value'], msg: implausible, type: 'value_error' });
      return [];
    }
    const qualifierDef = qualifierById(def, m.qualifier);
    if (m.qualifier && !qualifierDef) {
      const known = (def.qualifiers ?? []).map((q) => q.id);
      issues.push({
        loc: ['markers', i, 'qualifier'],
        msg: known.length
          ? `${def.name} has no qualifier "${m.qualifier}": use ${known.join(' or ')}, or none.`
          : `${def.name} takes no qualifier: leave it out.`,
        type: 'value_error',
      });
      return [];
    }
    return [{ ...m, def, ucum, qualifierDef }];
  });
  if (issues.length) throw validationError(issues);
  return out;
}

async function writeResults(
  tx: DbTx,
  userId: number,
  reportId: string,
  values: CheckedValue[],
  stamp: Date,
): Promise<void> {
  await tx.labResult.createMany({
    data: values.map((v) => ({
      id: randomUUID(),
      userId,
      reportId,
      markerId: v.def.id,
      // the code of the value as printed: its unit's and qualifier's (issue 47)
      loinc: codingOf(v.def, v.ucum, v.qualifierDef).loinc,
      value: v.value,
      unit: v.ucum,
      refLow: v.refLow ?? null,
      refHigh: v.refHigh ?? null,
      refText: v.refText ?? null,
      flag: v.flag ?? null,
      sourceLine: v.sourceLine ?? null,
      serverUpdatedAt: stamp,
    })),
  });
}

async function liveResults(tx: DbTx | AuthedContext['prisma'], userId: number, reportId: string) {
  return tx.labResult.findMany({
    where: { userId, reportId, deletedAt: null },
    orderBy: [{ markerId: 'asc' }, { id: 'asc' }],
  });
}

/** Saves a report with its values (from a parsed draft the person checked, or typed). */
export async function createBloodReport(
  ctx: AuthedContext,
  options: CreateBloodReportOptions,
): Promise<LabReportView> {
  const values = checkedValues(options.markers);
  const userId = ctx.principal.userId;
  const zone = await personZone(ctx);
  return syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const stamp = new Date(ts);
    const report = await tx.labReport.create({
      data: {
        id: randomUUID(),
        userId,
        drawnOn: options.drawnOn,
        lab: options.lab ?? null,
        source: options.source ?? 'typed',
        note: options.note ?? null,
        serverUpdatedAt: stamp,
      },
    });
    await writeResults(tx, userId, report.id, values, stamp);
    return reportView(report, await liveResults(tx, userId, report.id), zone);
  });
}

/** Changes a report's date, lab or note, or replaces its values. 404 for another person's id. */
export async function updateBloodReport(
  ctx: AuthedContext,
  options: UpdateBloodReportOptions,
): Promise<LabReportView> {
  const values = options.markers ? checkedValues(options.markers) : null;
  const userId = ctx.principal.userId;
  const zone = await personZone(ctx);
  return syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const stamp = new Date(ts);
    const [report] = await tx.labReport.updateManyAndReturn({
      where: { id: options.id, userId, deletedAt: null },
      data: {
        ...(options.drawnOn ? { drawnOn: options.drawnOn } : {}),
        ...(options.lab !== undefined ? { lab: options.lab } : {}),
        ...(options.note !== undefined ? { note: options.note } : {}),
        serverUpdatedAt: stamp,
      },
    });
    if (!report) throw notFound();
    if (values) {
      await tx.labResult.updateMany({
        where: { userId, reportId: report.id, deletedAt: null },
        data: { deletedAt: stamp, serverUpdatedAt: stamp },
      });
      await writeResults(tx, userId, report.id, values, stamp);
    }
    return reportView(report, await liveResults(tx, userId, report.id), zone);
  });
}

export interface BloodReportDeleted {
  deleted: boolean;
  id: string;
  values: number;
}

/** Deletes a report and its values (tombstones the phone pulls). 404 for another person's id. */
export async function deleteBloodReport(
  ctx: AuthedContext,
  options: { id: string },
): Promise<BloodReportDeleted> {
  const userId = ctx.principal.userId;
  return syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const stamp = new Date(ts);
    const { count } = await tx.labReport.updateMany({
      where: { id: options.id, userId, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    if (count === 0) throw notFound();
    const values = await tx.labResult.updateMany({
      where: { userId, reportId: options.id, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    return { deleted: true, id: options.id, values: values.count };
  });
}

export interface BloodReportsOptions {
  /** at most this many (1..MAX_REPORTS_PAGE, default 20), newest draw first */
  limit?: number | null;
  /** the previous page's `nextCursor` */
  cursor?: string | null;
}

export interface BloodReportsPage {
  reports: LabReportView[];
  /** pass as `cursor` for older reports, or null */
  nextCursor: string | null;
  timeZone: string;
}

/** The keyset after a cursor "drawnOn|id" (newest draw first, then id), or 422. */
function afterCursor(cursor: string | null | undefined) {
  if (!cursor) return {};
  const [drawnOn, id] = cursor.split('|');
  if (!drawnOn || !id) {
    throw validationError([
      {
        loc: ['cursor'],
        msg: 'Not a cursor of this list: pass next_cursor as answered.',
        type: 'value_error',
      },
    ]);
  }
  return { OR: [{ drawnOn: { lt: drawnOn } }, { drawnOn, id: { gt: id } }] };
}

/** The person's reports with their values, newest draw first. */
export async function bloodReports(
  ctx: AuthedContext,
  options: BloodReportsOptions = {},
): Promise<BloodReportsPage> {
  const userId = readerUserId(ctx);
  const limit = options.limit ?? 20;
  const zone = await personZone(ctx);
  const reports = await ctx.prisma.labReport.findMany({
    where: { userId, deletedAt: null, ...afterCursor(options.cursor) },
    orderBy: [{ drawnOn: 'desc' }, { id: 'asc' }],
    take: limit + 1,
  });
  const page = reports.slice(0, limit);
  const results = await ctx.prisma.labResult.findMany({
    where: { userId, reportId: { in: page.map((r) => r.id) }, deletedAt: null },
    orderBy: [{ markerId: 'asc' }, { id: 'asc' }],
  });
  const last = page[page.length - 1];
  return {
    reports: page.map((r) =>
      reportView(
        r,
        results.filter((x) => x.reportId === r.id),
        zone,
      ),
    ),
    nextCursor: reports.length > limit ? `${last.drawnOn}|${last.id}` : null,
    timeZone: zone,
  };
}

/** One report of the person, or 404. */
export async function bloodReport(
  ctx: AuthedContext,
  options: { id: string },
): Promise<LabReportView> {
  const userId = readerUserId(ctx);
  const report = await ctx.prisma.labReport.findFirst({
    where: { id: options.id, userId, deletedAt: null },
  });
  if (!report) throw notFound();
  return reportView(
    report,
    await liveResults(ctx.prisma, userId, report.id),
    await personZone(ctx),
  );
}
