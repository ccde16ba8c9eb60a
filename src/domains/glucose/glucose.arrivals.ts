/**
 * New glucose for a person (issue 33): every write path that stores readings (one reading, a
 * batch, a sensor payload, a sync push of glucose_readings) announces what arrived, and domains
 * above glucose that act on fresh glucose (insights' predicted lows) listen with `onGlucoseStored`.
 * A listener is registered from its own module, so glucose never imports a domain that (through
 * its own imports) sits above it; the same shape as account's `onAccountDeletion`.
 *
 * NOTE: an announcement must never fail or slow the write that made it: it runs after the write,
 * listeners only queue work (a pg-boss job), and a listener that throws or rejects is logged and
 * forgotten.
 */
import type { SyncStored, SyncStoredDeps } from '../../platform/synced-tables.ts';

/** What a listener may use: the app's job queue, config and logger (a request's context has them). */
export type GlucoseArrivalDeps = SyncStoredDeps;

/** Readings just stored for one person. */
export interface GlucoseArrival {
  userId: number;
  /** the newest reading's timestamp among them */
  latest: Date;
  /** how many readings the write carried */
  readings: number;
}

/** One domain's listener: queues what it does with fresh glucose; resolves once queued. */
export type GlucoseArrivalListener = (
  deps: GlucoseArrivalDeps,
  arrival: GlucoseArrival,
) => Promise<void>;

const listeners: { name: string; run: GlucoseArrivalListener }[] = [];

/** Adds a domain's listener (once per name: a module loaded twice registers once). */
export function onGlucoseStored(name: string, run: GlucoseArrivalListener): void {
  if (!listeners.some((l) => l.name === name)) listeners.push({ name, run });
}

/**
 * Tells every listener that readings arrived; returns at once (the write does not wait), and a
 * listener's failure is logged, never thrown.
 */
export function glucoseStored(deps: GlucoseArrivalDeps, arrival: GlucoseArrival): void {
  if (arrival.readings === 0 || Number.isNaN(arrival.latest.getTime())) return;
  for (const l of listeners) {
    void Promise.resolve()
      .then(() => l.run(deps, arrival))
      .catch((err: unknown) =>
        deps.log.warn({ err, listener: l.name, userId: arrival.userId }, 'glucose listener failed'),
      );
  }
}

/** The newest timestamp of readings (Dates or ms), or an invalid date when there are none. */
export function latestOf(times: Iterable<unknown>): Date {
  let max = -Infinity;
  for (const t of times) {
    const ms = t instanceof Date ? t.getTime() : typeof t === 'number' ? t : NaN;
    if (ms > max) max = ms;
  }
  return new Date(Number.isFinite(max) ? max : NaN);
}

/** The sync push's hook for glucose_readings (GLUCOSE_SYNCED_TABLES): announces what it stored. */
export function glucosePushed(deps: SyncStoredDeps, stored: SyncStored): void {
  glucoseStored(deps, {
    userId: stored.userId,
    latest: latestOf(stored.records.map((r) => r.timestamp)),
    readings: stored.records.length,
  });
}
