/**
 * The one clock (issue 48): every wall-clock time the server reads comes from here, so that a test
 * can set "now" and the whole server agrees. `npm run lint` forbids `new Date()` and `Date.now()`
 * anywhere else in the server's code (eslint.config.js); a duration is measured with
 * `performance.now()`, which no setting moves.
 *
 * The clock runs on from where it is set, as the wall clock would: `clock.set(at)` makes now `at`
 * and the time goes on from there, at the wall clock's pace, so timeouts and rate-limit windows
 * behave as they do unset. The setting `CLOCK_AT` (config.ts; for tests and demonstrations, never
 * in production) sets it when the app is created.
 *
 * NOTE: the database's own `now()` is another clock: SQL that needs "now" takes it as a parameter
 * from here where a test depends on it.
 */

/** How far the clock runs ahead of the wall clock, in ms (0: the wall clock). */
let offsetMs = 0;

/** `text` as ms since the epoch, or an error naming the setting. */
function parseAt(text: string, name: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`${name} is not an ISO date-time: ${text}`);
  return ms;
}

export const clock = {
  /** ms since the epoch, now */
  ms(): number {
    return Date.now() + offsetMs;
  },
  /** now, as a Date */
  now(): Date {
    return new Date(Date.now() + offsetMs);
  },
  /** Sets now to `at` (a Date, ms, or an ISO date-time), running on from there; null: the wall clock. */
  set(at: Date | number | string | null): void {
    if (at === null) {
      offsetMs = 0;
      return;
    }
    const ms = typeof at === 'string' ? parseAt(at, 'clock.set') : +at;
    offsetMs = ms - Date.now();
  },
};
