/**
 * The person's room-monitor readings summarised per local day in SQL for discovery's signals
 * (issue 33): the day's mean CO2 and temperature over all the person's monitors. One statement
 * whatever the range's length (a year of 5-minute readings is about 105,000 rows, grouped in SQL).
 * Readings attached to nobody are never read.
 *
 * NOTE: the caller decides whose data is read: `userId` is bound as given (discovery's run passes
 * the person it was started for); never an id from a request unchecked. The zone is bound too.
 */
import type { Db, DbTx } from '../../db/client.ts';
import { dayBounds } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

/** One local day's room readings; a figure is null when no reading of the day had it. */
export interface DailyRoomView {
  date: LocalDate;
  readings: number;
  co2Ppm: number | null;
  temperatureC: number | null;
}

/** Room readings per local day from..to that has readings, oldest first. */
export async function dailyRoomOf(
  db: Db | DbTx,
  options: { userId: number; zone: string; from: LocalDate; to: LocalDate },
): Promise<DailyRoomView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  // recorded_at is a timestamp without zone holding UTC
  const rows = await db.$queryRaw<
    { d: string; n: number; co2: number | null; temp: number | null }[]
  >`
    SELECT (((recorded_at AT TIME ZONE 'UTC') AT TIME ZONE ${options.zone}::text)::date)::text AS d,
           count(*)::int AS n, avg(co2)::float8 AS co2, avg(temperature)::float8 AS temp
      FROM monitor_readings
     WHERE user_id = ${options.userId}::int
       AND recorded_at >= (${start.toISOString()}::timestamptz AT TIME ZONE 'UTC')
       AND recorded_at < (${end.toISOString()}::timestamptz AT TIME ZONE 'UTC')
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ date: r.d, readings: r.n, co2Ppm: r.co2, temperatureC: r.temp }));
}
