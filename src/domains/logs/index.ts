/** What other domains use of the logs domain (insights' blood-pressure and sun scores). */
export { bloodPressureBetween } from './logs.blood-pressure.ts';
export { sunSessionsBetween } from './logs.entries.ts';
export { ANY_DURATION, ANY_VALUE, DIASTOLIC, LOG_KINDS, PULSE, SYSTOLIC } from './logs.kinds.ts';
