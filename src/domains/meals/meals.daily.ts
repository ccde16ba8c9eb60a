/**
 * The person's meals summarised per local day in SQL for discovery's signals (issue 33): how many
 * meals, the carbohydrate and sugar eaten (the meals' stored totals summed) and when the last meal
 * was eaten. One statement whatever the range's length; live meals only (tombstones left out).
 *
 * NOTE: the caller decides whose data is read: `userId` is bound as given (discovery's run passes
 * the person it was started for); never an id from a request unchecked. The zone is bound too.
 */
import type { Db, DbTx } from '../../db/client.ts';
import { dayBounds } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

/** One local day's meals. */
export interface DailyMealsView {
  date: LocalDate;
  meals: number;
  carbsG: number;
  sugarG: number;
  /** local time of the day's last meal in hours since midnight (21.5: 21:30) */
  lastMealHour: number;
}

/** Meals per local day from..to that has live meals, oldest first. */
export async function dailyMealsOf(
  db: Db | DbTx,
  options: { userId: number; zone: string; from: LocalDate; to: LocalDate },
): Promise<DailyMealsView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  const rows = await db.$queryRaw<
    { d: string; n: number; carbs: number; sugar: number; last: number }[]
  >`
    SELECT d::text AS d, count(*)::int AS n, sum(carbs_g)::float8 AS carbs,
           sum(sugar_g)::float8 AS sugar,
           (extract(epoch FROM (max(t) - d::timestamp)) / 3600)::float8 AS last
      FROM (SELECT (eaten_at AT TIME ZONE ${options.zone}::text)::date AS d,
                   eaten_at AT TIME ZONE ${options.zone}::text AS t, carbs_g, sugar_g
              FROM meals
             WHERE user_id = ${options.userId}::int AND deleted_at IS NULL
               AND eaten_at >= ${start.toISOString()}::timestamptz
               AND eaten_at < ${end.toISOString()}::timestamptz) m
     GROUP BY d ORDER BY d`;
  return rows.map((r) => ({
    date: r.d,
    meals: r.n,
    carbsG: r.carbs,
    sugarG: r.sugar,
    lastMealHour: r.last,
  }));
}
