/**
 * The person's log entries summarised per local day in SQL, for goals: hydration (ml) summed per
 * day of the person's zone.
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
