/**
 * Date-times written without an offset are the person's local time (issue 30). An agent writes
 * "2026-11-27T08:00:00" for breakfast at eight, and a phone sends the wall clock it shows; both mean
 * eight o'clock in the person's profile time zone, never eight o'clock UTC. A date alone
 * ("2026-11-27") is local midnight, as Pydantic reads a date given for a datetime.
 *
 * The DateTime scalar cannot take a context argument, so the request's zone travels in an
 * AsyncLocalStorage scope that the executors open (src/schema/local-times.ts). Outside a scope
 * (scripts, the schema's validation pass) an offset-less time counts as UTC, as before.
 *
 * A wall time that a DST change skips (02:30 on a spring-forward night) moves forward by the gap;
 * one that happens twice (02:30 on a fall-back night) is the earlier of the two, as Temporal's
 * "compatible" disambiguation does.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { offsetMinutes } from './local-dates.ts';

/** The zone offset-less date-times are read in, and whether answers write times in it. */
export interface LocalTimeScope {
  /** IANA zone (zoneOrUtc of the person's profile) */
  zone: string;
  /** true: DateTime answers are written with the zone's offset ("…T09:00:00.000+01:00"), not Z */
  writeOffsets: boolean;
}

export const localTimeScope = new AsyncLocalStorage<LocalTimeScope>();

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` (or a space for the T), and nothing after. */
const OFFSETLESS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?$/;

/** A JSON string holding an offset-less date-time (a quick test over a whole variables document). */
const OFFSETLESS_IN_JSON = /"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?"/;

const DAY_MS = 86_400_000;

/** Whether `text` is a date-time (or a date) without an offset. */
export function isOffsetless(text: string): boolean {
  return OFFSETLESS.test(text);
}

/** Whether any string in `value` (e.g. a request's variables) is an offset-less date or date-time. */
export function mentionsOffsetless(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return OFFSETLESS_IN_JSON.test(typeof value === 'string' ? `"${value}"` : JSON.stringify(value));
}

/**
 * The instant of the offset-less `text` read as wall-clock time in `zone`; null when `text` is not
 * offset-less or names no real time (2026-02-30, 24:00).
 */
export function instantOfLocal(text: string, zone: string): Date | null {
  const m = OFFSETLESS.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
  const millis = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(wall);
  if (
    Number.isNaN(wall) ||
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  )
    return null;
  if (year < 1) return check; // Intl cannot place year 0 in a zone; the caller's range check refuses it
  // the offsets on either side of any transition near the wall time; a candidate is the instant
  // when the zone's clock shows `wall` under that offset
  const before = offsetMinutes(zone, wall - DAY_MS);
  const after = offsetMinutes(zone, wall + DAY_MS);
  const candidates = [wall - before * 60_000, wall - after * 60_000].filter(
    (t) => t + offsetMinutes(zone, t) * 60_000 === wall,
  );
  // both: the wall time happens twice (take the earlier); neither: DST skipped it (move forward)
  return new Date(candidates.length ? Math.min(...candidates) : wall - before * 60_000);
}

/**
 * A DateTime argument as the scalar receives it: an offset-less string is wall time in the
 * request's zone (UTC outside a scope); anything else as `Date` reads it. Null when unreadable.
 */
export function dateTimeOfInput(value: unknown): Date | null {
  if (typeof value === 'string') {
    const text = value.trim();
    if (OFFSETLESS.test(text))
      return instantOfLocal(text, localTimeScope.getStore()?.zone ?? 'UTC');
    const d = new Date(text);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  if (typeof value === 'number') {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

/** `instant` as ISO 8601 with the zone's offset at that instant: 2026-11-27T09:00:00.000+01:00. */
export function isoWithOffset(instant: Date, zone: string): string {
  const t = instant.getTime();
  const offset = offsetMinutes(zone, t);
  if (offset === 0) return instant.toISOString();
  const wall = new Date(t + offset * 60_000).toISOString().slice(0, -1);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${wall}${sign}${hh}:${mm}`;
}

/** A DateTime answer: UTC (`Z`), or with the zone's offset inside a scope that writes offsets. */
export function dateTimeOfOutput(instant: Date): string {
  const scope = localTimeScope.getStore();
  return scope?.writeOffsets ? isoWithOffset(instant, scope.zone) : instant.toISOString();
}
