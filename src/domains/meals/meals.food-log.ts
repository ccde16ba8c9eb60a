/**
 * What a person logged, per catalogue food, as SQL for another domain's statement. The foods domain
 * ranks its search, recommendations and history by it in one statement each, without naming the
 * meals tables: meals owns this SQL (docs/decisions.md, "The house in order (issue 12)") and gives
 * it to the foods services as FOOD_LOG (meals.food-log-schema.ts, the AI meal analysis).
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { FoodLogSource } from '../foods/index.ts';

export interface FoodLogSqlOptions {
  /** whose live items; null: nobody (no rows, an anonymous search) */
  userId: number | null;
  /** also count the items eaten within `hourWindow` hours of this hour of the day in `zone` */
  near?: { zone: string; hourWindow: number } | null;
}

/**
 * A SELECT (for a CTE) of one row per catalogue food the person logged: `food_id`, `times_logged`
 * (int: live items), `last_logged_at` (when the latest was logged) and `near_now` (int: items eaten
 * within the window around this hour of the day, when the meal's time is unknown the item's; 0
 * without `near`).
 */
export function foodLogSql(options: FoodLogSqlOptions): Prisma.Sql {
  const { userId, near } = options;
  const mine = Prisma.sql`mi.user_id = ${userId}::int AND mi.food_id IS NOT NULL AND mi.deleted_at IS NULL`;
  if (!near) {
    return Prisma.sql`
      SELECT mi.food_id, count(*)::int AS times_logged, max(mi.created_at) AS last_logged_at, 0 AS near_now
        FROM meal_items mi WHERE ${mine} GROUP BY mi.food_id`;
  }
  return Prisma.sql`
    SELECT mi.food_id, count(*)::int AS times_logged, max(mi.created_at) AS last_logged_at,
           (count(*) FILTER (WHERE least(abs(h.hour - h.now_hour), 24 - abs(h.hour - h.now_hour))
                                   <= ${near.hourWindow}::int))::int AS near_now
      FROM meal_items mi
      LEFT JOIN meals ml ON ml.id = mi.meal_id AND ml.user_id = mi.user_id
      CROSS JOIN LATERAL (
        SELECT extract(hour FROM COALESCE(ml.eaten_at, mi.created_at AT TIME ZONE 'UTC') AT TIME ZONE ${near.zone}::text) AS hour,
               extract(hour FROM now() AT TIME ZONE ${near.zone}::text) AS now_hour
      ) h
     WHERE ${mine}
     GROUP BY mi.food_id`;
}

/**
 * A SELECT (for a CTE) of how many people log each catalogue food: `food_id`, `people` (int),
 * counting live items of every account (no one's items are named, only counted).
 */
export function foodLoggersSql(): Prisma.Sql {
  return Prisma.sql`
    SELECT food_id, count(DISTINCT user_id)::int AS people FROM meal_items
     WHERE food_id IS NOT NULL AND deleted_at IS NULL GROUP BY food_id`;
}

/** The meals domain's food log, as the foods domain's ranking statements take it. */
export const FOOD_LOG: FoodLogSource = { mine: foodLogSql, loggers: foodLoggersSql };
