/**
 * The shapes discovery's parts share (issue 33): a signal is one daily series of a person's data
 * (discovery.signals.ts reads them in SQL), a pair result is one driver -> outcome test of a run
 * (discovery.stats.ts, pure). Constants of the method: docs/discovery.md.
 */
import type { LocalDate } from '../../platform/local-dates.ts';

/** What area of the person's data a signal comes from. */
export type SignalDomain =
  | 'sleep'
  | 'activity'
  | 'heart'
  | 'glucose'
  | 'meals'
  | 'logs'
  | 'room'
  | 'observations';

/**
 * How a signal may take part in a pair: a driver (something the person does or meets), an outcome
 * (something the person wants to move), or either.
 */
export type SignalRole = 'driver' | 'outcome' | 'both';

/** One signal's identity, as the catalogue and the signals read answer it. */
export interface SignalInfo {
  /** stable key: `steps`, `glucose_fasting`, `log:custom:<name>`, `observation:<label>` */
  key: string;
  /** a person's words: "Steps", "Fasting glucose" */
  label: string;
  /** unit of a day's value: "steps", "mg/dL", "%", "hour of day", "0/1", "1-5" */
  unit: string;
  domain: SignalDomain;
  role: SignalRole;
  /** how a day's value is made, in a sentence ("sum of the day's steps, largest source") */
  aggregation: string;
  /** true when the value is 0/1 (a day with or without it): compared as with/without days */
  binary: boolean;
}

/** A signal with its values, one per local day that has data. */
export interface DailySeries extends SignalInfo {
  values: Map<LocalDate, number>;
}

/**
 * Which periods are paired: 0 the outcome's first period that does not begin before the driver's
 * ends (a day's steps -> the night after it; a night -> the day after it; a day -> the same day),
 * `lag` the one `lag` days after that (discovery.stats.ts alignShift, issue 47).
 */
export type Lag = 0 | 1 | 2 | 3;

/** One driver -> outcome test. */
export interface PairResult {
  driver: string;
  outcome: string;
  lag: Lag;
  /** days with both values (driver day d, outcome day d + alignShift + lag) */
  n: number;
  /** days in the high (or with) group and in the low (or without) group */
  nHigh: number;
  nLow: number;
  /**
   * `difference`: outcome mean of high-driver days minus low-driver days (split at the driver's
   * median, or with/without for a binary driver), adjusted for day of week; `slope`: outcome
   * change per unit of driver, adjusted for day of week
   */
  method: 'difference' | 'slope';
  /** null when not enough data */
  effect: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** two-sided p of the effect; null when not tested */
  p: number | null;
  /** Benjamini-Hochberg adjusted p across every pair tested in the run; null when not tested */
  q: number | null;
  /** q <= DISCOVERY_Q */
  significant: boolean;
  /** the sign of the effect: higher driver goes with higher (or lower) outcome */
  direction: 'higher' | 'lower' | null;
  /** set when not tested: what is missing, in words ("9 paired days of 14; 3 low days of 5") */
  notEnoughData: string | null;
}

/** The method's constants (docs/discovery.md). */
export const DISCOVERY_Q = 0.1;
export const MIN_PAIRED_DAYS = 14;
export const MIN_PER_GROUP = 5;
/** a run looks back this far by default, and at most this far */
export const RUN_DAYS_DEFAULT = 90;
export const RUN_DAYS_MAX = 366;
