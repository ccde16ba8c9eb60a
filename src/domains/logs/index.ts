/**
 * What other domains use of the logs domain (insights' blood-pressure and sun scores, goals'
 * hydration, health's activity trend's logged weights).
 */
export { bloodPressureBetween } from './logs.blood-pressure.ts';
export { dailyHydration, dailyWeights } from './logs.daily.ts';
export type { DailyHydrationView, DailyWeightView } from './logs.daily.ts';
export { sunSessionsBetween } from './logs.entries.ts';
export { ANY_DURATION, ANY_VALUE, DIASTOLIC, LOG_KINDS, PULSE, SYSTOLIC } from './logs.kinds.ts';
export { bloodPressureExport, logEntriesExport } from './logs.export-rows.ts';
