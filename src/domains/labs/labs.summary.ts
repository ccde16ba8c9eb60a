/**
 * The labs summary (issue 36): the markers whose latest value is out of its range, what changed
 * since the value before, and, for a person with CGM data, the latest HbA1c beside the glucose
 * management indicator (GMI) of the 90 days before the draw: the difference is the glycation gap.
 *
 * Plain words, never a diagnosis: an out-of-range value is "above/below the range", a change says
 * what moved, and the gap says what it can reflect and what it cannot tell. A GMI needs at least
 * GMI_MIN_DAYS (glucose's, 14) days' worth of 5-minute readings in the window (the consensus minimum for GMI);
 * below it the summary says so instead of giving a number.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, dayBounds } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { GMI_MIN_DAYS, glucosePoints, trendStats } from '../glucose/index.ts';
import { personZone } from '../profile/index.ts';
import { markerSummaries } from './labs.markers.ts';
import type { MarkerSummary } from './labs.markers.ts';

/** Days of CGM before the draw the GMI is read over. */
export const GMI_WINDOW_DAYS = 90;

/** The HbA1c beside the CGM. */
export interface GlycationGap {
  hba1cPercent: number;
  drawnOn: string;
  /** GMI over the window, %; null when the CGM data is too thin */
  gmiPercent: number | null;
  /** HbA1c - GMI, percentage points; null without a GMI */
  gapPercent: number | null;
  readings: number;
  /** percent of the window's expected 5-minute readings present */
  coveragePct: number;
  window: { from: string; to: string };
  words: string;
}

/** The summary. */
export interface LabsSummary {
  /** latest values out of their range */
  outOfRange: MarkerSummary[];
  /** latest values that moved (up or down) since the one before */
  changed: MarkerSummary[];
  glycationGap: GlycationGap | null;
  /** plain sentences */
  words: string[];
  timeZone: string;
}

const fmt = (x: number): string => String(Number(x.toPrecision(3)));

function outOfRangeWords(m: MarkerSummary): string {
  const l = m.latest;
  const where = l.outOfRange === 'high' ? 'above' : 'below';
  const range = l.range
    ? ` (${l.range.origin === 'report' ? 'the report’s range' : `${l.range.origin}, ${l.range.source}`}: ${l.range.text} ${l.range.unit})`
    : '';
  // the value as printed, never re-rounded (issue 47)
  return `${m.name} ${l.value} ${l.unit} on ${l.drawnOn} is ${where} the range${range}.`;
}

/**
 * A change in plain words, in the unit the latest value was printed in (as printed: issue 47). A
 * change of a value in % (HbA1c, haematocrit) is in percentage points: "up by 1.1 %" would read as
 * a relative change.
 */
function changedWords(m: MarkerSummary): string {
  const l = m.latest;
  const inUnit = l.changeInUnit !== null;
  const unit = inUnit ? l.unit : (l.primary?.unit ?? l.unit);
  const change = Math.abs((inUnit ? l.changeInUnit : l.change) ?? 0);
  const now = inUnit ? String(l.value) : fmt(l.primary?.value ?? l.value);
  const by = unit === '%' ? `${fmt(change)} percentage points` : `${fmt(change)} ${unit}`;
  return `${m.name} went ${m.trend} by ${by} since the value before (now ${now} ${unit}).`;
}

/** The latest HbA1c in %, when there is one. */
function latestHba1c(markers: MarkerSummary[]): { percent: number; drawnOn: string } | null {
  const m = markers.find((x) => x.markerId === 'hba1c');
  if (!m) return null;
  const l = m.latest;
  const percent =
    l.unit === '%'
      ? l.value
      : l.other?.unit === '%'
        ? l.other.value
        : l.primary?.unit === '%'
          ? l.primary.value
          : null;
  return percent === null ? null : { percent, drawnOn: l.drawnOn };
}

async function glycationGap(
  ctx: AuthedContext,
  hba1c: { percent: number; drawnOn: string },
  zone: string,
): Promise<GlycationGap | null> {
  const to: LocalDate = hba1c.drawnOn;
  const from = addDays(to, -GMI_WINDOW_DAYS);
  const start = dayBounds(from, zone).start;
  const end = dayBounds(to, zone).end;
  const points = await glucosePoints(ctx, { start, end });
  if (points.length === 0) return null;
  const stats = trendStats(points, start, end);
  const days = (stats.count * 5) / (24 * 60);
  const window = { from, to };
  if (days < GMI_MIN_DAYS || stats.gmi === null) {
    return {
      hba1cPercent: hba1c.percent,
      drawnOn: hba1c.drawnOn,
      gmiPercent: null,
      gapPercent: null,
      readings: stats.count,
      coveragePct: stats.coveragePct,
      window,
      words: `Your CGM holds about ${Math.round(days)} days of readings in the ${GMI_WINDOW_DAYS} days before your HbA1c of ${hba1c.drawnOn}; a GMI needs at least ${GMI_MIN_DAYS} days, so the two cannot be compared yet.`,
    };
  }
  const gap = Math.round((hba1c.percent - stats.gmi) * 10) / 10;
  const size =
    Math.abs(gap) < 0.5
      ? 'close to each other, as is usual'
      : `${gap > 0 ? 'HbA1c above' : 'HbA1c below'} the GMI by ${fmt(Math.abs(gap))} points, a gap seen in many people`;
  return {
    hba1cPercent: hba1c.percent,
    drawnOn: hba1c.drawnOn,
    gmiPercent: stats.gmi,
    gapPercent: gap,
    readings: stats.count,
    coveragePct: stats.coveragePct,
    window,
    words:
      `HbA1c ${fmt(hba1c.percent)} % on ${hba1c.drawnOn}; your CGM's GMI over the ${GMI_WINDOW_DAYS} days before was ${fmt(stats.gmi)} % (${stats.count} readings, ${Math.round(stats.coveragePct)} % coverage): ${size}. ` +
      'The difference (the glycation gap) can reflect how long red blood cells live, anaemia or iron levels, kidney function, CGM accuracy and missing CGM days; it is not a diagnosis. Talk it over with your clinician before reading either number differently.',
  };
}

/** Out-of-range markers, what changed, and HbA1c beside the CGM's GMI, in plain words. */
export async function bloodSummary(ctx: AuthedContext): Promise<LabsSummary> {
  const markers = await markerSummaries(ctx);
  const zone = await personZone(ctx);
  const outOfRange = markers.filter((m) => m.latest.outOfRange !== null);
  const changed = markers.filter((m) => m.trend === 'up' || m.trend === 'down');
  const hba1c = latestHba1c(markers);
  const gap = hba1c ? await glycationGap(ctx, hba1c, zone) : null;
  const words = [
    ...(markers.length === 0 ? ['No blood report yet: add one with blood_report_create.'] : []),
    ...outOfRange.map(outOfRangeWords),
    ...(markers.length > 0 && outOfRange.length === 0
      ? ['Every latest value is within its range.']
      : []),
    ...changed.map(changedWords),
    ...(gap ? [gap.words] : []),
    ...(markers.length > 0
      ? [
          'Ranges differ between labs; a value just outside a range is often normal for that person. This is not a diagnosis.',
        ]
      : []),
  ];
  return { outOfRange, changed, glycationGap: gap, words, timeZone: zone };
}
