/**
 * Discovery's limits and small rules (issue 33): observation labels, pages, how many runs a person
 * keeps, the job queue's name and its retry rules. Constants and pure functions only.
 */

/** An observation's label: 1..60 characters once normalised. */
export const LABEL_MAX = 60;
/** An observation's optional note. */
export const NOTE_MAX = 280;
/** Intensity bounds (1 slight .. 5 strong). */
export const INTENSITY_MIN = 1;
export const INTENSITY_MAX = 5;
/** A person may hold at most this many observations (refused beyond: delete old ones). */
export const OBSERVATIONS_MAX = 20_000;
/** Observation pages. */
export const OBSERVATIONS_PAGE_DEFAULT = 50;
export const OBSERVATIONS_PAGE_MAX = 200;
/** The default window of the observations list and of the signals read, in days. */
export const OBSERVATIONS_DAYS_DEFAULT = 30;
/** The hypotheses of one read (the significant first). */
export const HYPOTHESES_PAGE_DEFAULT = 20;
export const HYPOTHESES_PAGE_MAX = 100;
/**
 * Runs a person keeps: older finished runs and their hypotheses are deleted by a new start. (The
 * starts a person may make in a UTC day are config, DISCOVERY_RUNS_PER_DAY, counted apart from the
 * rows kept: discovery.runs.ts.)
 */
export const RUNS_KEPT = 10;

/** The pg-boss queue of runs. */
export const DISCOVERY_QUEUE = 'discovery-run';
/** A running run without a heartbeat for this long is taken back (its process died). */
export const DISCOVERY_STALE_MS = 5 * 60_000;
export const DISCOVERY_STALE_CHECK_MS = 60_000;
/** After this many starts a run fails instead of being queued again. */
export const DISCOVERY_MAX_ATTEMPTS = 3;

/** The statuses of a run. */
export const RUN_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** run: the default pairs at lags 0 and 1; explore: the pairs around one signal at lags 0..3. */
export type RunKind = 'run' | 'explore';

/** The label as stored and as its signal's key: trimmed, lower case, inner spaces collapsed. */
export function normaliseLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}
