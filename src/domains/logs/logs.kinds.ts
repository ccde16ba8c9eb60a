/**
 * The closed lists and bounds of the logs domain, one place for the GraphQL inputs, the services'
 * checks of an edited entry, and the sync registry (src/domains/sync/sync.tables.ts).
 */
import { clock } from '../../base/clock.ts';

/** The kinds of a log entry (one table, `log_entries`, with typed columns). */
export const LOG_KINDS = [
  'custom_metric',
  'hydration',
  'medication',
  'nicotine',
  'sleep_factor',
  'weight',
  'sun_session',
] as const;
export type LogKind = (typeof LOG_KINDS)[number];

/** Inclusive bounds of a number. */
export interface Bounds {
  min: number;
  max: number;
}

/** Blood pressure, mmHg and beats per minute (plausible for a cuff; diastolic < systolic too). */
export const SYSTOLIC: Bounds = { min: 50, max: 300 };
export const DIASTOLIC: Bounds = { min: 30, max: 200 };
export const PULSE: Bounds = { min: 20, max: 250 };

/** A reading or an entry may be dated at most this far ahead (clock skew between phone and server). */
export const FUTURE_MS = 24 * 3_600_000;
/** ... and not before this date. */
export const EARLIEST = new Date('1900-01-01T00:00:00Z');

/** Why a reading or an entry cannot be dated `ms`, or null: from 1900, at most FUTURE_MS ahead. */
export function loggedAtIssue(ms: number, now: number = clock.ms()): string | null {
  if (ms < EARLIEST.getTime()) return 'must be in 1900 or later';
  if (ms > now + FUTURE_MS) return 'may be at most 24 hours ahead';
  return null;
}

/** Why a reading's diastolic cannot go with its systolic, or null: diastolic below systolic. */
export function bloodPressureOrderIssue(systolic: number, diastolic: number): string | null {
  return diastolic >= systolic
    ? `diastolic (${diastolic}) must be lower than systolic (${systolic})`
    : null;
}

export const NAME_MAX = 100;
export const UNIT_MAX = 20;
export const DOSE_MAX = 50;
export const NOTE_MAX = 1000;

/** What each kind stores: which columns it needs, which it may carry, and the bounds of value and duration. */
export interface KindRule {
  /** the entry needs a name (the metric, the medication, the factor) */
  name: 'required' | 'optional' | 'none';
  /** the entry needs a value; its bounds */
  value: 'required' | 'optional' | 'none';
  valueBounds?: Bounds;
  /** the unit stored for every entry of the kind (null: the caller's, for custom metrics) */
  unit: string | null;
  dose: boolean;
  duration: 'required' | 'none';
  durationBounds?: Bounds;
}

export const KIND_RULES: Readonly<Record<LogKind, KindRule>> = {
  custom_metric: {
    name: 'required',
    value: 'required',
    valueBounds: { min: -1_000_000, max: 1_000_000 },
    unit: null,
    dose: false,
    duration: 'none',
  },
  hydration: {
    name: 'none',
    value: 'required',
    valueBounds: { min: 1, max: 5000 },
    unit: 'ml',
    dose: false,
    duration: 'none',
  },
  medication: { name: 'required', value: 'none', unit: null, dose: true, duration: 'none' },
  nicotine: {
    name: 'optional',
    value: 'required',
    valueBounds: { min: 1, max: 100 },
    unit: 'units',
    dose: false,
    duration: 'none',
  },
  sleep_factor: {
    name: 'required',
    value: 'optional',
    valueBounds: { min: 1, max: 10 },
    unit: null,
    dose: false,
    duration: 'none',
  },
  weight: {
    name: 'none',
    value: 'required',
    valueBounds: { min: 20, max: 400 },
    unit: 'kg',
    dose: false,
    duration: 'none',
  },
  sun_session: {
    name: 'none',
    value: 'optional',
    valueBounds: { min: 0, max: 20 },
    unit: 'uv_index',
    dose: false,
    duration: 'required',
    durationBounds: { min: 1, max: 720 },
  },
};

/** Bounds every value and duration stays within, whatever its kind (the sync registry's check). */
export const ANY_VALUE: Bounds = { min: -1_000_000, max: 1_000_000 };
export const ANY_DURATION: Bounds = { min: 0, max: 1440 };
