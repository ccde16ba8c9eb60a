/**
 * Raw sensor data -> glucose (pure and versioned). The backend glucose of a sensor is always a
 * function of its stored raw samples and its calibration, so rebuild-from-raw reproduces it exactly;
 * bump PROCESSING_VERSION whenever this function's results change.
 */

/** Version of processRaw(); stored on every reading it computed. */
export const PROCESSING_VERSION = 1;

/** The sensor's reporting range, mg/dL: values outside are clamped (as CGMs report LO/HI). */
export const SENSOR_MIN_MG_DL = 40;
export const SENSOR_MAX_MG_DL = 400;

/** Temperature compensation: raw signal change per °C away from skin reference (fraction). */
const TEMPERATURE_COEFFICIENT = 0.01;
const REFERENCE_TEMPERATURE_C = 33;

export interface RawSample {
  timestamp: Date;
  /** raw sensor counts */
  rawValue: number;
  /** sensor temperature, °C, when reported */
  temperatureC: number | null;
}

export interface Calibration {
  /** mg/dL per raw count */
  slope: number;
  /** mg/dL at zero counts */
  intercept: number;
}

export interface ProcessedReading {
  timestamp: Date;
  valueMgDl: number;
}

/** The glucose of one raw sample: temperature-compensated counts, calibrated, clamped, 0.1 mg/dL. */
export function processSample(sample: RawSample, calibration: Calibration): number {
  const compensated =
    sample.temperatureC === null
      ? sample.rawValue
      : sample.rawValue /
        (1 + TEMPERATURE_COEFFICIENT * (sample.temperatureC - REFERENCE_TEMPERATURE_C));
  const mgDl = calibration.slope * compensated + calibration.intercept;
  const clamped = Math.min(SENSOR_MAX_MG_DL, Math.max(SENSOR_MIN_MG_DL, mgDl));
  return Math.round(clamped * 10) / 10;
}

/** Readings of raw samples (one per sample, timestamp order; non-finite raw values are skipped). */
export function processRaw(
  samples: readonly RawSample[],
  calibration: Calibration,
): ProcessedReading[] {
  return samples
    .filter((s) => Number.isFinite(s.rawValue))
    .map((s) => ({ timestamp: s.timestamp, valueMgDl: processSample(s, calibration) }))
    .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
}
