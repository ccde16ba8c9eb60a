/**
 * Local calendar days (pure, no I/O): the date of an instant in an IANA zone, day arithmetic, the
 * bounds of a local day (DST-aware) and the dates of a range. Shared by the domains that answer per
 * local day (insights' scores, meals' daily nutrition), so there is one way to count days; the zone
 * itself comes from zoneOrUtc (src/platform/time-zones.ts): a missing or unknown zone counts as UTC.
 * Never reads the clock or the database.
 */

/** A local calendar date, `YYYY-MM-DD`. */
export type LocalDate = string;

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export function isLocalDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

// building a formatter costs far more than using one; a range of days needs thousands of conversions
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

const HOUR_MS = 3_600_000;
/** Hours remembered per zone before its memo starts again (a year of hours is 8,760). */
const MEMO_MAX_HOURS = 50_000;
// zone -> UTC hour -> the offset throughout that hour (only hours without a transition)
const offsetMemo = new Map<string, Map<number, number>>();

/**
 * Minutes the zone is ahead of UTC at `instant` (epoch ms). Remembered per whole UTC hour whose
 * start and end have the same offset (a transition within it, at whatever minute, makes the two
 * differ: such an hour is computed exactly every time), since formatting costs microseconds and
 * answers write thousands of times.
 */
export function offsetMinutes(zone: string, instant: number): number {
  const hour = Math.floor(instant / HOUR_MS);
  let memo = offsetMemo.get(zone);
  const known = memo?.get(hour);
  if (known !== undefined) return known;
  const start = exactOffsetMinutes(zone, hour * HOUR_MS);
  if (start !== exactOffsetMinutes(zone, (hour + 1) * HOUR_MS - 1))
    return exactOffsetMinutes(zone, instant);
  if (!memo || memo.size >= MEMO_MAX_HOURS)
    offsetMemo.set(zone, (memo = new Map<number, number>()));
  memo.set(hour, start);
  return start;
}

function exactOffsetMinutes(zone: string, instant: number): number {
  const parts = formatterFor(zone).formatToParts(new Date(instant));
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

/** The local date of an instant in the zone. */
export function localDateOf(instant: Date, zone: string): LocalDate {
  return new Date(instant.getTime() + offsetMinutes(zone, instant.getTime()) * 60_000)
    .toISOString()
    .slice(0, 10);
}

/** The date `n` days after `date` (negative: before). */
export function addDays(date: LocalDate, n: number): LocalDate {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (to - from). */
export function daysBetween(from: LocalDate, to: LocalDate): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** The instant of local wall-clock `hour`:00 on `date` in the zone (DST-aware: 23- and 25-hour days). */
export function localTime(date: LocalDate, hour: number, zone: string): Date {
  const wall = Date.parse(`${date}T00:00:00Z`) + hour * 3_600_000;
  // the offset at the wall time read as UTC is right except within hours of a transition: refine once
  let t = wall - offsetMinutes(zone, wall) * 60_000;
  t = wall - offsetMinutes(zone, t) * 60_000;
  return new Date(t);
}

/** [start, end) of the local day. */
export function dayBounds(date: LocalDate, zone: string): { start: Date; end: Date } {
  return { start: localTime(date, 0, zone), end: localTime(addDays(date, 1), 0, zone) };
}

/** Every date from `from` to `to`, inclusive, ascending. */
export function datesFrom(from: LocalDate, to: LocalDate): LocalDate[] {
  const n = daysBetween(from, to);
  return Array.from({ length: n + 1 }, (_, i) => addDays(from, i));
}

/** Minutes since local midnight of an instant in the zone, as a wall clock reads (0..1439). */
export function localMinutesOf(instant: Date, zone: string): number {
  const wall = instant.getTime() + offsetMinutes(zone, instant.getTime()) * 60_000;
  return Math.floor((((wall % DAY_MS) + DAY_MS) % DAY_MS) / 60_000);
}

/** The ISO weekday of a local date: 1 (Monday) .. 7 (Sunday). */
export function isoWeekday(date: LocalDate): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay() || 7;
}
