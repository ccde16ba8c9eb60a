/**
 * Markers over time (issue 36): every marker the person has values of, with the latest value and
 * its trend, and one marker's history in both common units with each report's range and the
 * change from the previous value. Values of deleted reports are left out. Reads are the person's
 * data (`readerUserId`); the vocabulary is labs.vocabulary.ts.
 *
 * A trend compares the latest value with the one before it in the same unit; a change within 5 %
 * reads "stable". It says what changed, never why.
 *
 * A value is answered as the report printed it (issue 47): a value in a unit is that unit's value
 * exactly, and only the other unit is converted, so 3.6 mmol/L never reads back as 3.59 mmol/L
 * through a rounded mg/dL.
 */
import { appError } from '../../base/errors.ts';
import { readerUserId } from '../../auth/principal.ts';
import type { LabResult } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { personZone } from '../profile/index.ts';
import { outOfRangeOf, rangeOf } from './labs.reports.ts';
import type { RangeView } from './labs.reports.ts';
import type { LabMarkerDef, MarkerUnit, UnitValue } from './labs.types.ts';
import { convertValue, roundForUnit, significantDigits } from './labs.units.ts';
import { allMarkers, codingOf, markerById, qualifierOfCode } from './labs.vocabulary.ts';

/** A relative change below this reads as stable. */
export const STABLE_CHANGE = 0.05;

/** One value of a marker on one report. */
export interface MarkerPoint {
  reportId: string;
  /** YYYY-MM-DD in the person's zone */
  drawnOn: string;
  /** the LOINC code of the value: its unit's and qualifier's (1558-6 fasting glucose) */
  loinc: string;
  /** what the report said of the test ("fasting", "calculated"), or null */
  qualifier: string | null;
  /** as the report printed it */
  value: number;
  unit: string;
  /**
   * the value in the marker's primary unit, and in its second common unit (null: none): the
   * printed value itself in the unit it was printed in, converted only into the other
   */
  primary: UnitValue | null;
  other: UnitValue | null;
  range: RangeView | null;
  flag: string | null;
  outOfRange: 'high' | 'low' | null;
  /** this value minus the previous one, in the primary unit (null for the first) */
  change: number | null;
  /**
   * this value minus the previous one in this value's unit, the previous converted when it was
   * printed in another (null for the first, or when it cannot be converted)
   */
  changeInUnit: number | null;
}

/** A marker with its latest value. */
export interface MarkerSummary {
  markerId: string;
  loinc: string;
  name: string;
  category: string;
  count: number;
  latest: MarkerPoint;
  /** up, down or stable against the previous value; null with one value */
  trend: 'up' | 'down' | 'stable' | null;
}

/** One marker's history. */
export interface MarkerHistory {
  markerId: string;
  loinc: string;
  name: string;
  category: string;
  /** the units it is reported in, the primary first */
  units: string[];
  /** oldest first */
  points: MarkerPoint[];
  trend: 'up' | 'down' | 'stable' | null;
  timeZone: string;
  note: string;
}

type Row = LabResult & { drawnOn: string };

/** The person's live values (of live reports), oldest draw first, optionally of one marker. */
async function valuesOf(ctx: AuthedContext, markerId?: string): Promise<Row[]> {
  const userId = readerUserId(ctx);
  const reports = await ctx.prisma.labReport.findMany({
    where: { userId, deletedAt: null },
    select: { id: true, drawnOn: true },
  });
  const drawn = new Map(reports.map((r) => [r.id, r.drawnOn]));
  const rows = await ctx.prisma.labResult.findMany({
    where: {
      userId,
      deletedAt: null,
      reportId: { in: [...drawn.keys()] },
      ...(markerId ? { markerId } : {}),
    },
  });
  return rows
    .map((r) => ({ ...r, drawnOn: drawn.get(r.reportId) ?? '' }))
    .sort(
      (a, b) => a.drawnOn.localeCompare(b.drawnOn) || a.createdAt.getTime() - b.createdAt.getTime(),
    );
}

/**
 * A value in one of the marker's units: the value itself when it was printed in that unit, else
 * converted from the printed value and rounded for the unit (null: no such unit, or no conversion).
 */
function inUnit(
  def: LabMarkerDef,
  value: number,
  unit: string,
  target: MarkerUnit | undefined,
): UnitValue | null {
  if (!target) return null;
  if (unit === target.ucum) return { value, unit };
  const converted = convertValue(def, value, unit, target.ucum);
  if (converted === null) return null;
  return { value: roundForUnit(target, converted, significantDigits(value)), unit: target.ucum };
}

function pointsOf(def: LabMarkerDef, rows: Row[]): MarkerPoint[] {
  let previous: number | null = null;
  let before: Row | null = null;
  return rows.map((r) => {
    const range = rangeOf(def, r);
    const qualifier = qualifierOfCode(def, r.loinc);
    const primary = inUnit(def, r.value, r.unit, def.units[0]);
    const change = primary && previous !== null ? round(primary.value - previous) : null;
    const beforeHere = before ? convertValue(def, before.value, before.unit, r.unit) : null;
    if (primary) previous = primary.value;
    before = r;
    return {
      reportId: r.reportId,
      drawnOn: r.drawnOn,
      loinc: codingOf(def, r.unit, qualifier).loinc,
      qualifier: qualifier?.id ?? null,
      value: r.value,
      unit: r.unit,
      primary,
      other: inUnit(def, r.value, r.unit, def.units[1]),
      range,
      flag: r.flag,
      outOfRange: outOfRangeOf(def, r.value, r.unit, range),
      change,
      changeInUnit: beforeHere === null ? null : round(r.value - beforeHere),
    };
  });
}

const round = (x: number): number => Number(x.toPrecision(4));

/** up, down or stable from the last two points. */
export function trendOf(points: MarkerPoint[]): 'up' | 'down' | 'stable' | null {
  if (points.length < 2) return null;
  const last = points[points.length - 1];
  const before = points[points.length - 2];
  if (!last.primary || !before.primary || last.change === null) return null;
  const base = Math.abs(before.primary.value) || 1;
  if (Math.abs(last.change) / base < STABLE_CHANGE) return 'stable';
  return last.change > 0 ? 'up' : 'down';
}

/** Every marker the person has values of, with the latest value and its trend, by category. */
export async function markerSummaries(ctx: AuthedContext): Promise<MarkerSummary[]> {
  const rows = await valuesOf(ctx);
  const byMarker = new Map<string, Row[]>();
  for (const r of rows) byMarker.set(r.markerId, [...(byMarker.get(r.markerId) ?? []), r]);
  return allMarkers().flatMap((def) => {
    const own = byMarker.get(def.id);
    if (!own) return [];
    const points = pointsOf(def, own);
    return [
      {
        markerId: def.id,
        loinc: def.loinc,
        name: def.name,
        category: def.category,
        count: points.length,
        latest: points[points.length - 1],
        trend: trendOf(points),
      },
    ];
  });
}

/** The person's markers and the vocabulary a report's values are read against. */
export interface MarkerList {
  markers: MarkerSummary[];
  vocabulary: LabMarkerDef[];
}

/** The person's markers (latest value and trend) and every marker the platform reads. */
export async function bloodMarkers(ctx: AuthedContext): Promise<MarkerList> {
  return { markers: await markerSummaries(ctx), vocabulary: allMarkers() };
}

/** One marker's history in both units with each report's range. Unknown marker: 404. */
export async function bloodMarker(
  ctx: AuthedContext,
  options: { markerId: string },
): Promise<MarkerHistory> {
  const def = markerById(options.markerId);
  if (!def) {
    throw appError(
      'NOT_FOUND',
      `Unknown marker "${options.markerId}": blood_marker_list lists the person's markers.`,
    );
  }
  const points = pointsOf(def, await valuesOf(ctx, def.id));
  return {
    markerId: def.id,
    loinc: def.loinc,
    name: def.name,
    category: def.category,
    units: def.units.map((u) => u.ucum),
    points,
    trend: trendOf(points),
    timeZone: await personZone(ctx),
    note: points.length
      ? 'Ranges are the report’s own where it printed one; "typical adult range" marks a fallback, with its source. A change says what moved, not why.'
      : `No ${def.name} value yet: add a report with blood_report_create.`,
  };
}
