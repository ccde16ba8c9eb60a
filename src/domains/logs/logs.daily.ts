/**
 * The person's log entries summarised per local day in SQL: hydration (ml) summed per day of the
 * person's zone (goals), and the day's logged weights (health's activity and body-composition trend).
 * NOTE: ownership. Every read is of readerUserId(ctx), a bound parameter; the zone is bound too.
 */
import { readerUserId } from '../../auth/principal.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { dayBounds } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

export interface DailyHydrationView {
  date: LocalDate;
  /** the day's live hydration entries summed, ml */
  ml: number;
  entries: number;
}

/** Hydration of each local day from..to that has live entries (tombstones are not counted). */
export async function dailyHydration(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string },
): Promise<DailyHydrationView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  const rows = await ctx.prisma.$queryRaw<{ d: string; ml: number; n: number }[]>`
    SELECT ((logged_at AT TIME ZONE ${options.zone}::text)::date)::text AS d,
           coalesce(sum(value), 0)::float8 AS ml, count(*)::int AS n
      FROM log_entries
     WHERE user_id = ${readerUserId(ctx)}::int AND kind = 'hydration' AND deleted_at IS NULL
       AND logged_at >= ${start.toISOString()}::timestamptz AND logged_at < ${end.toISOString()}::timestamptz
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ date: r.d, ml: r.ml, entries: r.n }));
}

export interface DailyWeightView {
  date: LocalDate;
  /** the day's last logged weight, kg, when it was logged and by what (phone, manual or mcp) */
  lastKg: number;
  lastAt: Date;
  lastSource: string;
  minKg: number;
  maxKg: number;
  /** live weight entries that day */
  entries: number;
}

/** The logged weights of each local day from..to that has live weight entries, oldest first. */
export async function dailyWeights(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string },
): Promise<DailyWeightView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  // a person logs a few weights a day, so the ordered aggregates sort next to nothing
  const rows = await ctx.prisma.$queryRaw<
    {
      d: string;
      last: number;
      last_at: Date;
      source: string;
      min: number;
      max: number;
      n: number;
    }[]
  >`
    SELECT ((logged_at AT TIME ZONE ${options.zone}::text)::date)::text AS d,
           (array_agg(value ORDER BY logged_at DESC, id DESC))[1]::float8 AS last,
           max(logged_at) AS last_at,
           (array_agg(source ORDER BY logged_at DESC, id DESC))[1] AS source,
           min(value)::float8 AS min, max(value)::float8 AS max, count(*)::int AS n
      FROM log_entries
     WHERE user_id = ${readerUserId(ctx)}::int AND kind = 'weight' AND deleted_at IS NULL
       AND value IS NOT NULL
       AND logged_at >= ${start.toISOString()}::timestamptz AND logged_at < ${end.toISOString()}::timestamptz
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({
    date: r.d,
    lastKg: r.last,
    lastAt: new Date(r.last_at),
    lastSource: r.source,
    minKg: r.min,
    maxKg: r.max,
    entries: r.n,
  }));
}
