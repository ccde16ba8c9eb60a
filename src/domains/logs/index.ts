/**
 * What other domains use of the logs domain (insights' blood-pressure and sun scores, goals'
 * hydration).
 */
export { bloodPressureBetween } from './logs.blood-pressure.ts';
export { dailyHydration } from './logs.daily.ts';
export type { DailyHydrationView } from './logs.daily.ts';
export { sunSessionsBetween } from './logs.entries.ts';
export { ANY_DURATION, ANY_VALUE, DIASTOLIC, LOG_KINDS, PULSE, SYSTOLIC } from './logs.kinds.ts';
