/**
 * Sun advice: the sun's path over one local day at a place, a clear-sky UV index estimate from the
 * sun's elevation, and the minutes of midday exposure advised for a Fitzpatrick skin type. Formulas
 * and their limits: docs/scores.md ("Sun advice"). No weather or ozone data: the UV index is what a
 * cloudless sky with 300 DU of ozone would give, an upper estimate on a cloudy day.
 * The sun's position comes from `suncalc` (astronomical formulas after NOAA / Meeus); the functions
 * below the service are pure.
 */
import { getPosition, getTimes } from 'suncalc';
import type { AuthedContext } from '../../graphql/context.ts';
import { dayBounds, localDateOf, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import { clock } from '../../base/clock.ts';

/** Minimal erythemal dose (J/m², erythemally weighted) per Fitzpatrick skin type I..VI. */
export const MED_J_M2: readonly number[] = [200, 250, 300, 450, 600, 1000];
/** One UV index unit is 25 mW/m² of erythemally weighted irradiance. */
export const UVI_W_M2 = 0.025;
/** Advised exposure: this share of the time to a minimal erythemal dose at the day's peak UV ... */
export const ADVISED_SHARE_OF_MED = 0.5;
/** ... and never more than this many minutes. */
export const ADVISED_MAX_MINUTES = 60;
/** Below this peak UV index the skin makes too little vitamin D for exposure to be advised. */
export const VITAMIN_D_MIN_UVI = 3;

export interface SunHour {
  /** the start of the local hour */
  at: Date;
  elevationDeg: number;
  uvIndex: number;
}

export interface SunAdviceView {
  date: LocalDate;
  timezone: string;
  latitude: number;
  longitude: number;
  skinType: number;
  sunrise: Date | null;
  sunset: Date | null;
  solarNoon: Date;
  maxElevationDeg: number;
  peakUvIndex: number;
  /** WHO category of the peak: low, moderate, high, very_high, extreme */
  uvCategory: string;
  /** minutes of midday sun to a minimal erythemal dose (sunburn) at the peak UV index; null without UV */
  minutesToBurn: number | null;
  /** minutes of unprotected midday exposure advised (0 when the UV is too low to help or too high) */
  advisedMinutes: number;
  advice: string;
  /** the daylight hours of the day (the sun above the horizon at the hour's start) */
  hours: SunHour[];
}

export interface SunAdviceOptions {
  latitude: number;
  longitude: number;
  /** local date YYYY-MM-DD; default today in the person's zone */
  date?: LocalDate | null;
  /** Fitzpatrick skin type 1..6 */
  skinType: number;
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

/** The sun's elevation above the horizon, degrees (refraction-corrected), at `at` and a place. */
export function sunElevationDeg(at: Date, latitude: number, longitude: number): number {
  return getPosition(at, latitude, longitude).altitude;
}

/**
 * Clear-sky UV index from the sun's elevation (Madronich 2007, ozone 300 DU):
 * UVI = 12.5 * cos(zenith)^2.42, with cos(zenith) = sin(elevation); 0 with the sun below the horizon.
 */
export function clearSkyUvIndex(elevationDeg: number): number {
  if (elevationDeg <= 0) return 0;
  return 12.5 * Math.sin((elevationDeg * Math.PI) / 180) ** 2.42;
}

/** WHO UV index categories. */
export function uvCategory(uvi: number): string {
  if (uvi < 3) return 'low';
  if (uvi < 6) return 'moderate';
  if (uvi < 8) return 'high';
  if (uvi < 11) return 'very_high';
  return 'extreme';
}

/** Minutes to a minimal erythemal dose of skin type 1..6 at a UV index: MED / (UVI * 0.025 W/m² * 60 s). */
export function minutesToBurn(uvi: number, skinType: number): number | null {
  if (uvi <= 0) return null;
  return MED_J_M2[skinType - 1] / (uvi * UVI_W_M2 * 60);
}

/** Advised minutes: half the time to burn at the peak, at most 60; none when the peak UV is below 3. */
export function advisedMinutes(peakUvi: number, skinType: number): number {
  const burn = minutesToBurn(peakUvi, skinType);
  if (burn === null || peakUvi < VITAMIN_D_MIN_UVI) return 0;
  return Math.min(ADVISED_MAX_MINUTES, Math.floor(burn * ADVISED_SHARE_OF_MED));
}

function adviceText(peak: number, minutes: number): string {
  if (peak < VITAMIN_D_MIN_UVI)
    return 'The UV index stays below 3 today: little vitamin D is made and no protection is needed.';
  const protect =
    peak >= 8
      ? ' Avoid the midday sun beyond that; use shade, clothing and sunscreen.'
      : ' Then cover up or use sunscreen.';
  return `Up to ${minutes} minutes of midday sun on arms and face, without sunscreen.${protect}`;
}

/** The advice for one local day at a place (pure: the zone is given). */
export function sunAdviceFor(
  options: SunAdviceOptions & { date: LocalDate; timezone: string },
): SunAdviceView {
  const { latitude, longitude, date, timezone, skinType } = options;
  const { start, end } = dayBounds(date, timezone);
  const noonGuess = localTime(date, 12, timezone);
  const times = getTimes(noonGuess, latitude, longitude);
  // the solar noon of the local day (for far-off longitudes, suncalc's solar day may differ by one)
  let solarNoon = times.solarNoon;
  if (solarNoon < start) solarNoon = new Date(solarNoon.getTime() + 86_400_000);
  if (solarNoon >= end) solarNoon = new Date(solarNoon.getTime() - 86_400_000);
  const maxElevation = sunElevationDeg(solarNoon, latitude, longitude);
  const peak = clearSkyUvIndex(maxElevation);
  const hours: SunHour[] = [];
  for (let at = start.getTime(); at < end.getTime(); at += 3_600_000) {
    const elevation = sunElevationDeg(new Date(at), latitude, longitude);
    if (elevation > 0)
      hours.push({
        at: new Date(at),
        elevationDeg: round1(elevation),
        uvIndex: round1(clearSkyUvIndex(elevation)),
      });
  }
  const burn = minutesToBurn(peak, skinType);
  const minutes = advisedMinutes(peak, skinType);
  const inDay = (d: Date | null): Date | null => (d && d >= start && d < end ? d : null);
  return {
    date,
    timezone,
    latitude,
    longitude,
    skinType,
    sunrise: inDay(times.sunrise),
    sunset: inDay(times.sunset),
    solarNoon,
    maxElevationDeg: round1(maxElevation),
    peakUvIndex: round1(peak),
    uvCategory: uvCategory(peak),
    minutesToBurn: burn === null ? null : Math.round(burn),
    advisedMinutes: minutes,
    advice: adviceText(peak, minutes),
    hours,
  };
}

/** Sun advice for a day (default today) in the person's time zone at the given place. */
export async function sunAdvice(
  ctx: AuthedContext,
  options: SunAdviceOptions,
): Promise<SunAdviceView> {
  const timezone = await personZone(ctx);
  const date = options.date ?? localDateOf(clock.now(), timezone);
  return sunAdviceFor({ ...options, date, timezone });
}
