/** What other domains may use of the nutrition domain (glucose responses of meals). */
export { responsesOfMeals, samplesAround } from './nutrition.service.ts';
export type { MealMoment } from './nutrition.service.ts';
export { glucoseResponse } from './nutrition.response.ts';
export type {
  GlucoseResponse,
  GlucoseSample,
  NoResponseReason,
  ResponseResult,
} from './nutrition.response.ts';
